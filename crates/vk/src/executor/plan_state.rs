//! The executor's plan-lifetime objects: resources and memory, framebuffers, pass setups,
//! barrier placement, the submission layout with its timeline semaphores, command buffers
//! and timestamp queries per frame slot. The frame loop over them is in `frame`, so this
//! module needs neither the recording nor the frame's imports.

use super::device_state::DeviceState;
use super::resolve::ResolvedPlan;
use super::times::{FrameTimes, PassSpan};
use super::{setup, ExecOptions, PassSetup, PassUse, TestHooks};
use crate::device::Gpu;
use crate::render::{self, RenderPassCache};
use crate::resources::{Res, Resources, SpareMemory};
use crate::submit::{self, SubmitPlan};
use crate::{conv, VkError};
use ash::vk;
use std::collections::{HashMap, HashSet};
use tessera_graph::sync::Layout;
use tessera_graph::{CompileOptions, Graph, PassKind, Plan, QueueKind};

/// A render pass of the plan with what beginning it needs.
#[derive(Clone)]
pub(crate) struct BuiltRenderPass {
    pub(crate) render_pass: vk::RenderPass,
    /// The plan-lifetime framebuffer; null when an attachment is handed in every frame.
    pub(crate) framebuffer: vk::Framebuffer,
    pub(crate) extent: vk::Extent2D,
    /// Resource index of each attachment.
    pub(crate) attachments: Vec<usize>,
    /// Clear value of each attachment (the clearing use's value; 0 where nothing clears).
    pub(crate) clears: Vec<vk::ClearValue>,
    /// Positions in `plan.order` of its subpasses.
    pub(crate) subpasses: Vec<usize>,
}

#[derive(Clone, Debug)]
pub(crate) enum Unit {
    Pass(usize),
    RenderPass(usize, Vec<usize>),
}

/// One submit per frame: a plan batch, or a queue's tail.
#[derive(Clone, Debug)]
pub(crate) struct Submission {
    pub(crate) queue: usize,
    pub(crate) units: Vec<usize>,
    /// Index in the submit layout's batches; `None` for a tail.
    pub(crate) batch: Option<usize>,
    /// Runs the frame-end work of its queue.
    pub(crate) frame_end: bool,
    /// Test only: planned waits dropped.
    pub(crate) drop_waits: bool,
    /// Resources its passes and barriers touch.
    pub(crate) touches: Vec<usize>,
}

pub(crate) struct PlanState {
    /// The inputs of `prepare` (compared to see whether anything changed).
    pub(crate) declared: Graph,
    pub(crate) compile_options: CompileOptions,
    /// With real sizes.
    pub(crate) graph: Graph,
    pub(crate) plan: Plan,
    /// The plan as executed (equal to `plan` unless a test hook changes it).
    pub(crate) run: Plan,
    pub(crate) resources: Resources,
    /// The odd frames' objects of the resources the plan doubles for overlapping frames.
    pub(crate) twins: Option<Resources>,
    /// Which resources are doubled (indexed by resource).
    pub(crate) doubled: Vec<bool>,
    pub(crate) built: Vec<BuiltRenderPass>,
    /// Framebuffers with handed-in views: (render pass index, views) -> framebuffer.
    pub(crate) fb_cache: HashMap<(usize, Vec<vk::ImageView>), vk::Framebuffer>,
    /// Indexed by position in `plan.order`.
    pub(crate) setups: Vec<PassSetup>,
    pub(crate) units: Vec<Unit>,
    pub(crate) layout: SubmitPlan,
    pub(crate) submits: Vec<Submission>,
    /// The names of `run` as indices: resolved once here, looked up by no frame.
    pub(crate) resolved: ResolvedPlan,
    /// Test only: barriers not recorded.
    pub(crate) dropped: Vec<bool>,
    /// Per unit, the plan barriers recorded before and after it, in waves of distinct
    /// resources (each wave one `vkCmdPipelineBarrier2`): worked out once per plan, not
    /// once per frame.
    pub(crate) unit_barriers: Vec<[Vec<Vec<usize>>; 2]>,
    /// Each plan barrier in Vulkan terms (the queue families are the executor's for life).
    pub(crate) translated: Vec<crate::barrier::VkBarrier>,
    /// Timeline semaphore per logical queue in use.
    pub(crate) semaphores: [vk::Semaphore; 2],
    /// Command buffers per slot, one per submit.
    pub(crate) cmds: Vec<Vec<vk::CommandBuffer>>,
    pub(crate) queries: Vec<Option<vk::QueryPool>>,
    pub(crate) end_layouts: Vec<vk::ImageLayout>,
    pub(crate) last_stages: Vec<vk::PipelineStageFlags2>,
    pub(crate) last_queue: Vec<Option<QueueKind>>,
    pub(crate) ns_sum: Vec<f64>,
    pub(crate) ns_count: Vec<u64>,
    /// Each read frame's pass spans, oldest first (at most [`FRAME_TIMES_KEPT`]).
    pub(crate) frame_times: std::collections::VecDeque<Spans>,
    /// The executor's frame number of this plan's first frame (timeline values restart).
    pub(crate) first_frame: u64,
    /// The plan's number ([`crate::executor::Executor::plan_generation`]), set by
    /// `prepare` once the plan is built.
    pub(crate) generation: u64,
    /// Queue family of each logical queue.
    pub(crate) families: [u32; 2],
    /// From the plan's `external` entries: the submit that waits for the frame's binary
    /// semaphores, with the stages the wait points at, and the submit that signals them.
    pub(crate) external_wait: Option<(usize, vk::PipelineStageFlags2)>,
    pub(crate) external_signal: Option<usize>,
}

/// One frame's pass spans as read, indexed like the setups: device nanoseconds, `None` for
/// a pass without a valid timestamp pair.
pub(crate) type Spans = Vec<Option<(f64, f64)>>;

/// Frames of pass spans kept for [`crate::executor::Executor::take_frame_times`]: a
/// benchmark drains them every frame, a window that never does keeps only the latest.
pub(crate) const FRAME_TIMES_KEPT: usize = 64;

impl PlanState {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn build(
        gpu: &Gpu,
        dev: &mut DeviceState,
        options: &ExecOptions,
        hooks: &TestHooks,
        declared: &Graph,
        compile_options: &CompileOptions,
        first_frame: u64,
        spare: &mut SpareMemory,
    ) -> Result<PlanState, VkError> {
        let setup::DevicePlan {
            graph,
            plan,
            unbound,
            twins,
        } = setup::compile_for_device(gpu, dev, options, hooks, declared, compile_options)?;
        let run = match hooks.executed_plan {
            Some(f) => f(&graph, &plan),
            None => plan.clone(),
        };
        let resolved = ResolvedPlan::new(&graph, &run)?;
        if gpu.renderdoc_attached() && !plan.memory.blocks.is_empty() {
            // The sizes the plan placed are RenderDoc's (measured on the images it
            // created), and binding checks every placement against them again.
            log::info!(
                "RenderDoc is attached: images are created with its usage (transfer added, \
                 TRANSIENT_ATTACHMENT removed), so its memory requirements place the plan's \
                 memory blocks ({})",
                plan.memory.blocks.len()
            );
        }
        let doubled = setup::doubled_set(&graph, &plan);
        let resources = match Resources::bind_reusing(gpu, &graph, &plan, unbound, spare) {
            Ok(r) => r,
            Err(e) => {
                if let Some(t) = twins {
                    Resources::from_unbound(t).destroy(gpu);
                }
                return Err(e);
            }
        };
        let twins = match twins {
            None => None,
            Some(t) => {
                // The twins' blocks as a plan's memory, so that binding reads them as any.
                let mut twin_plan = Plan::default();
                twin_plan.memory.blocks = plan
                    .frame_overlap
                    .as_ref()
                    .map(|o| o.twin_blocks.clone())
                    .unwrap_or_default();
                match Resources::bind_reusing(gpu, &graph, &twin_plan, t, spare) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        let mut resources = resources;
                        resources.destroy(gpu);
                        return Err(e);
                    }
                }
            }
        };
        let mut me = PlanState {
            declared: declared.clone(),
            compile_options: *compile_options,
            graph,
            plan,
            run,
            resources,
            twins,
            doubled,
            built: Vec::new(),
            fb_cache: HashMap::new(),
            setups: Vec::new(),
            units: Vec::new(),
            layout: SubmitPlan::default(),
            submits: Vec::new(),
            resolved,
            dropped: Vec::new(),
            unit_barriers: Vec::new(),
            translated: Vec::new(),
            semaphores: [vk::Semaphore::null(); 2],
            cmds: Vec::new(),
            queries: Vec::new(),
            end_layouts: Vec::new(),
            last_stages: Vec::new(),
            last_queue: Vec::new(),
            ns_sum: Vec::new(),
            ns_count: Vec::new(),
            frame_times: std::collections::VecDeque::new(),
            first_frame,
            generation: 0,
            families: dev.families,
            external_wait: None,
            external_signal: None,
        };
        match me.build_rest(gpu, dev, hooks) {
            Ok(()) => Ok(me),
            Err(e) => {
                me.destroy(gpu, dev);
                Err(e)
            }
        }
    }

    fn build_rest(
        &mut self,
        gpu: &Gpu,
        dev: &mut DeviceState,
        hooks: &TestHooks,
    ) -> Result<(), VkError> {
        self.build_render_passes(gpu, &mut dev.render_passes)?;
        dev.framebuffers_created += self
            .built
            .iter()
            .filter(|b| b.framebuffer != vk::Framebuffer::null())
            .count() as u64;
        self.layout = SubmitPlan::from_plan(&self.run)
            .map_err(|e| VkError::Setup(format!("plan batches: {e}")))?;
        if self.layout.used[1] && gpu.compute.is_none() && !dev.emulate_async {
            return Err(VkError::Unsupported(
                "the plan uses the async-compute queue but the device has none \
                 (compile without async compute, or emulate the queue)"
                    .into(),
            ));
        }
        self.build_setups()?;
        self.place_barriers(hooks)?;
        self.build_submits(hooks)?;
        self.place_external()?;
        self.plan_unit_barriers();
        self.replay_end_states();
        self.create_frame_objects(gpu, dev)
    }

    /// [`PlanState::unit_barriers`] and [`PlanState::translated`].
    fn plan_unit_barriers(&mut self) {
        let families = self.families;
        let family = |q| families[crate::submit::slot(q)];
        self.translated = self
            .run
            .barriers
            .iter()
            .map(|b| crate::barrier::translate(b, family))
            .collect();
        let resolved = &self.resolved;
        let waves_of = |lists: &[Vec<usize>], passes: &[usize]| -> Vec<Vec<usize>> {
            let list: Vec<usize> = passes
                .iter()
                .flat_map(|&x| lists[x].iter().copied())
                .collect();
            let resources: Vec<usize> = list
                .iter()
                .map(|&bi| resolved.barriers[bi].resource)
                .collect();
            crate::barrier::waves(&resources)
                .into_iter()
                .map(|w| list[w].to_vec())
                .collect()
        };
        self.unit_barriers = self
            .units
            .iter()
            .map(|u| {
                let passes: &[usize] = match u {
                    Unit::Pass(x) => std::slice::from_ref(x),
                    Unit::RenderPass(_, ps) => ps,
                };
                [
                    waves_of(&resolved.before, passes),
                    waves_of(&resolved.after, passes),
                ]
            })
            .collect();
    }

    /// Render passes from the device cache, their clear values and plan-lifetime
    /// framebuffers.
    fn build_render_passes(
        &mut self,
        gpu: &Gpu,
        cache: &mut RenderPassCache,
    ) -> Result<(), VkError> {
        for (rp, resolved) in self
            .run
            .render_passes
            .iter()
            .zip(&self.resolved.render_passes)
        {
            let (render_pass, attachments) = cache.render_pass(gpu, &self.graph, rp)?;
            let extent = render::render_area(&self.graph, &attachments);
            debug_assert_eq!(attachments, resolved.attachments);
            let subpasses = resolved.subpasses.clone();
            // The plan's value for a CLEAR load; else the first clearing use's (a clear a test
            // hook added, or one in a later subpass: the body's `vkCmdClearAttachments`).
            let clears = rp
                .attachments
                .iter()
                .zip(&attachments)
                .map(|(a, &r)| match a.clear_value {
                    Some(v) => conv_clear(v),
                    None => self.attachment_clear(&subpasses, r),
                })
                .collect();
            let views: Vec<vk::ImageView> = attachments
                .iter()
                .map(|&i| match self.resources.res[i] {
                    Res::Image(im) => im.attachment_view,
                    Res::Buffer(_) => vk::ImageView::null(),
                })
                .collect();
            let framebuffer = if views.iter().any(|v| *v == vk::ImageView::null()) {
                vk::Framebuffer::null()
            } else {
                render::framebuffer(
                    gpu,
                    render_pass,
                    &views,
                    extent,
                    &format!("framebuffer [{}]", rp.subpasses.join(", ")),
                )?
            };
            self.built.push(BuiltRenderPass {
                render_pass,
                framebuffer,
                extent,
                attachments,
                clears,
                subpasses,
            });
        }
        Ok(())
    }

    /// The clear value of attachment `r` in a render pass: that of the first use among
    /// `subpasses` (positions in the order) that clears it.
    fn attachment_clear(&self, subpasses: &[usize], r: usize) -> vk::ClearValue {
        for &s in subpasses {
            let pass = self.graph.pass(self.resolved.passes[s]);
            if let Some(u) = pass
                .uses
                .iter()
                .find(|u| u.resource.index() == r && u.clear)
            {
                return clear_value(&self.graph, u);
            }
        }
        vk::ClearValue::default()
    }

    fn build_setups(&mut self) -> Result<(), VkError> {
        let rp_of = &self.resolved.subpass_of;
        for (p, name) in self.run.order.iter().enumerate() {
            let pid = self.resolved.passes[p];
            let pass = self.graph.pass(pid);
            let queue = self.resolved.queues[p];
            // A clear of an attachment an earlier subpass of the render pass used: no load
            // operation can do it.
            let earlier: HashSet<usize> = match rp_of[p] {
                Some((k, j)) => self.built[k].subpasses[..j as usize]
                    .iter()
                    .map(|&q| self.resolved.passes[q])
                    .flat_map(|q| self.graph.pass(q).uses.iter().map(|u| u.resource.index()))
                    .collect(),
                None => HashSet::new(),
            };
            let uses = pass
                .uses
                .iter()
                .map(|u| PassUse {
                    access: u.access,
                    clear: u.clear,
                    mid_clear: u.clear
                        && u.access.is_attachment()
                        && earlier.contains(&u.resource.index()),
                    clear_value: clear_value(&self.graph, u),
                    resource: u.resource,
                    name: self.graph.resource(u.resource).name.to_string(),
                    res: self.resources.res[u.resource.index()],
                    from: u.from,
                })
                .collect();
            let subpass = rp_of[p].map(|(k, j)| {
                let b = &self.built[k];
                (b.render_pass, j, b.extent)
            });
            if pass.kind == PassKind::Raster && subpass.is_none() {
                return Err(VkError::Setup(format!(
                    "raster pass '{name}' is in no render pass"
                )));
            }
            self.setups.push(PassSetup {
                id: pid,
                name: name.to_string(),
                kind: pass.kind,
                queue,
                uses,
                subpass,
            });
        }
        Ok(())
    }

    /// Checks that ownership transfers of images name their layouts and marks the barriers
    /// a test hook drops (the barriers are sorted by the pass and side they are recorded at
    /// in [`ResolvedPlan`]).
    fn place_barriers(&mut self, hooks: &TestHooks) -> Result<(), VkError> {
        for (b, rb) in self.run.barriers.iter().zip(&self.resolved.barriers) {
            let image = self.graph.resources[rb.resource].image_desc().is_some();
            if image && b.queue_transfer.is_some() && b.new_layout.is_none() {
                return Err(VkError::Setup(format!(
                    "the ownership transfer of image '{}' names no layout",
                    b.resource
                )));
            }
            self.dropped
                .push(hooks.drop_barriers_on.as_deref() == Some(b.resource.as_str()));
        }
        if let Some(name) = &hooks.drop_barriers_on {
            log::warn!("test switch: planned barriers on '{name}' are dropped");
        }
        Ok(())
    }

    /// Units (passes and whole render passes) per plan batch, and the tails.
    fn build_submits(&mut self, hooks: &TestHooks) -> Result<(), VkError> {
        let rp_of = |p: usize| self.resolved.subpass_of[p].map(|(k, j)| (k, j as usize));
        let layout = self.layout.clone();
        for (bi, b) in layout.batches.iter().enumerate() {
            let mut units = Vec::new();
            let mut k = 0;
            while k < b.passes.len() {
                let p = b.passes[k];
                match rp_of(p) {
                    Some((rp, j)) => {
                        let subs = self.built[rp].subpasses.len();
                        // Contiguous in the batch (async-compute passes may sit between
                        // the subpasses in the plan's order, never in a graphics batch).
                        let whole = j == 0
                            && k + subs <= b.passes.len()
                            && (0..subs).all(|i| rp_of(b.passes[k + i]) == Some((rp, i)));
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
            let mut touches: Vec<usize> = b
                .passes
                .iter()
                .flat_map(|&p| {
                    self.setups[p]
                        .uses
                        .iter()
                        .map(|u| u.resource.index())
                        .chain(
                            self.resolved.before[p]
                                .iter()
                                .chain(&self.resolved.after[p])
                                .map(|&bi| self.resolved.barriers[bi].resource),
                        )
                })
                .collect();
            touches.sort_unstable();
            touches.dedup();
            self.submits.push(Submission {
                queue: b.queue,
                units,
                batch: Some(bi),
                frame_end: b.last_on_queue && !layout.tails(),
                drop_waits: hooks.drop_waits_before.as_deref() == Some(first.as_str()),
                touches,
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
                    touches: Vec::new(),
                });
            }
        }
        if let Some(name) = &hooks.drop_waits_before {
            log::warn!("test switch: planned semaphore waits before '{name}' are dropped");
        }
        debug_assert_eq!(self.submits.len(), layout.submits());
        Ok(())
    }

    /// Where the plan's `external` entries put the binary semaphore wait (the earliest
    /// submit holding a `first_pass`, at the union of their stages) and signal (the latest
    /// submit holding a `last_pass`).
    fn place_external(&mut self) -> Result<(), VkError> {
        let mut submit_of = vec![0usize; self.setups.len()];
        for (si, sub) in self.submits.iter().enumerate() {
            for &u in &sub.units {
                match &self.units[u] {
                    Unit::Pass(p) => submit_of[*p] = si,
                    Unit::RenderPass(_, ps) => ps.iter().for_each(|&p| submit_of[p] = si),
                }
            }
        }
        for (e, &(first, last)) in self.run.external.iter().zip(&self.resolved.external) {
            let (w, l) = (submit_of[first], submit_of[last]);
            let stages = conv::stages(e.wait_stages);
            let stages = if stages.is_empty() {
                vk::PipelineStageFlags2::ALL_COMMANDS
            } else {
                stages
            };
            self.external_wait = Some(match self.external_wait {
                Some((s, st)) if s <= w => (s, if s == w { st | stages } else { st }),
                _ => (w, stages),
            });
            self.external_signal = Some(self.external_signal.map_or(l, |s| s.max(l)));
        }
        Ok(())
    }

    /// Timeline semaphores, command buffers and timestamp queries per slot.
    fn create_frame_objects(&mut self, gpu: &Gpu, dev: &mut DeviceState) -> Result<(), VkError> {
        let d = &gpu.device;
        for q in 0..2 {
            if !self.layout.used[q] && q == 1 {
                continue;
            }
            let mut t = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(0);
            let info = vk::SemaphoreCreateInfo::default().push_next(&mut t);
            // SAFETY: complete create info; destroyed in `destroy`.
            self.semaphores[q] = unsafe { d.create_semaphore(&info, None) }?;
            gpu.name(self.semaphores[q], &format!("timeline {}", submit::kind(q)));
        }
        let n = self.setups.len();
        self.ns_sum = vec![0.0; n];
        self.ns_count = vec![0; n];
        for (k, slot) in dev.slots.iter().enumerate() {
            self.cmds.push(Vec::new());
            self.queries.push(None);
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
                self.cmds[k].push(c);
            }
            if dev.timestamps && n > 0 {
                let info = vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(2 * n as u32);
                // SAFETY: complete create info.
                let q = unsafe { d.create_query_pool(&info, None) }?;
                // SAFETY: host reset of a fresh pool (hostQueryReset is enabled with the
                // Vulkan 1.2 features).
                unsafe { d.reset_query_pool(q, 0, 2 * n as u32) };
                self.queries[k] = Some(q);
            }
        }
        Ok(())
    }

    /// Layout of every image at the end of the frame, the stages of each resource's last
    /// use and the queue of its last access, replaying the passes in execution order with
    /// their barriers (before and after) and render-pass final layouts.
    fn replay_end_states(&mut self) {
        let n = self.graph.resources.len();
        self.end_layouts = vec![vk::ImageLayout::UNDEFINED; n];
        self.last_stages = vec![vk::PipelineStageFlags2::NONE; n];
        self.last_queue = vec![None; n];
        // Final layouts of each render pass's attachments, at the position of its last
        // subpass.
        let mut final_layouts: Vec<Vec<(usize, Layout)>> = vec![Vec::new(); self.setups.len()];
        for (rp, resolved) in self
            .run
            .render_passes
            .iter()
            .zip(&self.resolved.render_passes)
        {
            if let Some(&last) = resolved.subpasses.last() {
                final_layouts[last] = resolved
                    .attachments
                    .iter()
                    .zip(&rp.attachments)
                    .map(|(&r, a)| (r, a.final_layout))
                    .collect();
            }
        }
        for (p, s) in self.setups.iter().enumerate() {
            let q = s.queue;
            let barriers =
                |list: &[usize], end: &mut [vk::ImageLayout], lq: &mut [Option<QueueKind>]| {
                    for &bi in list {
                        let r = self.resolved.barriers[bi].resource;
                        if let Some(l) = self.run.barriers[bi].new_layout {
                            end[r] = conv::layout(l);
                        }
                        lq[r] = Some(q);
                    }
                };
            barriers(
                &self.resolved.before[p],
                &mut self.end_layouts,
                &mut self.last_queue,
            );
            let pass = self.graph.pass(s.id);
            for u in &pass.uses {
                let r = self.graph.resource(u.resource);
                let scope = u.access.scope(pass.kind, r.target());
                self.last_stages[u.resource.index()] = conv::stages(scope.stages);
                self.last_queue[u.resource.index()] = Some(q);
                if let Some(l) = scope.layout {
                    self.end_layouts[u.resource.index()] = conv::layout(l);
                }
            }
            for &(r, l) in &final_layouts[p] {
                self.end_layouts[r] = conv::layout(l);
            }
            barriers(
                &self.resolved.after[p],
                &mut self.end_layouts,
                &mut self.last_queue,
            );
        }
    }

    /// Reads the slot's timestamps (its frame is complete) and resets the queries. Returns
    /// the spans read, indexed like `setups` (`None` where a pass has no valid pair), or
    /// `None` when the plan has no queries or the read failed.
    pub(crate) fn read_timestamps(&mut self, gpu: &Gpu, slot_i: usize) -> Option<Spans> {
        let q = self.queries.get(slot_i).copied().flatten()?;
        let d = &gpu.device;
        let n = self.setups.len();
        let mut data = vec![[0u64; 2]; 2 * n];
        // SAFETY: the frame that wrote the queries is complete; `data` has room for every
        // query with its availability word.
        let r = unsafe {
            d.get_query_pool_results(
                q,
                0,
                &mut data,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY,
            )
        };
        let mut read = None;
        if r.is_ok() || r == Err(vk::Result::NOT_READY) {
            let period = gpu.timestamp_period();
            let mut spans = vec![None; n];
            for p in 0..n {
                let (a, b) = (data[2 * p], data[2 * p + 1]);
                if a[1] != 0 && b[1] != 0 && b[0] >= a[0] {
                    self.ns_sum[p] += (b[0] - a[0]) as f64 * period;
                    self.ns_count[p] += 1;
                    spans[p] = Some((a[0] as f64 * period, b[0] as f64 * period));
                }
            }
            if self.frame_times.len() == FRAME_TIMES_KEPT {
                self.frame_times.pop_front();
            }
            self.frame_times.push_back(spans.clone());
            read = Some(spans);
        }
        // SAFETY: the queries are not in use (frame complete).
        unsafe { d.reset_query_pool(q, 0, 2 * n as u32) };
        read
    }

    /// Spans read by [`PlanState::read_timestamps`] with the passes' names and queues; the
    /// passes without a valid pair left out.
    pub(crate) fn times_of(&self, spans: &[Option<(f64, f64)>]) -> FrameTimes {
        FrameTimes {
            passes: self
                .setups
                .iter()
                .zip(spans)
                .filter_map(|(s, span)| {
                    span.map(|(start_ns, end_ns)| PassSpan {
                        pass: s.name.clone(),
                        queue: s.queue,
                        start_ns,
                        end_ns,
                    })
                })
                .collect(),
        }
    }

    /// Whether every used timeline has reached frame `f`'s end (a debug check).
    pub(crate) fn timeline_reached(&self, gpu: &Gpu, f: u64) -> bool {
        let Some(rel) = f.checked_sub(self.first_frame) else {
            return true;
        };
        (0..2).filter(|&q| self.layout.used[q]).all(|q| {
            // SAFETY: a query of a live semaphore.
            unsafe { gpu.device.get_semaphore_counter_value(self.semaphores[q]) }
                .is_ok_and(|v| v >= self.layout.frame_end(q, rel))
        })
    }

    /// Destroys the plan's objects (no frame of the plan in flight).
    /// Destroys the framebuffers made for handed-in views (the caller has waited for the
    /// frames that used them).
    pub(crate) fn forget_imported_framebuffers(&mut self, gpu: &Gpu) {
        for (_, f) in self.fb_cache.drain() {
            // SAFETY: made by `imports::framebuffers` on this device; every frame that
            // used it is complete (the caller waited).
            unsafe { gpu.device.destroy_framebuffer(f, None) };
        }
    }

    pub(crate) fn destroy(&mut self, gpu: &Gpu, dev: &mut DeviceState) {
        self.destroy_objects(gpu, dev);
        self.resources.destroy(gpu);
        if let Some(t) = &mut self.twins {
            t.destroy(gpu);
        }
    }

    /// [`PlanState::destroy`], keeping the resources' memory on offer in `spare` for the
    /// next plan.
    pub(crate) fn retire(&mut self, gpu: &Gpu, dev: &mut DeviceState, spare: &mut SpareMemory) {
        self.destroy_objects(gpu, dev);
        self.resources.retire(gpu, spare);
        if let Some(t) = &mut self.twins {
            t.retire(gpu, spare);
        }
    }

    fn destroy_objects(&mut self, gpu: &Gpu, dev: &mut DeviceState) {
        let d = &gpu.device;
        // SAFETY: no work of this plan is in flight (the executor waited for its frames);
        // every object below was created for this plan.
        unsafe {
            for (k, cmds) in self.cmds.drain(..).enumerate() {
                for (si, c) in cmds.into_iter().enumerate() {
                    d.free_command_buffers(dev.slots[k].pools[self.submits[si].queue], &[c]);
                }
            }
            for q in self.queries.drain(..).flatten() {
                d.destroy_query_pool(q, None);
            }
            for s in &mut self.semaphores {
                if *s != vk::Semaphore::null() {
                    d.destroy_semaphore(*s, None);
                    *s = vk::Semaphore::null();
                }
            }
            for b in &mut self.built {
                if b.framebuffer != vk::Framebuffer::null() {
                    d.destroy_framebuffer(b.framebuffer, None);
                    b.framebuffer = vk::Framebuffer::null();
                }
            }
            for (_, f) in self.fb_cache.drain() {
                d.destroy_framebuffer(f, None);
            }
        }
    }
}

/// The clear value of a use: its own, or the default for its format (colour 0, depth 1.0,
/// stencil 0).
fn clear_value(graph: &Graph, u: &tessera_graph::graph::Use) -> vk::ClearValue {
    match graph.resource(u.resource).image_desc() {
        Some(d) => conv_clear(u.clear_value_or_default(d.format)),
        None => vk::ClearValue::default(),
    }
}

/// A graph clear value as Vulkan's.
pub(crate) fn conv_clear(v: tessera_graph::graph::ClearValue) -> vk::ClearValue {
    match v {
        tessera_graph::graph::ClearValue::Color(c) => vk::ClearValue {
            color: vk::ClearColorValue { float32: c },
        },
        tessera_graph::graph::ClearValue::DepthStencil { depth, stencil } => vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue { depth, stencil },
        },
    }
}
