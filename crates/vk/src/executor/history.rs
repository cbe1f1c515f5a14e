//! History resources' objects: created by the executor, kept across plans while their
//! description holds, swapped by frame parity when the compiler doubled them.
//!
//! A history resource (`tessera_graph::history`) is one entry here, keyed by its name, its
//! shape, its buffering, its usage and its sharing: a new plan whose graph has an entry with
//! the same key keeps its objects *and their content* (a toggle that does not touch them);
//! any change (a resize, a new use that needs another usage, single ↔ double) makes new
//! ones, whose previous content is invalid. An entry counts the frames it took part in: the
//! previous content is valid once one frame wrote it ([`HistoryFrame::valid`]), and with two
//! objects, object `frames % 2` holds this frame's content and the other the previous one.
//!
//! The plan expects each object whose content is read at entry (a single one, or the
//! previous half of a pair) in the layout the frame leaves its role in. A new object is
//! cleared to zero and put in that layout by a one-time submit; an object kept across a
//! plan change is moved from the layout the old plan left it in, when the two differ.

use super::device_state::DeviceState;
use super::plan_state::PlanState;
use crate::device::Gpu;
use crate::resources::{self, Res, Resources, SpareMemory};
use crate::VkError;
use ash::vk;
use tessera_graph::graph::{HistoryRole, Origin, ResourceKind};
use tessera_graph::{Graph, Plan, ResourceId};

/// What decides whether an entry's objects can serve a new graph.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    name: String,
    kind: ResourceKind,
    double: bool,
    usage: (vk::ImageUsageFlags, vk::BufferUsageFlags),
    concurrent: bool,
}

/// One history resource's objects.
struct Entry {
    key: Key,
    /// Owns the objects and their memory (indexed like the graph they were made for).
    owner: Resources,
    /// The objects: one, or two swapped every frame.
    objects: Vec<Res>,
    /// The resource of the running plan's graph each role names: this frame's content,
    /// then (double-buffered) the previous frame's. Role `r` is object `(frames + r) % n`.
    roles: Vec<ResourceId>,
    /// The layout each object was left in by the last frame (or the setup clear).
    layouts: Vec<vk::ImageLayout>,
    /// Frames this entry took part in.
    frames: u64,
}

/// The executor's history entries.
#[derive(Default)]
pub(crate) struct HistoryStore {
    entries: Vec<Entry>,
}

/// This frame's history objects and validity, indexed by resource of the running graph.
#[derive(Debug, Default)]
pub(crate) struct HistoryFrame {
    /// The object each history resource names this frame.
    pub(crate) objects: Vec<(usize, Res)>,
    /// Whether each resource holds a previous frame's content (false for the others).
    pub(crate) valid: Vec<bool>,
}

/// The history resources of `graph` holding this frame's content, with their twins.
fn roots(graph: &Graph) -> Vec<(ResourceId, Option<ResourceId>)> {
    graph
        .resource_ids()
        .filter_map(|id| match graph.resource(id).origin {
            Origin::History(HistoryRole::Single | HistoryRole::Declared) => Some((id, None)),
            Origin::History(HistoryRole::Current { previous }) => Some((id, Some(previous))),
            _ => None,
        })
        .collect()
}

impl HistoryStore {
    /// Keeps the entries `plan`'s graph still describes the same way, destroys the others
    /// and makes the missing ones (no frame in flight). Errors leave the store without the
    /// entries that could not be made.
    pub(crate) fn follow(
        &mut self,
        gpu: &Gpu,
        dev: &mut DeviceState,
        plan: &PlanState,
        spare: &mut SpareMemory,
    ) -> Result<(), VkError> {
        let graph = &plan.graph;
        let memoryless = vec![false; graph.resources.len()];
        let usage = resources::usages(graph, &memoryless);
        let concurrent = resources::concurrent_set(graph, &plan.plan, dev.families);
        let wanted: Vec<(Key, ResourceId, Option<ResourceId>)> = roots(graph)
            .into_iter()
            .map(|(id, twin)| {
                let r = graph.resource(id);
                let key = Key {
                    name: r.name.to_string(),
                    kind: r.kind,
                    double: twin.is_some(),
                    usage: usage[id.index()],
                    concurrent: concurrent[id.index()],
                };
                (key, id, twin)
            })
            .collect();
        let mut kept = Vec::new();
        for mut e in self.entries.drain(..) {
            if let Some((_, id, twin)) = wanted.iter().find(|(k, ..)| *k == e.key) {
                e.roles = std::iter::once(*id).chain(*twin).collect();
                kept.push(e);
            } else {
                log::debug!(
                    "history '{}': description changed, objects dropped",
                    e.key.name
                );
                e.owner.retire(gpu, spare);
            }
        }
        self.entries = kept;
        for (key, id, twin) in wanted {
            if self.entries.iter().any(|e| e.key == key) {
                continue;
            }
            let mut make = vec![true; graph.resources.len()];
            make[id.index()] = false;
            if let Some(t) = twin {
                make[t.index()] = false;
            }
            // `external` marks what *not* to create: everything but this entry's objects.
            let unbound = resources::create_unbound(
                gpu,
                graph,
                &memoryless,
                &concurrent,
                dev.families,
                &make,
            )?;
            let owner = Resources::bind_reusing(gpu, graph, &Plan::default(), unbound, spare)?;
            let mut objects = vec![owner.res[id.index()]];
            if let Some(t) = twin {
                objects.push(owner.res[t.index()]);
            }
            let layouts = vec![vk::ImageLayout::UNDEFINED; objects.len()];
            log::debug!("history '{}': {} object(s) made", key.name, objects.len());
            self.entries.push(Entry {
                key,
                owner,
                objects,
                roles: std::iter::once(id).chain(twin).collect(),
                layouts,
                frames: 0,
            });
        }
        Ok(())
    }

    /// The object of entry `e` that role `role` (0: this frame's content, 1: the previous
    /// frame's) names this frame.
    fn object(&self, e: usize, role: usize) -> usize {
        let entry = &self.entries[e];
        ((entry.frames + role as u64) % entry.objects.len() as u64) as usize
    }

    /// The layout the plan expects object `o` of entry `e` in at the frame's start, and the
    /// logical queue it is left on: for an object whose content is read at entry (single, or
    /// a pair's previous half), the layout its role's resource leaves the frame in; `None`
    /// for the others (entered from `UNDEFINED`) and for buffers.
    fn expected(&self, plan: &PlanState, e: usize, o: usize) -> Option<(vk::ImageLayout, usize)> {
        let entry = &self.entries[e];
        if !matches!(entry.objects[o], Res::Image(_)) {
            return None;
        }
        let root = entry.roles[0];
        if entry.key.double && self.object(e, 0) == o {
            return None;
        }
        // The previous half enters as its twin (this frame's half) leaves; a single one as
        // it leaves itself.
        let layout = plan.end_layouts[root.index()];
        let queue = plan.last_queue[root.index()].map_or(0, crate::submit::slot);
        (layout != vk::ImageLayout::UNDEFINED).then_some((layout, queue))
    }

    /// Puts every object whose content is read at entry in the layout the plan expects,
    /// clearing new ones to zero (one-time submits; no frame in flight uses them: new
    /// objects are unused, and a plan change waited for the old plan's frames).
    pub(crate) fn settle(
        &mut self,
        gpu: &Gpu,
        dev: &mut DeviceState,
        plan: &PlanState,
    ) -> Result<(), VkError> {
        for e in 0..self.entries.len() {
            for o in 0..self.entries[e].objects.len() {
                let fresh = self.entries[e].frames == 0;
                let Some((want, queue)) = self.expected(plan, e, o) else {
                    if fresh {
                        self.clear(gpu, dev, e, o, None)?;
                    }
                    continue;
                };
                let have = self.entries[e].layouts[o];
                if fresh {
                    self.clear(gpu, dev, e, o, Some((want, queue)))?;
                } else if have != want {
                    let Res::Image(im) = self.entries[e].objects[o] else {
                        continue;
                    };
                    log::debug!(
                        "history '{}': kept across a plan change, {have:?} -> {want:?}",
                        self.entries[e].key.name
                    );
                    dev.once_on(gpu, queue, |gpu, cmd, _| {
                        transition(gpu, cmd, im.image, im.range(), have, want);
                    })?;
                    self.entries[e].layouts[o] = want;
                }
            }
        }
        Ok(())
    }

    /// Clears object `o` of new entry `e` to zero (an image through `TRANSFER_DST_OPTIMAL`,
    /// left in `to`'s layout, on `to`'s queue), once.
    fn clear(
        &mut self,
        gpu: &Gpu,
        dev: &mut DeviceState,
        e: usize,
        o: usize,
        to: Option<(vk::ImageLayout, usize)>,
    ) -> Result<(), VkError> {
        if self.entries[e].layouts[o] != vk::ImageLayout::UNDEFINED {
            return Ok(()); // cleared already (a fresh entry's second frame start)
        }
        let queue = to.map_or(0, |t| t.1);
        match self.entries[e].objects[o] {
            Res::Image(im) => {
                let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
                let end = to.map_or(dst, |t| t.0);
                dev.once_on(gpu, queue, |gpu, cmd, _| {
                    let d = &gpu.device;
                    let range = im.range();
                    transition(gpu, cmd, im.image, range, vk::ImageLayout::UNDEFINED, dst);
                    // SAFETY: recording a one-time buffer; the image is in TRANSFER_DST and
                    // was made with transfer-destination usage.
                    unsafe {
                        if im.format.is_depth_stencil() {
                            let value = vk::ClearDepthStencilValue {
                                depth: 1.0,
                                stencil: 0,
                            };
                            d.cmd_clear_depth_stencil_image(cmd, im.image, dst, &value, &[range]);
                        } else {
                            let value = vk::ClearColorValue::default();
                            d.cmd_clear_color_image(cmd, im.image, dst, &value, &[range]);
                        }
                    }
                    transition(gpu, cmd, im.image, range, dst, end);
                })?;
                self.entries[e].layouts[o] = end;
            }
            Res::Buffer(b) => {
                dev.once_on(gpu, queue, |gpu, cmd, _| {
                    // SAFETY: recording a one-time buffer; the buffer has transfer usage.
                    unsafe {
                        gpu.device
                            .cmd_fill_buffer(cmd, b.buffer, 0, vk::WHOLE_SIZE, 0)
                    };
                })?;
                // (Buffers have no layout; GENERAL marks the clear as done.)
                self.entries[e].layouts[o] = vk::ImageLayout::GENERAL;
            }
        }
        Ok(())
    }

    /// The objects and validity of this frame for `graph` (the running plan's).
    pub(crate) fn frame(&self, graph: &Graph) -> HistoryFrame {
        let mut out = HistoryFrame {
            objects: Vec::new(),
            valid: vec![false; graph.resources.len()],
        };
        for (e, entry) in self.entries.iter().enumerate() {
            for (role, id) in entry.roles.iter().enumerate() {
                out.objects
                    .push((id.index(), entry.objects[self.object(e, role)]));
                out.valid[id.index()] = entry.frames > 0;
            }
        }
        out
    }

    /// A frame of `plan` was submitted: each object is left in the layout its role's
    /// resource ends the frame in, and the pairs swap.
    pub(crate) fn advance(&mut self, plan: &PlanState) {
        for e in 0..self.entries.len() {
            for role in 0..self.entries[e].roles.len() {
                let o = self.object(e, role);
                let end = plan.end_layouts[self.entries[e].roles[role].index()];
                let entry = &mut self.entries[e];
                if matches!(entry.objects[o], Res::Image(_)) && end != vk::ImageLayout::UNDEFINED {
                    entry.layouts[o] = end;
                }
            }
            self.entries[e].frames += 1;
        }
    }

    /// Destroys every entry (no work in flight).
    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        for mut e in self.entries.drain(..) {
            e.owner.destroy(gpu);
        }
    }

    /// Frames the history resource `name` took part in since its objects were made, and
    /// how many objects it has; `None` when there is no such entry.
    pub(crate) fn age(&self, name: &str) -> Option<(u64, usize)> {
        let e = self.entries.iter().find(|e| e.key.name == name)?;
        Some((e.frames, e.objects.len()))
    }
}

/// A whole-image layout transition with full execution and memory dependencies (one-time
/// work outside any frame).
pub(super) fn transition(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
) {
    let b = [vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range)];
    let dep = vk::DependencyInfo::default().image_memory_barriers(&b);
    // SAFETY: recording a one-time command buffer; the image is live.
    unsafe { gpu.device.cmd_pipeline_barrier2(cmd, &dep) };
}
