//! Phase 3, cull: keep only passes whose work is observable.
//!
//! Roots are passes with side effects and passes that write an output or an imported
//! resource whose content survives the frame. From the roots, content-carrying edges
//! (`feeds`) are followed backwards: whoever produced content a kept pass consumes is kept.
//! Everything else is culled, with the reason. Edges point forward in declaration order and
//! are grouped by their later pass, so one sweep over the edges from last to first settles
//! each pass before the passes that feed it. Cost: O(passes + edges), a few instructions
//! and no data-dependent branch per edge (the roots are tested for every pass up front,
//! rather than a test per pass and a loop of varying length per pass in the sweep), no
//! allocation beyond the result (none for the reasons when nothing is culled).

use super::deps::Dependencies;
use crate::graph::{Graph, Pass, PassId};

/// Which passes survive, and why the others do not.
#[derive(Clone, Debug, Default)]
pub struct Culling {
    /// Indexed by pass.
    pub kept: Vec<bool>,
    /// Culled passes in declaration order, with the reason.
    pub reasons: Vec<(PassId, String)>,
}

/// Culls passes that feed nothing observable.
pub fn cull(graph: &Graph, deps: &Dependencies) -> Culling {
    // The roots first, then one flat walk over every edge from the last to the first: the
    // edges are grouped by their later pass in declaration order and point forward, so when
    // the edges into a pass are reached every edge out of it has been (the pass is settled).
    // The walk makes no branch per pass or per edge: `kept[from] |= feeds & kept[to]`.
    let mut kept: Vec<bool> = graph.passes.iter().map(|p| is_root(graph, p)).collect();
    let trace = log::log_enabled!(log::Level::Trace);
    for e in deps.edges.iter().rev() {
        debug_assert!(e.from < e.to, "edges point forward");
        let keeps = e.feeds & kept[e.to.index()];
        let from = &mut kept[e.from.index()];
        if trace && keeps && !*from {
            log::trace!(
                "keep '{}': feeds '{}' through '{}'",
                graph.pass(e.from).name,
                graph.pass(e.to).name,
                graph.resource(e.resource).name
            );
        }
        *from |= keeps;
    }
    let culled = kept.iter().filter(|&&k| !k).count();
    let reasons = if culled == 0 {
        Vec::new()
    } else {
        graph
            .pass_ids()
            .filter(|p| !kept[p.index()])
            .map(|p| {
                let reason = cull_reason(graph, p);
                log::debug!("cull '{}': {reason}", graph.pass(p).name);
                (p, reason)
            })
            .collect()
    };
    Culling { kept, reasons }
}

/// A pass whose work is observable by itself: side effects, or a write of an output or of an
/// import whose content survives the frame.
fn is_root(graph: &Graph, p: &Pass) -> bool {
    p.side_effects
        || p.uses
            .iter()
            .any(|u| u.access.writes() && graph.resource(u.resource).survives_frame())
}

fn cull_reason(graph: &Graph, pass: PassId) -> String {
    let p = graph.pass(pass);
    let written: Vec<&str> = p
        .uses
        .iter()
        .filter(|u| u.access.writes())
        .map(|u| graph.resource(u.resource).name.as_str())
        .collect();
    if written.is_empty() {
        "writes nothing and has no side effects".to_string()
    } else {
        format!(
            "nothing kept reads what it writes ({}), none of it is an output or a surviving import, and it has no side effects",
            written.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
        )
    }
}
