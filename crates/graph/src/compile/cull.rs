//! Phase 3, cull: keep only passes whose work is observable.
//!
//! Roots are passes with side effects and passes that write an output or an imported
//! resource whose content survives the frame. From the roots, content-carrying edges
//! (`feeds`) are followed backwards: whoever produced content a kept pass consumes is kept.
//! Everything else is culled, with the reason. Edges point forward in declaration order, so
//! one sweep over the passes from last to first settles each pass before the passes that
//! feed it. Cost: O(passes + edges), a few instructions per edge, no allocation beyond the
//! result (none for the reasons when nothing is culled).

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
    let mut kept = vec![false; graph.passes.len()];
    let trace = log::log_enabled!(log::Level::Trace);
    let mut culled = 0;
    // Edges point forward in declaration order, so one sweep from the last pass back reaches
    // every pass before the passes it feeds: no stack, and the root test only runs for passes
    // that no kept pass needs. The edges entering a pass are a run of `deps.edges` (grouped by
    // their later pass), walked without a filter: `kept[from] |= feeds`.
    for (i, p) in graph.passes.iter().enumerate().rev() {
        let id = PassId(i as u32);
        if !kept[i] && !is_root(graph, p) {
            culled += 1;
            continue;
        }
        kept[i] = true;
        for e in deps.into(id) {
            debug_assert!(e.from < id, "edges point forward");
            let from = &mut kept[e.from.index()];
            if trace && e.feeds && !*from {
                log::trace!(
                    "keep '{}': feeds '{}' through '{}'",
                    graph.pass(e.from).name,
                    p.name,
                    graph.resource(e.resource).name
                );
            }
            *from |= e.feeds;
        }
    }
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
