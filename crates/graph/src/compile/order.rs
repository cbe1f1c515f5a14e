//! Phase 4, order: the execution order of the kept passes.
//!
//! A topological order of the kept passes over the dependency edges (Kahn's algorithm over
//! the set of ready passes). Without `reorder` the next pass is always the ready pass
//! declared first, which gives the declaration order itself (edges always point forward in
//! it). With `reorder`, independent passes may move — never against an edge, since only
//! ready passes are ever picked — by the rules below, each in its own function:
//! - [`pick_mergeable`]: while a render pass is open (the last pass emitted was raster and
//!   merging is on), prefer the first-declared ready raster pass that the merge rules accept
//!   into it, so mergeable raster runs become adjacent instead of being split by an
//!   independent compute pass or a pass of another resolution.
//!
//! Cost: O((passes + edges) log passes), plus O(ready × uses of a candidate) per pick while a
//! render pass is open.

use super::cull::Culling;
use super::deps::Dependencies;
use super::renderpass::merge::OpenGroup;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{Graph, PassId, PassKind, QueueKind};
use std::collections::BTreeSet;

/// Kept passes in execution order.
pub fn order(
    graph: &Graph,
    deps: &Dependencies,
    culling: &Culling,
    caps: &Capabilities,
    options: &CompileOptions,
) -> Vec<PassId> {
    let kept = &culling.kept;
    if !options.reorder {
        return graph.pass_ids().filter(|p| kept[p.index()]).collect();
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
        let p = pick_mergeable(graph, caps, options, open.as_ref(), &ready).unwrap_or(first);
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

/// Async-early ordering (separate from the merge-aware priority above): interleaves the
/// async-compute passes into `order` as early as their inputs allow, so they overlap the
/// graphics work around them instead of waiting for it in the linear order.
///
/// The graphics passes keep their relative order (whatever merging arranged stays adjacent
/// on the graphics queue) and so do the async passes; the two sequences are merged, taking
/// the next async pass whenever every kept pass it depends on is already placed, and the next
/// graphics pass otherwise — except between two raster passes, which the render pass phase
/// may merge (a pass between them would close the render pass), unless the next graphics pass
/// waits for async work itself. Position in `order` does not delay an async pass on the GPU:
/// it waits only for the semaphores of its inputs. The result is a topological order: when
/// the next async pass is not ready, an unplaced dependency of it is a graphics pass no later
/// than the next graphics pass in `order`, so that pass's own dependencies are all placed.
/// A no-op without async passes. Cost: O(passes + edges).
pub fn async_early(
    graph: &Graph,
    deps: &Dependencies,
    kept: &[bool],
    queue: &[QueueKind],
    order: Vec<PassId>,
) -> Vec<PassId> {
    let is_async = |p: &PassId| queue[p.index()] == QueueKind::AsyncCompute;
    if !order.iter().any(is_async) {
        return order;
    }
    let (compute, graphics): (Vec<PassId>, Vec<PassId>) = order.iter().copied().partition(is_async);
    let mut placed = vec![false; graph.passes.len()];
    let mut out = Vec::with_capacity(order.len());
    let (mut a, mut g) = (0usize, 0usize);
    let ready = |p: PassId, placed: &[bool]| {
        deps.into(p)
            .all(|e| !kept[e.from.index()] || placed[e.from.index()])
    };
    let raster = |p: Option<&PassId>| p.is_some_and(|&p| graph.pass(p).kind == PassKind::Raster);
    while out.len() < order.len() {
        let async_ready = compute.get(a).is_some_and(|&p| ready(p, &placed));
        // Never split two raster passes that may become one render pass, unless the next
        // graphics pass itself waits for async work.
        let between_rasters = raster(out.last()) && raster(graphics.get(g));
        let graphics_ready = graphics.get(g).is_some_and(|&p| ready(p, &placed));
        let take_async = async_ready && !(between_rasters && graphics_ready);
        let next = if take_async || g >= graphics.len() {
            a += 1;
            compute[a - 1]
        } else {
            g += 1;
            graphics[g - 1]
        };
        if is_async(&next) && g < graphics.len() {
            log::trace!(
                "async-early: '{}' placed before graphics pass '{}'",
                graph.pass(next).name,
                graph.pass(graphics[g]).name
            );
        }
        placed[next.index()] = true;
        out.push(next);
    }
    debug_assert!(out.len() == order.len());
    out
}

/// Merge-aware rule: the first-declared ready raster pass the open render pass accepts.
fn pick_mergeable(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    open: Option<&OpenGroup>,
    ready: &BTreeSet<PassId>,
) -> Option<PassId> {
    let group = open.filter(|_| options.merge)?;
    let pick = ready
        .iter()
        .copied()
        .find(|&p| graph.pass(p).kind == PassKind::Raster && group.accepts(graph, caps, p))?;
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
