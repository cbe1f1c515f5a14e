//! Phase 7, barriers: every hazard between passes becomes an explicit barrier (same queue),
//! a subpass dependency (same render pass) or a cross-queue hazard (for the sync phase).
//!
//! For each resource, the kept uses are replayed in execution order against a small state:
//! the last write, the reads since, the current layout and what the last write has been
//! made visible to. A use hazards with:
//! - the last write, if it reads (read-after-write) unless an earlier barrier already made
//!   that write visible to its stages and accesses;
//! - the last write and every read since, if it writes or changes the layout
//!   (write-after-write, write-after-read) — including storage-write -> storage-write on an
//!   unchanged GENERAL layout or a buffer (the UAV-overlap bug: no state change, still a
//!   hazard).
//!
//! Read-after-read in the same layout is no hazard. The state starts from the frame's own
//! last accesses (the previous frame runs the same plan on the same images and buffers), so
//! the first use of a resource waits for the previous frame's use on the same queue.
//! Barriers are placed before the later pass, or before the first subpass of its render
//! pass; one barrier per resource per batch (masks are unioned).
//! Cost: O(uses + barriers).

use super::renderpass::RenderPassGrouping;
use super::Schedule;
use crate::access::SyncScope;
use crate::graph::{Graph, PassId, QueueKind, ResourceId};
use crate::sync::{AccessMask, Layout, StageMask};

/// A barrier before a pass, with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierDraft {
    /// Pass the barrier is recorded before.
    pub before: PassId,
    /// The resource.
    pub resource: ResourceId,
    /// Stages waited on.
    pub src_stage: StageMask,
    /// Accesses made available.
    pub src_access: AccessMask,
    /// Stages that wait.
    pub dst_stage: StageMask,
    /// Accesses made visible.
    pub dst_access: AccessMask,
    /// Layout transition, if any.
    pub layouts: Option<(Layout, Layout)>,
}

/// A hazard between passes on different queues, to be covered by a semaphore.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrossQueueHazard {
    /// Earlier pass.
    pub from: PassId,
    /// Later pass.
    pub to: PassId,
    /// The resource.
    pub resource: ResourceId,
}

/// Output of the barrier phase.
#[derive(Clone, Debug, Default)]
pub struct Barriers {
    /// Barriers in execution order of `before`.
    pub barriers: Vec<BarrierDraft>,
    /// Hazards across queues, in execution order of `to`.
    pub cross_queue: Vec<CrossQueueHazard>,
}

#[derive(Clone, Copy, Debug)]
struct Prior {
    pass: PassId,
    queue: QueueKind,
    group: Option<u32>,
    scope: SyncScope,
    previous_frame: bool,
}

#[derive(Clone, Debug, Default)]
struct State {
    last_write: Option<Prior>,
    readers: Vec<Prior>,
    layout: Option<Layout>,
    layout_group: Option<u32>,
    visible_stages: StageMask,
    visible_access: AccessMask,
}

/// Derives barriers and cross-queue hazards for the scheduled frame.
pub fn barriers(graph: &Graph, schedule: &Schedule, grouping: &RenderPassGrouping) -> Barriers {
    let mut state = initial_states(graph, schedule);
    let mut out = Barriers::default();
    // Barriers of the batch being built: (resource, index in `out.barriers`). Passes of one
    // render pass are contiguous in the order, so a batch is complete once the anchor changes.
    let mut batch_anchor = None;
    let mut batch: Vec<(ResourceId, usize)> = Vec::new();
    for &pass in &schedule.order {
        let p = graph.pass(pass);
        let queue = schedule.queue[pass.index()];
        let group = grouping.group_of[pass.index()];
        let anchor = group.map_or(pass, |g| grouping.groups[g as usize][0]);
        if batch_anchor != Some(anchor) {
            batch_anchor = Some(anchor);
            batch.clear();
        }
        for u in &p.uses {
            let resource = graph.resource(u.resource);
            let scope = u.access.scope(p.kind, resource.target());
            let s = &mut state[u.resource.index()];
            let writes = u.access.writes();
            let transition = scope.layout.is_some() && scope.layout != s.layout;
            let internal_transition = transition && group.is_some() && s.layout_group == group;
            let mut src_stage = StageMask::empty();
            let mut src_access = AccessMask::empty();
            let mut waits_other_queue = false;
            let mut consider = |prior: &Prior, is_write: bool| {
                if !prior.previous_frame && group.is_some() && prior.group == group {
                    return; // a subpass dependency of the render pass covers it
                }
                if prior.queue != queue {
                    waits_other_queue = true;
                    if !prior.previous_frame {
                        out.cross_queue.push(CrossQueueHazard {
                            from: prior.pass,
                            to: pass,
                            resource: u.resource,
                        });
                    }
                    return;
                }
                src_stage |= prior.scope.stages;
                if is_write {
                    src_access |= prior.scope.access & AccessMask::WRITES;
                }
            };
            if writes || (transition && !internal_transition) {
                if let Some(w) = &s.last_write {
                    consider(w, true);
                }
                for r in &s.readers {
                    consider(r, false);
                }
            } else if let Some(w) = &s.last_write {
                let visible = s.visible_stages.contains(scope.stages)
                    && s.visible_access.contains(scope.access);
                if !(visible && w.queue == queue) {
                    consider(w, true);
                }
            }
            let needs_transition = transition && !internal_transition;
            if waits_other_queue && needs_transition {
                // Chain after the semaphore wait, which the executor makes on all commands.
                src_stage |= StageMask::ALL_COMMANDS;
            }
            let barrier = !src_stage.is_empty() || needs_transition;
            if barrier {
                let layouts = needs_transition.then(|| {
                    (
                        s.layout.unwrap_or(Layout::UNDEFINED),
                        scope.layout.unwrap_or(Layout::UNDEFINED),
                    )
                });
                match batch
                    .iter()
                    .find(|(r, _)| *r == u.resource)
                    .map(|&(_, i)| i)
                {
                    Some(i) => {
                        let b: &mut BarrierDraft = &mut out.barriers[i];
                        b.src_stage |= src_stage;
                        b.src_access |= src_access;
                        b.dst_stage |= scope.stages;
                        b.dst_access |= scope.access;
                        if b.layouts.is_none() {
                            b.layouts = layouts;
                        }
                    }
                    None => {
                        batch.push((u.resource, out.barriers.len()));
                        out.barriers.push(BarrierDraft {
                            before: anchor,
                            resource: u.resource,
                            src_stage,
                            src_access,
                            dst_stage: scope.stages,
                            dst_access: scope.access,
                            layouts,
                        });
                    }
                }
            }
            let me = Prior {
                pass,
                queue,
                group,
                scope,
                previous_frame: false,
            };
            if writes {
                s.last_write = Some(me);
                s.readers.clear();
                s.visible_stages = StageMask::empty();
                s.visible_access = AccessMask::empty();
            } else {
                if needs_transition {
                    s.readers.clear();
                    s.visible_stages = StageMask::empty();
                    s.visible_access = AccessMask::empty();
                }
                if barrier {
                    s.visible_stages |= scope.stages;
                    s.visible_access |= scope.access;
                }
                s.readers.push(me);
            }
            if scope.layout.is_some() {
                s.layout = scope.layout;
                s.layout_group = group;
            }
        }
    }
    out
}

/// The state each resource enters the frame in: the accesses of the previous frame (the
/// same plan), and the layout its content is in (`UNDEFINED` when the content is not needed).
fn initial_states(graph: &Graph, schedule: &Schedule) -> Vec<State> {
    let mut state = vec![State::default(); graph.resources.len()];
    let mut first_use_keeps = vec![None::<bool>; graph.resources.len()];
    for &pass in &schedule.order {
        let p = graph.pass(pass);
        let queue = schedule.queue[pass.index()];
        for u in &p.uses {
            let resource = graph.resource(u.resource);
            let scope = u.access.scope(p.kind, resource.target());
            let s = &mut state[u.resource.index()];
            let me = Prior {
                pass,
                queue,
                group: None,
                scope,
                previous_frame: true,
            };
            if u.access.writes() {
                s.last_write = Some(me);
                s.readers.clear();
            } else {
                s.readers.push(me);
            }
            if scope.layout.is_some() {
                s.layout = scope.layout;
            }
            first_use_keeps[u.resource.index()].get_or_insert(u.access.keeps_content(u.clear));
        }
    }
    for ((s, r), keeps) in state.iter_mut().zip(&graph.resources).zip(first_use_keeps) {
        let content_needed = r.imported && !r.clear_on_first_use && keeps.unwrap_or(false);
        if r.image_desc().is_some() && !content_needed {
            s.layout = Some(Layout::UNDEFINED);
        }
        s.visible_stages = StageMask::empty();
        s.visible_access = AccessMask::empty();
    }
    state
}
