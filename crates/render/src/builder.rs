//! Declaring a frame: each pass's resource uses and its recording code sit together.
//!
//! [`FrameBuilder::pass`] takes a name, a kind and a *setup* closure; setup declares the
//! pass's uses through a [`PassDecl`] and returns the pass's *body*, the closure that records
//! it (Filament's `addPass(name, setup, execute)`). Resources are typed ([`ImageRef`],
//! [`BufferRef`]) and images may be sized relative to the output ([`Size`]), so a resize
//! re-plans with no renderer code. A shader-visible use also declares its descriptor
//! binding ([`Binding`]), so bodies write their sets from the declaration. The result is a
//! plain [`tessera_graph::Graph`] plus the bodies indexed by [`PassId`]; [`FrameBodies`]
//! runs them for the executor.
//!
//! The builder is generic over `S`, what every body of the frame records with (the
//! renderer's pipelines and uploaded scene, `crate::gpu::pass`): it knows nothing of them.
//!
//! The frame is declared every frame: declaring is a few allocations, and the executor's
//! compile cache makes an unchanged frame's plan cost a hash.

mod context;
mod decl;
mod size;

pub use context::PassContext;
pub use decl::{Binding, BindingKind, Bound, BufferRef, Filter, ImageRef, PassDecl};
pub use size::{render_extent, Size};

use crate::RenderError;
use ash::vk;
use tessera_graph::graph::ResourceId;
use tessera_graph::{Format, Graph, ImageDesc, PassId, PassKind};
use tessera_vk::executor::{PassBodies, PassSetup, RecordContext};
use tessera_vk::{Gpu, VkError};

/// The recording code of one pass.
pub type Body<'a, S> = Box<dyn FnMut(&mut PassContext<'_, '_, S>) -> Result<(), RenderError> + 'a>;

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
pub struct FrameBuilder<'a, S> {
    graph: Graph,
    output: vk::Extent2D,
    render: vk::Extent2D,
    passes: Vec<Option<DeclaredPass<'a, S>>>,
}

/// A declared pass's body and the bindings it writes.
struct DeclaredPass<'a, S> {
    body: Body<'a, S>,
    bindings: Vec<Binding>,
}

impl<S> std::fmt::Debug for FrameBuilder<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameBuilder")
            .field("graph", &self.graph.name)
            .field("passes", &self.graph.passes.len())
            .finish()
    }
}

/// Passes and resources reserved up front ([`FrameBuilder::new`]): the full frame with
/// every feature on declares fewer.
const FRAME_PASSES: usize = 40;
const FRAME_RESOURCES: usize = 64;

impl<'a, S: Copy> FrameBuilder<'a, S> {
    /// An empty frame rendering at `output`.
    pub fn new(name: &str, output: vk::Extent2D) -> Self {
        // Room for the renderer's frame from the start: a frame declared every frame
        // should not grow its vectors pass by pass (about a third of the declaration's
        // time went to reallocations).
        let mut graph = Graph::new(name);
        graph.passes.reserve(FRAME_PASSES);
        graph.resources.reserve(FRAME_RESOURCES);
        FrameBuilder {
            graph,
            output,
            render: output,
            passes: Vec::with_capacity(FRAME_PASSES),
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
        ImageRef::new(self.graph.image(name, ImageDesc::new(format, w, h)))
    }

    /// A transient multisampled image (`samples` per pixel; 1 is [`Self::image`]): an
    /// attachment that a pass resolves ([`PassDecl::resolve`]) and nothing samples, which
    /// the compiler keeps memoryless on a tiler.
    pub fn image_ms(&mut self, name: &str, format: Format, size: Size, samples: u32) -> ImageRef {
        let (w, h) = self.pixels(size);
        let desc = ImageDesc::new(format, w, h).samples(samples.max(1));
        ImageRef::new(self.graph.image(name, desc))
    }

    /// A transient image of any shape (a cube map, mips).
    pub fn transient_image(&mut self, name: &str, desc: ImageDesc) -> ImageRef {
        ImageRef::new(self.graph.image(name, desc))
    }

    /// A transient buffer.
    pub fn buffer(&mut self, name: &str, size: u64) -> BufferRef {
        BufferRef::new(self.graph.buffer(name, size))
    }

    /// A history image: owned by the graph and kept from one frame to the next (passes read
    /// the previous frame's content with `sampled_previous`). The executor creates it, swaps
    /// its two physical images every frame when the compiler doubles it, and tells bodies
    /// whether the previous content is valid ([`PassContext::image_history_valid`]).
    pub fn history_image(&mut self, name: &str, format: Format, size: Size) -> ImageRef {
        let (w, h) = self.pixels(size);
        ImageRef::new(self.graph.history_image(name, ImageDesc::new(format, w, h)))
    }

    /// A history buffer ([`Self::history_image`]; read the previous content with
    /// `storage_read_previous`).
    pub fn history_buffer(&mut self, name: &str, size: u64) -> BufferRef {
        BufferRef::new(self.graph.history_buffer(name, size))
    }

    /// A persistent image: owned by the graph, kept across frames and re-plans (the
    /// executor makes it once: `Executor::persistent_epoch` changes when it makes it anew).
    /// While `valid` (the content an earlier frame wrote is still right), the passes that
    /// only write it are skipped and their bodies are not called; otherwise they run, read
    /// or not this frame. It rests in `SHADER_READ_ONLY_OPTIMAL` between frames.
    pub fn persistent_image(&mut self, name: &str, desc: ImageDesc, valid: bool) -> ImageRef {
        ImageRef::new(self.graph.persistent_image(name, desc, valid))
    }

    /// A persistent buffer ([`Self::persistent_image`]).
    pub fn persistent_buffer(&mut self, name: &str, size: u64, valid: bool) -> BufferRef {
        BufferRef::new(self.graph.persistent_buffer(name, size, valid))
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
        ImageRef::new(id)
    }

    /// A buffer the renderer owns and hands to the executor.
    pub fn import_buffer(&mut self, name: &str, size: u64, flags: ImportFlags) -> BufferRef {
        let id = self.graph.buffer(name, size);
        self.mark_imported(id, flags);
        BufferRef::new(id)
    }

    fn mark_imported(&mut self, id: ResourceId, flags: ImportFlags) {
        use tessera_graph::graph::{Import, Origin, PerFrameExit, PerFrameImport};
        let clear_on_first_use = flags.clear_on_first_use;
        // A presented image is a different object every frame (the graph has no other kind).
        self.graph.resource_mut(id).origin = match (flags.per_frame, flags.present) {
            (false, false) => Origin::Imported(Import {
                clear_on_first_use,
                discard_on_last_use: false,
            }),
            (_, present) => Origin::ImportedPerFrame(PerFrameImport {
                clear_on_first_use,
                exit: if present {
                    PerFrameExit::Present
                } else {
                    PerFrameExit::Keep
                },
            }),
        };
    }

    /// Declares a pass: `setup` declares its uses and returns its body.
    pub fn pass<F>(
        &mut self,
        name: &str,
        kind: PassKind,
        setup: impl FnOnce(&mut PassDecl) -> F,
    ) -> PassId
    where
        F: FnMut(&mut PassContext<'_, '_, S>) -> Result<(), RenderError> + 'a,
    {
        let mut decl = PassDecl::default();
        let body = setup(&mut decl);
        let mut b = self.graph.pass_builder(name, kind).on_queue(decl.queue);
        if decl.side_effects {
            b = b.side_effects();
        }
        for u in decl.uses {
            if let Some(from) = u.from {
                b = match u.resolve_mode {
                    Some(mode) => b.resolves_depth(u.resource, from, mode),
                    None => b.resolves(u.resource, from),
                };
                continue;
            }
            // (`PassDecl` gives coverage only to uses that neither clear nor read the
            // previous frame.)
            b = match (u.clear, u.previous, u.coverage) {
                (_, true, _) => b.reads_previous(u.resource, u.access),
                (Some(v), false, _) => b.clears_to(u.resource, u.access, v),
                (None, false, Some(d)) => b.covered(u.resource, u.access, d),
                (None, false, None) => b.uses(u.resource, u.access),
            };
        }
        let id = b.id();
        self.passes.resize_with(id.index() + 1, || None);
        self.passes[id.index()] = Some(DeclaredPass {
            body: Box::new(body),
            bindings: decl.bindings,
        });
        id
    }

    /// The declared graph, its history resources lowered (a doubled one's previous uses
    /// name its `(previous)` twin, and so do their bindings), and the bodies of its passes.
    pub fn finish(mut self) -> (Graph, FrameBodies<'a, S>) {
        tessera_graph::history::lower_in_place(&mut self.graph);
        let g = &self.graph;
        for pass in self.passes.iter_mut().flatten() {
            for b in pass.bindings.iter_mut().filter(|b| b.previous) {
                let id = match b.resource {
                    Bound::Image(i) => i.id(),
                    Bound::Buffer(x) => x.id(),
                };
                if let Some(twin) = g.resource(id).history_twin() {
                    b.resource = match b.resource {
                        Bound::Image(_) => Bound::Image(ImageRef::new(twin)),
                        Bound::Buffer(_) => Bound::Buffer(BufferRef::new(twin)),
                    };
                }
            }
        }
        (
            self.graph,
            FrameBodies {
                passes: self.passes,
                rebuilt: 0,
                #[cfg(feature = "test-hooks")]
                skip: None,
                shared: None,
            },
        )
    }
}

/// The bodies of a declared frame, as the executor calls them (by [`PassId`]).
pub struct FrameBodies<'a, S> {
    passes: Vec<Option<DeclaredPass<'a, S>>>,
    /// Times the executor told these bodies the plan changed.
    pub rebuilt: u64,
    /// A pass whose body records nothing (tests show that the golden images see it).
    #[cfg(feature = "test-hooks")]
    pub skip: Option<String>,
    /// What the bodies record with; `None` for a frame declared only for its plan.
    pub shared: Option<S>,
}

impl<S> std::fmt::Debug for FrameBodies<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameBodies")
            .field("passes", &self.passes.len())
            .finish()
    }
}

impl<S> FrameBodies<'_, S> {
    /// No bodies: for waiting on the frames in flight outside a frame.
    pub fn empty() -> FrameBodies<'static, S> {
        FrameBodies {
            passes: Vec::new(),
            rebuilt: 0,
            #[cfg(feature = "test-hooks")]
            skip: None,
            shared: None,
        }
    }

    #[cfg(feature = "test-hooks")]
    fn skips(&self, pass: &PassSetup) -> bool {
        self.skip.as_deref() == Some(pass.name.as_str())
    }

    #[cfg(not(feature = "test-hooks"))]
    fn skips(&self, _pass: &PassSetup) -> bool {
        false
    }
}

impl<S: Copy> PassBodies for FrameBodies<'_, S> {
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
        if self.skips(pass) {
            return Ok(());
        }
        let gpu = ctx.gpu;
        let declared = self
            .passes
            .get_mut(pass.id.index())
            .and_then(Option::as_mut)
            .ok_or_else(|| VkError::MissingBody {
                pass: pass.name.clone(),
            })?;
        let mut pc = PassContext::new(gpu, pass, ctx, cmd, self.shared, &declared.bindings);
        (declared.body)(&mut pc).map_err(|e| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_graph::plan::LoadOp;
    use tessera_graph::{compile, Access, Capabilities, CompileOptions};

    /// A G-buffer target written covered by depth and read covered by lighting: the
    /// coverage reaches the graph's uses (not the depth's own, nor a cleared one), and the
    /// covered target is neither cleared nor loaded.
    #[test]
    fn covered_by_reaches_the_graph_and_makes_the_load_dont_care() {
        let mut fb = FrameBuilder::<()>::new(
            "covered",
            vk::Extent2D {
                width: 64,
                height: 64,
            },
        );
        let depth = fb.image("depth", Format::D32_SFLOAT, Size::FULL);
        let albedo = fb.image("albedo", Format::R8G8B8A8_UNORM, Size::FULL);
        let hdr = fb.image("hdr", Format::R16G16B16A16_SFLOAT, Size::FULL);
        fb.pass("gbuffer", PassKind::Raster, |p| {
            p.covered_by(depth)
                .depth_cleared(depth, 0.0)
                .color_partial(albedo)
                .color_cleared(hdr, [0.0; 4]);
            |_| Ok(())
        });
        fb.pass("lighting", PassKind::Raster, |p| {
            p.covered_by(depth)
                .input(albedo)
                .everywhere()
                .input(depth)
                .blend(hdr)
                .side_effects();
            |_| Ok(())
        });
        let (g, _) = fb.finish();
        let coverage = |pass: &str, image: ImageRef| {
            let p = g.pass(g.find_pass(pass).expect("pass"));
            let u = p
                .uses
                .iter()
                .find(|u| u.resource == image.id())
                .expect("use");
            u.coverage
        };
        assert_eq!(coverage("gbuffer", albedo), Some(depth.id()));
        assert_eq!(coverage("gbuffer", depth), None);
        assert_eq!(
            coverage("gbuffer", hdr),
            None,
            "a cleared use takes no coverage"
        );
        assert_eq!(coverage("lighting", albedo), Some(depth.id()));
        assert_eq!(coverage("lighting", depth), None);
        let gbuffer = g.pass(g.find_pass("gbuffer").expect("gbuffer"));
        assert!(gbuffer
            .uses
            .iter()
            .any(|u| u.access == Access::ColorWrite && !u.clear));
        let caps = Capabilities::desktop();
        let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap_or_else(|e| panic!("{e}"));
        let load = plan
            .render_passes
            .iter()
            .flat_map(|rp| rp.attachments.iter())
            .find(|a| a.resource == "albedo")
            .map(|a| a.load_op);
        assert_eq!(load, Some(LoadOp::DontCare));
    }

    /// A persistent image and buffer: declared with their validity; while valid, the
    /// passes that only write them are skipped (their bodies never called: the executor
    /// records kept passes only), the readers kept; when stale, the writers run.
    #[test]
    fn persistent_resources_skip_their_writers_while_valid() {
        for valid in [false, true] {
            let mut fb = FrameBuilder::<()>::new(
                "ibl",
                vk::Extent2D {
                    width: 64,
                    height: 64,
                },
            );
            let lut = fb.persistent_image(
                "brdf lut",
                ImageDesc::new(Format::R16G16B16A16_SFLOAT, 32, 32),
                valid,
            );
            let sh = fb.persistent_buffer("irradiance", 256, valid);
            let out = fb.image("out", Format::R8G8B8A8_UNORM, Size::FULL);
            fb.pass("bake", PassKind::Compute, |p| {
                p.image_store(lut).storage_write(sh);
                |_| Ok(())
            });
            fb.pass("shade", PassKind::Raster, |p| {
                p.sampled(lut).storage_read(sh).color(out).side_effects();
                |_| Ok(())
            });
            let (g, _) = fb.finish();
            let lut_res = g.resource(lut.id());
            assert_eq!(lut_res.persistent_valid(), Some(valid));
            assert_eq!(g.resource(sh.id()).persistent_valid(), Some(valid));
            let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL)
                .unwrap_or_else(|e| panic!("{e}"));
            let skipped: Vec<&str> = plan.skipped.iter().map(|n| n.as_str()).collect();
            assert_eq!(skipped, if valid { vec!["bake"] } else { vec![] });
            assert!(plan.order.iter().any(|p| p == "shade"));
        }
    }
}
