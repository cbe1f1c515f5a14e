//! The Vulkan side of the window: the device, the window's surface, the swapchain and the
//! renderer drawing into it, and how their errors read.

use anyhow::Context;
use ash::vk;
use std::sync::Arc;
use tessera_render::Renderer;
use tessera_vk::swapchain::{PresentMode, Swapchain};
use tessera_vk::{Gpu, VkError, WindowSurface};
use winit::window::Window;

/// The open window and everything drawn into it. Field order is drop order: the renderer
/// and the swapchain go before the surface, the surface before the device, the device
/// before the window.
pub struct Presenter {
    pub renderer: Renderer,
    pub swapchain: Option<Swapchain>,
    /// The window's surface; `None` while suspended (the platform took the window away).
    pub surface: Option<Arc<WindowSurface>>,
    pub gpu: Arc<Gpu>,
    pub window: Arc<Window>,
    /// The swapchain must be recreated before the next frame.
    pub stale: bool,
}

/// A new surface for `window` (at open and on each resume).
pub fn new_surface(gpu: &Arc<Gpu>, window: &Arc<Window>) -> anyhow::Result<Arc<WindowSurface>> {
    let surface = WindowSurface::new(gpu, window.clone())
        .map_err(explain_vk)
        .context("creating the window surface")?;
    Ok(Arc::new(surface))
}

impl Presenter {
    /// The swapchain is recreated before the next frame, which is asked for.
    pub fn redraw_stale(&mut self) {
        self.stale = true;
        self.window.request_redraw();
    }

    /// Waits for the frames in flight, then drops the swapchain and the surface (the
    /// platform takes the window away). Everything else stays for the resume.
    pub fn drop_surface(&mut self) -> anyhow::Result<()> {
        // The swapchain's views go: nothing made for them may outlive them.
        self.renderer.forget_targets()?;
        self.gpu.wait_idle().map_err(explain_vk)?;
        self.swapchain = None;
        self.surface = None;
        Ok(())
    }

    /// Recreates the swapchain for the window's size, pre-rotated on a rotated surface
    /// (Android away from its native orientation); its extent (the native one) and the
    /// quarter turns clockwise the presentation applies, or `None` when there is none (the
    /// window is 0×0, or suspended).
    pub fn recreate_swapchain(
        &mut self,
        present_mode: PresentMode,
    ) -> anyhow::Result<Option<(vk::Extent2D, u32)>> {
        self.stale = false;
        let Some(surface) = self.surface.clone() else {
            return Ok(None);
        };
        let size = self.window.inner_size();
        // Every frame that used the old swapchain (rendering and presenting) is done, and
        // nothing made for its views outlives them.
        self.renderer.forget_targets()?;
        self.gpu.wait_idle().map_err(explain_vk)?;
        let extent = vk::Extent2D {
            width: size.width,
            height: size.height,
        };
        let old = self.swapchain.take();
        self.swapchain = Swapchain::create(&surface, extent, present_mode, true, old)
            .map_err(explain_vk)
            .context("creating the swapchain")?;
        let Some(sc) = &self.swapchain else {
            return Ok(None);
        };
        self.renderer.set_targets_readable(sc.can_read_back());
        Ok(Some((sc.extent, sc.rotation)))
    }

    /// Waits for the GPU and closes everything; the validation messages counted, the
    /// destruction's included.
    pub fn close(mut self) -> (u64, Vec<String>) {
        if let Err(e) = self.renderer.wait() {
            log::error!("waiting for the last frames: {e}");
        }
        let _ = self.gpu.wait_idle();
        // The renderer and the swapchain are freed before the messages are counted:
        // destruction is validated too.
        let gpu = self.gpu.clone();
        drop(self);
        (gpu.messages.count(), gpu.messages.texts())
    }
}

/// One message for a Vulkan error, saying plainly when the device or the surface is lost.
pub fn explain(e: tessera_render::RenderError) -> anyhow::Error {
    match lost(&e) {
        Some(what) => anyhow::anyhow!("{what} was lost ({e})"),
        None => anyhow::Error::new(e),
    }
}

/// What an error says was lost, by its variant: the GPU device or the window surface.
fn lost(e: &tessera_render::RenderError) -> Option<&'static str> {
    match e.vk()? {
        VkError::DeviceLost => Some("the GPU device"),
        VkError::SurfaceLost => Some("the window surface"),
        _ => None,
    }
}

pub fn explain_vk(e: VkError) -> anyhow::Error {
    explain(e.into())
}

#[cfg(test)]
mod tests {
    use super::{explain, lost};
    use ash::vk;
    use tessera_render::RenderError;
    use tessera_vk::VkError;

    #[test]
    fn a_lost_device_is_recognised_by_its_variant() {
        let e = VkError::from(vk::Result::ERROR_DEVICE_LOST);
        assert!(matches!(e, VkError::DeviceLost));
        assert_eq!(lost(&e.into()), Some("the GPU device"));
        // Behind a pass's context too.
        let e = VkError::from(vk::Result::ERROR_DEVICE_LOST).context("pass 'shade'");
        let text = explain(e.into()).to_string();
        assert!(text.starts_with("the GPU device was lost (pass 'shade': vulkan: "));
        let e = RenderError::from(vk::Result::ERROR_SURFACE_LOST_KHR);
        assert_eq!(lost(&e), Some("the window surface"));
        // Text alone is not a lost device.
        assert_eq!(lost(&RenderError::Frame("ERROR_DEVICE_LOST".into())), None);
        assert_eq!(
            lost(&VkError::Setup("vulkan: ERROR_DEVICE_LOST".into()).into()),
            None
        );
    }
}
