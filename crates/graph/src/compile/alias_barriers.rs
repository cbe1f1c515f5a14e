//! Post-pass of the barrier phase, aliasing barriers: a resource that reuses bytes another
//! resource used earlier in the frame starts from `UNDEFINED` and waits for the latest
//! earlier occupant of each of those bytes.
//!
//! Per block, the placements are swept in order of first use (two placements sharing bytes
//! never have conflicting spans, so the one that starts first also ends before the other
//! starts, in positions and levels) over an occupancy map: disjoint byte ranges → their last
//! occupant so far. An item Y takes as predecessors the occupants of the ranges it covers,
//! then becomes the occupant of its whole range. Earlier occupants of those bytes are
//! ordered before Y transitively (A → C → Y: C's barrier waits on A, Y's on C; the second's
//! source stages include the stage of C's first use, where the first ends), so one edge per
//! covered range suffices. For each later occupant Y with first use `b` on queue Q:
//! - the stages of every use of each predecessor on Q (and their writes) are added to the
//!   source scope of Y's barrier before `b` (anchored before the first subpass of `b`'s
//!   render pass), which is created if the barrier phase made none; an image's barrier
//!   transitions from `UNDEFINED`;
//! - for a predecessor used on the other queue, a [`CrossQueueHazard`] from its last use
//!   there to `b` is pushed, so the sync phase covers it with a semaphore (and the image
//!   transition chains after the wait through `ALL_COMMANDS`, as in the barrier phase).
//!
//! The next frame reuses the same bytes: the first occupant of some bytes (filled where the
//! map had a gap) waits, on its first use's queue, for the previous frame's last occupant of
//! them (across queues the frame boundary covers it, as for the barrier phase's own
//! previous-frame hazards); the occupants in between follow by the chain.
//! A predecessor's summary includes the store operations of its render passes (the uses'
//! scopes come from the barrier phase with the attachment operations folded in,
//! [`super::renderpass::ops`]): the successor waits for the store of the bytes it reuses.
//! Invariant kept: `barriers` stays in execution order of `before`, `cross_queue` in
//! execution order of `to` (the new hazards are merged in by sorted keys, see
//! `merge_hazards`). Cost: O(resources + barriers + n log n + Σ ranges covered),
//! linear in practice (the map holds about as many ranges as items alive at once), instead
//! of one step per pair of placements sharing bytes. The uses are not walked here: the
//! barrier phase hands over each resource's first use (with its anchor) and per-queue
//! summaries; the barrier to extend is found through the resource (the one recorded before
//! its first use's render pass), each predecessor is reported once per covered stretch (its
//! summary is unioned in, so a repeat changes nothing; a stamp per item to report it once
//! cost a mispredicted branch per repeat), and a covered stretch of the map is rewritten in
//! place with one shift of what lies below it. The map is kept from the top of the block down:
//! most placements are at the bottom of their block, so that shift moves nothing. The map's
//! stretches tile the block (bytes nobody used yet are a stretch of their own), so a stretch
//! is its end and occupant (16 bytes) and a split keeps its upper part as it is. Measured
//! figures and the alternatives tried: docs/perf.md, "Barrier phases".

use super::barriers::{BarrierDraft, Barriers, CrossQueueHazard};
use super::memory::MemoryLayout;
use super::resource_uses::{slot, FirstUse, Occupants, ResourceUses};
use super::Schedule;
use crate::access::SyncScope;
use crate::graph::{Graph, PassId, ResourceId};
use crate::sync::{AccessMask, Layout, StageMask};

/// Adds the aliasing barriers and cross-queue hazards of `layout` to `barriers`.
pub fn add(graph: &Graph, schedule: &Schedule, layout: &MemoryLayout, barriers: &mut Barriers) {
    let problem = &layout.problem;
    // Summaries of every resource's uses (from the barrier phase): every pair below then
    // costs O(1).
    let uses = std::mem::take(&mut barriers.resource_uses);
    // Per item, what its latest earlier occupants (this frame) and, for the first occupant
    // of some bytes, the last occupant of those bytes (the previous frame's) add to its
    // first-use barrier.
    let n = problem.items.len();
    let mut from_earlier = vec![Occupants::default(); n];
    let mut from_later = vec![Occupants::default(); n];
    let mut sweep = Sweep::default();
    for block in &layout.packing.blocks {
        if block.items.len() < 2 {
            continue;
        }
        sweep.block(
            problem,
            &block.items,
            |earlier, later| {
                log::trace!(
                    "alias: '{}' reuses bytes of '{}'",
                    graph.resource(problem.items[later].resource).name,
                    graph.resource(problem.items[earlier].resource).name,
                );
                from_earlier[later].add(&uses[problem.items[earlier].resource.index()]);
            },
            |first, last| from_later[first].add(&uses[problem.items[last].resource.index()]),
        );
    }
    debug_assert!(
        barriers.barriers.windows(2).all(|w| {
            let position = |p: PassId| schedule.position[p.index()].unwrap_or(u32::MAX);
            position(w[0].before) <= position(w[1].before)
        }),
        "barriers are in execution order of `before`"
    );
    let mut upserts = Upserts::new(barriers, &uses);
    let mut new_hazards = Vec::new();
    for i in 0..n {
        let (earlier, later) = (&from_earlier[i], &from_later[i]);
        if !earlier.any && !later.any {
            continue;
        }
        let resource = problem.items[i].resource;
        let Some(FirstUse {
            pass: first_pass,
            anchor,
            queue: first_queue,
            scope: first_scope,
        }) = uses[resource.index()].first
        else {
            continue;
        };
        let same = slot(first_queue);
        let other = 1 - same;
        // The earlier occupants on this queue, and the previous frame's later occupants of
        // these bytes on this queue.
        let mut src_stage = earlier.per_queue[same].stages | later.per_queue[same].stages;
        let src_access = earlier.per_queue[same].writes | later.per_queue[same].writes;
        let other_queue_last = match earlier.per_queue[other].last {
            0 => None,
            p => Some(schedule.order[p as usize - 1]),
        };
        if let Some(last) = other_queue_last {
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
            anchor,
            resource,
            first_scope,
            src_stage,
            src_access,
            undefined,
        );
    }
    upserts.finish(schedule);
    if !new_hazards.is_empty() {
        merge_hazards(
            &mut barriers.cross_queue,
            new_hazards,
            schedule,
            graph.resources.len(),
        );
    }
}

/// Merges `new` hazards into `known` (those of the barrier phase) in execution order of
/// `to`, dropping the new ones equal to a known one: what appending them and sorting the
/// whole list stably by the position of `to` gives, known ones first among equal positions.
/// The new ones are sorted through `position << 32 | index` keys (cheaper than moving the
/// hazards in a stable sort), and a new hazard is looked for only among the known hazards
/// into the same pass (the run of its position), and only when its resource has a known
/// hazard at all (`resources`: how many there are). Cost: O(k log k + n) for k new hazards
/// and n known, instead of a hash set of the known and a sort of all.
#[inline(never)] // a step of its own in profiles
fn merge_hazards(
    known: &mut Vec<CrossQueueHazard>,
    new: Vec<CrossQueueHazard>,
    schedule: &Schedule,
    resources: usize,
) {
    let position = |p: PassId| schedule.position[p.index()].unwrap_or(u32::MAX);
    // The barrier phase lists them by the render pass they wait before, which may be out of
    // order when async passes sit between its subpasses.
    if !known
        .windows(2)
        .all(|w| position(w[0].to) <= position(w[1].to))
    {
        known.sort_by_key(|h| position(h.to));
    }
    let mut keys: Vec<u64> = new
        .iter()
        .enumerate()
        .map(|(i, h)| u64::from(position(h.to)) << 32 | i as u64)
        .collect();
    keys.sort_unstable();
    // Only a resource with a known hazard can have a new one equal to it.
    let mut has_known = vec![false; resources];
    for h in known.iter() {
        has_known[h.resource.index()] = true;
    }
    let old = std::mem::take(known);
    let mut merged = Vec::with_capacity(old.len() + new.len());
    let mut j = 0;
    // `old[run..j]`: the known hazards into the pass of the latest new one.
    let mut run = 0;
    let mut run_position = None;
    for key in keys {
        let p = (key >> 32) as u32;
        let h = new[key as u32 as usize];
        if run_position != Some(p) {
            run_position = Some(p);
            while j < old.len() && position(old[j].to) < p {
                merged.push(old[j]);
                j += 1;
            }
            run = j;
        }
        while j < old.len() && position(old[j].to) == p {
            merged.push(old[j]);
            j += 1;
        }
        if !(has_known[h.resource.index()] && old[run..j].contains(&h)) {
            merged.push(h);
        }
    }
    merged.extend_from_slice(&old[j..]);
    *known = merged;
}

/// Bytes `start..end` of a block and their first occupant (the first-use map).
#[derive(Clone, Copy, Debug)]
struct Segment {
    start: u64,
    end: u64,
    item: u32,
}

/// A stretch of the occupancy map: the bytes from the end of the stretch below (0 for the
/// bottom one) to `end`, and their last occupant so far ([`NOBODY`] for bytes nobody used yet).
/// The stretches tile the whole block, so a stretch needs no start (16 bytes, not 24).
#[derive(Clone, Copy, Debug)]
struct Stretch {
    end: u64,
    item: u32,
}

/// No occupant (a [`Stretch`] of bytes not used yet).
const NOBODY: u32 = u32::MAX;

/// The occupancy sweep over one block at a time (buffers reused across blocks).
#[derive(Debug, Default)]
struct Sweep {
    /// The block's bytes as stretches from the top of the block down (the bottom stretch
    /// last: most placements are at the bottom of their block, so the stretches an edit
    /// shifts, those below it, are few or none), each with its last occupant so far; two
    /// neighbouring stretches never both have [`NOBODY`]. In offset order after the sweep.
    last: Vec<Stretch>,
    /// Occupied bytes and their first occupant, disjoint (sorted by offset after the sweep).
    first: Vec<Segment>,
    /// Scratch: `first position << 32 | index into the placements` of the block's items.
    items: Vec<u64>,
    /// Scratch of the counting sort of `items`: counts per first position, sorted keys.
    count: Vec<u32>,
    sorted: Vec<u64>,
}

impl Sweep {
    /// Sorts `self.items` (keys `first position << 32 | index`): a counting sort when the
    /// first positions are small integers (`max_lo` the largest), else a comparison sort.
    fn sort_items(&mut self, max_lo: usize) {
        if max_lo > 4 * self.items.len() + 1024 {
            self.items.sort_unstable();
            return;
        }
        self.count.clear();
        self.count.resize(max_lo + 2, 0);
        for &key in &self.items {
            self.count[(key >> 32) as usize + 1] += 1;
        }
        for p in 0..=max_lo {
            self.count[p + 1] += self.count[p];
        }
        self.sorted.clear();
        self.sorted.resize(self.items.len(), 0);
        for &key in &self.items {
            let c = &mut self.count[(key >> 32) as usize];
            self.sorted[*c as usize] = key;
            *c += 1;
        }
        std::mem::swap(&mut self.items, &mut self.sorted);
    }

    /// Sweeps the placements `(item, offset)` of one block in order of first use, calling
    /// `earlier(occupant, item)` for every latest earlier occupant of some of the item's
    /// bytes (once per covered stretch: an occupant of several is reported as often, the
    /// caller's union being idempotent, which is cheaper than a branch on a stamp), then
    /// `wraps(first, last)` once per pair of the first and the last occupant of some bytes
    /// (different items), the frame boundary's reuse.
    #[inline(never)] // a step of its own in profiles
    fn block(
        &mut self,
        problem: &super::memory::Problem,
        placements: &[(usize, u64)],
        mut earlier: impl FnMut(usize, usize),
        mut wraps: impl FnMut(usize, usize),
    ) {
        self.items.clear();
        let mut max_lo = 0;
        self.items
            .extend(placements.iter().enumerate().map(|(k, &(i, _))| {
                let lo = problem.items[i].span.pos_lo;
                max_lo = max_lo.max(lo);
                u64::from(lo) << 32 | k as u64
            }));
        self.sort_items(max_lo as usize);
        self.last.clear();
        self.last.push(Stretch {
            end: u64::MAX,
            item: NOBODY,
        });
        self.first.clear();
        for &key in &self.items {
            let (i, s) = placements[key as u32 as usize];
            let item = i as u32;
            let e = s + problem.items[i].size;
            if e <= s {
                continue; // no bytes
            }
            // `last` runs from the top of the block down: the covered stretches are
            // `last[top..=bottom]`, `last[bottom]` holding byte `s`. Their occupants are the
            // predecessors, the bytes of those nobody used before are `item`'s first.
            let len = self.last.len();
            let bottom = if s == 0 {
                len - 1 // (most placements are at the bottom of their block)
            } else {
                self.last.partition_point(|g| g.end > s) - 1
            };
            let mut start = match self.last.get(bottom + 1) {
                Some(below) => below.end,
                None => 0,
            };
            let head_item = self.last[bottom].item;
            let head = start < s;
            let mut top = bottom;
            loop {
                let g = self.last[top];
                if g.item == NOBODY {
                    self.first.push(Segment {
                        start: start.max(s),
                        end: g.end.min(e),
                        item,
                    });
                } else {
                    debug_assert!(
                        problem.items[g.item as usize]
                            .span
                            .before(&problem.items[i].span),
                        "items sharing bytes come one wholly before the other"
                    );
                    earlier(g.item as usize, i);
                }
                if g.end >= e {
                    break;
                }
                start = g.end;
                top -= 1; // (`last[0]` ends at `u64::MAX`, so `top` stays in bounds)
            }
            // `last[top..=bottom]` becomes (top down): `last[top]` itself when it goes on
            // above `e` (its end and occupant stay), the item, and what `last[bottom]` keeps
            // below `s` (head). So `last[from..=bottom]` is replaced by `head + 1` stretches,
            // where `from` is `top + 1` when the top stretch stays and `top` when it does not.
            // The stretches shifted are those below `bottom`: none for a placement at the
            // bottom of the block.
            let from = if self.last[top].end > e { top + 1 } else { top };
            let mine = Stretch { end: e, item };
            let n = 1 + usize::from(head);
            let replaced = bottom + 1 - from;
            if n > replaced {
                self.last.insert(bottom + 1, mine);
                if n > replaced + 1 {
                    self.last.insert(bottom + 1, mine);
                }
            } else if n < replaced {
                self.last.drain(from + n..bottom + 1);
            }
            self.last[from] = mine;
            if head {
                self.last[from + 1] = Stretch {
                    end: s,
                    item: head_item,
                };
            }
        }
        // In offset order for the walk below.
        self.last.reverse();
        // Both maps cover the same bytes: walk them together.
        self.first.sort_unstable_by_key(|g| g.start);
        let mut k = 0;
        let mut prev: Option<(u32, u32)> = None;
        for f in &self.first {
            while self.last[k].end <= f.start {
                k += 1;
            }
            let mut j = k;
            loop {
                let pair = (f.item, self.last[j].item);
                if pair.0 != pair.1 && prev != Some(pair) {
                    wraps(pair.0 as usize, pair.1 as usize);
                    prev = Some(pair);
                }
                if self.last[j].end >= f.end {
                    break;
                }
                j += 1;
            }
        }
    }
}

/// Barrier edits of this phase: unions into existing plain barriers (each resource's barrier
/// before the render pass of its first use, found once) and new barriers merged into
/// execution order at the end.
struct Upserts<'a> {
    barriers: &'a mut Barriers,
    /// Per resource: index of the first plain barrier recorded before the render pass of its
    /// first use (the barrier phase makes at most one there), `u32::MAX` for none.
    at_first_use: Vec<u32>,
    added: Vec<BarrierDraft>,
}

impl<'a> Upserts<'a> {
    fn new(barriers: &'a mut Barriers, uses: &[ResourceUses]) -> Self {
        if barriers.first_use_barrier.len() == uses.len() {
            // Tracked by the barrier phase.
            return Upserts {
                at_first_use: std::mem::take(&mut barriers.first_use_barrier),
                barriers,
                added: Vec::new(),
            };
        }
        let mut at_first_use = vec![u32::MAX; uses.len()];
        for (i, b) in barriers.barriers.iter().enumerate() {
            let r = b.resource.index();
            if b.after || b.transfer.is_some() || at_first_use[r] != u32::MAX {
                continue;
            }
            if uses[r].first.is_some_and(|f| f.anchor == b.before) {
                at_first_use[r] = i as u32;
            }
        }
        Upserts {
            barriers,
            at_first_use,
            added: Vec::new(),
        }
    }

    /// The plain barrier of `resource` recorded before `before` (the render pass of its
    /// first use), if the barrier phase made one.
    fn find(&self, before: PassId, resource: ResourceId) -> Option<usize> {
        let i = self.at_first_use[resource.index()] as usize;
        let b = self.barriers.barriers.get(i)?;
        debug_assert!(b.resource == resource);
        (b.before == before).then_some(i)
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
        if let Some(i) = self.find(before, resource) {
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
