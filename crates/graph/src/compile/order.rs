//! Phase 4, order: the execution order of the kept passes.
//!
//! A topological order of the kept passes over the dependency edges (Kahn's algorithm with a
//! priority queue). Without `reorder` the priority is the declaration index, which gives the
//! declaration order itself (edges always point forward in it). With `reorder`, the
//! priority may move independent passes — never against an edge — to make mergeable raster
//! runs adjacent and to start async-compute work early. Cost: O((passes + edges) log passes).

use super::cull::Culling;
use super::deps::Dependencies;
use crate::caps::CompileOptions;
use crate::graph::{Graph, PassId, QueueKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Kept passes in execution order.
pub fn order(
    graph: &Graph,
    deps: &Dependencies,
    culling: &Culling,
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
    let mut ready: BinaryHeap<Reverse<PassId>> = graph
        .pass_ids()
        .filter(|p| kept[p.index()] && missing[p.index()] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(p)) = ready.pop() {
        order.push(p);
        for &s in &successors[p.index()] {
            missing[s.index()] -= 1;
            if missing[s.index()] == 0 {
                ready.push(Reverse(s));
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
/// graphics pass otherwise. The result is a topological order: when the next async pass is
/// not ready, an unplaced dependency of it is a graphics pass no later than the next
/// graphics pass in `order`, so that pass's own dependencies are all placed.
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
    while out.len() < order.len() {
        let async_ready = compute.get(a).is_some_and(|&p| {
            deps.into(p)
                .all(|e| !kept[e.from.index()] || placed[e.from.index()])
        });
        let next = if async_ready || g >= graphics.len() {
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
