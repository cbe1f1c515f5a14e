//! What a pass body records with.

use super::decl::{Binding, BufferRef, ImageRef};
use crate::RenderError;
use ash::vk;
use tessera_vk::executor::{PassSetup, RecordContext};
use tessera_vk::Gpu;

/// What a pass body gets when it records. `S` is what every body of the frame shares (the
/// renderer's device-lifetime objects): the builder does not know it.
pub struct PassContext<'a, 'r, S> {
    /// The device.
    pub gpu: &'a Gpu,
    /// The executor's view of the pass (render pass, subpass, uses).
    pub pass: &'a PassSetup,
    /// This frame's resources and per-frame allocations.
    pub frame: &'a mut RecordContext<'r>,
    /// The command buffer (inside the pass's subpass for raster passes).
    pub cmd: vk::CommandBuffer,
    shared: Option<S>,
    bindings: &'a [Binding],
}

impl<S> std::fmt::Debug for PassContext<'_, '_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassContext")
            .field("pass", &self.pass.name)
            .finish()
    }
}

impl<'a, 'r, S: Copy> PassContext<'a, 'r, S> {
    pub(super) fn new(
        gpu: &'a Gpu,
        pass: &'a PassSetup,
        frame: &'a mut RecordContext<'r>,
        cmd: vk::CommandBuffer,
        shared: Option<S>,
        bindings: &'a [Binding],
    ) -> Self {
        PassContext {
            gpu,
            pass,
            frame,
            cmd,
            shared,
            bindings,
        }
    }

    /// What every body shares; an error in a frame declared without a device (`tessera
    /// plan --frame`), whose bodies cannot record.
    pub fn shared(&self) -> Result<S, RenderError> {
        self.shared.ok_or_else(|| {
            RenderError::Frame(format!(
                "pass '{}' records in a frame declared without a device",
                self.pass.name
            ))
        })
    }

    /// The descriptor bindings the pass declared, in declaration order.
    pub fn bindings(&self) -> &'a [Binding] {
        self.bindings
    }

    /// The render pass, subpass index and render area of a raster pass.
    pub fn subpass(&self) -> Result<(vk::RenderPass, u32, vk::Extent2D), RenderError> {
        self.pass.subpass.ok_or_else(|| {
            RenderError::Frame(format!(
                "pass '{}' records outside a render pass",
                self.pass.name
            ))
        })
    }

    /// Samples per pixel of the pass's attachments (its colour and depth: the subpass's
    /// rasterization samples; 1 outside a render pass). A resolve target is single-sampled
    /// and does not count.
    pub fn samples(&self) -> u32 {
        use tessera_graph::Access as A;
        self.pass
            .uses
            .iter()
            .filter(|u| {
                matches!(
                    u.access,
                    A::ColorWrite
                        | A::ColorWriteAll
                        | A::ColorReadWrite
                        | A::DepthWrite
                        | A::DepthRead
                )
            })
            .filter_map(|u| self.frame.image(u.resource).map(|i| i.samples))
            .max()
            .unwrap_or(1)
    }

    /// The Vulkan image (and its views) behind `image` this frame.
    pub fn image(&self, image: ImageRef) -> Result<tessera_vk::resources::ImageRes, RenderError> {
        self.frame.image(image.id()).copied().ok_or_else(|| {
            RenderError::Frame(format!(
                "pass '{}': image {:?} has no Vulkan image",
                self.pass.name,
                image.id()
            ))
        })
    }

    /// Whether the history image `image` holds a previous frame's content this frame:
    /// false on the first frame after the executor (re)created it (the first frame, a
    /// resize, a description change), when a temporal pass resets instead of reading it.
    pub fn image_history_valid(&self, image: ImageRef) -> bool {
        self.frame.history_valid(image.id())
    }

    /// [`Self::image_history_valid`] for a history buffer.
    pub fn buffer_history_valid(&self, buffer: BufferRef) -> bool {
        self.frame.history_valid(buffer.id())
    }

    /// The Vulkan buffer behind `buffer` this frame.
    pub fn buffer(&self, buffer: BufferRef) -> Result<vk::Buffer, RenderError> {
        self.frame.buffer(buffer.id()).ok_or_else(|| {
            RenderError::Frame(format!(
                "pass '{}': buffer {:?} has no Vulkan buffer",
                self.pass.name,
                buffer.id()
            ))
        })
    }
}
