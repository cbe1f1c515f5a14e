//! The swapchain path without a window (lavapipe, validation on): a headless device opens
//! no surface, and asking it for a swapchain is one clear error, not a crash or a
//! validation message. The windowed path runs in `crates/app/tests/run_cli.rs` (Xvfb).

use ash::vk;
use std::sync::Arc;
use tessera_vk::swapchain::{PresentMode, Swapchain};
use tessera_vk::{Gpu, GpuOptions, VkError};

#[test]
fn a_headless_device_has_no_surface_and_a_swapchain_request_is_one_clear_error() {
    let gpu = Arc::new(
        Gpu::new(&GpuOptions {
            validation: true,
            surface: None,
        })
        .expect("a Vulkan 1.3 device with validation layers"),
    );
    assert!(gpu.surface.is_none());
    let extent = vk::Extent2D {
        width: 64,
        height: 64,
    };
    match Swapchain::create(&gpu, extent, PresentMode::Fifo, None) {
        Err(VkError::Setup(m)) => assert!(m.contains("without a window surface"), "{m}"),
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("a swapchain without a surface"),
    }
    assert_eq!(gpu.messages.count(), 0, "{:#?}", gpu.messages.texts());
}
