//! Persistent resources' objects (`tessera_graph::graph::Origin::Persistent`): made by the
//! executor on first use, kept across frames and re-plans, one object each.
//!
//! An entry is keyed by the resource's name and shape; a new plan whose graph declares the
//! same name and shape keeps the object *and its content* (the plans of a frame whose
//! writer runs and of one where it is skipped differ only in that), provided the object
//! already has every usage the new graph needs (usages come from every declared use, culled
//! passes' included, so they do not change when a writer is skipped). Any other change
//! makes a new object. Each object made gets a new *epoch* ([`PersistentStore::epoch`]):
//! its content is lost then, so a renderer that recorded the epoch after the frame that
//! wrote the content declares it valid only while the epoch is unchanged.
//!
//! A new object is cleared to zero and left at rest (an image in
//! `SHADER_READ_ONLY_OPTIMAL`) by a one-time submit: the plans take it from there. Objects
//! are created `CONCURRENT` whenever the two logical queues run on different families: a
//! writer on the async-compute queue in one frame and readers on graphics in another are
//! different plans, which no ownership transfer could span (`compile/ownership.rs`).

use super::device_state::DeviceState;
use super::history::transition;
use super::plan_state::PlanState;
use crate::device::Gpu;
use crate::resources::{self, Res, Resources, SpareMemory};
use crate::VkError;
use ash::vk;
use tessera_graph::graph::{ResourceKind, PERSISTENT_REST_LAYOUT};
use tessera_graph::{Graph, Plan, ResourceId};

/// One persistent resource's object.
struct Entry {
    name: String,
    kind: ResourceKind,
    usage: (vk::ImageUsageFlags, vk::BufferUsageFlags),
    /// Owns the object and its memory (indexed like the graph it was made for).
    owner: Resources,
    object: Res,
    /// The running graph's resource it is.
    id: ResourceId,
    /// Changes whenever an object is made.
    epoch: u64,
    /// Cleared and put at rest.
    rested: bool,
}

/// The executor's persistent resources.
#[derive(Default)]
pub(crate) struct PersistentStore {
    entries: Vec<Entry>,
    /// Epochs handed out so far (the next object's is one more).
    epochs: u64,
}

impl PersistentStore {
    /// Keeps the objects `plan`'s graph still declares the same way, destroys the others and
    /// makes the missing ones (no frame in flight).
    pub(crate) fn follow(
        &mut self,
        gpu: &Gpu,
        dev: &DeviceState,
        plan: &PlanState,
        spare: &mut SpareMemory,
    ) -> Result<(), VkError> {
        let graph = &plan.graph;
        let memoryless = vec![false; graph.resources.len()];
        let usage = resources::usages(graph, &memoryless);
        let wanted: Vec<ResourceId> = graph
            .resource_ids()
            .filter(|&id| graph.resource(id).is_kept_across_plans())
            .collect();
        let mut kept = Vec::new();
        for mut e in self.entries.drain(..) {
            let same = wanted.iter().copied().find(|&id| {
                let r = graph.resource(id);
                let need = usage[id.index()];
                r.name == e.name.as_str()
                    && same_shape(&r.kind, &e.kind)
                    && e.usage.0.contains(need.0)
                    && e.usage.1.contains(need.1)
            });
            match same {
                Some(id) => {
                    e.id = id;
                    kept.push(e);
                }
                None => {
                    log::debug!("persistent '{}': no longer declared so, dropped", e.name);
                    e.owner.retire(gpu, spare);
                }
            }
        }
        self.entries = kept;
        for id in wanted {
            if self.entries.iter().any(|e| e.id == id) {
                continue;
            }
            let r = graph.resource(id);
            // `external` marks what *not* to create: everything but this object.
            let mut others = vec![true; graph.resources.len()];
            others[id.index()] = false;
            let mut concurrent = vec![false; graph.resources.len()];
            concurrent[id.index()] = dev.families[0] != dev.families[1];
            let unbound = resources::create_unbound(
                gpu,
                graph,
                &memoryless,
                &concurrent,
                dev.families,
                &others,
            )?;
            let owner = Resources::bind_reusing(gpu, graph, &Plan::default(), unbound, spare)?;
            self.epochs += 1;
            log::debug!(
                "persistent '{}': object made (epoch {})",
                r.name,
                self.epochs
            );
            self.entries.push(Entry {
                name: r.name.to_string(),
                kind: r.kind,
                usage: usage[id.index()],
                object: owner.res[id.index()],
                owner,
                id,
                epoch: self.epochs,
                rested: false,
            });
        }
        Ok(())
    }

    /// Clears every new object to zero and leaves it at rest (one-time submits on the
    /// graphics queue; no frame in flight uses a new object).
    pub(crate) fn settle(&mut self, gpu: &Gpu, dev: &mut DeviceState) -> Result<(), VkError> {
        for e in self.entries.iter_mut().filter(|e| !e.rested) {
            match e.object {
                Res::Image(im) => {
                    let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
                    let rest = crate::conv::layout(PERSISTENT_REST_LAYOUT);
                    dev.once_on(gpu, 0, |gpu, cmd, _| {
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
                                gpu.device.cmd_clear_depth_stencil_image(
                                    cmd,
                                    im.image,
                                    dst,
                                    &value,
                                    &[range],
                                );
                            } else {
                                let value = vk::ClearColorValue::default();
                                gpu.device.cmd_clear_color_image(
                                    cmd,
                                    im.image,
                                    dst,
                                    &value,
                                    &[range],
                                );
                            }
                        }
                        transition(gpu, cmd, im.image, range, dst, rest);
                    })?;
                }
                Res::Buffer(b) => {
                    dev.once_on(gpu, 0, |gpu, cmd, _| {
                        // SAFETY: recording a one-time buffer; the buffer has transfer usage.
                        unsafe {
                            gpu.device
                                .cmd_fill_buffer(cmd, b.buffer, 0, vk::WHOLE_SIZE, 0)
                        };
                    })?;
                }
            }
            e.rested = true;
        }
        Ok(())
    }

    /// The object each persistent resource of `graph` (the running plan's) names.
    pub(crate) fn objects(&self, graph: &Graph) -> Vec<(usize, Res)> {
        self.entries
            .iter()
            .filter(|e| {
                graph
                    .resources
                    .get(e.id.index())
                    .is_some_and(|r| r.name == e.name.as_str())
            })
            .map(|e| (e.id.index(), e.object))
            .collect()
    }

    /// The epoch of persistent resource `name`'s object: `None` before it exists, a number
    /// that changes whenever an object is made for it.
    pub(crate) fn epoch(&self, name: &str) -> Option<u64> {
        self.entries
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.epoch)
    }

    /// Destroys every object (no work in flight).
    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        for mut e in self.entries.drain(..) {
            e.owner.destroy(gpu);
        }
    }
}

/// Whether an object made for `made` serves a resource of shape `now`: the same image
/// description, or a buffer of the same size (sizes the executor filled in from the
/// device's requirements are not part of the shape).
fn same_shape(now: &ResourceKind, made: &ResourceKind) -> bool {
    now == made
}
