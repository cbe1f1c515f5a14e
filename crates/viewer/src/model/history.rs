//! History resources (content kept from one frame to the next): the plan's `history`
//! entries with their physical resources and the passes that hand the content over the
//! frame boundary.
//!
//! For each entry, the *last writer* is the last kept pass (in `plan.order`) that writes
//! this frame's content, and the *first reader* the first kept pass that reads the previous
//! frame's content: of `NAME (previous)` when the resource is double-buffered, of `NAME`
//! through a `previous` use when it is single. The content the last writer leaves is what
//! the first reader sees next frame: the viewer draws that edge across the frame boundary.
//! Cost: O(uses of kept passes).

use super::Index;
use serde::Serialize;
use tessera_graph::history::Buffering;
use tessera_graph::Name;

/// One history resource of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryView {
    /// The resource (this frame's content).
    pub resource: Name,
    /// One physical resource, or two swapped every frame.
    pub buffering: Buffering,
    /// With `double`: the resource holding the previous frame's content this frame.
    pub previous: Option<Name>,
    /// Bytes of all its physical resources.
    pub bytes: u64,
    /// Why one or two (the compiler's words).
    pub reason: String,
    /// The last kept pass that writes this frame's content.
    pub last_writer: Option<Name>,
    /// The first kept pass that reads the previous frame's content.
    pub first_reader: Option<Name>,
}

impl HistoryView {
    /// The physical resources, in words: what the viewer labels them with.
    pub fn physical(&self) -> String {
        match (&self.buffering, &self.previous) {
            (Buffering::Double, Some(prev)) => format!(
                "double-buffered, swapped each frame: physical A '{}' + physical B '{prev}'",
                self.resource
            ),
            _ => "single: one physical resource, read then overwritten".to_string(),
        }
    }
}

/// The history role of a resource row: which entry it belongs to and which half it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceHistory {
    /// The entry's buffering.
    pub buffering: Buffering,
    /// `A` for this frame's content of a pair, `B` for the previous frame's, `None` for a
    /// single resource.
    pub physical: Option<char>,
    /// The other half of a pair.
    pub twin: Option<Name>,
}

/// The plan's history entries, in the plan's order.
pub(crate) fn history(index: &Index<'_>) -> Vec<HistoryView> {
    index
        .plan
        .history
        .iter()
        .map(|h| {
            let (mut last_writer, mut first_reader) = (None, None);
            for name in &index.plan.order {
                let Some(p) = index.pass.get(name.as_str()) else {
                    continue;
                };
                for u in &p.uses {
                    let r = index.graph.resources.get(u.resource.index());
                    let Some(r) = r.map(|r| r.name) else {
                        continue;
                    };
                    let reads_previous = match &h.previous {
                        Some(prev) => r == *prev,
                        None => r == h.resource && u.previous,
                    };
                    if reads_previous {
                        first_reader.get_or_insert(*name);
                    } else if r == h.resource && u.access.writes() {
                        last_writer = Some(*name);
                    }
                }
            }
            HistoryView {
                resource: h.resource,
                buffering: h.buffering,
                previous: h.previous,
                bytes: h.bytes,
                reason: h.reason.clone(),
                last_writer,
                first_reader,
            }
        })
        .collect()
}

/// The history role of the resource `name`, if it is one of `history`'s.
pub(crate) fn role(history: &[HistoryView], name: &str) -> Option<ResourceHistory> {
    history.iter().find_map(|h| {
        if h.resource == name {
            Some(ResourceHistory {
                buffering: h.buffering,
                physical: h.previous.map(|_| 'A'),
                twin: h.previous,
            })
        } else if h.previous.is_some_and(|p| p == name) {
            Some(ResourceHistory {
                buffering: h.buffering,
                physical: Some('B'),
                twin: Some(h.resource),
            })
        } else {
            None
        }
    })
}
