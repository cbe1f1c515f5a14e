//! # tessera-synth
//!
//! Synthetic pass bodies for `tessera exec`: run ANY frame graph on the GPU with small real
//! shaders whose outputs are a deterministic function of their inputs and the pass name,
//! read the results back every frame and compare them with a CPU model of the frame.
//!
//! Steps of [`run`] (the frame is assumed valid as written: `tessera exec` compiles it as
//! `tessera plan` does before opening a device): scale the graph down (images to at most
//! [`ExecConfig::max_extent`] pixels on the longest side, keeping ratios; buffers to at most
//! 4 KiB), check multisample counts and formats against the device, let the executor
//! prepare the plan ([`Executor::prepare`]: compile for the device, real sizes, recompile,
//! bind), build the bodies from the plan it runs, upload the imported resources' initial
//! content on the queue that owns them at the end of a frame, run the frames, and report.
//! Synth is one client of the executor, like the renderer; its test-only switches reach it
//! through `tessera_vk::executor::TestHooks` (tessera-vk's `test-hooks` feature, which this
//! crate enables and the renderer does not).
//!
//! The oracle: the CPU [`model`] runs the graph as declared (declaration order, the frame
//! format's content rules), never the plan. The resources compared are those whose content
//! the frame defines beyond its end, outputs and imported resources without
//! `discard_on_last_use` ([`compared`]): a transient's content is dead once its last reader
//! has run, and values a reader reads show up in what it writes. A compared resource for
//! which no value could be compared in a frame (undefined in the model, or never read back)
//! is a failure of its own ([`ExecReport::uncompared`]). Loads the plan makes `DONT_CARE`
//! run as clears to 0 where Vulkan allows it (the first use writes the attachment): content
//! the plan calls undefined is overwritten, so a wrong `DONT_CARE` is a mismatch even on a
//! device that keeps memory (lavapipe). A clear of an attachment that an earlier subpass of
//! the render pass used, which no load operation can express, is done by the body (the
//! executor marks it `PassUse::mid_clear`).

//!
//! All `unsafe` of this crate is Vulkan calls (in `gpu`, and a format-property query here);
//! each block says why it is sound.

#![warn(missing_docs)]

pub mod desc;
pub mod glsl;
mod gpu;
pub mod model;
pub mod values;

use ash::vk;
use std::sync::Arc;
use tessera_graph::access::Access;
use tessera_graph::graph::{Origin, ResourceKind};
use tessera_graph::{CompileOptions, Graph, Plan, ResourceId};
use tessera_vk::capture::Capture;
use tessera_vk::device::{Gpu, GpuOptions};
use tessera_vk::executor::{
    ExecOptions, Executor, FrameImports, ImportedImage, PassBodies, PassTiming, TestHooks,
};
use tessera_vk::resources::{memoryless_set, OwnedBuffer, OwnedImage};
use tessera_vk::VkError;

pub use gpu::SynthBodies;

/// Largest buffer the synthetic run keeps.
pub const MAX_BUFFER_BYTES: u64 = 4096;

/// How to run.
#[derive(Clone, Debug)]
pub struct ExecConfig {
    /// Frames to run.
    pub frames: u64,
    /// Compile options (`CompileOptions::NONE` for `--no-optimize`).
    pub options: CompileOptions,
    /// Longest image side after scaling.
    pub max_extent: u32,
    /// Validation with synchronization validation.
    pub validation: bool,
    /// Executor switches (the emulated async queue).
    pub exec: ExecOptions,
    /// Test only: the executor's barrier and wait removal (`tessera exec`'s hidden flags).
    #[doc(hidden)]
    pub hooks: TestHooks,
    /// Test only (no CLI flag reaches it): alters the plan compiled for the device before it
    /// runs, so a test can show that the oracle reports a wrong plan.
    #[doc(hidden)]
    pub alter_plan: Option<fn(&mut Plan)>,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            frames: 3,
            options: CompileOptions::ALL,
            max_extent: 64,
            validation: true,
            exec: ExecOptions::default(),
            hooks: TestHooks::default(),
            alter_plan: None,
        }
    }
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct ExecReport {
    /// Device name.
    pub device: String,
    /// Whether the device has a distinct async-compute queue.
    pub async_compute: bool,
    /// Whether the async-compute queue was emulated on the graphics queue.
    pub emulated_async: bool,
    /// Passes the plan put on the async-compute queue.
    pub async_passes: usize,
    /// Ownership-transfer barrier halves per frame (release and acquire).
    pub queue_transfers: usize,
    /// Whether two placements of the plan share bytes (aliased memory).
    pub aliased: bool,
    /// Frames run.
    pub frames: u64,
    /// Frames whose read-back results were compared.
    pub frames_checked: u64,
    /// Kept passes.
    pub passes: usize,
    /// Render passes.
    pub render_passes: usize,
    /// Subpasses (over all render passes).
    pub subpasses: usize,
    /// Barriers per frame.
    pub barriers: usize,
    /// Cross-queue syncs per frame.
    pub syncs: usize,
    /// Submits per frame.
    pub submits_per_frame: usize,
    /// Plan memory blocks.
    pub blocks: usize,
    /// Live `vkAllocateMemory` allocations after setup.
    pub allocations: u64,
    /// Resources compared every frame (outputs and imported resources whose content
    /// survives the frame, see [`compared`]).
    pub compared_resources: Vec<String>,
    /// Failures of the oracle: resources whose content the frame defines but of which no
    /// value was compared (in some frame, or at all), with the reason. Empty in a clean run.
    pub uncompared: Vec<String>,
    /// Whether the validation layers ran (`validation_messages` means nothing otherwise).
    pub validation: bool,
    /// Values compared over all frames.
    pub compared_values: u64,
    /// Mismatching values over all frames.
    pub mismatches: u64,
    /// First mismatches.
    pub mismatch_notes: Vec<String>,
    /// Validation messages.
    pub validation_messages: u64,
    /// First validation messages.
    pub messages: Vec<String>,
    /// Mean GPU time per pass.
    pub timings: Vec<PassTiming>,
    /// Image scaling applied: (longest side before, after), if any.
    pub scaled: Option<(u32, u32)>,
    /// The RenderDoc capture written ([`run_with_capture`]), if any.
    pub capture: Option<std::path::PathBuf>,
    /// The plan that ran (compiled for the device, with the scaled sizes).
    pub plan: Plan,
}

/// Scales every image so its longest side is at most `max` (one factor for the whole graph,
/// so equal extents stay equal) and caps buffers; sizes are reset to be measured again; every
/// image clear clears to 0 (what the model's clears give).
pub fn scale_graph(graph: &Graph, max: u32) -> (Graph, Option<(u32, u32)>) {
    let mut g = graph.clone();
    let longest = g
        .resources
        .iter()
        .filter_map(|r| r.image_desc().map(|d| d.width.max(d.height)))
        .max()
        .unwrap_or(0);
    let scaled = (longest > max).then_some((longest, max));
    for r in &mut g.resources {
        r.size = None;
        match &mut r.kind {
            ResourceKind::Image(d) => {
                if let Some((from, to)) = scaled {
                    let f = |x: u32| {
                        ((u64::from(x) * u64::from(to)).div_ceil(u64::from(from)) as u32).max(1)
                    };
                    d.width = f(d.width);
                    d.height = f(d.height);
                }
                let max_mips = 32 - d.width.max(d.height).leading_zeros();
                d.mips = d.mips.clamp(1, max_mips);
            }
            ResourceKind::Buffer { size } => *size = (*size).clamp(32, MAX_BUFFER_BYTES) / 4 * 4,
        }
    }
    // The model's clears give 0 (colour and depth alike): clear values are set to that.
    let depth: Vec<bool> = g
        .resources
        .iter()
        .map(|r| r.image_desc().is_some_and(|d| d.format.is_depth_stencil()))
        .collect();
    let is_image: Vec<bool> = g
        .resources
        .iter()
        .map(|r| r.image_desc().is_some())
        .collect();
    for p in &mut g.passes {
        for u in p
            .uses
            .iter_mut()
            .filter(|u| u.clear && is_image[u.resource.index()])
        {
            u.clear_value = Some(if depth[u.resource.index()] {
                tessera_graph::ClearValue::DepthStencil {
                    depth: 0.0,
                    stencil: 0,
                }
            } else {
                tessera_graph::ClearValue::Color([0.0; 4])
            });
        }
    }
    (g, scaled)
}

/// Resources whose content the frame defines at its end: outputs, and imported resources
/// without `discard_on_last_use`, used by a kept pass. Returns those read back and compared
/// every frame (index, name), and the others with the reason they cannot be, failures of the
/// plan: kept in tile memory, or bytes given to a later placement. Multisampled and stencil-only images are
/// left out (the read-back copies single-sampled colour or depth only).
pub fn compared(graph: &Graph, plan: &Plan) -> (Vec<(usize, String)>, Vec<String>) {
    let memoryless = memoryless_set(graph, plan);
    let mut used = vec![false; graph.resources.len()];
    for name in &plan.order {
        if let Some(p) = graph.find_pass(name) {
            for u in &graph.pass(p).uses {
                used[u.resource.index()] = true;
            }
        }
    }
    // A placement that starts after a resource's last use and shares its bytes overwrites it
    // before the frame ends: for content that survives the frame, a plan defect.
    let mut reused_by: Vec<Option<&str>> = vec![None; graph.resources.len()];
    for b in &plan.memory.blocks {
        for p in &b.placements {
            let later = b.placements.iter().find(|q| {
                q.resource != p.resource
                    && q.first > p.last
                    && q.offset < p.offset + p.size
                    && p.offset < q.offset + q.size
            });
            if let (Some(q), Some(r)) = (later, graph.find_resource(&p.resource)) {
                reused_by[r.index()] = Some(q.resource.as_ref());
            }
        }
    }
    let mut read = Vec::new();
    let mut unreadable = Vec::new();
    for (i, r) in graph.resources.iter().enumerate() {
        let survives = r.survives_frame();
        let readable = r
            .image_desc()
            .is_none_or(|d| d.samples == 1 && values::copy_bytes(d.format).is_some());
        if !(used[i] && survives && readable) {
            continue;
        }
        if memoryless[i] {
            unreadable.push(format!(
                "'{}': its content survives the frame, but the plan keeps it in tile memory",
                r.name
            ));
        } else if let Some(q) = reused_by[i] {
            unreadable.push(format!(
                "'{}': its content survives the frame, but the plan gives its bytes to '{q}' \
                 later in the frame",
                r.name
            ));
        } else {
            read.push((i, r.name.to_string()));
        }
    }
    (read, unreadable)
}

/// The plan as the synthetic run executes it: a `DONT_CARE` load becomes a clear (to 0)
/// where the attachment's first use in the render pass writes it (Vulkan forbids a clear
/// before a first use as input attachment or read-only depth), so content the plan lets go
/// is really gone. The same access scope: the executor's barriers do not change. Not under
/// a capture, which records the plan's operations exactly.
pub(crate) fn poison_dont_care(graph: &Graph, plan: &Plan) -> Plan {
    use tessera_graph::plan::LoadOp;
    let mut out = plan.clone();
    for rp in &mut out.render_passes {
        for a in &mut rp.attachments {
            if a.load_op != LoadOp::DontCare {
                continue;
            }
            let first = rp.subpasses.iter().find_map(|s| {
                let p = graph.pass(graph.find_pass(s)?);
                p.uses
                    .iter()
                    .find(|u| graph.resource(u.resource).name == a.resource)
                    .map(|u| u.access)
            });
            if matches!(
                first,
                Some(
                    Access::ColorWrite
                        | Access::ColorWriteAll
                        | Access::ColorReadWrite
                        | Access::DepthWrite
                )
            ) {
                a.load_op = LoadOp::Clear;
            }
        }
    }
    out
}

/// Runs `graph` with synthetic passes on the first Vulkan 1.3 device.
pub fn run(graph: &Graph, config: &ExecConfig) -> Result<ExecReport, VkError> {
    let gpu = Arc::new(Gpu::new(&GpuOptions {
        validation: config.validation,
        surface: None,
        ..Default::default()
    })?);
    run_on(&gpu, graph, config)
}

/// [`run`] capturing the last frame with RenderDoc into `out` (an `.rdc` file): RenderDoc is
/// loaded before the device is opened (an error naming the missing library when it is not
/// installed). The report's [`ExecReport::capture`] is the file written.
pub fn run_with_capture(
    graph: &Graph,
    config: &ExecConfig,
    out: &std::path::Path,
) -> Result<ExecReport, VkError> {
    let mut capture = Capture::load(out)?;
    let gpu = Arc::new(Gpu::new(&GpuOptions {
        validation: config.validation,
        surface: None,
        ..Default::default()
    })?);
    run_inner(&gpu, graph, config, Some(&mut capture))
}

/// [`run`] on an open device.
pub fn run_on(gpu: &Arc<Gpu>, graph: &Graph, config: &ExecConfig) -> Result<ExecReport, VkError> {
    run_inner(gpu, graph, config, None)
}

/// No bodies: the plan is prepared first, the synthetic bodies are made from it.
struct NoBodies;

impl PassBodies for NoBodies {
    fn rebuilt(&mut self, _: &Gpu, _: &[tessera_vk::executor::PassSetup]) -> Result<(), VkError> {
        Ok(())
    }
    fn record(
        &mut self,
        _: &mut tessera_vk::executor::RecordContext<'_>,
        pass: &tessera_vk::executor::PassSetup,
        _: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        Err(VkError::Setup(format!("no body for pass '{}'", pass.name)))
    }
    fn destroy(&mut self, _: &Gpu) {}
}

fn run_inner(
    gpu: &Arc<Gpu>,
    graph: &Graph,
    config: &ExecConfig,
    mut capture: Option<&mut Capture>,
) -> Result<ExecReport, VkError> {
    if let Some(r) = graph.resources.iter().find(|r| r.is_history()) {
        // The synthetic model predicts a frame's values from that frame alone.
        return Err(VkError::Unsupported(format!(
            "'{}' is a history resource: `exec`'s synthetic passes do not model content kept across frames; the renderer runs history resources (`tessera render --aa taa`)",
            r.name
        )));
    }
    if let Some(r) = graph.resources.iter().find(|r| r.is_kept_across_plans()) {
        // Nor content an earlier frame may have left (a skipped writer's).
        return Err(VkError::Unsupported(format!(
            "'{}' is a persistent resource: `exec`'s synthetic passes do not model content kept across frames; the renderer runs persistent resources (its sky and image-based light)",
            r.name
        )));
    }
    let messages_before = gpu.messages.count();
    let (g, scaled) = scale_graph(graph, config.max_extent);
    check_samples(gpu, &g)?;
    check_formats(gpu, &g)?;
    let options = config.exec.clone();
    let mut hooks = config.hooks.clone();
    hooks.alter_plan = config.alter_plan.or(hooks.alter_plan);
    // A capture records the plan's own load operations (what RenderDoc users and the
    // capture check compare against), so it runs the plan unpoisoned.
    if capture.is_some() {
        log::info!("capturing: DONT_CARE loads run as planned (not poisoned to clears)");
    } else {
        hooks.executed_plan = Some(poison_dont_care);
    }
    let mut exec = Executor::with_test_hooks(gpu.clone(), options, hooks)?;
    exec.prepare(&g, &config.options, &mut NoBodies)
        .map_err(|e| match e {
            VkError::Compile(e) => VkError::Unsupported(format!(
                "the frame, scaled for the synthetic run, does not compile for this device: {e}"
            )),
            e => e,
        })?;
    let (Some(g), Some(plan)) = (exec.graph().cloned(), exec.plan().cloned()) else {
        return Err(VkError::Setup("no plan after prepare".into()));
    };
    let passes = desc::passes(&g, &plan).map_err(VkError::Unsupported)?;
    let passes = passes
        .into_iter()
        .map(|p| {
            g.find_pass(&p.name)
                .map(|id| (id, p))
                .ok_or_else(|| VkError::Setup("a synthetic pass lost its graph pass".into()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let model = model::Model::new(&g, desc::declared(&g));
    let (cmp, unreadable) = compared(&g, &plan);
    let families = [
        exec.family(tessera_graph::QueueKind::Graphics),
        exec.family(tessera_graph::QueueKind::AsyncCompute),
    ];
    let mut bodies = SynthBodies::new(gpu, passes, model, &cmp, families)?;
    if let Err(e) = bodies.rebuilt(gpu, exec.passes()) {
        exec.destroy(&mut bodies);
        return Err(e);
    }
    let imported: Vec<(usize, String)> = g
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r.origin, Origin::Imported(_)))
        .map(|(i, r)| (i, r.name.to_string()))
        .collect();
    // Per-frame imports (a swapchain image): two objects of our own each, handed in by turns.
    let mut per_frame = PerFrame::default();
    let result = (|| {
        per_frame.create(gpu, &g, &plan)?;
        bodies.init_imported(&mut exec, &imported)?;
        let mut written = None;
        for f in 0..config.frames {
            // The last frame is captured: every resource and cache is warm by then.
            let capturing = f + 1 == config.frames;
            let (images, buffers) = per_frame.turn(f);
            let imports = FrameImports {
                images: &images,
                buffers: &buffers,
                ..FrameImports::NONE
            };
            if let (true, Some(c)) = (capturing, capture.as_deref_mut()) {
                c.start();
                let frame = exec.frame(&mut bodies, &imports);
                // Always end a started capture, even when the frame failed.
                let end = c.end();
                frame?;
                written = Some(end?);
            } else {
                exec.frame(&mut bodies, &imports)?;
            }
        }
        exec.finish(&mut bodies)?;
        Ok::<_, VkError>(written)
    })();
    let timings = exec.timings();
    let submits = exec.submits_per_frame();
    let blocks = exec.resources().map_or(0, |r| r.blocks);
    let allocations = gpu.allocation_count();
    let frames = exec.frames();
    exec.destroy(&mut bodies);
    per_frame.destroy(gpu);
    let capture = result?;
    Ok(ExecReport {
        capture,
        device: gpu.device_name(),
        async_compute: gpu.compute.is_some(),
        emulated_async: config.exec.emulate_async,
        async_passes: plan.queues.async_compute.len(),
        queue_transfers: plan
            .barriers
            .iter()
            .filter(|b| b.queue_transfer.is_some())
            .count(),
        aliased: plan.memory.blocks.iter().any(|b| {
            b.placements.iter().enumerate().any(|(i, p)| {
                b.placements[i + 1..]
                    .iter()
                    .any(|q| q.offset < p.offset + p.size && p.offset < q.offset + q.size)
            })
        }),
        frames,
        frames_checked: bodies.frames_checked,
        passes: plan.order.len(),
        render_passes: plan.render_passes.len(),
        subpasses: plan.render_passes.iter().map(|r| r.subpasses.len()).sum(),
        barriers: plan.barriers.len(),
        syncs: plan.syncs.len(),
        submits_per_frame: submits,
        blocks,
        allocations,
        compared_resources: cmp.into_iter().map(|(_, n)| n).collect(),
        uncompared: unreadable.into_iter().chain(bodies.empty.clone()).collect(),
        validation: config.validation,
        compared_values: bodies.compared_values,
        mismatches: bodies.mismatches,
        mismatch_notes: bodies.notes.clone(),
        validation_messages: gpu.messages.count() - messages_before,
        messages: gpu.messages.texts(),
        timings,
        scaled,
        plan,
    })
}

fn check_formats(gpu: &Gpu, g: &Graph) -> Result<(), VkError> {
    for p in &g.passes {
        for u in &p.uses {
            let r = g.resource(u.resource);
            let Some(d) = r.image_desc() else { continue };
            let need = tessera_vk::conv::format_features_for(u.access, d.format);
            // SAFETY: a property query on our physical device.
            let props = unsafe {
                gpu.instance.get_physical_device_format_properties(
                    gpu.physical,
                    tessera_vk::conv::format(d.format),
                )
            };
            let need = if desc::partial(&desc::SynthUse {
                j: 0,
                access: u.access,
                clear: u.clear,
                resource: u.resource.index(),
                shape: desc::Shape::of(&r.kind),
                from: None,
            }) {
                // Partial colour writes blend.
                need | vk::FormatFeatureFlags::COLOR_ATTACHMENT_BLEND
            } else {
                need
            };
            if !props.optimal_tiling_features.contains(need) {
                return Err(VkError::Unsupported(format!(
                    "'{}' ({}) cannot be used as {} on this device",
                    r.name, d.format, u.access
                )));
            }
        }
    }
    Ok(())
}

/// The synthetic run's objects for per-frame imports: two per resource, handed in by turns
/// (frame `f` gets object `f mod 2`).
#[derive(Default)]
struct PerFrame {
    images: Vec<(ResourceId, [OwnedImage; 2])>,
    buffers: Vec<(ResourceId, [OwnedBuffer; 2])>,
}

impl PerFrame {
    fn create(&mut self, gpu: &Gpu, g: &Graph, plan: &Plan) -> Result<(), VkError> {
        let usage = tessera_vk::resources::usages(g, &memoryless_set(g, plan));
        for (id, r) in g.resource_ids().map(|id| (id, g.resource(id))) {
            if !r.is_per_frame() {
                continue;
            }
            let (iu, bu) = usage[id.index()];
            let name = |k: usize| format!("{} (per-frame object {k})", r.name);
            match &r.kind {
                ResourceKind::Image(d) => {
                    if d.mips > 1 || d.layers > 1 || d.samples > 1 {
                        return Err(VkError::Unsupported(format!(
                            "'{}': the synthetic run hands in per-frame images of one mip, \
                             layer and sample only",
                            r.name
                        )));
                    }
                    let extent = vk::Extent2D {
                        width: d.width.max(1),
                        height: d.height.max(1),
                    };
                    let f = tessera_vk::conv::format(d.format);
                    let a = OwnedImage::new(gpu, f, extent, 1, iu, &name(0))?;
                    let b = match OwnedImage::new(gpu, f, extent, 1, iu, &name(1)) {
                        Ok(b) => b,
                        Err(e) => {
                            let mut a = a;
                            a.destroy(gpu);
                            return Err(e);
                        }
                    };
                    self.images.push((id, [a, b]));
                }
                ResourceKind::Buffer { size } => {
                    let a = OwnedBuffer::new(gpu, *size, bu, false, &name(0))?;
                    let b = match OwnedBuffer::new(gpu, *size, bu, false, &name(1)) {
                        Ok(b) => b,
                        Err(e) => {
                            let mut a = a;
                            a.destroy(gpu);
                            return Err(e);
                        }
                    };
                    self.buffers.push((id, [a, b]));
                }
            }
        }
        Ok(())
    }

    /// What frame `f` hands in.
    #[allow(clippy::type_complexity)]
    fn turn(
        &self,
        f: u64,
    ) -> (
        Vec<(ResourceId, ImportedImage)>,
        Vec<(ResourceId, vk::Buffer)>,
    ) {
        let k = (f % 2) as usize;
        (
            self.images
                .iter()
                .map(|(id, o)| (*id, o[k].imported()))
                .collect(),
            self.buffers
                .iter()
                .map(|(id, o)| (*id, o[k].buffer))
                .collect(),
        )
    }

    /// Destroys the objects (no frame in flight).
    fn destroy(&mut self, gpu: &Gpu) {
        for (_, mut o) in self.images.drain(..) {
            o.iter_mut().for_each(|x| x.destroy(gpu));
        }
        for (_, mut o) in self.buffers.drain(..) {
            o.iter_mut().for_each(|x| x.destroy(gpu));
        }
    }
}

/// Checks every multisampled image's sample count against the device before any image is
/// created ([`Gpu::check_samples`], with the usage of all its accesses).
fn check_samples(gpu: &Gpu, g: &Graph) -> Result<(), VkError> {
    // The usage the image will be created with (as if not memoryless: the plan is not
    // known yet, and memoryless images only trade transfer usage for transient).
    let usage = tessera_vk::resources::usages(g, &vec![false; g.resources.len()]);
    for (r, (usage, _)) in g.resources.iter().zip(usage) {
        if let Some(d) = r.image_desc().filter(|d| d.samples != 1) {
            gpu.check_samples(&r.name, d.format, d.samples, usage)?;
        }
    }
    Ok(())
}
