//! Random valid graphs with history resources, and their expected lowering.
//!
//! A graph of [`super::graphs`] is drawn, then some of its transient resources that a pass
//! writes become history resources ([`Origin::HISTORY`]), some of their read-only uses
//! become reads of the previous frame's content (`previous`), and a few more previous reads
//! (sampled, storage, indirect or transfer-source, whatever fits the pass) are added to
//! random passes, which may also use this frame's content. The base generator turns a read
//! of a transient that nobody wrote yet into a write, so the first use of this frame's
//! content always writes: the graph is valid whether the resource ends up single or double
//! buffered. [`expected_buffering`] recomputes the lowering rule from the declared graph
//! alone; [`broken_history`] breaks one history rule in such a graph.

use super::graphs::{raw_graph, GenConfig, RawGraph};
use proptest::prelude::*;
use tessera_graph::graph::{Graph, Origin, PassId, ResourceId, Use};
use tessera_graph::history::Buffering;
use tessera_graph::Access;

/// Raw choices that turn a graph's resources and uses into history ones.
#[derive(Clone, Debug)]
pub struct RawHistory {
    /// Per resource (cycled): made a history resource when it can be.
    history: Vec<bool>,
    /// Per read-only use of a history resource (cycled): made a previous read.
    previous: Vec<bool>,
    /// Extra previous reads: (pass, history resource, access), each taken modulo.
    extra: Vec<(u8, u8, u8)>,
    /// Per history resource (cycled): when it is single-buffered, its first use of this
    /// frame's content reads it too (`storage_write` becomes `storage_read_write`,
    /// `color_write` becomes `color_read_write`), as an exposure adapted in place does.
    read_modify_write: Vec<bool>,
}

fn raw_history() -> impl Strategy<Value = RawHistory> {
    (
        prop::collection::vec(prop::bool::weighted(0.4), 1..16),
        prop::collection::vec(any::<bool>(), 1..16),
        prop::collection::vec(any::<(u8, u8, u8)>(), 0..6),
        prop::collection::vec(any::<bool>(), 1..8),
    )
        .prop_map(|(history, previous, extra, read_modify_write)| RawHistory {
            history,
            previous,
            extra,
            read_modify_write,
        })
}

/// Valid graphs of the default shape, with history resources and previous reads.
pub fn history_graph() -> impl Strategy<Value = Graph> {
    history_graph_with(GenConfig {
        resources: (2, 10),
        passes: (2, 24),
        max_uses: 5,
    })
}

/// Valid graphs within `config`'s limits, with history resources and previous reads.
pub fn history_graph_with(config: GenConfig) -> impl Strategy<Value = Graph> {
    (raw_graph(config), raw_history()).prop_map(|(raw, h)| build_with_history(&raw, &h))
}

/// Accesses an added previous read tries, in turn from a random start.
const PREVIOUS_READS: &[Access] = &[
    Access::Sampled,
    Access::StorageRead,
    Access::Indirect,
    Access::TransferSrc,
];

fn writes(g: &Graph, id: ResourceId) -> bool {
    g.passes
        .iter()
        .any(|p| p.uses.iter().any(|u| u.resource == id && u.access.writes()))
}

/// Builds the base graph of `raw`, then applies `h` (see the module documentation).
pub fn build_with_history(raw: &RawGraph, h: &RawHistory) -> Graph {
    let mut g = super::graphs::build(raw);
    let history: Vec<ResourceId> = g
        .resource_ids()
        .filter(|&id| {
            h.history[id.index() % h.history.len()]
                && !g.resource(id).is_persistent()
                && writes(&g, id)
        })
        .collect();
    for &id in &history {
        g.resource_mut(id).origin = Origin::HISTORY;
    }
    let mut k = 0;
    for pass in &mut g.passes {
        for u in &mut pass.uses {
            if history.contains(&u.resource) && !u.access.writes() {
                u.previous = h.previous[k % h.previous.len()];
                k += 1;
            }
        }
    }
    if history.is_empty() || g.passes.is_empty() {
        return g;
    }
    for &(p, r, a) in &h.extra {
        let pass = p as usize % g.passes.len();
        let id = history[r as usize % history.len()];
        let target = g.resource(id).target();
        let samples = g.resource(id).image_desc().map_or(1, |d| d.samples);
        let kind = g.passes[pass].kind;
        if g.passes[pass]
            .uses
            .iter()
            .any(|u| u.resource == id && u.previous)
        {
            continue;
        }
        let access = (0..PREVIOUS_READS.len())
            .map(|k| PREVIOUS_READS[(a as usize + k) % PREVIOUS_READS.len()])
            .find(|&access| {
                access.check(kind, target).is_ok()
                    && !(samples > 1 && matches!(access, Access::StorageRead | Access::TransferSrc))
            });
        if let Some(access) = access {
            g.passes[pass].uses.push(Use {
                previous: true,
                ..Use::new(id, access)
            });
        }
    }
    // Single ones may read their content at entry: their first current use reads it too.
    let single: Vec<ResourceId> = expected_buffering(&g)
        .into_iter()
        .filter(|&(_, b)| b == Buffering::Single)
        .map(|(id, _)| id)
        .collect();
    for (k, &id) in history.iter().enumerate() {
        if !single.contains(&id) || !h.read_modify_write[k % h.read_modify_write.len()] {
            continue;
        }
        let first = g
            .passes
            .iter_mut()
            .flat_map(|p| p.uses.iter_mut())
            .find(|u| u.resource == id && !u.previous);
        if let Some(u) = first.filter(|u| !u.clear) {
            u.access = match u.access {
                Access::StorageWrite => Access::StorageReadWrite,
                Access::ColorWrite => Access::ColorReadWrite,
                other => other,
            };
        }
    }
    g
}

/// The declared history resources of `g` with the buffering the lowering rule gives them:
/// double exactly when some previous read is declared at or after the first pass that uses
/// this frame's content.
pub fn expected_buffering(g: &Graph) -> Vec<(ResourceId, Buffering)> {
    g.resource_ids()
        .filter(|&id| g.resource(id).origin == Origin::HISTORY)
        .map(|id| {
            let at = |previous: bool| {
                g.pass_ids().zip(&g.passes).filter_map(move |(pid, p)| {
                    p.uses
                        .iter()
                        .any(|u| u.resource == id && u.previous == previous)
                        .then_some(pid)
                })
            };
            let first_current: Option<PassId> = at(false).min();
            let last_previous: Option<PassId> = at(true).max();
            let double = matches!((first_current, last_previous), (Some(c), Some(p)) if p >= c);
            (
                id,
                if double {
                    Buffering::Double
                } else {
                    Buffering::Single
                },
            )
        })
        .collect()
}

/// Number of distinct history mutations of [`broken_history`].
pub const HISTORY_MUTATIONS: u8 = 4;

/// A graph of [`history_graph`] with one history rule broken (when it has a history
/// resource; else `None`): a previous use that writes, a previous use of a resource that is
/// not a history resource, a history resource no pass writes, or a history resource read
/// (this frame's content) before any pass writes it while a later pass reads its previous
/// content (double-buffered, so the content read is two frames old).
pub fn broken_history() -> impl Strategy<Value = (Graph, &'static str)> {
    (history_graph(), 0..HISTORY_MUTATIONS, any::<u8>())
        .prop_filter_map("no history resource", |(g, m, aux)| mutate(g, m, aux))
}

fn mutate(mut g: Graph, m: u8, aux: u8) -> Option<(Graph, &'static str)> {
    let history: Vec<ResourceId> = g
        .resource_ids()
        .filter(|&id| g.resource(id).origin == Origin::HISTORY)
        .collect();
    let id = *history.get(aux as usize % history.len().max(1))?;
    let buffer = g.resource(id).image_desc().is_none();
    let what = match m {
        0 => {
            let mut pass = tessera_graph::graph::Pass {
                name: format!("bad_{}", g.passes.len()).into(),
                kind: tessera_graph::PassKind::Compute,
                queue: tessera_graph::QueueKind::Graphics,
                side_effects: true,
                uses: Vec::new(),
            };
            pass.uses.push(Use {
                previous: true,
                ..Use::new(id, Access::StorageWrite)
            });
            g.passes.push(pass);
            "a previous use that writes"
        }
        1 => {
            let other = g.buffer(format!("plain_{}", g.resources.len()), 64);
            g.compute(format!("w_{}", g.passes.len()))
                .uses(other, Access::StorageWrite);
            g.compute(format!("r_{}", g.passes.len()))
                .reads_previous(other, Access::StorageRead)
                .side_effects();
            "a previous use of a resource that is not a history resource"
        }
        2 => {
            for p in &mut g.passes {
                p.uses.retain(|u| !(u.resource == id && u.access.writes()));
            }
            "a history resource that no pass writes"
        }
        _ => {
            // This frame's content read first, its previous content read last: double, and
            // the first current use reads content two frames old.
            let read = if buffer {
                Access::StorageRead
            } else {
                Access::Sampled
            };
            let first = tessera_graph::graph::Pass {
                name: format!("early_{}", g.passes.len()).into(),
                kind: tessera_graph::PassKind::Compute,
                queue: tessera_graph::QueueKind::Graphics,
                side_effects: true,
                uses: vec![Use::new(id, read)],
            };
            g.passes.insert(0, first);
            g.compute(format!("late_{}", g.passes.len()))
                .reads_previous(id, read)
                .side_effects();
            "this frame's half of a double-buffered history read before it is written"
        }
    };
    Some((g, what))
}
