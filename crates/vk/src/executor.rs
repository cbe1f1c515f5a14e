//! Runs a compiled plan frame after frame, exactly as planned.
//!
//! Setup: resources and memory (`resources`), render passes and framebuffers (`render`), and
//! the submission layout ([`crate::submit`]): one submit per plan batch, on the `VkQueue` of
//! its logical queue, waiting for and signalling that queue's timeline semaphore at the
//! planned values (plus a per-frame base). A render pass is never split between submits.
//! When both logical queues have work, each gets a *tail* submit that waits for the other
//! queue's work of the frame and runs the frame-end work ([`PassBodies::end_frame`], e.g.
//! read-backs) for the resources it owns at the end of the frame; the first submit of each
//! queue in a frame waits for the previous frame's end on the other queue (the plan's
//! "Across frames" rule).
//!
//! Each frame: wait for the frame that used this slot (2 frames in flight), read its GPU
//! timestamps, and record every submit: for each pass (or render pass), the plan's barriers
//! placed `before` it through `vkCmdPipelineBarrier2`, the render pass begin/next/end around
//! its subpasses, a debug label and two timestamps per pass, the pass body through
//! [`PassBodies`], then the barriers placed `after` it (after the end of its render pass,
//! ahead of the submit's signal). Barriers become Vulkan barriers in [`crate::barrier`]:
//! ownership-transfer halves are release/acquire pairs between the two queue families (the
//! resources the plan shares EXCLUSIVE are created EXCLUSIVE, the CONCURRENT ones
//! CONCURRENT), and plain barriers when both logical queues map to one family.
//!
//! The *emulated async queue* ([`ExecOptions::emulate_async`]) maps the async-compute
//! logical queue onto the graphics `VkQueue`: both queues' batches are separate submits on
//! one queue with the same timeline semaphores, so a device with one queue family (lavapipe)
//! runs, and synchronization validation checks, the cross-queue parts of async plans.

use crate::barrier;
use crate::device::{Gpu, Queue};
use crate::render::{BuiltRenderPass, RenderPassCache};
use crate::resources::{Res, Resources, StagingRing, Unbound};
use crate::submit::{self, SubmitPlan};
use crate::{conv, VkError};
use ash::vk;
use std::collections::{HashMap, HashSet};
use tessera_graph::access::Access;
use tessera_graph::sync::Layout;
use tessera_graph::{Graph, PassKind, Plan, QueueKind};

/// One resource use of a pass, as the pass body sees it.
#[derive(Clone, Debug)]
pub struct PassUse {
    /// How the pass uses it.
    pub access: Access,
    /// Cleared at this use.
    pub clear: bool,
    /// Index of the resource (stable for the executor's lifetime).
    pub resource: usize,
    /// Resource name.
    pub name: String,
    /// The Vulkan object.
    pub res: Res,
    /// For resolves: index of the multisampled source.
    pub from: Option<usize>,
}

/// What a pass body gets: its resources, and for raster passes the render pass, subpass
/// index and extent. No graph internals.
#[derive(Clone, Debug)]
pub struct PassSetup {
    /// Pass name.
    pub name: String,
    /// Raster, compute or transfer.
    pub kind: PassKind,
    /// Queue it runs on.
    pub queue: QueueKind,
    /// Its uses in declaration order.
    pub uses: Vec<PassUse>,
    /// Raster passes: render pass, subpass index, render area.
    pub subpass: Option<(vk::RenderPass, u32, vk::Extent2D)>,
}

/// The renderer's pass bodies.
pub trait PassBodies {
    /// Called once per pass after resources and render passes exist (build pipelines and
    /// descriptors here).
    fn prepare(&mut self, gpu: &Gpu, pass: &PassSetup) -> Result<(), VkError>;
    /// Records the pass into `cmd` (inside its subpass for raster passes).
    fn record(&mut self, gpu: &Gpu, pass: &PassSetup, cmd: vk::CommandBuffer, frame: u64);
    /// Records extra work at the end of the frame's last graphics command buffer.
    fn end_frame(
        &mut self,
        _gpu: &Gpu,
        _exec: &FrameEnd<'_>,
        _cmd: vk::CommandBuffer,
        _frame: u64,
    ) {
    }
    /// Called when the GPU has finished `frame` (its slot is about to be reused or the run
    /// ended).
    fn frame_done(&mut self, _gpu: &Gpu, _frame: u64) {}
    /// Destroys what `prepare` created (device idle).
    fn destroy(&mut self, gpu: &Gpu);
}

/// What `end_frame` may look at: the resources, the layout each image ends the frame in,
/// and which queue each resource ends the frame on.
#[derive(Debug)]
pub struct FrameEnd<'a> {
    /// The resources.
    pub resources: &'a Resources,
    /// Layout each image is in at the end of the frame (indexed by resource).
    pub end_layouts: &'a [vk::ImageLayout],
    /// Stages of the last use of each resource in the frame (indexed by resource).
    pub last_stages: &'a [vk::PipelineStageFlags2],
    /// Logical queue of the last access (use or barrier) of each resource in the frame,
    /// `None` when no kept pass uses it. An EXCLUSIVE image is owned by that queue's family.
    pub last_queue: &'a [Option<QueueKind>],
    /// The queue `cmd` is submitted to: `end_frame` is called once per queue with work (after
    /// the other queue's work of the frame) and should touch only the resources whose
    /// `last_queue` is this one.
    pub queue: QueueKind,
}

/// Executor switches.
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Test only: drop every plan barrier on this resource (proves the tests can fail).
    pub drop_barriers_on: Option<String>,
    /// Run the async-compute logical queue on the graphics `VkQueue` (separate submits, the
    /// same timeline semaphores). The plan should be compiled with `async_compute` on (see
    /// [`crate::synth::run_on`]); on a device with one queue family this is the only way to
    /// run an async plan.
    pub emulate_async: bool,
    /// Test only: drop the planned semaphore waits of the batch that starts with this pass
    /// (proves the cross-queue tests can fail).
    pub drop_waits_before: Option<String>,
}

/// The queue family of each logical queue (graphics, async compute) the executor will use:
/// the compute-only family when the device has one and the queue is not emulated, else the
/// graphics family.
pub fn queue_families(gpu: &Gpu, emulate_async: bool) -> [u32; 2] {
    let g = gpu.graphics.family;
    match gpu.compute {
        Some(c) if !emulate_async => [g, c.family],
        _ => [g, g],
    }
}

#[derive(Clone, Debug)]
enum Unit {
    Pass(usize),
    RenderPass(usize, Vec<usize>),
}

/// One submit per frame: a plan batch, or a queue's tail.
#[derive(Clone, Debug)]
struct Submission {
    queue: usize,
    units: Vec<usize>,
    /// Index in the submit layout's batches; `None` for a tail.
    batch: Option<usize>,
    /// Runs the frame-end work of its queue.
    frame_end: bool,
    /// Test only: planned waits dropped.
    drop_waits: bool,
}

/// A logical queue: the device queue it runs on and its timeline semaphore.
#[derive(Clone, Copy, Debug)]
struct Lane {
    queue: Queue,
    semaphore: vk::Semaphore,
}

struct Slot {
    /// Command pool per logical queue (null when unused).
    pools: [vk::CommandPool; 2],
    /// Fence per logical queue, signalled by its last submit of the frame (null when
    /// unused). The host waits for these before reusing the slot (validation follows fence
    /// waits, not host waits on timeline semaphores).
    fences: [vk::Fence; 2],
    cmds: Vec<vk::CommandBuffer>,
    queries: Option<vk::QueryPool>,
    frame: Option<u64>,
}

/// Per-pass GPU time.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTiming {
    /// Pass name.
    pub pass: String,
    /// Mean GPU time in microseconds over the timed frames.
    pub mean_us: f64,
    /// Frames timed.
    pub frames: u64,
}

/// A plan ready to run on a device.
pub struct Executor<'g> {
    gpu: &'g Gpu,
    graph: Graph,
    plan: Plan,
    /// The resources.
    pub resources: Resources,
    cache: RenderPassCache,
    built: Vec<BuiltRenderPass>,
    /// Indexed by position in `plan.order`.
    setups: Vec<PassSetup>,
    units: Vec<Unit>,
    layout: SubmitPlan,
    submits: Vec<Submission>,
    /// Plan barrier indices recorded before / after each pass (by position in `plan.order`).
    before: Vec<Vec<usize>>,
    after: Vec<Vec<usize>>,
    /// Plan barrier index -> resource index.
    barrier_resource: Vec<usize>,
    lanes: [Option<Lane>; 2],
    families: [u32; 2],
    slots: Vec<Slot>,
    staging: StagingRing,
    end_layouts: Vec<vk::ImageLayout>,
    last_stages: Vec<vk::PipelineStageFlags2>,
    last_queue: Vec<Option<QueueKind>>,
    timestamps: bool,
    ns_sum: Vec<f64>,
    ns_count: Vec<u64>,
    frame: u64,
    options: ExecOptions,
    /// One-time command pools per logical queue (null when unused).
    once_pools: [vk::CommandPool; 2],
}

impl std::fmt::Debug for Executor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("passes", &self.setups.len())
            .field("submits", &self.submits.len())
            .field("frame", &self.frame)
            .finish()
    }
}

const FRAMES_IN_FLIGHT: usize = 2;

impl<'g> Executor<'g> {
    /// Builds everything `plan` needs. `unbound` are the graph's resources created by
    /// [`crate::resources::create_unbound`] with the sharing modes of
    /// [`crate::resources::concurrent_set`] for this plan and
    /// [`queue_families`]`(gpu, options.emulate_async)` (their real sizes are what the plan
    /// was compiled with).
    pub fn new(
        gpu: &'g Gpu,
        graph: &Graph,
        plan: &Plan,
        unbound: Unbound,
        bodies: &mut dyn PassBodies,
        options: ExecOptions,
    ) -> Result<Executor<'g>, VkError> {
        let families = queue_families(gpu, options.emulate_async);
        let expected = crate::resources::concurrent_set(graph, plan, families);
        if expected != unbound.concurrent {
            let wrong = (0..expected.len())
                .find(|&i| unbound.concurrent.get(i) != expected.get(i))
                .map(|i| graph.resources[i].name.to_string())
                .unwrap_or_default();
            crate::synth::drop_unbound(gpu, unbound);
            return Err(VkError::Setup(format!(
                "'{wrong}' was created with another sharing mode than the plan asks for"
            )));
        }
        let res = Resources::bind(gpu, graph, plan, unbound)?;
        let staging = match StagingRing::new(gpu, 4 << 20, families) {
            Ok(s) => s,
            Err(e) => {
                let mut res = res;
                res.destroy(gpu);
                return Err(e);
            }
        };
        let mut ex = Executor {
            gpu,
            graph: graph.clone(),
            plan: plan.clone(),
            resources: res,
            cache: RenderPassCache::default(),
            built: Vec::new(),
            setups: Vec::new(),
            units: Vec::new(),
            layout: SubmitPlan::default(),
            submits: Vec::new(),
            before: Vec::new(),
            after: Vec::new(),
            barrier_resource: Vec::new(),
            lanes: [None, None],
            families,
            slots: Vec::new(),
            staging,
            end_layouts: Vec::new(),
            last_stages: Vec::new(),
            last_queue: Vec::new(),
            timestamps: false,
            ns_sum: Vec::new(),
            ns_count: Vec::new(),
            frame: 0,
            options,
            once_pools: [vk::CommandPool::null(); 2],
        };
        // On error, Drop releases whatever was built.
        ex.setup(bodies)?;
        Ok(ex)
    }

    fn setup(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        let gpu = self.gpu;
        for rp in &self.plan.render_passes {
            let b = self.cache.build(gpu, &self.graph, &self.resources, rp)?;
            self.built.push(b);
        }
        let mut rp_of: HashMap<String, (usize, u32)> = HashMap::new();
        for (k, b) in self.built.iter().enumerate() {
            for (j, s) in b.subpasses.iter().enumerate() {
                rp_of.insert(s.clone(), (k, j as u32));
            }
        }
        self.layout = SubmitPlan::from_plan(&self.plan)
            .map_err(|e| VkError::Setup(format!("plan batches: {e}")))?;
        if self.layout.used[1] && gpu.compute.is_none() && !self.options.emulate_async {
            return Err(VkError::Unsupported(
                "the plan uses the async-compute queue but the device has none \
                 (compile without async compute, or emulate the queue)"
                    .into(),
            ));
        }
        let async_names: HashSet<&str> = self
            .plan
            .queues
            .async_compute
            .iter()
            .map(|n| n.as_str())
            .collect();
        for name in &self.plan.order {
            let pid = self
                .graph
                .find_pass(name)
                .ok_or_else(|| VkError::Setup(format!("plan names unknown pass '{name}'")))?;
            let pass = self.graph.pass(pid);
            let queue = if async_names.contains(name.as_str()) {
                QueueKind::AsyncCompute
            } else {
                QueueKind::Graphics
            };
            let uses = pass
                .uses
                .iter()
                .map(|u| PassUse {
                    access: u.access,
                    clear: u.clear,
                    resource: u.resource.index(),
                    name: self.graph.resource(u.resource).name.to_string(),
                    res: self.resources.res[u.resource.index()],
                    from: u.from.map(|f| f.index()),
                })
                .collect();
            let subpass = rp_of.get(name.as_str()).map(|&(k, j)| {
                let b = &self.built[k];
                (b.render_pass, j, b.extent)
            });
            if pass.kind == PassKind::Raster && subpass.is_none() {
                return Err(VkError::Setup(format!(
                    "raster pass '{name}' is in no render pass"
                )));
            }
            self.setups.push(PassSetup {
                name: name.to_string(),
                kind: pass.kind,
                queue,
                uses,
                subpass,
            });
        }
        for s in &self.setups {
            bodies.prepare(gpu, s)?;
        }
        self.place_barriers()?;
        self.build_submits(&rp_of)?;
        self.replay_end_states();
        self.create_lanes()?;
        self.create_slots()
    }

    /// Sorts the plan's barriers by the pass and side they are recorded at, and checks that
    /// ownership transfers of images name their layouts.
    fn place_barriers(&mut self) -> Result<(), VkError> {
        let n = self.setups.len();
        self.before = vec![Vec::new(); n];
        self.after = vec![Vec::new(); n];
        let pos: HashMap<&str, usize> = self
            .setups
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        for (i, b) in self.plan.barriers.iter().enumerate() {
            let &p = pos.get(b.before.as_str()).ok_or_else(|| {
                VkError::Setup(format!("a barrier names unknown pass '{}'", b.before))
            })?;
            let r = self.graph.find_resource(&b.resource).ok_or_else(|| {
                VkError::Setup(format!("a barrier names unknown resource '{}'", b.resource))
            })?;
            let image = self.graph.resource(r).image_desc().is_some();
            if image && b.queue_transfer.is_some() && b.new_layout.is_none() {
                return Err(VkError::Setup(format!(
                    "the ownership transfer of image '{}' names no layout",
                    b.resource
                )));
            }
            self.barrier_resource.push(r.index());
            match b.position {
                tessera_graph::plan::BarrierPosition::Before => self.before[p].push(i),
                tessera_graph::plan::BarrierPosition::After => self.after[p].push(i),
            }
        }
        Ok(())
    }

    /// Units (passes and whole render passes) per plan batch, and the tails.
    fn build_submits(&mut self, rp_of: &HashMap<String, (usize, u32)>) -> Result<(), VkError> {
        let layout = self.layout.clone();
        for (bi, b) in layout.batches.iter().enumerate() {
            let mut units = Vec::new();
            let mut k = 0;
            while k < b.passes.len() {
                let p = b.passes[k];
                match rp_of.get(&self.setups[p].name) {
                    Some(&(rp, j)) => {
                        let subs = self.built[rp].subpasses.len();
                        // Contiguous in the batch (async-compute passes may sit between
                        // the subpasses in the plan's order, never in a graphics batch).
                        let whole = j == 0
                            && k + subs <= b.passes.len()
                            && (0..subs).all(|i| {
                                rp_of.get(&self.setups[b.passes[k + i]].name)
                                    == Some(&(rp, i as u32))
                            });
                        if !whole {
                            return Err(VkError::Setup(format!(
                                "the render pass of '{}' is split between submits",
                                self.setups[p].name
                            )));
                        }
                        self.units
                            .push(Unit::RenderPass(rp, b.passes[k..k + subs].to_vec()));
                        k += subs;
                    }
                    None => {
                        self.units.push(Unit::Pass(p));
                        k += 1;
                    }
                }
                units.push(self.units.len() - 1);
            }
            let first = &self.setups[b.passes[0]].name;
            self.submits.push(Submission {
                queue: b.queue,
                units,
                batch: Some(bi),
                frame_end: b.last_on_queue && !layout.tails(),
                drop_waits: self.options.drop_waits_before.as_deref() == Some(first.as_str()),
            });
        }
        if layout.tails() {
            for q in 0..2 {
                self.submits.push(Submission {
                    queue: q,
                    units: Vec::new(),
                    batch: None,
                    frame_end: true,
                    drop_waits: false,
                });
            }
        }
        if let Some(name) = &self.options.drop_waits_before {
            log::warn!("test switch: planned semaphore waits before '{name}' are dropped");
        }
        debug_assert_eq!(self.submits.len(), layout.submits());
        Ok(())
    }

    /// Timeline semaphores and device queues of the logical queues in use (graphics always,
    /// for one-time work).
    fn create_lanes(&mut self) -> Result<(), VkError> {
        let gpu = self.gpu;
        let d = &gpu.device;
        for q in 0..2 {
            if q == 1 && !self.layout.used[1] {
                continue;
            }
            let queue = match (q, gpu.compute) {
                (1, Some(c)) if !self.options.emulate_async => c,
                _ => gpu.graphics,
            };
            let mut t = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(0);
            let info = vk::SemaphoreCreateInfo::default().push_next(&mut t);
            // SAFETY: complete create info; destroyed in Drop.
            let semaphore = unsafe { d.create_semaphore(&info, None) }?;
            gpu.name(semaphore, &format!("timeline {}", submit::kind(q)));
            self.lanes[q] = Some(Lane { queue, semaphore });
        }
        Ok(())
    }

    /// Command pools, command buffers and timestamp queries of each frame slot.
    fn create_slots(&mut self) -> Result<(), VkError> {
        let gpu = self.gpu;
        let d = &gpu.device;
        // Timestamps where every used family supports them.
        // SAFETY: property query on our physical device.
        let fams = unsafe {
            gpu.instance
                .get_physical_device_queue_family_properties(gpu.physical)
        };
        self.timestamps = self.lanes.iter().flatten().all(|l| {
            fams.get(l.queue.family as usize)
                .is_some_and(|f| f.timestamp_valid_bits > 0)
        }) && gpu.properties.limits.timestamp_period > 0.0;
        let n = self.setups.len();
        self.ns_sum = vec![0.0; n];
        self.ns_count = vec![0; n];
        let pool_info = |family| {
            vk::CommandPoolCreateInfo::default()
                .queue_family_index(family)
                .flags(vk::CommandPoolCreateFlags::TRANSIENT)
        };
        for (q, lane) in self.lanes.iter().enumerate() {
            let Some(lane) = lane else { continue };
            // SAFETY: complete create info; destroyed in Drop.
            self.once_pools[q] = unsafe {
                d.create_command_pool(
                    &pool_info(lane.queue.family)
                        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                    None,
                )
            }?;
        }
        for k in 0..FRAMES_IN_FLIGHT {
            let mut slot = Slot {
                pools: [vk::CommandPool::null(); 2],
                fences: [vk::Fence::null(); 2],
                cmds: Vec::new(),
                queries: None,
                frame: None,
            };
            for (q, lane) in self.lanes.iter().enumerate() {
                if let Some(lane) = lane {
                    // SAFETY: complete create info; destroyed in Drop (pushed to `slots`
                    // below even when a later step fails).
                    slot.pools[q] =
                        unsafe { d.create_command_pool(&pool_info(lane.queue.family), None) }?;
                }
            }
            self.slots.push(slot);
            let slot = self.slots.last_mut().expect("pushed above");
            for (q, lane) in self.lanes.iter().enumerate() {
                if lane.is_some() && self.layout.used[q] {
                    // SAFETY: complete create info; destroyed in Drop.
                    slot.fences[q] =
                        unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) }?;
                }
            }
            for (si, sub) in self.submits.iter().enumerate() {
                let info = vk::CommandBufferAllocateInfo::default()
                    .command_pool(slot.pools[sub.queue])
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                // SAFETY: the pool is live.
                let c = unsafe { d.allocate_command_buffers(&info) }?[0];
                let what = match sub.batch {
                    Some(b) => format!("batch {b}"),
                    None => "tail".into(),
                };
                gpu.name(
                    c,
                    &format!(
                        "frame slot {k} submit {si} ({what} on {})",
                        submit::kind(sub.queue)
                    ),
                );
                slot.cmds.push(c);
            }
            if self.timestamps && n > 0 {
                let info = vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2 * n as u32);
                // SAFETY: complete create info.
                let q = unsafe { d.create_query_pool(&info, None) }?;
                // SAFETY: host reset of a fresh pool (hostQueryReset is enabled with the
                // Vulkan 1.2 features).
                unsafe { d.reset_query_pool(q, 0, 2 * n as u32) };
                slot.queries = Some(q);
            }
        }
        Ok(())
    }

    fn unit_passes(&self, u: usize) -> Vec<usize> {
        match &self.units[u] {
            Unit::Pass(p) => vec![*p],
            Unit::RenderPass(_, ps) => ps.clone(),
        }
    }

    /// Layout of every image at the end of the frame, the stages of each resource's last
    /// use and the queue of its last access, replaying the passes in execution order with
    /// their barriers (before and after) and render-pass final layouts.
    fn replay_end_states(&mut self) {
        let n = self.graph.resources.len();
        self.end_layouts = vec![vk::ImageLayout::UNDEFINED; n];
        self.last_stages = vec![vk::PipelineStageFlags2::NONE; n];
        self.last_queue = vec![None; n];
        let mut final_layouts: HashMap<&str, Vec<(usize, Layout)>> = HashMap::new();
        for rp in &self.plan.render_passes {
            if let Some(last) = rp.subpasses.last() {
                let list = rp
                    .attachments
                    .iter()
                    .filter_map(|a| {
                        let r = self.graph.find_resource(&a.resource)?;
                        Some((r.index(), a.final_layout))
                    })
                    .collect();
                final_layouts.insert(last.as_str(), list);
            }
        }
        for (p, s) in self.setups.iter().enumerate() {
            let q = s.queue;
            let barriers =
                |list: &[usize], end: &mut [vk::ImageLayout], lq: &mut [Option<QueueKind>]| {
                    for &bi in list {
                        let r = self.barrier_resource[bi];
                        if let Some(l) = self.plan.barriers[bi].new_layout {
                            end[r] = conv::layout(l);
                        }
                        lq[r] = Some(q);
                    }
                };
            barriers(&self.before[p], &mut self.end_layouts, &mut self.last_queue);
            if let Some(pid) = self.graph.find_pass(&s.name) {
                let pass = self.graph.pass(pid);
                for u in &pass.uses {
                    let r = self.graph.resource(u.resource);
                    let scope = u.access.scope(pass.kind, r.target());
                    self.last_stages[u.resource.index()] = conv::stages(scope.stages);
                    self.last_queue[u.resource.index()] = Some(q);
                    if let Some(l) = scope.layout {
                        self.end_layouts[u.resource.index()] = conv::layout(l);
                    }
                }
            }
            for &(r, l) in final_layouts.get(s.name.as_str()).into_iter().flatten() {
                self.end_layouts[r] = conv::layout(l);
            }
            barriers(&self.after[p], &mut self.end_layouts, &mut self.last_queue);
        }
    }

    /// Layout of each image at the end of a frame.
    pub fn end_layouts(&self) -> &[vk::ImageLayout] {
        &self.end_layouts
    }

    /// Logical queue of each resource's last access in a frame (`None` when unused).
    pub fn last_queues(&self) -> &[Option<QueueKind>] {
        &self.last_queue
    }

    /// Queue family a logical queue runs on.
    pub fn family(&self, q: QueueKind) -> u32 {
        self.families[submit::slot(q)]
    }

    /// Runs one frame.
    pub fn frame(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        let gpu = self.gpu;
        let d = &gpu.device;
        let slot_i = (self.frame % FRAMES_IN_FLIGHT as u64) as usize;
        self.wait_slot(slot_i, bodies)?;
        let frame = self.frame;
        let slot = &self.slots[slot_i];
        // SAFETY: the slot's previous frame is complete (waited above).
        unsafe {
            for &p in slot.pools.iter().filter(|p| **p != vk::CommandPool::null()) {
                d.reset_command_pool(p, vk::CommandPoolResetFlags::empty())?;
            }
        }
        for (si, sub) in self.submits.iter().enumerate() {
            let Some(lane) = self.lanes[sub.queue] else {
                continue;
            };
            let cmd = slot.cmds[si];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: the command buffer was reset with its pool.
            unsafe { d.begin_command_buffer(cmd, &begin) }?;
            for &u in &sub.units {
                self.record_unit(u, cmd, slot.queries, frame, bodies);
            }
            if sub.frame_end {
                let end = FrameEnd {
                    resources: &self.resources,
                    end_layouts: &self.end_layouts,
                    last_stages: &self.last_stages,
                    last_queue: &self.last_queue,
                    queue: submit::kind(sub.queue),
                };
                bodies.end_frame(gpu, &end, cmd, frame);
            }
            // SAFETY: recording started above.
            unsafe { d.end_command_buffer(cmd) }?;
            let (waits, signal) = match sub.batch {
                Some(b) => (
                    self.layout.waits(b, frame, !sub.drop_waits),
                    self.layout.signal(b, frame),
                ),
                None => {
                    let (w, s) = self.layout.tail(sub.queue, frame);
                    (vec![w], Some(s))
                }
            };
            let point = |(q, v): submit::Point| {
                let sem = self.lanes[q].map_or(vk::Semaphore::null(), |l| l.semaphore);
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(sem)
                    .value(v)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            };
            let waits: Vec<vk::SemaphoreSubmitInfo> = waits.into_iter().map(point).collect();
            let signals: Vec<vk::SemaphoreSubmitInfo> = signal.into_iter().map(point).collect();
            let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
            let info = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&waits)
                .command_buffer_infos(&cmds)
                .signal_semaphore_infos(&signals);
            // The frame-end submit is the queue's last of the frame: its fence covers the
            // queue's whole frame.
            let fence = if sub.frame_end {
                slot.fences[sub.queue]
            } else {
                vk::Fence::null()
            };
            // SAFETY: everything referenced is alive; every wait names a value signalled by
            // a submit made earlier (checked when the layout was built), on semaphores of
            // lanes in use; the fence was reset when the slot was last waited for.
            unsafe { d.queue_submit2(lane.queue.queue, &[info], fence) }?;
        }
        self.slots[slot_i].frame = Some(frame);
        self.frame += 1;
        Ok(())
    }

    fn wait_slot(&mut self, slot_i: usize, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        let Some(f) = self.slots[slot_i].frame else {
            return Ok(());
        };
        let d = &self.gpu.device;
        let fences: Vec<vk::Fence> = self.slots[slot_i]
            .fences
            .iter()
            .copied()
            .filter(|f| *f != vk::Fence::null())
            .collect();
        if !fences.is_empty() {
            // SAFETY: the fences are live and were submitted with frame `f`.
            unsafe {
                d.wait_for_fences(&fences, true, u64::MAX)?;
                d.reset_fences(&fences)?;
            }
        }
        debug_assert!((0..2).all(|q| {
            let Some(l) = self.lanes[q].filter(|_| self.layout.used[q]) else {
                return true;
            };
            // SAFETY: a query of a live semaphore.
            unsafe { d.get_semaphore_counter_value(l.semaphore) }
                .is_ok_and(|v| v >= self.layout.frame_end(q, f))
        }));
        self.slots[slot_i].frame = None;
        if let Some(q) = self.slots[slot_i].queries {
            let n = self.setups.len();
            let mut data = vec![[0u64; 2]; 2 * n];
            // SAFETY: the frame that wrote the queries is complete; `data` has room for
            // every query with its availability word.
            let r = unsafe {
                d.get_query_pool_results(
                    q,
                    0,
                    &mut data,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
                )
            };
            if r.is_ok() || r == Err(vk::Result::NOT_READY) {
                let period = self.gpu.timestamp_period();
                for p in 0..n {
                    let (a, b) = (data[2 * p], data[2 * p + 1]);
                    if a[1] != 0 && b[1] != 0 && b[0] >= a[0] {
                        self.ns_sum[p] += (b[0] - a[0]) as f64 * period;
                        self.ns_count[p] += 1;
                    }
                }
            }
            // SAFETY: the queries are not in use (frame complete).
            unsafe { d.reset_query_pool(q, 0, 2 * n as u32) };
        }
        bodies.frame_done(self.gpu, f);
        Ok(())
    }

    /// Waits for every frame in flight.
    pub fn finish(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        let mut order: Vec<(u64, usize)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.frame.map(|f| (f, i)))
            .collect();
        order.sort();
        for (_, i) in order {
            self.wait_slot(i, bodies)?;
        }
        Ok(())
    }

    fn record_unit(
        &self,
        u: usize,
        cmd: vk::CommandBuffer,
        queries: Option<vk::QueryPool>,
        frame: u64,
        bodies: &mut dyn PassBodies,
    ) {
        let d = &self.gpu.device;
        let passes = self.unit_passes(u);
        let before: Vec<usize> = passes
            .iter()
            .flat_map(|&p| self.before[p].iter().copied())
            .collect();
        self.record_barriers(&before, cmd);
        match &self.units[u] {
            Unit::Pass(p) => self.record_pass(*p, cmd, queries, frame, bodies),
            Unit::RenderPass(k, ps) => {
                let b = &self.built[*k];
                let clears = vec![vk::ClearValue::default(); b.attachments];
                let begin = vk::RenderPassBeginInfo::default()
                    .render_pass(b.render_pass)
                    .framebuffer(b.framebuffer)
                    .render_area(vk::Rect2D {
                        offset: vk::Offset2D::default(),
                        extent: b.extent,
                    })
                    .clear_values(&clears);
                let sb = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
                let se = vk::SubpassEndInfo::default();
                // SAFETY: recording; render pass and framebuffer are live and compatible.
                unsafe { d.cmd_begin_render_pass2(cmd, &begin, &sb) };
                for (j, &p) in ps.iter().enumerate() {
                    if j > 0 {
                        // SAFETY: inside the render pass, not at its last subpass.
                        unsafe { d.cmd_next_subpass2(cmd, &sb, &se) };
                    }
                    self.record_pass(p, cmd, queries, frame, bodies);
                }
                // SAFETY: at the last subpass.
                unsafe { d.cmd_end_render_pass2(cmd, &se) };
            }
        }
        let after: Vec<usize> = passes
            .iter()
            .flat_map(|&p| self.after[p].iter().copied())
            .collect();
        self.record_barriers(&after, cmd);
    }

    fn record_pass(
        &self,
        p: usize,
        cmd: vk::CommandBuffer,
        queries: Option<vk::QueryPool>,
        frame: u64,
        bodies: &mut dyn PassBodies,
    ) {
        let d = &self.gpu.device;
        let s = &self.setups[p];
        let label = std::ffi::CString::new(s.name.replace('\0', " ")).unwrap_or_default();
        if let Some(dbg) = &self.gpu.debug {
            let l = vk::DebugUtilsLabelEXT::default().label_name(&label);
            // SAFETY: recording; the label string outlives the call.
            unsafe { dbg.cmd_begin_debug_utils_label(cmd, &l) };
        }
        if let Some(q) = queries {
            // SAFETY: the query was reset on the host and is written once per frame.
            unsafe {
                d.cmd_write_timestamp2(cmd, vk::PipelineStageFlags2::TOP_OF_PIPE, q, 2 * p as u32)
            };
        }
        bodies.record(self.gpu, s, cmd, frame);
        if let Some(q) = queries {
            // SAFETY: as above.
            unsafe {
                d.cmd_write_timestamp2(
                    cmd,
                    vk::PipelineStageFlags2::BOTTOM_OF_PIPE,
                    q,
                    2 * p as u32 + 1,
                )
            };
        }
        if let Some(dbg) = &self.gpu.debug {
            // SAFETY: matches the begin above.
            unsafe { dbg.cmd_end_debug_utils_label(cmd) };
        }
    }

    /// Records plan barriers (indices into `plan.barriers`, in plan order) exactly as planned
    /// (their scopes include the attachments' load and store operations).
    /// Barriers go into one `vkCmdPipelineBarrier2` until a resource comes again (a routed
    /// transition then its release, an acquire then a transition): barriers of one command
    /// are not ordered among themselves, successive commands are (their stages chain).
    fn record_barriers(&self, list: &[usize], cmd: vk::CommandBuffer) {
        let resources: Vec<usize> = list.iter().map(|&bi| self.barrier_resource[bi]).collect();
        for wave in barrier::waves(&resources) {
            self.record_dependency(&list[wave], cmd);
        }
    }

    /// Records plan barriers on distinct resources as one dependency.
    fn record_dependency(&self, list: &[usize], cmd: vk::CommandBuffer) {
        let mut images = Vec::new();
        let mut buffers = Vec::new();
        let mut memory = Vec::new();
        for &bi in list {
            let b = &self.plan.barriers[bi];
            if self.options.drop_barriers_on.as_deref() == Some(b.resource.as_str()) {
                continue;
            }
            let i = self.barrier_resource[bi];
            let v = barrier::translate(b, |q| self.family(q));
            match &self.resources.res[i] {
                Res::Image(im) if v.layouts.is_some() || v.transfers_ownership() => {
                    // Transfer halves always name their layouts (checked at setup).
                    let (old, new) = v
                        .layouts
                        .unwrap_or((vk::ImageLayout::UNDEFINED, vk::ImageLayout::UNDEFINED));
                    images.push(
                        vk::ImageMemoryBarrier2::default()
                            .src_stage_mask(v.src_stage)
                            .src_access_mask(v.src_access)
                            .dst_stage_mask(v.dst_stage)
                            .dst_access_mask(v.dst_access)
                            .old_layout(old)
                            .new_layout(new)
                            .src_queue_family_index(v.families.0)
                            .dst_queue_family_index(v.families.1)
                            .image(im.image)
                            .subresource_range(im.range()),
                    )
                }
                Res::Buffer(buf) if v.transfers_ownership() => buffers.push(
                    vk::BufferMemoryBarrier2::default()
                        .src_stage_mask(v.src_stage)
                        .src_access_mask(v.src_access)
                        .dst_stage_mask(v.dst_stage)
                        .dst_access_mask(v.dst_access)
                        .src_queue_family_index(v.families.0)
                        .dst_queue_family_index(v.families.1)
                        .buffer(buf.buffer)
                        .offset(0)
                        .size(vk::WHOLE_SIZE),
                ),
                _ => memory.push(
                    vk::MemoryBarrier2::default()
                        .src_stage_mask(v.src_stage)
                        .src_access_mask(v.src_access)
                        .dst_stage_mask(v.dst_stage)
                        .dst_access_mask(v.dst_access),
                ),
            }
        }
        if images.is_empty() && memory.is_empty() && buffers.is_empty() {
            return;
        }
        let dep = vk::DependencyInfo::default()
            .memory_barriers(&memory)
            .buffer_memory_barriers(&buffers)
            .image_memory_barriers(&images);
        // SAFETY: recording outside any render pass; every handle is live.
        unsafe { self.gpu.device.cmd_pipeline_barrier2(cmd, &dep) };
    }

    /// Mean GPU time per pass over the frames timed so far, in execution order.
    pub fn timings(&self) -> Vec<PassTiming> {
        self.setups
            .iter()
            .enumerate()
            .map(|(i, s)| PassTiming {
                pass: s.name.clone(),
                mean_us: if self.ns_count[i] > 0 {
                    self.ns_sum[i] / self.ns_count[i] as f64 / 1000.0
                } else {
                    0.0
                },
                frames: self.ns_count[i],
            })
            .collect()
    }

    /// Frames submitted so far.
    pub fn frames(&self) -> u64 {
        self.frame
    }

    /// Number of submits (command buffers) per frame.
    pub fn submits_per_frame(&self) -> usize {
        self.submits.len()
    }

    /// The pass setups in execution order.
    pub fn passes(&self) -> &[PassSetup] {
        &self.setups
    }

    /// Records `f` into a one-time command buffer on the graphics queue, submits it and
    /// waits for the device.
    pub fn once(
        &mut self,
        f: impl FnOnce(&Gpu, vk::CommandBuffer, &mut StagingRing),
    ) -> Result<(), VkError> {
        self.once_on(QueueKind::Graphics, f)
    }

    /// Records `f` into a one-time command buffer on the device queue of logical queue `q`
    /// (graphics when `q` has no work in the plan), submits it and waits for the device.
    pub fn once_on(
        &mut self,
        q: QueueKind,
        f: impl FnOnce(&Gpu, vk::CommandBuffer, &mut StagingRing),
    ) -> Result<(), VkError> {
        let d = &self.gpu.device;
        let q = if self.lanes[submit::slot(q)].is_some() {
            submit::slot(q)
        } else {
            0
        };
        let (Some(lane), pool) = (self.lanes[q], self.once_pools[q]) else {
            return Err(VkError::Setup("no queue for one-time work".into()));
        };
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool is live and used only here.
        let cmd = unsafe { d.allocate_command_buffers(&info) }?[0];
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: fresh command buffer.
        unsafe { d.begin_command_buffer(cmd, &begin) }?;
        f(self.gpu, cmd, &mut self.staging);
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let submit = vk::SubmitInfo2::default().command_buffer_infos(&cmds);
        // SAFETY: recorded above; we wait for the device before freeing.
        let r = unsafe {
            d.end_command_buffer(cmd)
                .and_then(|_| d.queue_submit2(lane.queue.queue, &[submit], vk::Fence::null()))
                .and_then(|_| d.device_wait_idle())
        };
        // SAFETY: idle (or failed): the buffer is not in use.
        unsafe { d.free_command_buffers(pool, &[cmd]) };
        r?;
        Ok(())
    }

    /// Moves an EXCLUSIVE image from the family of logical queue `from` to that of `to` (a
    /// release and an acquire in `layout`, device idle in between); nothing when both map to
    /// one family.
    pub fn hand_over_image(
        &mut self,
        resource: usize,
        layout: vk::ImageLayout,
        from: QueueKind,
        to: QueueKind,
    ) -> Result<(), VkError> {
        let (src, dst) = (self.family(from), self.family(to));
        let Some(Res::Image(im)) = self.resources.res.get(resource).copied() else {
            return Ok(());
        };
        if src == dst {
            return Ok(());
        }
        let half = |release: bool| {
            move |gpu: &Gpu, cmd: vk::CommandBuffer, _: &mut StagingRing| {
                let (ss, sa, ds, da) = if release {
                    (
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        vk::AccessFlags2::MEMORY_WRITE,
                        vk::PipelineStageFlags2::NONE,
                        vk::AccessFlags2::NONE,
                    )
                } else {
                    (
                        vk::PipelineStageFlags2::NONE,
                        vk::AccessFlags2::NONE,
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                    )
                };
                let b = [vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(ss)
                    .src_access_mask(sa)
                    .dst_stage_mask(ds)
                    .dst_access_mask(da)
                    .old_layout(layout)
                    .new_layout(layout)
                    .src_queue_family_index(src)
                    .dst_queue_family_index(dst)
                    .image(im.image)
                    .subresource_range(im.range())];
                // SAFETY: recording an ownership-transfer half of a live image.
                unsafe {
                    gpu.device.cmd_pipeline_barrier2(
                        cmd,
                        &vk::DependencyInfo::default().image_memory_barriers(&b),
                    )
                };
            }
        };
        self.once_on(from, half(true))?;
        self.once_on(to, half(false))
    }

    /// The staging ring (device idle between uses).
    pub fn staging(&mut self) -> &mut StagingRing {
        &mut self.staging
    }

    /// Destroys the pass bodies' objects and everything the executor built.
    pub fn destroy(self, bodies: &mut dyn PassBodies) {
        let _ = self.gpu.wait_idle();
        bodies.destroy(self.gpu);
        // Drop does the rest.
    }
}

impl Drop for Executor<'_> {
    fn drop(&mut self) {
        let gpu = self.gpu;
        let d = &gpu.device;
        let _ = gpu.wait_idle();
        // SAFETY: the device is idle; every object below was created by this executor.
        unsafe {
            for s in self.slots.drain(..) {
                for p in s
                    .pools
                    .into_iter()
                    .filter(|p| *p != vk::CommandPool::null())
                {
                    d.destroy_command_pool(p, None);
                }
                if let Some(q) = s.queries {
                    d.destroy_query_pool(q, None);
                }
                for f in s.fences.into_iter().filter(|f| *f != vk::Fence::null()) {
                    d.destroy_fence(f, None);
                }
            }
            for p in self
                .once_pools
                .into_iter()
                .filter(|p| *p != vk::CommandPool::null())
            {
                d.destroy_command_pool(p, None);
            }
            for l in self.lanes.iter_mut().filter_map(Option::take) {
                d.destroy_semaphore(l.semaphore, None);
            }
        }
        self.cache.destroy(gpu);
        self.staging.destroy(gpu);
        self.resources.destroy(gpu);
    }
}
