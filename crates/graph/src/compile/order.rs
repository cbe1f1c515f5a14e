//! Phase 4, order: the execution order of the kept passes.
//!
//! A topological order of the kept passes over the dependency edges. Without `reorder` the
//! next pass is always the ready pass declared first, which gives the declaration order
//! itself (edges always point forward in it). With `reorder`, independent passes may move —
//! never against an edge — by the rules below, each in its own function:
//! - [`pick_mergeable`]: while a render pass is open (the last graphics pass emitted was
//!   raster and merging is on), prefer the first-declared ready raster pass that the merge
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
//!
//! Cost: O((passes + edges) log passes), plus O(ready × uses of a candidate) per pick while a
//! render pass is open (with levels: the raster passes of the current level).

use super::cull::Culling;
use super::deps::Dependencies;
use super::levels;
use super::renderpass::cross_queue::Crossings;
use super::renderpass::merge::OpenGroup;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{Graph, PassId, PassKind, QueueKind};
use std::collections::BTreeSet;

/// Kept passes in execution order; `queue` is the queue of each pass (indexed by pass).
pub fn order(
    graph: &Graph,
    deps: &Dependencies,
    culling: &Culling,
    caps: &Capabilities,
    options: &CompileOptions,
    queue: &[QueueKind],
) -> Vec<PassId> {
    let kept = &culling.kept;
    if !options.reorder {
        return graph.pass_ids().filter(|p| kept[p.index()]).collect();
    }
    let on_async = |p: &PassId| kept[p.index()] && queue[p.index()] == QueueKind::AsyncCompute;
    if graph.pass_ids().any(|p| on_async(&p)) {
        return by_level(graph, deps, kept, caps, options, queue);
    }
    let n = graph.passes.len();
    let mut missing = vec![0u32; n];
    let mut successors: Vec<Vec<PassId>> = vec![Vec::new(); n];
    for e in deps
        .edges
        .iter()
        .filter(|e| kept[e.from.index()] && kept[e.to.index()])
    {
        missing[e.to.index()] += 1;
        successors[e.from.index()].push(e.to);
    }
    let mut ready: BTreeSet<PassId> = graph
        .pass_ids()
        .filter(|p| kept[p.index()] && missing[p.index()] == 0)
        .collect();
    let mut order = Vec::with_capacity(n);
    let mut open: Option<OpenGroup> = None;
    while let Some(first) = ready.first().copied() {
        let p =
            pick_mergeable(graph, caps, options, open.as_ref(), &ready, |_| true).unwrap_or(first);
        ready.remove(&p);
        order.push(p);
        track_open_group(graph, caps, &mut open, p);
        for &s in &successors[p.index()] {
            missing[s.index()] -= 1;
            if missing[s.index()] == 0 {
                ready.insert(s);
            }
        }
    }
    debug_assert_eq!(
        order.len(),
        kept.iter().filter(|&&k| k).count(),
        "edges point forward, so every kept pass is ordered"
    );
    order
}

/// Level by level (see the module notes): every pass of level `L` before any of level
/// `L + 1`, which is a topological order since every edge climbs at least one level.
fn by_level(
    graph: &Graph,
    deps: &Dependencies,
    kept: &[bool],
    caps: &Capabilities,
    options: &CompileOptions,
    queue: &[QueueKind],
) -> Vec<PassId> {
    // Edges point forward in declaration order, so it is a topological order for the levels.
    let declared: Vec<PassId> = graph.pass_ids().filter(|p| kept[p.index()]).collect();
    let level = levels::levels(graph, deps, &declared, kept);
    let depth = declared
        .iter()
        .map(|p| level[p.index()] + 1)
        .max()
        .unwrap_or(0);
    // Per level: async-compute passes, other graphics passes, raster passes (each by
    // declaration).
    let mut sets: Vec<[BTreeSet<PassId>; 3]> = (0..depth).map(|_| Default::default()).collect();
    for &p in &declared {
        let kind = if queue[p.index()] != QueueKind::Graphics {
            0
        } else if graph.pass(p).kind != PassKind::Raster {
            1
        } else {
            2
        };
        sets[level[p.index()] as usize][kind].insert(p);
    }
    let mut order = Vec::with_capacity(declared.len());
    let mut open: Option<OpenGroup> = None;
    let mut crossings = Crossings::default();
    for [on_async, others, rasters] in &mut sets {
        loop {
            let no_crossing = |p: PassId| crossings.blocker(graph, p).is_none();
            let p = pick_mergeable(graph, caps, options, open.as_ref(), rasters, no_crossing)
                .or_else(|| on_async.first().copied())
                .or_else(|| others.first().copied())
                .or_else(|| rasters.first().copied());
            let Some(p) = p else {
                break;
            };
            for set in [&mut *on_async, &mut *others, &mut *rasters] {
                set.remove(&p);
            }
            order.push(p);
            if queue[p.index()] != QueueKind::Graphics {
                if open.is_some() {
                    crossings.note(graph, p);
                }
                continue;
            }
            if crossings.blocker(graph, p).is_some() {
                open = None; // the merge phase breaks the render pass here
            }
            track_open_group(graph, caps, &mut open, p);
            match open.as_ref().map(|g| g.passes.len()) {
                None => crossings.clear(),
                Some(1) => crossings.open(graph, p),
                Some(_) => crossings.joined(graph, p),
            }
        }
    }
    debug_assert_eq!(order.len(), declared.len(), "every kept pass is ordered");
    order
}

/// Merge-aware rule: the first-declared ready raster pass the open render pass accepts
/// (`allowed` adds the rules about passes of the other queue).
fn pick_mergeable(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    open: Option<&OpenGroup>,
    ready: &BTreeSet<PassId>,
    allowed: impl Fn(PassId) -> bool,
) -> Option<PassId> {
    let group = open.filter(|_| options.merge)?;
    let pick = ready.iter().copied().find(|&p| {
        graph.pass(p).kind == PassKind::Raster && allowed(p) && group.accepts(graph, caps, p)
    })?;
    if Some(&pick) != ready.first() {
        log::debug!(
            "reorder: '{}' runs next to merge into the render pass of '{}'",
            graph.pass(pick).name,
            graph.pass(group.passes[0]).name
        );
    }
    Some(pick)
}

/// Follows the render pass the merge phase will build as passes are emitted: a raster pass
/// joins the open one or opens its own; any other pass closes it.
fn track_open_group(
    graph: &Graph,
    caps: &Capabilities,
    open: &mut Option<OpenGroup>,
    pass: PassId,
) {
    if graph.pass(pass).kind != PassKind::Raster {
        *open = None;
        return;
    }
    match open {
        Some(g) if g.accepts(graph, caps, pass) => g.add(graph, pass),
        Some(g) => g.restart(graph, pass),
        None => *open = Some(OpenGroup::new(graph, pass)),
    }
}
