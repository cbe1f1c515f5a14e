//! The device's size limits, checked on a graph before anything of it is created: an image
//! or a framebuffer beyond them is one clear error instead of invalid Vulkan calls (which
//! the validation layers report, and a driver without them may not survive).

use crate::device::Gpu;
use crate::VkError;
use ash::vk;
use tessera_graph::graph::ResourceKind;
use tessera_graph::Graph;

/// The largest 2D image and attachment extents a device allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtentLimits {
    /// `maxImageDimension2D`: the largest side of a 2D image.
    pub image_side: u32,
    /// `maxFramebufferWidth` and `maxFramebufferHeight`: the largest render area.
    pub framebuffer: (u32, u32),
}

impl ExtentLimits {
    /// The limits in `limits`.
    pub fn of(limits: &vk::PhysicalDeviceLimits) -> ExtentLimits {
        ExtentLimits {
            image_side: limits.max_image_dimension2_d,
            framebuffer: (limits.max_framebuffer_width, limits.max_framebuffer_height),
        }
    }

    /// Checks every image of `graph`: its sides against the image limit and, when a pass
    /// uses it as an attachment, against the framebuffer limits. The error names the first
    /// image beyond them, its size and the limit.
    pub fn check(&self, graph: &Graph) -> Result<(), String> {
        let mut attachment = vec![false; graph.resources.len()];
        for u in graph.passes.iter().flat_map(|p| &p.uses) {
            if u.access.is_attachment() {
                if let Some(a) = attachment.get_mut(u.resource.index()) {
                    *a = true;
                }
            }
        }
        for (r, &is_attachment) in graph.resources.iter().zip(&attachment) {
            let ResourceKind::Image(d) = &r.kind else {
                continue;
            };
            let side = self.image_side;
            let beyond = if d.width > side || d.height > side {
                Some(format!("{side}x{side} (maxImageDimension2D)"))
            } else if is_attachment
                && (d.width > self.framebuffer.0 || d.height > self.framebuffer.1)
            {
                Some(format!(
                    "{}x{} for an attachment (maxFramebufferWidth/Height)",
                    self.framebuffer.0, self.framebuffer.1
                ))
            } else {
                None
            };
            if let Some(limit) = beyond {
                return Err(format!(
                    "'{}' would be {}x{} pixels; this device allows at most {limit}: \
                     a smaller output or resolution scale fits",
                    r.name, d.width, d.height
                ));
            }
        }
        Ok(())
    }
}

impl Gpu {
    /// The device's [`ExtentLimits`].
    pub fn extent_limits(&self) -> ExtentLimits {
        ExtentLimits::of(&self.properties.limits)
    }

    /// [`ExtentLimits::check`] of `graph` on this device, as [`VkError::Unsupported`].
    pub fn check_extents(&self, graph: &Graph) -> Result<(), VkError> {
        self.extent_limits()
            .check(graph)
            .map_err(VkError::Unsupported)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_graph::{Access, Format, ImageDesc};

    fn graph(width: u32, height: u32, access: Access) -> Graph {
        let mut g = Graph::new("limits");
        let img = g.image("big", ImageDesc::new(Format::R8G8B8A8_UNORM, width, height));
        g.raster("draw").uses(img, access);
        g
    }

    #[test]
    fn images_and_attachments_beyond_the_limits_are_named() {
        let limits = ExtentLimits {
            image_side: 16384,
            framebuffer: (8192, 8192),
        };
        assert!(limits.check(&graph(8192, 8, Access::ColorWrite)).is_ok());
        let e = limits.check(&graph(16385, 8, Access::Sampled)).unwrap_err();
        assert!(
            e.contains("'big' would be 16385x8") && e.contains("maxImageDimension2D"),
            "{e}"
        );
        let e = limits
            .check(&graph(8193, 8, Access::ColorWrite))
            .unwrap_err();
        assert!(e.contains("maxFramebufferWidth"), "{e}");
        assert!(limits.check(&graph(8193, 8, Access::Sampled)).is_ok());
    }
}
