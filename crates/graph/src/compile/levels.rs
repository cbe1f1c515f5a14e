//! Phase 5, levels and queues: dependency levels (longest path from a root) and the queue
//! each kept pass runs on.
//!
//! `level[v] = max(level[u] + 1)` over kept edges `u -> v`, relaxed in declaration order
//! (edges point forward, so it is a topological order): one pass over the edges suffices.
//! Passes of one level are independent of each other. Async-compute passes run on that queue
//! only when the device has one and the option is on; otherwise they fold onto graphics.
//! Cost: O(passes + edges).

use super::deps::Dependencies;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{Graph, PassId, QueueKind};

/// Dependency level of each kept pass (indexed by pass; culled passes get 0). `deps` are the
/// edges among the kept passes (`kept_dependencies` when anything was culled) and `order`
/// lists the kept passes; the levels do not depend on which topological order relaxes the
/// edges, so they are relaxed as stored: grouped by their later pass in declaration order,
/// each pointing forward, so every edge's earlier pass is final when it is read.
pub fn levels(graph: &Graph, deps: &Dependencies, order: &[PassId], kept: &[bool]) -> Vec<u32> {
    debug_assert!(deps
        .edges
        .iter()
        .all(|e| kept[e.from.index()] && kept[e.to.index()]));
    debug_assert!(order.iter().all(|p| kept[p.index()]));
    let mut level = vec![0u32; graph.passes.len()];
    for e in &deps.edges {
        debug_assert!(e.from < e.to, "edges point forward");
        let l = level[e.from.index()] + 1;
        let to = &mut level[e.to.index()];
        *to = (*to).max(l);
    }
    level
}

/// Queue each pass runs on (indexed by pass).
pub fn queues(graph: &Graph, caps: &Capabilities, options: &CompileOptions) -> Vec<QueueKind> {
    let async_available = caps.async_compute && options.async_compute;
    graph
        .passes
        .iter()
        .map(|p| match p.queue {
            QueueKind::AsyncCompute if async_available => QueueKind::AsyncCompute,
            _ => QueueKind::Graphics,
        })
        .collect()
}
