//! History resources: content a frame leaves for the next one (a TAA history, an adapted
//! exposure), owned by the graph like a transient rather than by the renderer like an
//! import.
//!
//! A history resource is declared once ([`Origin::HISTORY`]); a pass reads *the previous
//! frame's* content with a `previous` use ([`Use::previous`]) and writes this frame's with an
//! ordinary one. The seeds' rule for temporal feedback is a ping-pong rather than a cycle;
//! [`lower`] decides, from the declaration (= submission) order that every dependency
//! follows, whether one physical resource is enough:
//! - **single** when every pass that reads the previous content is declared before the first
//!   pass that uses this frame's content: the reads see the content the resource entered
//!   the frame with, then the frame overwrites it (the write waits for those reads: an
//!   ordinary write-after-read edge);
//! - **double** otherwise (a pass reads the previous content and writes this frame's, as
//!   TAA does, or reads it after this frame's first use): the resource becomes a pair,
//!   `NAME` (this frame's content, [`HistoryRole::Current`]) and `NAME (previous)`
//!   ([`HistoryRole::Previous`]), two physical resources the executor swaps by frame parity.
//!   The previous uses move to the second. Each half enters the frame in the state its twin
//!   left the previous frame in, which the barrier phase and the checker model.
//!
//! Lowering is a pure function of the graph (not of the device or the options), so the
//! compiler, the executor, the checker and the tools all see the same pair of names.

use crate::graph::{Graph, HistoryRole, Origin, PassId, Resource, ResourceId};
use crate::name::Name;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How many physical resources a history resource needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Buffering {
    /// One: every read of the previous content comes before this frame's first use.
    Single,
    /// Two, alternating by frame parity.
    Double,
}

/// The name of the half of a double-buffered history resource that holds the previous
/// frame's content.
pub fn previous_name(current: &str) -> Name {
    Name::from(format!("{current} (previous)"))
}

/// `graph` with every declared history resource lowered (see the module documentation);
/// borrowed when there is none to lower. A resource lowered single is decided again when
/// the graph changed since (a previous read added after this frame's first use, to a graph
/// loaded from a frame file, which comes lowered).
pub fn lower(graph: &Graph) -> Cow<'_, Graph> {
    if !graph.resource_ids().any(|id| undecided(graph, id)) {
        return Cow::Borrowed(graph);
    }
    let mut g = graph.clone();
    lower_in_place(&mut g);
    Cow::Owned(g)
}

/// [`lower`] on a graph the caller owns.
pub fn lower_in_place(g: &mut Graph) {
    let declared: Vec<ResourceId> = g.resource_ids().filter(|&id| undecided(g, id)).collect();
    for id in declared {
        if single(g, id) {
            g.resource_mut(id).origin = Origin::History(HistoryRole::Single);
            continue;
        }
        let r = g.resource(id);
        let twin = g.add_resource(Resource {
            name: previous_name(&r.name),
            kind: r.kind,
            size: r.size,
            origin: Origin::History(HistoryRole::Previous { current: id }),
            output: false,
        });
        g.resource_mut(id).origin = Origin::History(HistoryRole::Current { previous: twin });
        for pass in &mut g.passes {
            for u in &mut pass.uses {
                if u.resource == id && u.previous {
                    u.resource = twin;
                }
            }
        }
    }
}

/// True when every previous read of the one-resource history `id` comes before this
/// frame's first use of it (or either is missing).
fn single(g: &Graph, id: ResourceId) -> bool {
    match span(g, id, id) {
        (Some(c), Some(p)) => p < c,
        _ => true,
    }
}

/// True for a history resource whose buffering is still to decide: declared, or lowered
/// single but no longer fit for one resource.
fn undecided(g: &Graph, id: ResourceId) -> bool {
    match g.resource(id).origin {
        Origin::History(HistoryRole::Declared) => true,
        Origin::History(HistoryRole::Single) => !single(g, id),
        _ => false,
    }
}

/// The first pass that uses `current` (this frame's content) and the last pass with a
/// `previous` use of `previous`, in declaration order.
fn span(g: &Graph, current: ResourceId, previous: ResourceId) -> (Option<PassId>, Option<PassId>) {
    let mut first_current = None;
    let mut last_previous = None;
    for (id, p) in g.pass_ids().zip(&g.passes) {
        for u in &p.uses {
            if u.previous && u.resource == previous {
                last_previous = Some(id);
            } else if !u.previous && u.resource == current {
                first_current.get_or_insert(id);
            }
        }
    }
    (first_current, last_previous)
}

/// A lowered history resource's buffering and why, for the plan; `None` for any other
/// resource (and for the previous half of a pair, which its current half describes).
pub fn decision(g: &Graph, id: ResourceId) -> Option<(Buffering, String)> {
    let pass_name = |p: Option<PassId>| p.map(|p| g.pass(p).name.to_string());
    match g.resource(id).origin {
        Origin::History(HistoryRole::Single) => {
            let (first, last) = span(g, id, id);
            let reason = match (pass_name(last), pass_name(first)) {
                (Some(reader), Some(user)) => format!(
                    "every read of the previous content (the last: '{reader}') comes before this frame's first use ('{user}'): one resource, read then overwritten"
                ),
                (None, _) => "no pass reads the previous content: one resource".into(),
                (Some(reader), None) => format!(
                    "'{reader}' reads the previous content and no pass uses this frame's: one resource"
                ),
            };
            Some((Buffering::Single, reason))
        }
        Origin::History(HistoryRole::Current { previous }) => {
            let (first, last) = span(g, id, previous);
            let (reader, user) = (
                pass_name(last).unwrap_or_default(),
                pass_name(first).unwrap_or_default(),
            );
            let when = if reader == user {
                format!("'{reader}' reads the previous content and uses this frame's")
            } else {
                format!(
                    "'{reader}' reads the previous content after this frame's first use ('{user}')"
                )
            };
            Some((
                Buffering::Double,
                format!("{when}: two resources alternate by frame parity"),
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::Access;
    use crate::format::Format;
    use crate::graph::ImageDesc;

    fn desc() -> ImageDesc {
        ImageDesc::new(Format::R16G16B16A16_SFLOAT, 16, 16)
    }

    #[test]
    fn a_pass_reading_the_previous_content_and_writing_this_frames_doubles_it() {
        let mut g = Graph::new("taa");
        let colour = g.image("colour", desc());
        let h = g.history_image("history", desc());
        g.compute("draw").uses(colour, Access::StorageWrite);
        g.compute("taa")
            .uses(colour, Access::Sampled)
            .reads_previous(h, Access::Sampled)
            .uses(h, Access::StorageWrite);
        g.compute("show").uses(h, Access::Sampled).side_effects();
        let lowered = lower(&g).into_owned();
        assert_eq!(lowered.resources.len(), 3);
        let twin = lowered
            .find_resource("history (previous)")
            .expect("the twin");
        assert_eq!(
            lowered.resource(h).origin,
            Origin::History(HistoryRole::Current { previous: twin })
        );
        assert_eq!(lowered.resource(twin).history_twin(), Some(h));
        let taa = &lowered.passes[1];
        assert_eq!(taa.uses[1].resource, twin);
        assert_eq!(taa.uses[2].resource, h);
        let (b, why) = decision(&lowered, h).expect("a decision");
        assert_eq!(b, Buffering::Double);
        assert!(
            why.contains("'taa' reads the previous content and uses this frame's"),
            "{why}"
        );
        assert!(decision(&lowered, twin).is_none());
    }

    #[test]
    fn reads_before_the_first_write_keep_one_resource() {
        let mut g = Graph::new("exposure");
        let e = g.history_buffer("exposure", 16);
        g.compute("tonemap")
            .reads_previous(e, Access::StorageRead)
            .side_effects();
        g.compute("adapt").uses(e, Access::StorageReadWrite);
        let lowered = lower(&g).into_owned();
        assert_eq!(lowered.resources.len(), 1);
        assert_eq!(
            lowered.resource(e).origin,
            Origin::History(HistoryRole::Single)
        );
        let (b, why) = decision(&lowered, e).expect("a decision");
        assert_eq!(b, Buffering::Single);
        assert!(
            why.contains("'tonemap'") && why.contains("'adapt'"),
            "{why}"
        );
        // Lowering twice changes nothing, and a graph without history is borrowed.
        assert_eq!(*lower(&lowered), lowered);
        assert!(matches!(lower(&lowered), Cow::Borrowed(_)));
    }

    #[test]
    fn a_read_declared_after_the_write_doubles_it() {
        let mut g = Graph::new("late");
        let e = g.history_buffer("e", 16);
        g.compute("write").uses(e, Access::StorageWrite);
        g.compute("late read")
            .reads_previous(e, Access::StorageRead)
            .side_effects();
        let lowered = lower(&g).into_owned();
        let (b, why) = decision(&lowered, e).expect("a decision");
        assert_eq!(b, Buffering::Double);
        assert!(
            why.contains("after this frame's first use ('write')"),
            "{why}"
        );
    }
}
