//! Checker invariants of overlapping frames (`frame_overlap`), recomputed from the graph and
//! the plan alone. Frame N's *tail* is what its async queue runs after the last pass a
//! graphics batch of the frame waits for; the graphics queue may start frame N+1 while it
//! runs, up to the first batch that waits for the async queue, in the frame or across it
//! (a cross-frame wait). Every pass of that *window* may run beside every tail pass.
//! - `overlap.tail`: the listed tail is not what the batches make it;
//! - `overlap.wait`: a cross-frame wait that is not on the graphics queue, names no kept
//!   pass, does not start a batch, or does not wait for the tail's last pass;
//! - `overlap.doubled`: a doubled resource that is not a placed transient or has no twin of
//!   its size;
//! - `overlap.hazard`: a tail pass and a window pass use one physical object (a doubled
//!   transient is two, one per frame parity; a double-buffered history resource's halves
//!   swap every frame; a per-frame import is a new object every frame), unless both only
//!   read a buffer;
//! - `overlap.alias`: a tail pass and a window pass use resources whose bytes overlap (in
//!   either parity, the odd frames' doubled resources in their twins).

use super::Violation;
use crate::graph::{Graph, HistoryRole, Origin, QueueKind, ResourceId};
use crate::plan::{FrameOverlap, Plan};
use std::collections::{HashMap, HashSet};

/// Bytes of one physical copy: (block key, start, end); twins get keys past the plan's
/// blocks.
type Bytes = (usize, u64, u64);

/// Pushes every violated overlap invariant onto `out`.
pub(super) fn check(graph: &Graph, plan: &Plan, out: &mut Vec<Violation>) {
    let Some(o) = &plan.frame_overlap else {
        return;
    };
    let mut push = |rule: &'static str, detail: String| out.push(Violation { rule, detail });
    let asyncs = plan.queues.of(QueueKind::AsyncCompute);
    let graphics = plan.queues.of(QueueKind::Graphics);
    let awaited = plan
        .batches
        .iter()
        .filter(|b| b.queue == QueueKind::Graphics)
        .flat_map(|b| b.waits.iter())
        .filter(|w| w.queue == QueueKind::AsyncCompute)
        .filter_map(|w| asyncs.iter().position(|p| *p == w.pass))
        .max();
    let tail = &asyncs[awaited.map_or(0, |k| k + 1).min(asyncs.len())..];
    if tail != o.tail.as_slice() {
        push(
            "overlap.tail",
            format!(
                "the tail is listed as [{}]; the batches make it [{}]",
                o.tail.join(", "),
                tail.join(", ")
            ),
        );
    }
    // The window: graphics passes before the first batch that waits for the async queue.
    let batch_starts: HashSet<&str> = plan
        .batches
        .iter()
        .filter_map(|b| b.passes.first().map(|p| p.as_str()))
        .collect();
    let mut stops: HashSet<&str> = plan
        .batches
        .iter()
        .filter(|b| b.queue == QueueKind::Graphics)
        .filter(|b| b.waits.iter().any(|w| w.queue == QueueKind::AsyncCompute))
        .filter_map(|b| b.passes.first().map(|p| p.as_str()))
        .collect();
    for w in &o.waits {
        let ok = w.wait_queue == QueueKind::Graphics
            && w.signal_queue == QueueKind::AsyncCompute
            && graphics.contains(&w.wait)
            && batch_starts.contains(w.wait.as_str())
            && tail.last() == Some(&w.signal);
        if !ok {
            push(
                "overlap.wait",
                format!(
                    "the cross-frame wait before '{}' ({}) for '{}' ({}) must start a graphics \
                     batch and wait for the tail's last pass",
                    w.wait,
                    w.wait_queue.name(),
                    w.signal,
                    w.signal_queue.name()
                ),
            );
        }
        stops.insert(w.wait.as_str());
    }
    let window: Vec<&str> = graphics
        .iter()
        .map(|p| p.as_str())
        .take_while(|p| !stops.contains(p))
        .collect();
    let model = Model::new(graph, plan, o, &mut push);
    let ids: HashMap<&str, _> = graph
        .pass_ids()
        .map(|p| (graph.pass(p).name.as_str(), p))
        .collect();
    for t in tail.iter().filter_map(|n| ids.get(n.as_str())) {
        for g in window.iter().filter_map(|n| ids.get(n)) {
            for tu in &graph.pass(*t).uses {
                for gu in &graph.pass(*g).uses {
                    for parity in [0u8, 1] {
                        let (tp, gp) = (parity, 1 - parity);
                        let (tk, gk) =
                            (model.object(tu.resource, tp), model.object(gu.resource, gp));
                        let both_read_buffer = !tu.access.writes()
                            && !gu.access.writes()
                            && graph.resource(tu.resource).image_desc().is_none();
                        let names = || {
                            (
                                &graph.pass(*t).name,
                                &graph.resource(tu.resource).name,
                                &graph.pass(*g).name,
                                &graph.resource(gu.resource).name,
                            )
                        };
                        if tk.is_some() && tk == gk {
                            if !both_read_buffer {
                                let (tn, tr, gn, _) = names();
                                push(
                                    "overlap.hazard",
                                    format!(
                                        "'{tn}' of frame N and '{gn}' of frame N+1 may run at \
                                         once and both use '{tr}' (the same object in frames \
                                         of parity {tp} and {gp})"
                                    ),
                                );
                            }
                            continue;
                        }
                        let (Some(a), Some(b)) =
                            (model.bytes(tu.resource, tp), model.bytes(gu.resource, gp))
                        else {
                            continue;
                        };
                        if tu.resource != gu.resource && a.0 == b.0 && a.1 < b.2 && b.1 < a.2 {
                            let (tn, tr, gn, gr) = names();
                            push(
                                "overlap.alias",
                                format!(
                                    "'{tn}' of frame N uses '{tr}' and '{gn}' of frame N+1 uses \
                                     '{gr}', which share bytes, and the two passes may run at once"
                                ),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Physical objects and bytes per frame parity.
struct Model<'a> {
    graph: &'a Graph,
    doubled: HashSet<ResourceId>,
    bytes: HashMap<ResourceId, Bytes>,
    twin_bytes: HashMap<ResourceId, Bytes>,
}

impl<'a> Model<'a> {
    fn new(
        graph: &'a Graph,
        plan: &Plan,
        o: &FrameOverlap,
        push: &mut impl FnMut(&'static str, String),
    ) -> Self {
        let mut bytes = HashMap::new();
        for (bi, b) in plan.memory.blocks.iter().enumerate() {
            for p in &b.placements {
                if let Some(r) = graph.find_resource(&p.resource) {
                    bytes.insert(r, (bi, p.offset, p.offset.saturating_add(p.size)));
                }
            }
        }
        let mut twin_bytes = HashMap::new();
        for (ti, b) in o.twin_blocks.iter().enumerate() {
            for p in &b.placements {
                if let Some(r) = graph.find_resource(&p.resource) {
                    let key = plan.memory.blocks.len() + ti;
                    twin_bytes.insert(r, (key, p.offset, p.offset.saturating_add(p.size)));
                }
            }
        }
        let mut doubled = HashSet::new();
        for d in &o.doubled {
            let r = graph.find_resource(&d.resource);
            let ok = r.is_some_and(|r| {
                matches!(graph.resource(r).origin, Origin::Transient { .. })
                    && bytes.contains_key(&r)
                    && twin_bytes
                        .get(&r)
                        .zip(bytes.get(&r))
                        .is_some_and(|(t, b)| t.2 - t.1 == b.2 - b.1)
            });
            match r {
                Some(r) if ok => {
                    doubled.insert(r);
                }
                _ => push(
                    "overlap.doubled",
                    format!(
                        "'{}' is doubled but is not a placed transient with a twin of its size",
                        d.resource
                    ),
                ),
            }
        }
        Model {
            graph,
            doubled,
            bytes,
            twin_bytes,
        }
    }

    /// The object `r` names in a frame of `parity` (`None`: a new one every frame).
    fn object(&self, r: ResourceId, parity: u8) -> Option<(ResourceId, u8)> {
        match self.graph.resource(r).origin {
            Origin::ImportedPerFrame(_) => None,
            Origin::History(HistoryRole::Current { .. }) => Some((r, parity)),
            Origin::History(HistoryRole::Previous { current }) => Some((current, 1 - parity)),
            _ if self.doubled.contains(&r) => Some((r, parity)),
            _ => Some((r, 0)),
        }
    }

    /// The bytes `r` occupies in a frame of `parity`, if placed.
    fn bytes(&self, r: ResourceId, parity: u8) -> Option<Bytes> {
        if parity == 1 && self.doubled.contains(&r) {
            return self.twin_bytes.get(&r).copied();
        }
        self.bytes.get(&r).copied()
    }
}
