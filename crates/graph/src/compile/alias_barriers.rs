//! Post-pass of the barrier phase, aliasing barriers: a resource that reuses bytes another
//! resource used earlier in the frame starts from `UNDEFINED` and waits for every earlier
//! occupant of those bytes.
//!
//! For every pair of placements of one block whose byte ranges intersect, the one whose
//! conflict span ends first is the *earlier occupant* of the other (the planner never puts
//! conflicting spans on the same bytes, so one of them always comes first in both
//! execution positions and levels). For each later occupant Y with first use `b` on queue Q:
//! - the stages of every use of every earlier occupant on Q (and their writes) are added to
//!   the source scope of Y's barrier before `b` (anchored before the first subpass of `b`'s
//!   render pass), which is created if the barrier phase made none; an image's barrier
//!   transitions from `UNDEFINED`;
//! - for every earlier occupant used on the other queue, a [`CrossQueueHazard`] from its
//!   last use there to `b` is pushed, so the sync phase covers it with a semaphore (and the
//!   image transition chains after the wait through `ALL_COMMANDS`, as in the barrier phase).
//!
//! The next frame reuses the same bytes, so the first occupant's first use on a queue also
//! waits for the later occupants' uses of the previous frame on that queue (across queues
//! the frame boundary covers it, as for the barrier phase's own previous-frame hazards).
//! Invariant kept: `barriers` stays in execution order of `before`, `cross_queue` in
//! execution order of `to`. Cost: O(byte-overlapping pairs × uses).

use super::barriers::{BarrierDraft, Barriers, CrossQueueHazard};
use super::memory::MemoryLayout;
use super::renderpass::RenderPassGrouping;
use super::Schedule;
use crate::access::SyncScope;
use crate::graph::{Graph, PassId, QueueKind, ResourceId};
use crate::sync::{AccessMask, Layout, StageMask};

/// A kept use of a resource.
#[derive(Clone, Copy, Debug)]
struct KeptUse {
    pass: PassId,
    position: u32,
    queue: QueueKind,
    scope: SyncScope,
}

/// Adds the aliasing barriers and cross-queue hazards of `layout` to `barriers`.
pub fn add(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
    layout: &MemoryLayout,
    barriers: &mut Barriers,
) {
    let problem = &layout.problem;
    let mut uses: Vec<Vec<KeptUse>> = vec![Vec::new(); graph.resources.len()];
    for (position, &pass) in schedule.order.iter().enumerate() {
        let p = graph.pass(pass);
        for u in &p.uses {
            let scope = u.access.scope(p.kind, graph.resource(u.resource).target());
            let queue = schedule.queue[pass.index()];
            uses[u.resource.index()].push(KeptUse {
                pass,
                position: position as u32,
                queue,
                scope,
            });
        }
    }
    // earlier[i]: items whose bytes item i reuses; later[i]: items that reuse item i's bytes.
    let n = problem.items.len();
    let mut earlier: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut later: Vec<Vec<usize>> = vec![Vec::new(); n];
    for block in &layout.packing.blocks {
        let mut by_offset = block.items.clone();
        by_offset.sort_unstable_by_key(|&(i, off)| (off, i));
        for (k, &(a, off_a)) in by_offset.iter().enumerate() {
            let end_a = off_a + problem.items[a].size;
            for &(b, off_b) in by_offset[k + 1..]
                .iter()
                .take_while(|&&(_, off_b)| off_b < end_a)
            {
                debug_assert!(off_b >= off_a);
                let (sa, sb) = (&problem.items[a].span, &problem.items[b].span);
                let (first, second) = if sa.before(sb) {
                    (a, b)
                } else if sb.before(sa) {
                    (b, a)
                } else {
                    debug_assert!(
                        false,
                        "conflicting items {a} and {b} share bytes at {off_b}"
                    );
                    continue;
                };
                log::debug!(
                    "alias: '{}' reuses bytes of '{}' (offsets {} and {})",
                    graph.resource(problem.items[second].resource).name,
                    graph.resource(problem.items[first].resource).name,
                    off_a,
                    off_b
                );
                earlier[second].push(first);
                later[first].push(second);
            }
        }
    }
    let anchor = |pass: PassId| {
        grouping.group_of[pass.index()].map_or(pass, |g| grouping.groups[g as usize][0])
    };
    let mut new_hazards = Vec::new();
    for i in 0..n {
        if earlier[i].is_empty() && later[i].is_empty() {
            continue;
        }
        let resource = problem.items[i].resource;
        let Some(&first_use) = uses[resource.index()].first() else {
            continue;
        };
        let mut src_stage = StageMask::empty();
        let mut src_access = AccessMask::empty();
        let mut other_queue_last: Option<KeptUse> = None;
        for &x in &earlier[i] {
            for u in &uses[problem.items[x].resource.index()] {
                if u.queue == first_use.queue {
                    src_stage |= u.scope.stages;
                    src_access |= u.scope.access & AccessMask::WRITES;
                } else if other_queue_last.is_none_or(|l| u.position > l.position) {
                    other_queue_last = Some(*u);
                }
            }
        }
        if let Some(last) = other_queue_last {
            log::debug!(
                "alias: '{}' waits across queues for '{}' before reusing memory",
                graph.pass(first_use.pass).name,
                graph.pass(last.pass).name
            );
            new_hazards.push(CrossQueueHazard {
                from: last.pass,
                to: first_use.pass,
                resource,
            });
        }
        // The previous frame's later occupants of these bytes, on this queue.
        for &y in &later[i] {
            for u in uses[problem.items[y].resource.index()]
                .iter()
                .filter(|u| u.queue == first_use.queue)
            {
                src_stage |= u.scope.stages;
                src_access |= u.scope.access & AccessMask::WRITES;
            }
        }
        let is_image = graph.resource(resource).image_desc().is_some();
        if other_queue_last.is_some() && is_image {
            src_stage |= StageMask::ALL_COMMANDS;
        }
        let undefined = is_image && !earlier[i].is_empty();
        upsert(
            barriers,
            schedule,
            anchor(first_use.pass),
            resource,
            first_use.scope,
            src_stage,
            src_access,
            undefined,
        );
    }
    for h in new_hazards {
        if !barriers.cross_queue.contains(&h) {
            barriers.cross_queue.push(h);
        }
    }
    let position = |p: PassId| schedule.position[p.index()].unwrap_or(u32::MAX);
    barriers.cross_queue.sort_by_key(|h| position(h.to));
}

/// Unions the source scope into the barrier of `resource` before `before`, creating it (in
/// execution order) if needed; `undefined` makes it a transition from `UNDEFINED`.
#[allow(clippy::too_many_arguments)]
fn upsert(
    barriers: &mut Barriers,
    schedule: &Schedule,
    before: PassId,
    resource: ResourceId,
    dst: SyncScope,
    src_stage: StageMask,
    src_access: AccessMask,
    undefined: bool,
) {
    if src_stage.is_empty() && !undefined {
        return;
    }
    let layouts = |old: Option<(Layout, Layout)>| match (undefined, old, dst.layout) {
        (true, Some((_, new)), _) => Some((Layout::UNDEFINED, new)),
        (true, None, Some(new)) => Some((Layout::UNDEFINED, new)),
        (_, old, _) => old,
    };
    if let Some(b) = barriers
        .barriers
        .iter_mut()
        .find(|b| b.before == before && b.resource == resource && !b.after && b.transfer.is_none())
    {
        b.src_stage |= src_stage;
        b.src_access |= src_access;
        b.layouts = layouts(b.layouts);
        return;
    }
    let position = |p: PassId| schedule.position[p.index()].unwrap_or(u32::MAX);
    let at = barriers
        .barriers
        .partition_point(|b| position(b.before) <= position(before));
    barriers.barriers.insert(
        at,
        BarrierDraft {
            before,
            resource,
            src_stage,
            src_access,
            dst_stage: dst.stages,
            dst_access: dst.access,
            layouts: layouts(None),
            after: false,
            transfer: None,
        },
    );
}
