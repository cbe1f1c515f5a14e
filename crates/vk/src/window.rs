//! The window a device is opened for, and raw surface creation. Both the device (its
//! instance extensions, a probe surface) and [`crate::surface`] need them, so they live
//! below both; the public types are re-exported from `surface`.

use crate::VkError;
use ash::vk;
use raw_window_handle::{HandleError, RawDisplayHandle, RawWindowHandle};
use std::sync::Arc;

/// A window a surface can be made for (a winit `Window` is one).
pub trait WindowSource:
    raw_window_handle::HasDisplayHandle + raw_window_handle::HasWindowHandle + Send + Sync
{
}

impl<W> WindowSource for W where
    W: raw_window_handle::HasDisplayHandle + raw_window_handle::HasWindowHandle + Send + Sync
{
}

/// The window a device is opened for: its display decides the instance's surface
/// extensions, and the device's graphics family must present to it.
#[derive(Clone)]
pub struct SurfaceRequest {
    pub(crate) window: Arc<dyn WindowSource>,
}

impl std::fmt::Debug for SurfaceRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SurfaceRequest").finish_non_exhaustive()
    }
}

impl SurfaceRequest {
    /// A request for `window`.
    pub fn new(window: Arc<dyn WindowSource>) -> SurfaceRequest {
        SurfaceRequest { window }
    }

    pub(crate) fn handles(&self) -> Result<(RawDisplayHandle, RawWindowHandle), VkError> {
        handles(self.window.as_ref())
    }
}

pub(crate) fn handles(
    window: &dyn WindowSource,
) -> Result<(RawDisplayHandle, RawWindowHandle), VkError> {
    let bad = |e: HandleError| VkError::Setup(format!("the window has no usable handle: {e}"));
    Ok((
        window.display_handle().map_err(bad)?.as_raw(),
        window.window_handle().map_err(bad)?.as_raw(),
    ))
}

/// Creates a `VkSurfaceKHR` for the handles.
///
/// # Safety
/// The handles must be of a live window that outlives the surface, and `instance` must
/// have the extensions ash-window asks for with this display.
pub(crate) unsafe fn create_raw(
    entry: &ash::Entry,
    instance: &ash::Instance,
    (display, window): (RawDisplayHandle, RawWindowHandle),
) -> Result<vk::SurfaceKHR, VkError> {
    // SAFETY: guaranteed by the caller.
    unsafe { ash_window::create_surface(entry, instance, display, window, None) }
        .map_err(|e| VkError::Setup(format!("cannot create the window surface: {e}")))
}
