//! Declaring a frame: each pass's resource uses and its recording code sit together.
//!
//! [`FrameBuilder::pass`] takes a name, a kind and a *setup* closure; setup declares the
//! pass's uses through a [`PassDecl`] and returns the pass's *body*, the closure that records
//! it (Filament's `addPass(name, setup, execute)`). Resources are typed ([`ImageRef`],
//! [`BufferRef`]) and images may be sized relative to the output ([`Size`]), so a resize
//! re-plans with no renderer code. The result is a plain [`tessera_graph::Graph`] plus the
//! bodies indexed by [`PassId`]; [`FrameBodies`] runs them for the executor.
//!
//! The frame is declared every frame: declaring is a few allocations, and the executor's
//! compile cache makes an unchanged frame's plan cost a hash.

use crate::gpu::pipelines::Pipelines;
use crate::gpu::scene::SceneGpu;
use crate::RenderError;
use ash::vk;
use std::cell::RefCell;
use tessera_graph::graph::ResourceId;
use tessera_graph::{Access, ClearValue, Format, Graph, ImageDesc, PassId, PassKind, QueueKind};
use tessera_vk::executor::{PassBodies, PassSetup, RecordContext};
use tessera_vk::{Gpu, VkError};

/// An image of the frame's graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageRef(pub ResourceId);

/// A buffer of the frame's graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferRef(pub ResourceId);

/// The size of an image: a fraction of the render size, the output's size, or fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// `num / den` of the render size (the output's size times the resolution scale),
    /// rounded up, at least 1 pixel.
    Render {
        /// Numerator.
        num: u32,
        /// Denominator.
        den: u32,
    },
    /// The output's size (what the last pass writes and the window shows).
    Output,
    /// Fixed pixels.
    Fixed(u32, u32),
}

impl Size {
    /// The render size.
    pub const FULL: Size = Size::Render { num: 1, den: 1 };
    /// Half the render size.
    pub const HALF: Size = Size::Render { num: 1, den: 2 };
    /// A quarter of the render size.
    pub const QUARTER: Size = Size::Render { num: 1, den: 4 };

    /// `1 / 2^level` of the render size (mip `level` of a chain).
    pub fn mip(level: u32) -> Size {
        Size::Render {
            num: 1,
            den: 1 << level.min(16),
        }
    }

    /// Pixels for a render size of `render` and an output of `output`.
    pub fn resolve(self, render: vk::Extent2D, output: vk::Extent2D) -> (u32, u32) {
        match self {
            Size::Render { num, den } => {
                let f = |x: u32| (u64::from(x) * u64::from(num)).div_ceil(u64::from(den.max(1)));
                (
                    f(render.width).max(1) as u32,
                    f(render.height).max(1) as u32,
                )
            }
            Size::Output => (output.width.max(1), output.height.max(1)),
            Size::Fixed(w, h) => (w.max(1), h.max(1)),
        }
    }
}

/// The render size for an output of `output` at `scale` (each side rounded, at least 1).
pub fn render_extent(output: vk::Extent2D, scale: f32) -> vk::Extent2D {
    let f = |x: u32| ((x as f32 * scale).round() as u32).max(1);
    vk::Extent2D {
        width: f(output.width),
        height: f(output.height),
    }
}

/// What a pass body gets when it records.
pub struct PassContext<'a, 'r> {
    /// The device.
    pub gpu: &'a Gpu,
    /// The executor's view of the pass (render pass, subpass, uses).
    pub pass: &'a PassSetup,
    /// This frame's resources and per-frame allocations.
    pub frame: &'a mut RecordContext<'r>,
    /// The command buffer (inside the pass's subpass for raster passes).
    pub cmd: vk::CommandBuffer,
    shared: Option<Shared<'a>>,
}

/// What every body records with: the renderer's device-lifetime objects. A frame declared
/// without them (`tessera plan --frame`) has bodies that cannot record.
#[derive(Clone, Copy, Debug)]
pub struct Shared<'a> {
    /// The uploaded scene.
    pub scene: &'a SceneGpu,
    /// The pipelines.
    pub pipelines: &'a RefCell<Pipelines>,
}

impl std::fmt::Debug for PassContext<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassContext")
            .field("pass", &self.pass.name)
            .finish()
    }
}

impl<'a> PassContext<'a, '_> {
    fn shared(&self) -> Result<Shared<'a>, RenderError> {
        self.shared.ok_or_else(|| {
            RenderError::Frame(format!(
                "pass '{}' records in a frame declared without a device",
                self.pass.name
            ))
        })
    }

    /// The uploaded scene.
    pub fn scene(&self) -> Result<&'a SceneGpu, RenderError> {
        Ok(self.shared()?.scene)
    }

    /// The renderer's pipelines.
    pub fn pipelines(&self) -> Result<&'a RefCell<Pipelines>, RenderError> {
        Ok(self.shared()?.pipelines)
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

    /// The Vulkan image (and its views) behind `image` this frame.
    pub fn image(&self, image: ImageRef) -> Result<tessera_vk::resources::ImageRes, RenderError> {
        self.frame.image(image.0).copied().ok_or_else(|| {
            RenderError::Frame(format!(
                "pass '{}': image {:?} has no Vulkan image",
                self.pass.name, image.0
            ))
        })
    }

    /// The Vulkan buffer behind `buffer` this frame.
    pub fn buffer(&self, buffer: BufferRef) -> Result<vk::Buffer, RenderError> {
        self.frame.buffer(buffer.0).ok_or_else(|| {
            RenderError::Frame(format!(
                "pass '{}': buffer {:?} has no Vulkan buffer",
                self.pass.name, buffer.0
            ))
        })
    }
}

/// The recording code of one pass.
pub type Body<'a> = Box<dyn FnMut(&mut PassContext<'_, '_>) -> Result<(), RenderError> + 'a>;

/// One use a [`PassDecl`] collected.
#[derive(Clone, Copy, Debug)]
struct DeclUse {
    resource: ResourceId,
    access: Access,
    clear: Option<ClearValue>,
}

/// The uses of the pass being declared.
#[derive(Debug)]
pub struct PassDecl {
    uses: Vec<DeclUse>,
    queue: QueueKind,
    side_effects: bool,
}

impl PassDecl {
    fn push(&mut self, resource: ResourceId, access: Access, clear: Option<ClearValue>) {
        self.uses.push(DeclUse {
            resource,
            access,
            clear,
        });
    }

    /// Writes every pixel of a colour attachment.
    pub fn color(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::ColorWriteAll, None);
        self
    }

    /// Clears a colour attachment to `rgba`, then writes it (pixels may stay cleared).
    pub fn color_cleared(&mut self, image: ImageRef, rgba: [f32; 4]) -> &mut Self {
        self.push(image.0, Access::ColorWrite, Some(ClearValue::Color(rgba)));
        self
    }

    /// Reads and writes a colour attachment (blending).
    pub fn blend(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::ColorReadWrite, None);
        self
    }

    /// Clears a depth attachment to `depth`, then tests and writes it.
    pub fn depth_cleared(&mut self, image: ImageRef, depth: f32) -> &mut Self {
        let clear = ClearValue::DepthStencil { depth, stencil: 0 };
        self.push(image.0, Access::DepthWrite, Some(clear));
        self
    }

    /// Tests against a depth attachment without writing it.
    pub fn depth_read(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::DepthRead, None);
        self
    }

    /// Reads the same pixel of `image` (`subpassLoad`).
    pub fn input(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::InputAttachment, None);
        self
    }

    /// Samples `image` anywhere.
    pub fn sampled(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::Sampled, None);
        self
    }

    /// Reads `buffer` as vertex attributes.
    pub fn vertices(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::VertexBuffer, None);
        self
    }

    /// Reads `buffer` as indices.
    pub fn indices(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::IndexBuffer, None);
        self
    }

    /// Reads `buffer` as a uniform buffer.
    pub fn uniform(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::Uniform, None);
        self
    }

    /// Reads `buffer` as a storage buffer.
    pub fn storage_read(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::StorageRead, None);
        self
    }

    /// Writes `buffer` from a shader (storage); parts may stay untouched.
    pub fn storage_write(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::StorageWrite, None);
        self
    }

    /// Reads and writes `buffer` from a shader (atomics, accumulation, a temporal value).
    pub fn storage_read_write(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::StorageReadWrite, None);
        self
    }

    /// Reads `image` as a storage image (`imageLoad`, layout `GENERAL`).
    pub fn image_load(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::StorageRead, None);
        self
    }

    /// Writes `image` as a storage image (`imageStore`, layout `GENERAL`).
    pub fn image_store(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::StorageWrite, None);
        self
    }

    /// Copies from `image`.
    pub fn copy_from(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::TransferSrc, None);
        self
    }

    /// Copies into `buffer`.
    pub fn copy_to(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::TransferDst, None);
        self
    }

    /// Clears `buffer` (`vkCmdFillBuffer`) before a pass accumulates into it.
    pub fn fill(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::TransferDst, None);
        self
    }

    /// Asks for the async-compute queue (compute passes).
    pub fn async_compute(&mut self) -> &mut Self {
        self.queue = QueueKind::AsyncCompute;
        self
    }

    /// Never culled: the pass writes something the graph does not see (a read-back).
    pub fn side_effects(&mut self) -> &mut Self {
        self.side_effects = true;
        self
    }
}

/// How an imported resource behaves across frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportFlags {
    /// A different object every frame (a frame slot's buffer, a swapchain image).
    pub per_frame: bool,
    /// Its content at the frame's start is not needed.
    pub clear_on_first_use: bool,
    /// Left ready for presentation.
    pub present: bool,
}

/// A frame being declared.
pub struct FrameBuilder<'a> {
    graph: Graph,
    output: vk::Extent2D,
    render: vk::Extent2D,
    bodies: Vec<Option<Body<'a>>>,
}

impl std::fmt::Debug for FrameBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameBuilder")
            .field("graph", &self.graph.name)
            .field("passes", &self.graph.passes.len())
            .finish()
    }
}

impl<'a> FrameBuilder<'a> {
    /// An empty frame rendering at `output`.
    pub fn new(name: &str, output: vk::Extent2D) -> Self {
        FrameBuilder {
            graph: Graph::new(name),
            output,
            render: output,
            bodies: Vec::new(),
        }
    }

    /// Renders at `scale` of the output's size ([`Size::Render`] images).
    pub fn with_scale(mut self, scale: f32) -> Self {
        self.render = render_extent(self.output, scale);
        self
    }

    /// The output's size.
    pub fn output(&self) -> vk::Extent2D {
        self.output
    }

    /// The render size (the output's times the resolution scale).
    pub fn render_size(&self) -> vk::Extent2D {
        self.render
    }

    /// The pixels `size` stands for in this frame.
    pub fn pixels(&self, size: Size) -> (u32, u32) {
        size.resolve(self.render, self.output)
    }

    /// A transient image.
    pub fn image(&mut self, name: &str, format: Format, size: Size) -> ImageRef {
        let (w, h) = self.pixels(size);
        ImageRef(self.graph.image(name, ImageDesc::new(format, w, h)))
    }

    /// A transient buffer.
    pub fn buffer(&mut self, name: &str, size: u64) -> BufferRef {
        BufferRef(self.graph.buffer(name, size))
    }

    /// An image the renderer owns and hands to the executor (the output, a swapchain image).
    pub fn import_image(
        &mut self,
        name: &str,
        format: Format,
        size: Size,
        flags: ImportFlags,
    ) -> ImageRef {
        let (w, h) = self.pixels(size);
        let id = self.graph.image(name, ImageDesc::new(format, w, h));
        self.mark_imported(id, flags);
        ImageRef(id)
    }

    /// A buffer the renderer owns and hands to the executor.
    pub fn import_buffer(&mut self, name: &str, size: u64, flags: ImportFlags) -> BufferRef {
        let id = self.graph.buffer(name, size);
        self.mark_imported(id, flags);
        BufferRef(id)
    }

    fn mark_imported(&mut self, id: ResourceId, flags: ImportFlags) {
        let r = self.graph.resource_mut(id);
        r.imported = true;
        r.per_frame = flags.per_frame;
        r.clear_on_first_use = flags.clear_on_first_use;
        if flags.present {
            r.exit = tessera_graph::graph::Exit::Present;
        }
    }

    /// Declares a pass: `setup` declares its uses and returns its body.
    pub fn pass<F>(
        &mut self,
        name: &str,
        kind: PassKind,
        setup: impl FnOnce(&mut PassDecl) -> F,
    ) -> PassId
    where
        F: FnMut(&mut PassContext<'_, '_>) -> Result<(), RenderError> + 'a,
    {
        let mut decl = PassDecl {
            uses: Vec::new(),
            queue: QueueKind::Graphics,
            side_effects: false,
        };
        let body = setup(&mut decl);
        let mut b = self.graph.pass_builder(name, kind).on_queue(decl.queue);
        if decl.side_effects {
            b = b.side_effects();
        }
        for u in decl.uses {
            b = match u.clear {
                Some(v) => b.clears_to(u.resource, u.access, v),
                None => b.uses(u.resource, u.access),
            };
        }
        let id = b.id();
        self.bodies.resize_with(id.index() + 1, || None);
        self.bodies[id.index()] = Some(Box::new(body));
        id
    }

    /// The declared graph and the bodies of its passes.
    pub fn finish(self) -> (Graph, FrameBodies<'a>) {
        (
            self.graph,
            FrameBodies {
                bodies: self.bodies,
                rebuilt: 0,
                skip: None,
                shared: None,
            },
        )
    }
}

/// The bodies of a declared frame, as the executor calls them (by [`PassId`]).
pub struct FrameBodies<'a> {
    bodies: Vec<Option<Body<'a>>>,
    /// Times the executor told these bodies the plan changed.
    pub rebuilt: u64,
    /// A pass whose body records nothing (tests show that the golden images see it).
    pub skip: Option<String>,
    /// What the bodies record with; `None` for a frame declared only for its plan.
    pub shared: Option<Shared<'a>>,
}

impl std::fmt::Debug for FrameBodies<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameBodies")
            .field("passes", &self.bodies.len())
            .finish()
    }
}

impl FrameBodies<'_> {
    /// No bodies: for waiting on the frames in flight outside a frame.
    pub fn empty() -> FrameBodies<'static> {
        FrameBodies {
            bodies: Vec::new(),
            rebuilt: 0,
            skip: None,
            shared: None,
        }
    }
}

impl PassBodies for FrameBodies<'_> {
    fn rebuilt(&mut self, _gpu: &Gpu, _passes: &[PassSetup]) -> Result<(), VkError> {
        // Bodies look their resources up when they record (descriptor sets are written per
        // frame) and pipelines are keyed by render pass: nothing to re-point.
        self.rebuilt += 1;
        Ok(())
    }

    fn record(
        &mut self,
        ctx: &mut RecordContext<'_>,
        pass: &PassSetup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        if self.skip.as_deref() == Some(pass.name.as_str()) {
            return Ok(());
        }
        let gpu = ctx.gpu;
        let body = self
            .bodies
            .get_mut(pass.id.index())
            .and_then(Option::as_mut)
            .ok_or_else(|| VkError::MissingBody {
                pass: pass.name.clone(),
            })?;
        let mut pc = PassContext {
            gpu,
            pass,
            frame: ctx,
            cmd,
            shared: self.shared,
        };
        body(&mut pc).map_err(|e| {
            let context = format!("recording '{}'", pass.name);
            match e {
                // The Vulkan error keeps its variant (a lost device stays one).
                RenderError::Exec(e) => e.context(context),
                e => VkError::Setup(format!("{context}: {e}")),
            }
        })
    }

    fn destroy(&mut self, _gpu: &Gpu) {}
}
