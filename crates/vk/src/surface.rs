//! Window surfaces, which come and go while the device stays.
//!
//! A platform may take the window's native surface away while the app lives: Android
//! destroys its `ANativeWindow` on `Suspended` and gives a new one on `Resumed`. So the
//! [`Gpu`] does not own a surface. Opened for a window ([`crate::GpuOptions::surface`]),
//! it enables the surface extensions, picks a graphics family that presents to a probe
//! surface of that window, and destroys the probe. The app then makes a [`WindowSurface`]
//! for each life of the native window and drops it (after its swapchain) when the
//! platform takes the window away. The device, the pipelines, the scene and the
//! plan-lifetime resources outlive any surface.
//!
//! Invariants: a surface outlives every swapchain made on it (each swapchain holds a
//! share of it), and the window outlives its surface (the surface holds a share of the
//! window). A new surface is checked for presentation support on the graphics family
//! before any swapchain uses it.
//!
//! Cost: creating a surface is one platform call plus one support query.

use crate::device::Gpu;
use crate::window::{create_raw, handles};
use crate::VkError;
use ash::vk;
use std::sync::Arc;

pub use crate::window::{SurfaceRequest, WindowSource};

/// One life of a window's surface on an open [`Gpu`]; destroyed when the last share
/// (the app's, each swapchain's) drops.
pub struct WindowSurface {
    gpu: Arc<Gpu>,
    loader: ash::khr::surface::Instance,
    surface: vk::SurfaceKHR,
    /// Kept alive until the surface is destroyed (fields drop after `Drop::drop`).
    _window: Arc<dyn WindowSource>,
}

impl std::fmt::Debug for WindowSurface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowSurface")
            .field("surface", &self.surface)
            .finish_non_exhaustive()
    }
}

fn not_for_windows() -> VkError {
    VkError::Setup("the device was opened without a window surface".into())
}

impl WindowSurface {
    /// Makes `window`'s surface on `gpu`, which must have been opened for a window of the
    /// same display, and checks that the graphics queue presents to it.
    pub fn new(gpu: &Arc<Gpu>, window: Arc<dyn WindowSource>) -> Result<WindowSurface, VkError> {
        let loader = gpu.surface_loader.clone().ok_or_else(not_for_windows)?;
        let handles = handles(window.as_ref())?;
        // SAFETY: the handles are the live window's, kept alive by the returned value
        // until the surface is destroyed; the Gpu was opened for this display (its
        // instance has the extensions ash-window asks for).
        let surface = unsafe { create_raw(&gpu.entry, &gpu.instance, handles) }?;
        let made = WindowSurface {
            gpu: gpu.clone(),
            loader,
            surface,
            _window: window,
        };
        // SAFETY: a support query of our physical device's graphics family and the
        // surface just made.
        let presents = unsafe {
            made.loader.get_physical_device_surface_support(
                gpu.physical,
                gpu.graphics.family,
                surface,
            )
        }?;
        if !presents {
            return Err(VkError::Setup(format!(
                "the graphics queue (family {}) of {} cannot present to this window",
                gpu.graphics.family,
                gpu.device_name()
            )));
        }
        Ok(made)
    }

    /// The device the surface belongs to.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// The surface handle.
    pub fn handle(&self) -> vk::SurfaceKHR {
        self.surface
    }

    /// `VK_KHR_surface`'s instance functions.
    pub(crate) fn loader(&self) -> &ash::khr::surface::Instance {
        &self.loader
    }
}

impl Drop for WindowSurface {
    fn drop(&mut self) {
        // SAFETY: every swapchain made on the surface holds a share of it, so none is
        // alive now; the instance lives as long as `self.gpu`.
        unsafe { self.loader.destroy_surface(self.surface, None) };
    }
}
