//! Checker invariants of history resources (content kept from one frame to the next),
//! recomputed from the graph and the plan alone:
//! - `history.missing`, `history.unexpected`, `history.wrong`: the plan's `history` list has
//!   one entry per history resource holding this frame's content, naming its buffering
//!   (double exactly when the graph has the resource's `(previous)` twin), the twin, and the
//!   bytes of all its physical resources;
//! - `history.order`: with one physical resource, every kept pass that reads the previous
//!   content runs before the first kept pass that uses this frame's (a read after it would
//!   see this frame's content, not the previous frame's).
//!
//! The hazards across the frame boundary (each half of a pair enters in the state its twin
//! left) are checked with the others (`hazard.cross_frame`, `layout.mismatch`), the sharing
//! of a pair used on both queues in `sharing.history_pair`.

use super::Violation;
use crate::graph::{Graph, HistoryRole, Origin};
use crate::history::Buffering;
use crate::plan::Plan;
use std::collections::HashMap;

/// Pushes every violated history invariant onto `out`.
pub(super) fn check(graph: &Graph, plan: &Plan, out: &mut Vec<Violation>) {
    let mut push = |rule: &'static str, detail: String| out.push(Violation { rule, detail });
    let mut listed: HashMap<&str, usize> = HashMap::new();
    for (i, h) in plan.history.iter().enumerate() {
        if listed.insert(h.resource.as_str(), i).is_some() {
            push(
                "history.unexpected",
                format!("'{}' is listed twice in history", h.resource),
            );
        }
    }
    let position: HashMap<&str, usize> = plan
        .order
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    for (id, r) in graph.resource_ids().zip(&graph.resources) {
        let (buffering, twin) = match r.origin {
            Origin::History(HistoryRole::Single | HistoryRole::Declared) => {
                (Buffering::Single, None)
            }
            Origin::History(HistoryRole::Current { previous }) => {
                (Buffering::Double, graph.resources.get(previous.index()))
            }
            _ => continue,
        };
        let Some(&i) = listed.get(r.name.as_str()) else {
            push(
                "history.missing",
                format!(
                    "history resource '{}' has no entry in the plan's history",
                    r.name
                ),
            );
            continue;
        };
        listed.remove(r.name.as_str());
        let h = &plan.history[i];
        let bytes = r.bytes().saturating_add(twin.map_or(0, |t| t.bytes()));
        let previous = twin.map(|t| t.name.as_str());
        if h.buffering != buffering || h.previous.as_deref() != previous || h.bytes != bytes {
            push(
                "history.wrong",
                format!(
                    "history of '{}' says {:?} (previous {:?}, {} bytes); the graph has {buffering:?} (previous {previous:?}, {bytes} bytes)",
                    r.name, h.buffering, h.previous, h.bytes
                ),
            );
        }
        if buffering == Buffering::Single {
            let position = &position;
            let at = |previous: bool| {
                graph.passes.iter().filter_map(move |p| {
                    let kept = position.get(p.name.as_str())?;
                    p.uses
                        .iter()
                        .any(|u| u.resource == id && u.previous == previous)
                        .then_some((*kept, p.name))
                })
            };
            let first_current = at(false).min();
            if let (Some(reader), Some(first)) = (at(true).max(), first_current) {
                if reader.0 > first.0 {
                    push(
                        "history.order",
                        format!(
                            "'{}' reads the previous content of single-buffered '{}' after '{}' uses this frame's",
                            reader.1, r.name, first.1
                        ),
                    );
                }
            }
        }
    }
    for name in listed.keys() {
        push(
            "history.unexpected",
            format!("history lists '{name}', which is not a history resource holding this frame's content"),
        );
    }
}
