//! Phase 3, cull: keep only passes whose work is observable.
//!
//! Roots are passes with side effects and passes that write an output or an imported
//! resource whose content survives the frame. From the roots, content-carrying edges
//! (`feeds`) are followed backwards: whoever produced content a kept pass consumes is kept.
//! Everything else is culled, with the reason.
//!
//! Persistent resources ([`crate::graph::Origin::Persistent`]): a write of an *invalid* one
//! makes a root (its content is for later frames, read or not this frame); a write of a
//! *valid* one makes none, and an edge through a valid one keeps nothing (its readers read
//! the content an earlier frame left). A pass culled while it writes a valid persistent
//! resource is *skipped* ([`Culling::skipped`]): its work is still done, from an earlier
//! frame. Edges point forward in declaration order and
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
    /// The culled passes that write a valid persistent resource (skipped: their outputs are
    /// still valid), in declaration order; also in `reasons`.
    pub skipped: Vec<PassId>,
}

/// Culls passes that feed nothing observable.
pub fn cull(graph: &Graph, deps: &Dependencies) -> Culling {
    // The roots first, then one flat walk over every edge from the last to the first: the
    // edges are grouped by their later pass in declaration order and point forward, so when
    // the edges into a pass are reached every edge out of it has been (the pass is settled).
    // The walk makes no branch per pass or per edge: `kept[from] |= feeds & kept[to]`.
    let mut kept: Vec<bool> = graph.passes.iter().map(|p| is_root(graph, p)).collect();
    let trace = log::log_enabled!(log::Level::Trace);
    // Per resource: an edge through it carries content made this frame (not through a valid
    // persistent resource, whose readers read an earlier frame's content). Empty (no
    // allocation) when there is no valid persistent resource: every edge carries.
    let carries: Vec<bool> = if graph
        .resources
        .iter()
        .any(|r| r.persistent_valid() == Some(true))
    {
        graph
            .resources
            .iter()
            .map(|r| r.persistent_valid() != Some(true))
            .collect()
    } else {
        Vec::new()
    };
    for e in deps.edges.iter().rev() {
        debug_assert!(e.from < e.to, "edges point forward");
        let carried = carries.get(e.resource.index()).copied().unwrap_or(true);
        let keeps = e.feeds & carried & kept[e.to.index()];
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
    let mut skipped = Vec::new();
    let reasons = if culled == 0 {
        Vec::new()
    } else {
        graph
            .pass_ids()
            .filter(|p| !kept[p.index()])
            .map(|p| {
                let reason = match still_valid(graph, p) {
                    Some(names) => {
                        skipped.push(p);
                        skip_reason(&names)
                    }
                    None => cull_reason(graph, p),
                };
                log::debug!("cull '{}': {reason}", graph.pass(p).name);
                (p, reason)
            })
            .collect()
    };
    Culling {
        kept,
        reasons,
        skipped,
    }
}

/// The reason of a skipped pass: the valid persistent resources it writes (`names`).
pub fn skip_reason(names: &[&str]) -> String {
    format!(
        "skipped: its outputs are still valid ({}: persistent, content from an earlier frame)",
        names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The valid persistent resources pass `p` writes, `None` when it writes none (a culled
/// pass that writes one is skipped rather than culled for feeding nothing).
pub fn still_valid(graph: &Graph, p: PassId) -> Option<Vec<&str>> {
    let names: Vec<&str> = graph
        .pass(p)
        .uses
        .iter()
        .filter(|u| {
            u.access.writes() && graph.resource(u.resource).persistent_valid() == Some(true)
        })
        .map(|u| graph.resource(u.resource).name.as_str())
        .collect();
    (!names.is_empty()).then_some(names)
}

/// A pass whose work is observable by itself: side effects, or a write of an output, of an
/// import whose content survives the frame, or of an invalid persistent resource (not of a
/// valid one: its content is already there).
pub fn is_root(graph: &Graph, p: &Pass) -> bool {
    p.side_effects
        || p.uses.iter().any(|u| {
            let r = graph.resource(u.resource);
            u.access.writes() && r.survives_frame() && r.persistent_valid() != Some(true)
        })
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
