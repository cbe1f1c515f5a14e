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
use crate::graph::{Graph, PassId, PassKind};
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

/// Merge-aware rule: the first-declared ready raster pass the open render pass accepts.
fn pick_mergeable(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    open: Option<&OpenGroup>,
    ready: &BTreeSet<PassId>,
) -> Option<PassId> {
    let group = open.filter(|_| options.merge)?;
    let pick = ready.iter().copied().find(|&p| {
        graph.pass(p).kind == PassKind::Raster && group.blockers(graph, caps, p).is_empty()
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
        Some(g) if g.blockers(graph, caps, pass).is_empty() => g.add(graph, pass),
        _ => *open = Some(OpenGroup::new(graph, pass)),
    }
}
