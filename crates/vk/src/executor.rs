//! Runs a compiled plan frame after frame.
//!
//! Setup: resources and memory (`resources`), render passes and framebuffers (`render`), and
//! the submission layout: the passes of each queue are cut into segments (one command buffer
//! and one submit each) before every pass that waits on a cross-queue sync and after every
//! pass that signals one; every segment signals its queue's timeline semaphore with a value
//! derived from the frame and segment, and waits on the signalling segments' values. A whole
//! render pass is one unit (never cut inside).
//!
//! Each frame: wait for the frame that used this slot (2 frames in flight), read its GPU
//! timestamps, record every segment: the plan's barriers before each pass through
//! `vkCmdPipelineBarrier2` (image barriers with a layout transition, global memory barriers
//! otherwise), the render pass begin/next/end around subpasses, a debug label and two
//! timestamps per pass, and the pass body through [`PassBodies`]. Cross-queue ownership
//! transfers: resources are created `CONCURRENT` when two families are used, so release
//! halves are dropped (the semaphore carries availability) and acquire halves are recorded
//! as ordinary barriers. Because the plan has no edges for hazards against the previous
//! frame on another queue, the first segment of each queue in a frame waits for the other
//! queues' last segment of the previous frame.

use crate::device::Gpu;
use crate::render::{BuiltRenderPass, RenderPassCache};
use crate::resources::{self, Res, Resources, StagingRing, Unbound};
use crate::{conv, VkError};
use ash::vk;
use std::collections::HashMap;
use tessera_graph::access::Access;
use tessera_graph::plan::TransferHalf;
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

/// What `end_frame` may look at: the resources and the layout each image ends the frame in.
#[derive(Debug)]
pub struct FrameEnd<'a> {
    /// The resources.
    pub resources: &'a Resources,
    /// Layout each image is in at the end of the frame (indexed by resource).
    pub end_layouts: &'a [vk::ImageLayout],
    /// Stages of the last use of each resource in the frame (indexed by resource).
    pub last_stages: &'a [vk::PipelineStageFlags2],
}

/// Executor switches.
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Test only: drop every plan barrier on this resource (proves the tests can fail).
    pub drop_barriers_on: Option<String>,
}

#[derive(Clone, Debug)]
enum Unit {
    Pass(usize),
    RenderPass(usize, Vec<usize>),
}

#[derive(Clone, Debug, Default)]
struct Segment {
    queue: usize,
    units: Vec<usize>,
    waits: Vec<usize>,
}

struct Slot {
    pool: vk::CommandPool,
    compute_pool: Option<vk::CommandPool>,
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

/// Stages and accesses of attachment load/store operations for a colour or depth attachment.
pub fn attachment_op_scope(depth: bool) -> (vk::PipelineStageFlags2, vk::AccessFlags2) {
    if depth {
        (
            vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
                | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
            vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ
                | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
        )
    } else {
        (
            vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
            vk::AccessFlags2::COLOR_ATTACHMENT_READ | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
        )
    }
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
    setups: Vec<PassSetup>,
    units: Vec<Unit>,
    segments: Vec<Segment>,
    barriers_before: HashMap<String, Vec<usize>>,
    queues: Vec<(crate::device::Queue, vk::Semaphore)>,
    slots: Vec<Slot>,
    staging: StagingRing,
    end_layouts: Vec<vk::ImageLayout>,
    last_stages: Vec<vk::PipelineStageFlags2>,
    timestamps: bool,
    ns_sum: Vec<f64>,
    ns_count: Vec<u64>,
    frame: u64,
    options: ExecOptions,
    once_pool: vk::CommandPool,
    /// Per resource: the attachment-operation scope if some render pass attaches it.
    attachment_scope: Vec<Option<(vk::PipelineStageFlags2, vk::AccessFlags2)>>,
    /// (first subpass, resource) pairs: the render pass begun there loads the resource.
    loaded_at: std::collections::HashSet<(String, usize)>,
}

impl std::fmt::Debug for Executor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("passes", &self.setups.len())
            .field("segments", &self.segments.len())
            .field("frame", &self.frame)
            .finish()
    }
}

const FRAMES_IN_FLIGHT: usize = 2;

impl<'g> Executor<'g> {
    /// Builds everything `plan` needs. `unbound` are the graph's resources created by
    /// [`resources::create_unbound`] (their real sizes are what the plan was compiled with).
    pub fn new(
        gpu: &'g Gpu,
        graph: &Graph,
        plan: &Plan,
        unbound: Unbound,
        bodies: &mut dyn PassBodies,
        options: ExecOptions,
    ) -> Result<Executor<'g>, VkError> {
        let res = Resources::bind(gpu, graph, plan, unbound)?;
        let staging = match StagingRing::new(gpu, 4 << 20) {
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
            segments: Vec::new(),
            barriers_before: HashMap::new(),
            queues: Vec::new(),
            slots: Vec::new(),
            staging,
            end_layouts: Vec::new(),
            last_stages: Vec::new(),
            timestamps: false,
            ns_sum: Vec::new(),
            ns_count: Vec::new(),
            frame: 0,
            options,
            once_pool: vk::CommandPool::null(),
            attachment_scope: Vec::new(),
            loaded_at: std::collections::HashSet::new(),
        };
        // On error, Drop releases whatever was built.
        ex.setup(bodies)?;
        Ok(ex)
    }

    fn setup(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        let gpu = self.gpu;
        let d = &gpu.device;
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
        let uses_async = !self.plan.queues.async_compute.is_empty();
        if uses_async && gpu.compute.is_none() {
            return Err(VkError::Unsupported(
                "the plan uses the async-compute queue but the device has none".into(),
            ));
        }
        for name in &self.plan.order {
            let pid = self
                .graph
                .find_pass(name)
                .ok_or_else(|| VkError::Setup(format!("plan names unknown pass '{name}'")))?;
            let pass = self.graph.pass(pid);
            let queue = if self.plan.queues.async_compute.contains(name) {
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
            let subpass = rp_of.get(name.as_ref()).map(|&(k, j)| {
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
        for (i, b) in self.plan.barriers.iter().enumerate() {
            self.barriers_before
                .entry(b.before.to_string())
                .or_default()
                .push(i);
        }
        self.attachment_scope = vec![None; self.graph.resources.len()];
        for rp in &self.plan.render_passes {
            for a in &rp.attachments {
                let Some(r) = self.graph.find_resource(&a.resource) else {
                    continue;
                };
                let depth = self
                    .graph
                    .resource(r)
                    .image_desc()
                    .is_some_and(|d| d.format.is_depth_stencil());
                self.attachment_scope[r.index()] = Some(attachment_op_scope(depth));
                if let Some(first) = rp.subpasses.first() {
                    self.loaded_at.insert((first.to_string(), r.index()));
                }
            }
        }
        self.build_units(&rp_of);
        self.build_segments()?;
        self.compute_end_states();
        // Queues and timeline semaphores.
        let mut qs = vec![gpu.graphics];
        if uses_async {
            qs.extend(gpu.compute);
        }
        for q in qs {
            let mut t = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(0);
            let info = vk::SemaphoreCreateInfo::default().push_next(&mut t);
            // SAFETY: complete create info.
            let s = unsafe { d.create_semaphore(&info, None) }?;
            gpu.name(s, &format!("timeline (family {})", q.family));
            self.queues.push((q, s));
        }
        // Timestamps where every used family supports them.
        // SAFETY: property query on our physical device.
        let fams = unsafe {
            gpu.instance
                .get_physical_device_queue_family_properties(gpu.physical)
        };
        self.timestamps = self.queues.iter().all(|(q, _)| {
            fams.get(q.family as usize)
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
        // SAFETY: complete create info.
        self.once_pool = unsafe {
            d.create_command_pool(
                &pool_info(gpu.graphics.family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
        }?;
        for k in 0..FRAMES_IN_FLIGHT {
            // SAFETY: complete create infos; the pools are destroyed in Drop.
            let pool = unsafe { d.create_command_pool(&pool_info(gpu.graphics.family), None) }?;
            let compute_pool = if uses_async {
                let c = self.queues[1].0.family;
                // SAFETY: as above.
                Some(unsafe { d.create_command_pool(&pool_info(c), None) }?)
            } else {
                None
            };
            let mut slot = Slot {
                pool,
                compute_pool,
                cmds: Vec::new(),
                queries: None,
                frame: None,
            };
            for seg in &self.segments {
                let p = if seg.queue == 0 {
                    pool
                } else {
                    compute_pool.unwrap_or(pool)
                };
                let info = vk::CommandBufferAllocateInfo::default()
                    .command_pool(p)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                // SAFETY: the pool is live.
                let c = unsafe { d.allocate_command_buffers(&info) }?[0];
                gpu.name(c, &format!("frame slot {k} segment {}", slot.cmds.len()));
                slot.cmds.push(c);
            }
            if self.timestamps && n > 0 {
                let info = vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2 * n as u32);
                // SAFETY: complete create info.
                let q = unsafe { d.create_query_pool(&info, None) }?;
                // SAFETY: host reset of a fresh pool (hostQueryReset is core in 1.2 and
                // enabled below through the 1.2 features when supported).
                unsafe { d.reset_query_pool(q, 0, 2 * n as u32) };
                slot.queries = Some(q);
            }
            self.slots.push(slot);
        }
        Ok(())
    }

    fn build_units(&mut self, rp_of: &HashMap<String, (usize, u32)>) {
        let mut i = 0;
        while i < self.setups.len() {
            match rp_of.get(&self.setups[i].name) {
                Some(&(k, _)) => {
                    let n = self.built[k].subpasses.len();
                    self.units.push(Unit::RenderPass(k, (i..i + n).collect()));
                    i += n;
                }
                None => {
                    self.units.push(Unit::Pass(i));
                    i += 1;
                }
            }
        }
    }

    fn unit_passes(&self, u: usize) -> Vec<usize> {
        match &self.units[u] {
            Unit::Pass(p) => vec![*p],
            Unit::RenderPass(_, ps) => ps.clone(),
        }
    }

    fn build_segments(&mut self) -> Result<(), VkError> {
        let pos: HashMap<&str, usize> = self
            .setups
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        let mut seg_of_pass = vec![usize::MAX; self.setups.len()];
        let mut open: [Option<usize>; 2] = [None, None];
        let mut segments: Vec<Segment> = Vec::new();
        for u in 0..self.units.len() {
            let passes = self.unit_passes(u);
            let q = usize::from(self.setups[passes[0]].queue == QueueKind::AsyncCompute);
            let mut waits = Vec::new();
            let mut signals = false;
            for &p in &passes {
                for s in &self.plan.syncs {
                    if s.wait.as_ref() == self.setups[p].name {
                        let sp = *pos.get(s.signal.as_ref()).ok_or_else(|| {
                            VkError::Setup(format!("sync names unknown pass '{}'", s.signal))
                        })?;
                        if seg_of_pass[sp] == usize::MAX {
                            return Err(VkError::Setup(format!(
                                "'{}' waits on '{}', which runs later",
                                s.wait, s.signal
                            )));
                        }
                        waits.push(seg_of_pass[sp]);
                    }
                    if s.signal.as_ref() == self.setups[p].name {
                        signals = true;
                    }
                }
            }
            if !waits.is_empty() {
                open[q] = None;
            }
            let seg = match open[q] {
                Some(s) => s,
                None => {
                    segments.push(Segment {
                        queue: q,
                        ..Default::default()
                    });
                    segments.len() - 1
                }
            };
            open[q] = Some(seg);
            for w in waits {
                // An earlier segment of the same queue is already ordered before this one.
                if segments[w].queue != q && !segments[seg].waits.contains(&w) {
                    segments[seg].waits.push(w);
                }
            }
            segments[seg].units.push(u);
            for &p in &passes {
                seg_of_pass[p] = seg;
            }
            if signals {
                // Other queues' open segments stay open; this one ends after the signal.
                open[q] = None;
            }
        }
        self.segments = segments;
        Ok(())
    }

    /// Layout of every image at the end of the frame and the stages of each resource's last
    /// use, replaying the plan's transitions and render-pass final layouts.
    fn compute_end_states(&mut self) {
        let n = self.graph.resources.len();
        self.end_layouts = vec![vk::ImageLayout::UNDEFINED; n];
        self.last_stages = vec![vk::PipelineStageFlags2::NONE; n];
        let idx = resources::index_by_name(&self.graph);
        for b in &self.plan.barriers {
            if let (Some(l), Some(&i)) = (b.new_layout, idx.get(b.resource.as_ref())) {
                if l != Layout::UNDEFINED {
                    self.end_layouts[i] = conv::layout(l);
                }
            }
        }
        for u in 0..self.units.len() {
            for p in self.unit_passes(u) {
                let pid = self.graph.find_pass(&self.setups[p].name);
                if let Some(pid) = pid {
                    let pass = self.graph.pass(pid);
                    for use_ in &pass.uses {
                        let r = self.graph.resource(use_.resource);
                        let scope = use_.access.scope(pass.kind, r.target());
                        self.last_stages[use_.resource.index()] = conv::stages(scope.stages);
                        if let Some(l) = scope.layout {
                            self.end_layouts[use_.resource.index()] = conv::layout(l);
                        }
                    }
                }
            }
        }
    }

    /// Layout of each image at the end of a frame.
    pub fn end_layouts(&self) -> &[vk::ImageLayout] {
        &self.end_layouts
    }

    /// Runs one frame.
    pub fn frame(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        let gpu = self.gpu;
        let d = &gpu.device;
        let slot_i = (self.frame % FRAMES_IN_FLIGHT as u64) as usize;
        self.wait_slot(slot_i, bodies)?;
        let frame = self.frame;
        let nseg = self.segments.len() as u64;
        let value = |f: u64, s: usize| f * nseg.max(1) + s as u64 + 1;
        let slot = &self.slots[slot_i];
        // SAFETY: the slot's previous frame is complete (waited above).
        unsafe {
            d.reset_command_pool(slot.pool, vk::CommandPoolResetFlags::empty())?;
            if let Some(c) = slot.compute_pool {
                d.reset_command_pool(c, vk::CommandPoolResetFlags::empty())?;
            }
        }
        let last_graphics = self.segments.iter().rposition(|s| s.queue == 0);
        for (si, seg) in self.segments.iter().enumerate() {
            let cmd = slot.cmds[si];
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: the command buffer was reset with its pool.
            unsafe { d.begin_command_buffer(cmd, &begin) }?;
            for &u in &seg.units {
                self.record_unit(u, cmd, slot.queries, frame, bodies);
            }
            if Some(si) == last_graphics {
                let end = FrameEnd {
                    resources: &self.resources,
                    end_layouts: &self.end_layouts,
                    last_stages: &self.last_stages,
                };
                bodies.end_frame(gpu, &end, cmd, frame);
            }
            // SAFETY: recording started above.
            unsafe { d.end_command_buffer(cmd) }?;
            let (queue, sem) = self.queues[seg.queue];
            let mut waits: Vec<vk::SemaphoreSubmitInfo> = seg
                .waits
                .iter()
                .map(|&w| {
                    vk::SemaphoreSubmitInfo::default()
                        .semaphore(self.queues[self.segments[w].queue].1)
                        .value(value(frame, w))
                        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                })
                .collect();
            let first_on_queue = self.segments[..si].iter().all(|s| s.queue != seg.queue);
            if first_on_queue && frame > 0 {
                for (oq, (_, osem)) in self.queues.iter().enumerate() {
                    if oq == seg.queue {
                        continue;
                    }
                    if let Some(last) = self.segments.iter().rposition(|s| s.queue == oq) {
                        waits.push(
                            vk::SemaphoreSubmitInfo::default()
                                .semaphore(*osem)
                                .value(value(frame - 1, last))
                                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS),
                        );
                    }
                }
            }
            let signal = [vk::SemaphoreSubmitInfo::default()
                .semaphore(sem)
                .value(value(frame, si))
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
            let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
            let submit = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&waits)
                .command_buffer_infos(&cmds)
                .signal_semaphore_infos(&signal);
            // SAFETY: everything referenced is alive; waits name values of segments already
            // submitted (earlier segments, or the previous frame).
            unsafe { d.queue_submit2(queue.queue, &[submit], vk::Fence::null()) }?;
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
        let nseg = self.segments.len() as u64;
        let mut sems = Vec::new();
        let mut values = Vec::new();
        for (q, (_, sem)) in self.queues.iter().enumerate() {
            if let Some(last) = self.segments.iter().rposition(|s| s.queue == q) {
                sems.push(*sem);
                values.push(f * nseg.max(1) + last as u64 + 1);
            }
        }
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&sems)
            .values(&values);
        // SAFETY: the semaphores are live; the values were submitted.
        unsafe { d.wait_semaphores(&info, u64::MAX) }?;
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
        match &self.units[u] {
            Unit::Pass(p) => {
                self.record_barriers(*p, cmd);
                self.record_pass(*p, cmd, queries, frame, bodies);
            }
            Unit::RenderPass(k, ps) => {
                self.record_barriers(ps[0], cmd);
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

    fn record_barriers(&self, p: usize, cmd: vk::CommandBuffer) {
        let Some(list) = self.barriers_before.get(&self.setups[p].name) else {
            return;
        };
        let mut images = Vec::new();
        let mut memory = Vec::new();
        for &bi in list {
            let b = &self.plan.barriers[bi];
            if self.options.drop_barriers_on.as_deref() == Some(b.resource.as_ref()) {
                continue;
            }
            if b.queue_transfer
                .as_ref()
                .is_some_and(|t| t.half == TransferHalf::Release)
            {
                continue; // CONCURRENT sharing: the semaphore carries the release
            }
            let Some(i) = self.graph.find_resource(&b.resource).map(|r| r.index()) else {
                continue;
            };
            let (mut ss, mut sa, mut ds, mut da) = (
                conv::stages(b.src_stage),
                conv::accesses(b.src_access),
                conv::stages(b.dst_stage),
                conv::accesses(b.dst_access),
            );
            // Attachment load and store operations access the image at the attachment
            // stages (an input attachment is loaded and stored as a colour or depth
            // attachment): widen the barrier to cover them.
            if let Some((st, ac)) = self.attachment_scope[i] {
                if !ss.is_empty() {
                    ss |= st;
                    sa |= ac
                        & (vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
                            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE);
                }
                if self.loaded_at.contains(&(self.setups[p].name.clone(), i)) {
                    ds |= st;
                    da |= ac;
                }
            }
            match (&self.resources.res[i], b.old_layout, b.new_layout) {
                (Res::Image(im), Some(old), Some(new)) => images.push(
                    vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(ss)
                        .src_access_mask(sa)
                        .dst_stage_mask(ds)
                        .dst_access_mask(da)
                        .old_layout(conv::layout(old))
                        .new_layout(conv::layout(new))
                        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .image(im.image)
                        .subresource_range(im.range()),
                ),
                _ => memory.push(
                    vk::MemoryBarrier2::default()
                        .src_stage_mask(ss)
                        .src_access_mask(sa)
                        .dst_stage_mask(ds)
                        .dst_access_mask(da),
                ),
            }
        }
        if images.is_empty() && memory.is_empty() {
            return;
        }
        let dep = vk::DependencyInfo::default()
            .memory_barriers(&memory)
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

    /// Number of command-buffer segments (submits) per frame.
    pub fn submits_per_frame(&self) -> usize {
        self.segments.len()
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
        let d = &self.gpu.device;
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.once_pool)
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
                .and_then(|_| {
                    d.queue_submit2(self.gpu.graphics.queue, &[submit], vk::Fence::null())
                })
                .and_then(|_| d.device_wait_idle())
        };
        // SAFETY: idle (or failed): the buffer is not in use.
        unsafe { d.free_command_buffers(self.once_pool, &[cmd]) };
        r?;
        Ok(())
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
                d.destroy_command_pool(s.pool, None);
                if let Some(c) = s.compute_pool {
                    d.destroy_command_pool(c, None);
                }
                if let Some(q) = s.queries {
                    d.destroy_query_pool(q, None);
                }
            }
            if self.once_pool != vk::CommandPool::null() {
                d.destroy_command_pool(self.once_pool, None);
            }
            for (_, s) in self.queues.drain(..) {
                d.destroy_semaphore(s, None);
            }
        }
        self.cache.destroy(gpu);
        self.staging.destroy(gpu);
        self.resources.destroy(gpu);
    }
}
