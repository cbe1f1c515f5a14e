//! Phase 2, dependencies: ordering edges from the declaration order.
//!
//! Per resource, walking passes in declaration order: a read (or a write that keeps earlier
//! content) depends on the latest earlier write (read-after-write); a write depends on every
//! read since that write (write-after-read) and on the write itself (write-after-write).
//! Edges therefore always point forward in declaration order, so the graph is acyclic by
//! construction. `feeds` marks edges along which content flows (what culling follows).
//! Cost: O(uses); the readers since each write live in one arena ([`super::chains`]).

use super::chains::{Chain, Chains};
use crate::graph::{Graph, PassId, ResourceId};
use crate::plan::EdgeKind;

/// One ordering edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepEdge {
    /// Earlier pass.
    pub from: PassId,
    /// Later pass.
    pub to: PassId,
    /// The resource that orders them.
    pub resource: ResourceId,
    /// Which rule.
    pub kind: EdgeKind,
    /// `to` consumes content that `from` produced.
    pub feeds: bool,
}

/// All edges, with per-pass adjacency.
#[derive(Clone, Debug, Default)]
pub struct Dependencies {
    /// Every edge, grouped by `to` in declaration order.
    pub edges: Vec<DepEdge>,
    /// Edges entering pass `p` are `edges[incoming[p]..incoming[p + 1]]` (one entry per pass
    /// plus one: edges are produced grouped by `to`, so offsets replace per-pass lists).
    pub incoming: Vec<u32>,
}

impl Dependencies {
    /// Edges entering `pass`.
    pub fn into(&self, pass: PassId) -> impl Iterator<Item = &DepEdge> {
        let start = self.incoming[pass.index()] as usize;
        let end = self.incoming[pass.index() + 1] as usize;
        self.edges[start..end].iter()
    }
}

#[derive(Clone, Copy, Default)]
struct ResourceState {
    last_write: Option<PassId>,
    /// Readers since the last write, in declaration order (nodes in one arena).
    reads_since: Chain,
}

/// Builds the ordering edges of `graph` (all passes, before culling).
pub fn dependencies(graph: &Graph) -> Dependencies {
    build(graph, None)
}

/// Builds the ordering edges among the kept passes only (after culling). Culled passes are
/// skipped rather than filtered out of [`dependencies`]: a culled writer between two kept
/// uses would otherwise hide the edge between them (read, culled write, full overwrite).
pub fn kept_dependencies(graph: &Graph, kept: &[bool]) -> Dependencies {
    build(graph, Some(kept))
}

#[inline(never)] // a phase of its own in profiles
fn build(graph: &Graph, kept: Option<&[bool]>) -> Dependencies {
    let mut state = vec![ResourceState::default(); graph.resources.len()];
    let uses: usize = graph.passes.iter().map(|p| p.uses.len()).sum();
    let mut readers: Chains<PassId> = Chains::with_capacity(uses);
    let mut deps = Dependencies {
        edges: Vec::with_capacity(uses * 2),
        incoming: Vec::with_capacity(graph.passes.len() + 1),
    };
    for (pass, p) in graph.pass_ids().zip(&graph.passes) {
        deps.incoming.push(deps.edges.len() as u32);
        if kept.is_some_and(|k| !k[pass.index()]) {
            continue;
        }
        for u in &p.uses {
            let s = &mut state[u.resource.index()];
            let mut push = |from: PassId, kind: EdgeKind, feeds: bool| {
                deps.edges.push(DepEdge {
                    from,
                    to: pass,
                    resource: u.resource,
                    kind,
                    feeds,
                });
            };
            let writes = u.access.writes();
            if let Some(w) = s.last_write {
                if !writes || u.access.reads(u.clear) {
                    push(w, EdgeKind::Raw, true);
                } else {
                    push(w, EdgeKind::Waw, u.access.keeps_content(u.clear));
                }
            }
            if writes {
                for &r in readers.iter(s.reads_since) {
                    push(r, EdgeKind::War, false);
                }
                s.reads_since = Chain::EMPTY;
                s.last_write = Some(pass);
            } else {
                readers.push(&mut s.reads_since, pass);
            }
        }
    }
    deps.incoming.push(deps.edges.len() as u32);
    deps
}
