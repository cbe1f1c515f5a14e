//! Phase 4, order: the execution order of the kept passes, and their render passes.
//!
//! The merge step of the render-pass phase runs alongside ([`Grouper`]): each pass is pushed
//! as it is emitted, and the render passes and breaks come out with the order. The
//! merge-aware pick below tests the open render pass anyway, so the grouper takes its
//! decision instead of testing the pass again (a property test keeps the result equal to
//! the merge rules run over the finished order).
//!
//! A topological order of the kept passes over the dependency edges. Without `reorder` the
//! next pass is always the ready pass declared first, which gives the declaration order
//! itself (edges always point forward in it). With `reorder`, independent passes may move —
//! never against an edge — by the rules below, each in its own function:
//! - [`pick_mergeable`]: while a render pass is open (the last graphics pass emitted was
//!   raster and merging is on: [`Grouper::joinable`]), prefer the first-declared ready raster pass that the merge
//!   rules accept into it, so mergeable raster runs become adjacent instead of being split by
//!   an independent compute pass or a pass of another resolution.
//! - [`by_level`], when any kept pass runs on the async-compute queue: the order goes level by
//!   level (dependency levels, longest path from a root), so that positions and levels agree
//!   (a pass of a lower level always runs earlier). Transient lifetimes are then in levels
//!   *and* positions without contradicting each other, which is what lets memory aliasing
//!   reach the level-based lower bound. Within a level: a raster pass the open render pass
//!   accepts ([`pick_mergeable`]), else the first-declared async-compute pass (async work
//!   starts early, before a new render pass opens, so it does not sit inside one), else the
//!   first-declared graphics compute/transfer pass, else the first-declared raster pass
//!   (raster passes last, so the render pass they open can continue into the next level).
//!   Async-compute passes do not close the render pass in between; the merge rule of
//!   `renderpass::cross_queue` decides which raster passes may still join it.
//! - [`hoist`], with levels: a raster pass that the open render pass accepts but for
//!   async-compute passes inside it in the order that share a resource with it (or with the
//!   render pass), none of which depends on a subpass, is taken anyway: those passes, with
//!   their ancestors emitted since the first subpass, move to just before the first subpass
//!   (`renderpass::cross_queue` tells why that is sound), so the wait for them sits at the
//!   render pass's start instead of splitting it. The moved passes then run before passes
//!   of lower levels (the subpasses), the one exception to positions following levels;
//!   memory lifetimes test positions and levels both, so they stay sound.
//!
//! Cost: one queue, O(passes + edges) (successor lists chained through the edges, ready passes in a
//! bitset whose first set bit only moves forward, ready raster passes in a second one for
//! the merge-aware scan); with levels, O(passes + edges) too (the passes of each level in
//! three lists by a counting sort, raster passes taken ahead marked). Plus O(ready rasters × uses of a candidate) per pick while a render pass is open
//! (with levels: the raster passes of the current level), most candidates refused in O(1)
//! on their extent; and the grouper's O(uses) per pass.

use super::cull::Culling;
use super::deps::Dependencies;
use super::levels;
use super::renderpass::merge::{Grouped, Grouper, OpenGroup};
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{Graph, PassId, PassKind, QueueKind, ResourceId};
use crate::hash::FxBuildHasher;
use std::collections::HashSet;

/// Kept passes in execution order, and their render passes (the merge phase run alongside,
/// [`Grouper`]); `queue` is the queue of each pass (indexed by pass).
pub fn order(
    graph: &Graph,
    deps: &Dependencies,
    culling: &Culling,
    caps: &Capabilities,
    options: &CompileOptions,
    queue: &[QueueKind],
) -> (Vec<PassId>, Grouped) {
    let kept = &culling.kept;
    let mut grouper = Grouper::new(graph, caps, options, queue, deps);
    if !options.reorder {
        let order: Vec<PassId> = graph.pass_ids().filter(|p| kept[p.index()]).collect();
        for &p in &order {
            grouper.push(p, None);
        }
        return (order, grouper.finish());
    }
    // Only a frame with a pass off the graphics queue can have a kept async-compute pass.
    let on_async = |p: &PassId| kept[p.index()] && queue[p.index()] == QueueKind::AsyncCompute;
    if grouper.two_queues() && graph.pass_ids().any(|p| on_async(&p)) {
        let order = by_level(graph, deps, kept, caps, queue, &mut grouper);
        return (order, grouper.finish());
    }
    let n = graph.passes.len();
    let kept_count = kept.iter().filter(|&&k| k).count();
    // Edges among kept passes (all of them when nothing was culled: no test per edge).
    let all_kept = kept_count == n;
    // Per pass, its missing predecessors, and its successors as a chain through the edges
    // (`head[p]`, then `next[edge]`): one pass over the edges. The order in which a pass's
    // successors are visited does not matter (the ready passes are a set).
    let mut missing = vec![0u32; n];
    let mut head = vec![NONE; n];
    let mut next = vec![NONE; deps.edges.len()];
    for (k, e) in deps.edges.iter().enumerate() {
        if all_kept || (kept[e.from.index()] && kept[e.to.index()]) {
            missing[e.to.index()] += 1;
            next[k] = head[e.from.index()];
            head[e.from.index()] = k as u32;
        }
    }
    let mut ready = Ready::new(n);
    let raster = |p: PassId| graph.pass(p).kind == PassKind::Raster;
    for p in graph.pass_ids() {
        if kept[p.index()] && missing[p.index()] == 0 {
            ready.insert(p, raster(p));
        }
    }
    let mut order = Vec::with_capacity(kept_count);
    while let Some(first) = ready.first() {
        let picked = pick_mergeable(graph, caps, grouper.joinable(), ready.rasters(), |_| true);
        let p = picked.unwrap_or(first);
        ready.remove(p);
        order.push(p);
        // A pick was accepted; without one every ready raster pass, `first` included, was
        // refused (or nothing is joinable): the decision is known, no second test.
        grouper.push(p, Some(picked.is_some()));
        let mut k = head[p.index()];
        while let Some(e) = deps.edges.get(k as usize) {
            k = next[k as usize];
            let s = e.to;
            missing[s.index()] -= 1;
            if missing[s.index()] == 0 {
                ready.insert(s, raster(s));
            }
        }
    }
    debug_assert_eq!(
        order.len(),
        kept_count,
        "edges point forward, so every kept pass is ordered"
    );
    (order, grouper.finish())
}

/// End of a successor chain.
const NONE: u32 = u32::MAX;

/// Level by level (see the module notes): every pass of level `L` before any of level
/// `L + 1`, which is a topological order since every edge climbs at least one level.
fn by_level(
    graph: &Graph,
    deps: &Dependencies,
    kept: &[bool],
    caps: &Capabilities,
    queue: &[QueueKind],
    grouper: &mut Grouper<'_>,
) -> Vec<PassId> {
    // Edges point forward in declaration order, so it is a topological order for the levels.
    let declared: Vec<PassId> = graph.pass_ids().filter(|p| kept[p.index()]).collect();
    let level = levels::levels(graph, deps, &declared, kept);
    let depth = declared
        .iter()
        .map(|p| level[p.index()] + 1)
        .max()
        .unwrap_or(0);
    // Per level: async-compute passes, other graphics passes, raster passes, each in
    // declaration order: buckets `level * 3 + kind` of one list, by a counting sort.
    let kind = |p: PassId| {
        if queue[p.index()] != QueueKind::Graphics {
            0
        } else if graph.pass(p).kind != PassKind::Raster {
            1
        } else {
            2
        }
    };
    let bucket = |p: PassId| level[p.index()] as usize * 3 + kind(p);
    let mut bounds = vec![0u32; depth as usize * 3 + 1];
    for &p in &declared {
        bounds[bucket(p) + 1] += 1;
    }
    for i in 1..bounds.len() {
        bounds[i] += bounds[i - 1];
    }
    let mut fill = bounds.clone();
    let mut sorted = vec![PassId(0); declared.len()];
    for &p in &declared {
        let slot = &mut fill[bucket(p)];
        sorted[*slot as usize] = p;
        *slot += 1;
    }
    let slice = |b: usize| &sorted[bounds[b] as usize..bounds[b + 1] as usize];
    // Raster passes already emitted (picked ahead of earlier ones), by pass.
    let mut taken = vec![false; graph.passes.len()];
    // Scratch of `hoist`, by pass (all clear between hoists).
    let mut marks = vec![0u8; graph.passes.len()];
    let mut order = Vec::with_capacity(declared.len());
    for l in 0..depth as usize {
        let (on_async, others, rasters) = (slice(l * 3), slice(l * 3 + 1), slice(l * 3 + 2));
        // The first not yet emitted of each list: the first two lists are emitted in
        // order; raster passes may be taken ahead.
        let (mut a, mut o, mut r) = (0, 0, 0);
        loop {
            while rasters.get(r).is_some_and(|p| taken[p.index()]) {
                r += 1;
            }
            let candidates = rasters[r..].iter().copied().filter(|p| !taken[p.index()]);
            // Other-queue passes in the way that a hoist can move count as no obstacle.
            let crossing_ok = |p: PassId| grouper.crossing_passable(p);
            let picked = pick_mergeable(graph, caps, grouper.joinable(), candidates, crossing_ok);
            let p = if let Some(p) = picked {
                taken[p.index()] = true;
                if grouper.crossing_blocks(p) {
                    hoist(graph, deps, queue, &mut order, grouper, p, &mut marks);
                }
                p
            } else if let Some(&p) = on_async.get(a) {
                a += 1;
                p
            } else if let Some(&p) = others.get(o) {
                o += 1;
                p
            } else if let Some(&p) = rasters.get(r) {
                taken[p.index()] = true;
                p
            } else {
                break;
            };
            order.push(p);
            // A pick was accepted; another raster pass is tested by the grouper.
            grouper.push(p, picked.map(|_| true));
        }
    }
    debug_assert_eq!(order.len(), declared.len(), "every kept pass is ordered");
    order
}

/// A pass of [`hoist`]'s window: emitted since the open render pass's first subpass.
const INSIDE: u8 = 1;
/// A pass [`hoist`] moves before the render pass.
const MOVED: u8 = 2;

/// Moves the other-queue passes that keep `pass` out of the open render pass (those emitted
/// since its first subpass that share a resource with a subpass or with `pass`), and their
/// ancestors emitted since, to just before the first subpass, keeping their relative order;
/// the caller checked that none of them depends on a subpass
/// ([`Grouper::crossing_hoistable`]). `marks` is scratch by pass, left clear.
fn hoist(
    graph: &Graph,
    deps: &Dependencies,
    queue: &[QueueKind],
    order: &mut Vec<PassId>,
    grouper: &mut Grouper<'_>,
    pass: PassId,
    marks: &mut [u8],
) {
    let Some(group) = grouper.joinable() else {
        debug_assert!(false, "a hoist needs an open render pass");
        return;
    };
    let first = group.passes[0];
    let Some(start) = order.iter().rposition(|&q| q == first) else {
        debug_assert!(false, "the first subpass is ordered");
        return;
    };
    let shared: HashSet<ResourceId, FxBuildHasher> = group
        .passes
        .iter()
        .chain([&pass])
        .flat_map(|&s| graph.pass(s).uses.iter().map(|u| u.resource))
        .collect();
    let window = order.split_off(start);
    for &q in &window {
        marks[q.index()] = INSIDE;
        let in_the_way = queue[q.index()] != QueueKind::Graphics
            && graph
                .pass(q)
                .uses
                .iter()
                .any(|u| shared.contains(&u.resource));
        if in_the_way {
            marks[q.index()] |= MOVED;
        }
    }
    // Ancestors inside the window, latest first: a pass's predecessors come before it.
    for &q in window.iter().rev() {
        if marks[q.index()] & MOVED != 0 {
            for e in deps.into(q) {
                if marks[e.from.index()] & INSIDE != 0 {
                    marks[e.from.index()] |= MOVED;
                }
            }
        }
    }
    debug_assert!(
        window
            .iter()
            .all(|q| marks[q.index()] & MOVED == 0 || queue[q.index()] != QueueKind::Graphics),
        "no subpass moves: the moved passes depend on none"
    );
    let moved = |q: &&PassId| marks[q.index()] & MOVED != 0;
    order.extend(window.iter().filter(moved));
    let inside = order.len();
    order.extend(window.iter().filter(|q| !moved(q)));
    for &q in &window {
        marks[q.index()] = 0;
    }
    grouper.hoisted(&order[start..inside], &order[inside..]);
    debug_assert!(
        !grouper.crossing_blocks(pass),
        "nothing in the way is left inside the render pass"
    );
}

/// Merge-aware rule: the first-declared ready raster pass (`candidates`: raster passes in
/// declaration order) the open render pass accepts (`allowed` adds the rules about passes of
/// the other queue).
fn pick_mergeable(
    graph: &Graph,
    caps: &Capabilities,
    open: Option<&OpenGroup>,
    mut candidates: impl Iterator<Item = PassId>,
    allowed: impl Fn(PassId) -> bool,
) -> Option<PassId> {
    let group = open?;
    let mut skipped = false;
    let pick = candidates.find(|&p| {
        let ok = allowed(p) && group.accepts(graph, caps, p);
        skipped |= !ok;
        ok
    })?;
    if skipped {
        log::debug!(
            "reorder: '{}' runs next to merge into the render pass of '{}'",
            graph.pass(pick).name,
            graph.pass(group.passes[0]).name
        );
    }
    Some(pick)
}

/// Ready passes of the one-queue order as bitsets over pass indices (all of them, and the
/// raster ones that the merge-aware rule scans). The smallest ready pass never decreases (a
/// pass becomes ready only after a predecessor, which was declared before it and was at
/// least the smallest when emitted), so [`Ready::first`] resumes from a cursor that only
/// moves forward; the scan of ready raster passes stops after the last word that ever held
/// one ([`Ready::raster_end`]), instead of running to the end of the frame on every pick.
struct Ready {
    words: Vec<u64>,
    rasters: Vec<u64>,
    cursor: usize,
    /// One past the last word of `rasters` a raster pass was ever inserted into.
    raster_end: usize,
}

impl Ready {
    fn new(n: usize) -> Self {
        Ready {
            words: vec![0; n.div_ceil(64)],
            rasters: vec![0; n.div_ceil(64)],
            cursor: 0,
            raster_end: 0,
        }
    }

    fn insert(&mut self, p: PassId, raster: bool) {
        let i = p.index();
        debug_assert!(i / 64 >= self.cursor, "ready passes only grow");
        self.words[i / 64] |= 1 << (i % 64);
        if raster {
            self.rasters[i / 64] |= 1 << (i % 64);
            self.raster_end = self.raster_end.max(i / 64 + 1);
        }
    }

    fn remove(&mut self, p: PassId) {
        let i = p.index();
        self.words[i / 64] &= !(1 << (i % 64));
        self.rasters[i / 64] &= !(1 << (i % 64));
    }

    /// The first-declared ready pass.
    fn first(&mut self) -> Option<PassId> {
        while let Some(&w) = self.words.get(self.cursor) {
            if w != 0 {
                return Some(PassId(
                    (self.cursor * 64 + w.trailing_zeros() as usize) as u32,
                ));
            }
            self.cursor += 1;
        }
        None
    }

    /// Ready raster passes in declaration order.
    fn rasters(&self) -> Bits<'_> {
        Bits {
            words: self
                .rasters
                .get(self.cursor..self.raster_end)
                .unwrap_or_default(),
            next_base: self.cursor * 64,
            word: 0,
        }
    }
}

/// The set bits of a bitset, in increasing order, as passes.
struct Bits<'a> {
    /// Words not read yet.
    words: &'a [u64],
    /// Index of the first bit of `words[0]`.
    next_base: usize,
    /// Bits of the current word not returned yet (the word before `words`).
    word: u64,
}

impl Iterator for Bits<'_> {
    type Item = PassId;

    fn next(&mut self) -> Option<PassId> {
        while self.word == 0 {
            let (&w, rest) = self.words.split_first()?;
            self.word = w;
            self.words = rest;
            self.next_base += 64;
        }
        let bit = self.word.trailing_zeros() as usize;
        self.word &= self.word - 1;
        Some(PassId((self.next_base - 64 + bit) as u32))
    }
}
