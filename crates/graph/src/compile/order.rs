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
use crate::graph::{Graph, PassId};
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
