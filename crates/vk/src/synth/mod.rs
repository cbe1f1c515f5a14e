//! Synthetic pass bodies for `tessera exec`: run ANY frame graph on the GPU with small real
//! shaders whose outputs are a deterministic function of their inputs and the pass name,
//! read the results back every frame and compare them with a CPU model of the frame.
//!
//! Steps of [`run`] (the frame is assumed valid as written: `tessera exec` compiles it as
//! `tessera plan` does before opening a device): check multisample counts against the
//! device, scale the graph down (images to at most [`ExecConfig::max_extent`] pixels on the
//! longest side, keeping ratios; buffers to at most 4 KiB), create the
//! resources unbound (with the sharing modes the plan asks for) to learn their real sizes,
//! put those sizes into the graph, compile it for the real device's capabilities (with an
//! async-compute queue when it is emulated), bind memory as planned, build the bodies,
//! upload the imported resources' initial content on the queue that owns them at the end of
//! a frame, run the frames, and report.
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
//! the render pass used, which no load operation can express, is done by the body.

pub mod desc;
pub mod glsl;
mod gpu;
pub mod model;
pub mod values;

use crate::capture::Capture;
use crate::device::{Gpu, GpuOptions};
use crate::executor::{queue_families, ExecOptions, Executor, PassTiming};
use crate::resources::{self, memoryless_set};
use crate::VkError;
use ash::vk;
use tessera_graph::access::Access;
use tessera_graph::graph::ResourceKind;
use tessera_graph::{compile, CompileOptions, Graph, Plan};

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
    /// Executor switches (the emulated async queue, test-only barrier and wait removal).
    pub exec: ExecOptions,
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
/// so equal extents stay equal) and caps buffers; sizes are reset to be measured again.
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
        let survives = r.output || (r.imported && !r.discard_on_last_use);
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

/// Uses (pass, resource) that clear an attachment which an earlier subpass of the same
/// render pass already used: the plan's load operation cannot express that clear, so the
/// synthetic body performs it.
fn mid_clears(graph: &Graph, plan: &Plan) -> std::collections::HashSet<(String, usize)> {
    let mut out = std::collections::HashSet::new();
    for rp in &plan.render_passes {
        let mut seen = std::collections::HashSet::new();
        for s in &rp.subpasses {
            let Some(pid) = graph.find_pass(s) else {
                continue;
            };
            for u in &graph.pass(pid).uses {
                if u.clear && seen.contains(&u.resource.index()) {
                    out.insert((s.to_string(), u.resource.index()));
                }
            }
            seen.extend(graph.pass(pid).uses.iter().map(|u| u.resource.index()));
        }
    }
    out
}

/// The plan as the synthetic run executes it: a `DONT_CARE` load becomes a clear (to 0)
/// where the attachment's first use in the render pass writes it (Vulkan forbids a clear
/// before a first use as input attachment or read-only depth), so content the plan lets go
/// is really gone. The same access scope: the executor's barriers do not change. Not under
/// a capture, which records the plan's operations exactly.
fn poison_dont_care(graph: &Graph, plan: &Plan) -> Plan {
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
    let gpu = Gpu::new(&GpuOptions {
        validation: config.validation,
    })?;
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
    let gpu = Gpu::new(&GpuOptions {
        validation: config.validation,
    })?;
    run_inner(&gpu, graph, config, Some(&mut capture))
}

/// [`run`] on an open device.
pub fn run_on(gpu: &Gpu, graph: &Graph, config: &ExecConfig) -> Result<ExecReport, VkError> {
    run_inner(gpu, graph, config, None)
}

fn run_inner(
    gpu: &Gpu,
    graph: &Graph,
    config: &ExecConfig,
    mut capture: Option<&mut Capture>,
) -> Result<ExecReport, VkError> {
    let messages_before = gpu.messages.count();
    let (mut g, scaled) = scale_graph(graph, config.max_extent);
    let mut caps = gpu.capabilities();
    if config.exec.emulate_async {
        caps.async_compute = true;
    }
    let families = queue_families(gpu, config.exec.emulate_async);
    let compile_err = |e: tessera_graph::CompileError| {
        VkError::Unsupported(format!(
            "the frame, scaled for the synthetic run, does not compile for this device: {e}"
        ))
    };
    check_samples(gpu, &g)?;
    let plan0 = compile(&g, &caps, &config.options).map_err(compile_err)?;
    let memoryless = memoryless_set(&g, &plan0);
    // Sharing modes depend on the schedule only, not on sizes: the final plan keeps them
    // (the executor checks).
    let concurrent = resources::concurrent_set(&g, &plan0, families);
    let unbound = resources::create_unbound(gpu, &g, &memoryless, &concurrent, families)?;
    for (r, req) in g.resources.iter_mut().zip(&unbound.requirements) {
        r.size = Some(req.size);
    }
    let plan = match compile(&g, &caps, &config.options) {
        Ok(mut p) => {
            if let Some(alter) = config.alter_plan {
                alter(&mut p);
            }
            p
        }
        Err(e) => {
            drop_unbound(gpu, unbound);
            return Err(compile_err(e));
        }
    };
    if memoryless_set(&g, &plan) != memoryless {
        drop_unbound(gpu, unbound);
        return Err(VkError::Setup(
            "memoryless decisions changed with the real sizes".into(),
        ));
    }
    let passes = match desc::passes(&g, &plan) {
        Ok(p) => p,
        Err(e) => {
            drop_unbound(gpu, unbound);
            return Err(VkError::Unsupported(e));
        }
    };
    if let Err(e) = check_formats(gpu, &g) {
        drop_unbound(gpu, unbound);
        return Err(e);
    }
    let model = model::Model::new(&g, desc::declared(&g));
    let (cmp, unreadable) = compared(&g, &plan);
    let mut bodies = match SynthBodies::new(gpu, passes, model, &cmp, families) {
        Ok(b) => b,
        Err(e) => {
            drop_unbound(gpu, unbound);
            return Err(e);
        }
    };
    bodies.mid_clears = mid_clears(&g, &plan);
    // A capture records the plan's own load operations (what RenderDoc users and the
    // capture check compare against), so it runs the plan unpoisoned.
    let run_plan = if capture.is_some() {
        log::info!("capturing: DONT_CARE loads run as planned (not poisoned to clears)");
        plan.clone()
    } else {
        poison_dont_care(&g, &plan)
    };
    let mut exec = match Executor::new(
        gpu,
        &g,
        &run_plan,
        unbound,
        &mut bodies,
        config.exec.clone(),
    ) {
        Ok(x) => x,
        Err(e) => {
            let _ = gpu.wait_idle();
            bodies.destroy_all(gpu);
            return Err(e);
        }
    };
    let imported: Vec<(usize, String)> = g
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.imported)
        .map(|(i, r)| (i, r.name.to_string()))
        .collect();
    let result = (|| {
        bodies.init_imported(&mut exec, &imported)?;
        let mut written = None;
        for f in 0..config.frames {
            // The last frame is captured: every resource and cache is warm by then.
            let capturing = f + 1 == config.frames;
            if let (true, Some(c)) = (capturing, capture.as_deref_mut()) {
                c.start();
                let frame = exec.frame(&mut bodies);
                // Always end a started capture, even when the frame failed.
                let end = c.end();
                frame?;
                written = Some(end?);
            } else {
                exec.frame(&mut bodies)?;
            }
        }
        exec.finish(&mut bodies)?;
        Ok::<_, VkError>(written)
    })();
    let timings = exec.timings();
    let submits = exec.submits_per_frame();
    let blocks = exec.resources.blocks;
    let allocations = gpu.allocation_count();
    let frames = exec.frames();
    exec.destroy(&mut bodies);
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

/// Destroys resources that were never bound.
pub(crate) fn drop_unbound(gpu: &Gpu, u: resources::Unbound) {
    let mut r = resources::Resources::from_unbound(u);
    r.destroy(gpu);
}

fn check_formats(gpu: &Gpu, g: &Graph) -> Result<(), VkError> {
    for p in &g.passes {
        for u in &p.uses {
            let r = g.resource(u.resource);
            let Some(d) = r.image_desc() else { continue };
            let need = crate::conv::format_features(u.access);
            // SAFETY: a property query on our physical device.
            let props = unsafe {
                gpu.instance.get_physical_device_format_properties(
                    gpu.physical,
                    crate::conv::format(d.format),
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

/// Checks every multisampled image's sample count against the device before any image is
/// created ([`Gpu::check_samples`], with the usage of all its accesses).
fn check_samples(gpu: &Gpu, g: &Graph) -> Result<(), VkError> {
    // The usage the image will be created with (as if not memoryless: the plan is not
    // known yet, and memoryless images only trade transfer usage for transient).
    let usage = crate::resources::usages(g, &vec![false; g.resources.len()]);
    for (r, (usage, _)) in g.resources.iter().zip(usage) {
        if let Some(d) = r.image_desc().filter(|d| d.samples != 1) {
            gpu.check_samples(&r.name, d.format, d.samples, usage)?;
        }
    }
    Ok(())
}

impl SynthBodies {
    fn destroy_all(&mut self, gpu: &Gpu) {
        crate::executor::PassBodies::destroy(self, gpu);
    }
}
