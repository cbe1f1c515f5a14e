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
//! execution order of `to`. Cost: O(uses + byte-overlapping pairs + barriers).

use super::barriers::{BarrierDraft, Barriers, CrossQueueHazard};
use super::memory::MemoryLayout;
use super::renderpass::RenderPassGrouping;
use super::Schedule;
use crate::access::SyncScope;
use crate::graph::{Graph, PassId, QueueKind, ResourceId};
use crate::hash::FxBuildHasher;
use crate::sync::{AccessMask, Layout, StageMask};
use std::collections::HashMap;

/// What the uses of one resource on one queue add to a later occupant's barrier.
#[derive(Clone, Copy, Debug, Default)]
struct QueueUses {
    stages: StageMask,
    writes: AccessMask,
    /// Last use on this queue: (position in the order, pass).
    last: Option<(u32, PassId)>,
}

/// The first kept use of a resource and its per-queue summaries.
#[derive(Clone, Copy, Debug, Default)]
struct ResourceUses {
    first: Option<(PassId, QueueKind, SyncScope)>,
    per_queue: [QueueUses; 2],
}

/// The union of several occupants' [`QueueUses`].
#[derive(Clone, Copy, Debug, Default)]
struct Occupants {
    any: bool,
    per_queue: [QueueUses; 2],
}

impl Occupants {
    fn add(&mut self, r: &ResourceUses) {
        self.any = true;
        for (acc, q) in self.per_queue.iter_mut().zip(&r.per_queue) {
            acc.stages |= q.stages;
            acc.writes |= q.writes;
            acc.last = acc.last.max(q.last);
        }
    }
}

fn slot(q: QueueKind) -> usize {
    match q {
        QueueKind::Graphics => 0,
        QueueKind::AsyncCompute => 1,
    }
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
    // One pass over the kept uses: every pair below then costs O(1).
    let mut uses = vec![ResourceUses::default(); graph.resources.len()];
    for (position, &pass) in schedule.order.iter().enumerate() {
        let p = graph.pass(pass);
        let queue = schedule.queue[pass.index()];
        for u in &p.uses {
            let scope = u.access.scope(p.kind, graph.resource(u.resource).target());
            let r = &mut uses[u.resource.index()];
            r.first.get_or_insert((pass, queue, scope));
            let q = &mut r.per_queue[slot(queue)];
            q.stages |= scope.stages;
            q.writes |= scope.access & AccessMask::WRITES;
            q.last = Some((position as u32, pass));
        }
    }
    // Per item, what its earlier occupants (this frame) and later occupants (the previous
    // frame's) add to its first-use barrier: accumulated pair by pair, no pair lists kept.
    let n = problem.items.len();
    let mut from_earlier = vec![Occupants::default(); n];
    let mut from_later = vec![Occupants::default(); n];
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
                log::trace!(
                    "alias: '{}' reuses bytes of '{}' (offsets {} and {})",
                    graph.resource(problem.items[second].resource).name,
                    graph.resource(problem.items[first].resource).name,
                    off_a,
                    off_b
                );
                from_earlier[second].add(&uses[problem.items[first].resource.index()]);
                from_later[first].add(&uses[problem.items[second].resource.index()]);
            }
        }
    }
    let anchor = |pass: PassId| {
        grouping.group_of[pass.index()].map_or(pass, |g| grouping.groups[g as usize][0])
    };
    let mut upserts = Upserts::new(barriers);
    let mut new_hazards = Vec::new();
    for i in 0..n {
        let (earlier, later) = (&from_earlier[i], &from_later[i]);
        if !earlier.any && !later.any {
            continue;
        }
        let resource = problem.items[i].resource;
        let Some((first_pass, first_queue, first_scope)) = uses[resource.index()].first else {
            continue;
        };
        let same = slot(first_queue);
        let other = 1 - same;
        // The earlier occupants on this queue, and the previous frame's later occupants of
        // these bytes on this queue.
        let mut src_stage = earlier.per_queue[same].stages | later.per_queue[same].stages;
        let src_access = earlier.per_queue[same].writes | later.per_queue[same].writes;
        let other_queue_last = earlier.per_queue[other].last;
        if let Some((_, last)) = other_queue_last {
            log::debug!(
                "alias: '{}' waits across queues for '{}' before reusing memory",
                graph.pass(first_pass).name,
                graph.pass(last).name
            );
            new_hazards.push(CrossQueueHazard {
                from: last,
                to: first_pass,
                resource,
            });
        }
        let is_image = graph.resource(resource).image_desc().is_some();
        if other_queue_last.is_some() && is_image {
            src_stage |= StageMask::ALL_COMMANDS;
        }
        let undefined = is_image && earlier.any;
        upserts.upsert(
            anchor(first_pass),
            resource,
            first_scope,
            src_stage,
            src_access,
            undefined,
        );
    }
    upserts.finish(schedule);
    if !new_hazards.is_empty() {
        let known: std::collections::HashSet<CrossQueueHazard, FxBuildHasher> =
            barriers.cross_queue.iter().copied().collect();
        barriers
            .cross_queue
            .extend(new_hazards.into_iter().filter(|h| !known.contains(h)));
        let position = |p: PassId| schedule.position[p.index()].unwrap_or(u32::MAX);
        barriers.cross_queue.sort_by_key(|h| position(h.to));
    }
}

/// Barrier edits of this phase: unions into existing plain barriers (found through an
/// index instead of a scan) and new barriers merged into execution order at the end.
struct Upserts<'a> {
    barriers: &'a mut Barriers,
    index: HashMap<(PassId, ResourceId), usize, FxBuildHasher>,
    added: Vec<BarrierDraft>,
}

impl<'a> Upserts<'a> {
    fn new(barriers: &'a mut Barriers) -> Self {
        let index = barriers
            .barriers
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.after && b.transfer.is_none())
            .map(|(i, b)| ((b.before, b.resource), i))
            .collect();
        Upserts {
            barriers,
            index,
            added: Vec::new(),
        }
    }

    /// Unions the source scope into the barrier of `resource` before `before`, creating it
    /// if needed; `undefined` makes it a transition from `UNDEFINED`.
    fn upsert(
        &mut self,
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
        if let Some(&i) = self.index.get(&(before, resource)) {
            let b = &mut self.barriers.barriers[i];
            b.src_stage |= src_stage;
            b.src_access |= src_access;
            b.layouts = layouts(b.layouts);
            return;
        }
        self.added.push(BarrierDraft {
            before,
            resource,
            src_stage,
            src_access,
            dst_stage: dst.stages,
            dst_access: dst.access,
            layouts: layouts(None),
            after: false,
            transfer: None,
        });
    }

    /// Merges the new barriers in: each goes after every existing barrier whose pass is not
    /// later than its own (what inserting at the partition point one by one would give).
    fn finish(self, schedule: &Schedule) {
        if self.added.is_empty() {
            return;
        }
        let position = |p: PassId| schedule.position[p.index()].unwrap_or(u32::MAX);
        let mut added = self.added;
        added.sort_by_key(|b| position(b.before));
        let old = std::mem::take(&mut self.barriers.barriers);
        let mut merged = Vec::with_capacity(old.len() + added.len());
        let mut new = added.into_iter().peekable();
        for b in old {
            while new
                .peek()
                .is_some_and(|n| position(n.before) < position(b.before))
            {
                merged.extend(new.next());
            }
            merged.push(b);
        }
        merged.extend(new);
        self.barriers.barriers = merged;
    }
}
