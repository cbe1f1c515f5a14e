//! Phase 3, cull: keep only passes whose work is observable.
//!
//! Roots are passes with side effects and passes that write an output or an imported
//! resource whose content survives the frame. From the roots, content-carrying edges
//! (`feeds`) are followed backwards: whoever produced content a kept pass consumes is kept.
//! Everything else is culled, with the reason. Cost: O(passes + edges).

use super::deps::Dependencies;
use crate::graph::{Graph, PassId};

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
    let mut stack: Vec<PassId> = Vec::new();
    for (id, p) in graph.pass_ids().zip(&graph.passes) {
        let root = p.side_effects
            || p.uses
                .iter()
                .any(|u| u.access.writes() && graph.resource(u.resource).survives_frame());
        if root {
            kept[id.index()] = true;
            stack.push(id);
        }
    }
    while let Some(pass) = stack.pop() {
        for e in deps.into(pass).filter(|e| e.feeds) {
            if !kept[e.from.index()] {
                kept[e.from.index()] = true;
                log::trace!(
                    "keep '{}': feeds '{}' through '{}'",
                    graph.pass(e.from).name,
                    graph.pass(pass).name,
                    graph.resource(e.resource).name
                );
                stack.push(e.from);
            }
        }
    }
    let reasons = graph
        .pass_ids()
        .filter(|p| !kept[p.index()])
        .map(|p| {
            let reason = cull_reason(graph, p);
            log::debug!("cull '{}': {reason}", graph.pass(p).name);
            (p, reason)
        })
        .collect();
    Culling { kept, reasons }
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
