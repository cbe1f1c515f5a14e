//! Recording one frame's units: barriers exactly as planned (placed before or after their
//! pass), render pass begin/next/end with the clear values, debug labels and timestamps, and
//! the pass bodies through a [`RecordContext`].

use super::plan_state::{PlanState, Unit};
use super::slot::DescriptorAllocator;
use super::PassBodies;
use crate::device::Gpu;
use crate::resources::{ImageRes, Res};
use crate::VkError;
use ash::vk;
use tessera_graph::ResourceId;

/// What a pass body may use while it records: the device, the frame, its slot, this frame's
/// resources (imported ones handed in included) and the slot's descriptor allocator.
pub struct RecordContext<'a> {
    /// The device.
    pub gpu: &'a Gpu,
    /// The frame being recorded (the executor's frame number).
    pub frame: u64,
    /// Its frame slot (0 or 1).
    pub slot: usize,
    pub(crate) res: &'a [Res],
    pub(crate) descriptors: &'a mut DescriptorAllocator,
    /// Per resource: a history resource holding a previous frame's content.
    pub(crate) history_valid: &'a [bool],
}

impl std::fmt::Debug for RecordContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordContext")
            .field("frame", &self.frame)
            .field("slot", &self.slot)
            .finish_non_exhaustive()
    }
}

impl RecordContext<'_> {
    /// This frame's objects of every resource (indexed by resource).
    pub fn resources(&self) -> &[Res] {
        self.res
    }

    /// Whether history resource `r` holds a previous frame's content this frame: false on
    /// the first frame after the executor made its objects (the first frame, a resize, a
    /// description change), and for any other resource.
    pub fn history_valid(&self, r: ResourceId) -> bool {
        self.history_valid.get(r.index()).copied().unwrap_or(false)
    }

    /// This frame's object of resource `r`.
    pub fn res(&self, r: ResourceId) -> Option<&Res> {
        self.res.get(r.index())
    }

    /// This frame's image of resource `r` (a handed-in import included).
    pub fn image(&self, r: ResourceId) -> Option<&ImageRes> {
        match self.res.get(r.index()) {
            Some(Res::Image(im)) => Some(im),
            _ => None,
        }
    }

    /// This frame's buffer of resource `r` (a handed-in import included).
    pub fn buffer(&self, r: ResourceId) -> Option<vk::Buffer> {
        match self.res.get(r.index()) {
            Some(Res::Buffer(b)) => Some(b.buffer),
            _ => None,
        }
    }

    /// A descriptor set of `layout` for this frame (freed when the frame's slot retires).
    pub fn descriptor_set(
        &mut self,
        layout: vk::DescriptorSetLayout,
    ) -> Result<vk::DescriptorSet, VkError> {
        self.descriptors.allocate(self.gpu, layout)
    }
}

/// The frame being recorded.
pub(crate) struct Rec<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) plan: &'a PlanState,
    pub(crate) res: &'a [Res],
    /// Framebuffer of each render pass this frame.
    pub(crate) fbs: &'a [vk::Framebuffer],
    pub(crate) queries: Option<vk::QueryPool>,
}

impl Rec<'_> {
    /// Records unit `u`: its barriers before, the pass or the whole render pass, its
    /// barriers after. A body's error ends an open render pass first, so the command buffer
    /// is left outside any render pass.
    pub(crate) fn unit(
        &self,
        u: usize,
        cmd: vk::CommandBuffer,
        ctx: &mut RecordContext<'_>,
        bodies: &mut dyn PassBodies,
    ) -> Result<(), VkError> {
        let d = &self.gpu.device;
        let p = self.plan;
        self.barriers(&p.unit_barriers[u][0], cmd);
        match &p.units[u] {
            Unit::Pass(x) => self.pass(*x, cmd, ctx, bodies)?,
            Unit::RenderPass(k, ps) => {
                let b = &p.built[*k];
                let begin = vk::RenderPassBeginInfo::default()
                    .render_pass(b.render_pass)
                    .framebuffer(self.fbs[*k])
                    .render_area(vk::Rect2D {
                        offset: vk::Offset2D::default(),
                        extent: b.extent,
                    })
                    .clear_values(&b.clears);
                let sb = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
                let se = vk::SubpassEndInfo::default();
                // SAFETY: recording; render pass and framebuffer are live and compatible.
                unsafe { d.cmd_begin_render_pass2(cmd, &begin, &sb) };
                let mut result = Ok(());
                for (j, &x) in ps.iter().enumerate() {
                    if j > 0 {
                        // SAFETY: inside the render pass, not at its last subpass.
                        unsafe { d.cmd_next_subpass2(cmd, &sb, &se) };
                    }
                    if result.is_ok() {
                        result = self.pass(x, cmd, ctx, bodies);
                    }
                }
                // SAFETY: at the last subpass.
                unsafe { d.cmd_end_render_pass2(cmd, &se) };
                result?;
            }
        }
        self.barriers(&p.unit_barriers[u][1], cmd);
        Ok(())
    }

    fn pass(
        &self,
        p: usize,
        cmd: vk::CommandBuffer,
        ctx: &mut RecordContext<'_>,
        bodies: &mut dyn PassBodies,
    ) -> Result<(), VkError> {
        let d = &self.gpu.device;
        let s = &self.plan.setups[p];
        let label = std::ffi::CString::new(s.name.replace('\0', " ")).unwrap_or_default();
        if let Some(dbg) = &self.gpu.debug {
            let l = vk::DebugUtilsLabelEXT::default().label_name(&label);
            // SAFETY: recording; the label string outlives the call.
            unsafe { dbg.cmd_begin_debug_utils_label(cmd, &l) };
        }
        if let Some(q) = self.queries {
            // SAFETY: the query was reset on the host and is written once per frame.
            unsafe {
                d.cmd_write_timestamp2(cmd, vk::PipelineStageFlags2::TOP_OF_PIPE, q, 2 * p as u32)
            };
        }
        let r = bodies.record(ctx, s, cmd);
        if let Some(q) = self.queries {
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
        r.map_err(|e| match e {
            VkError::Setup(m) => VkError::Setup(format!("pass '{}': {m}", s.name)),
            e @ (VkError::In { .. } | VkError::MissingBody { .. }) => {
                e.context(format!("pass '{}'", s.name))
            }
            e => e,
        })
    }

    /// Records plan barriers (indices into the plan's barriers, in plan order) exactly as
    /// planned (their scopes include the attachments' load and store operations). Barriers go
    /// into one `vkCmdPipelineBarrier2` until a resource comes again (a routed transition
    /// then its release, an acquire then a transition): barriers of one command are not
    /// ordered among themselves, successive commands are (their stages chain).
    /// Records the plan barriers of a unit's side, wave by wave
    /// ([`PlanState::unit_barriers`]).
    fn barriers(&self, waves: &[Vec<usize>], cmd: vk::CommandBuffer) {
        for wave in waves {
            self.dependency(wave, cmd);
        }
    }

    /// Records plan barriers on distinct resources as one dependency.
    fn dependency(&self, list: &[usize], cmd: vk::CommandBuffer) {
        let p = self.plan;
        let mut images = Vec::with_capacity(list.len());
        let mut buffers = Vec::new();
        let mut memory = Vec::new();
        for &bi in list {
            if p.dropped[bi] {
                continue;
            }
            let i = p.resolved.barriers[bi].resource;
            let v = p.translated[bi];
            match &self.res[i] {
                Res::Image(im) if v.layouts.is_some() || v.transfers_ownership() => {
                    // Transfer halves always name their layouts (checked at setup).
                    let (old, new) = v
                        .layouts
                        .unwrap_or((vk::ImageLayout::UNDEFINED, vk::ImageLayout::UNDEFINED));
                    if old == vk::ImageLayout::UNDEFINED && !v.transfers_ownership() {
                        // A first use, maybe taking over aliased memory from resources larger
                        // than the one the plan names as its predecessor: the same stages as a
                        // global execution dependency. Vulkan already makes a barrier's
                        // execution scopes global; synchronization validation applies an image
                        // barrier's to that image's bytes only, and would miss the chain
                        // through the predecessor to the earlier tenants of the rest.
                        memory.push(
                            vk::MemoryBarrier2::default()
                                .src_stage_mask(v.src_stage)
                                .dst_stage_mask(v.dst_stage),
                        );
                    }
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
}
