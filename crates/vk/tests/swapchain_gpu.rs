//! The surface path without a window (lavapipe, validation on): a headless device makes no
//! window surface, and a window without usable handles is one clear error, not a crash or a
//! validation message. The windowed path (surfaces made, dropped on suspend and made again,
//! swapchains on them) runs in `crates/app/tests/run_cli.rs` (Xvfb).

use raw_window_handle::{
    DisplayHandle, HandleError, HasDisplayHandle, HasWindowHandle, WindowHandle,
};
use std::sync::Arc;
use tessera_vk::{Gpu, GpuOptions, SurfaceRequest, VkError, WindowSurface};

/// A window whose handles are unavailable (as a platform window is between lives).
struct Gone;

impl HasDisplayHandle for Gone {
    fn display_handle(&self) -> Result<DisplayHandle<'_>, HandleError> {
        Err(HandleError::Unavailable)
    }
}

impl HasWindowHandle for Gone {
    fn window_handle(&self) -> Result<WindowHandle<'_>, HandleError> {
        Err(HandleError::Unavailable)
    }
}

fn setup_error(r: Result<impl std::fmt::Debug, VkError>) -> String {
    match r {
        Err(VkError::Setup(m)) => m,
        other => panic!("expected one setup error, got {other:?}"),
    }
}

#[test]
fn a_headless_device_makes_no_window_surface() {
    let gpu = Arc::new(
        Gpu::new(&GpuOptions {
            validation: true,
            surface: None,
            ..Default::default()
        })
        .expect("a Vulkan 1.3 device with validation layers"),
    );
    let m = setup_error(WindowSurface::new(&gpu, Arc::new(Gone)));
    assert!(m.contains("without a window surface"), "{m}");
    assert_eq!(gpu.messages.count(), 0, "{:#?}", gpu.messages.texts());
}

#[test]
fn a_window_without_handles_is_one_clear_error() {
    let r = Gpu::new(&GpuOptions {
        validation: true,
        surface: Some(SurfaceRequest::new(Arc::new(Gone))),
        ..Default::default()
    });
    let m = setup_error(r);
    assert!(m.contains("no usable handle"), "{m}");
}
