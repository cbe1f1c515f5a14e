//! Pass rows in execution order, queue lanes and semaphores, culled passes.
//!
//! Each kept pass becomes one row at its position in `plan.order`, with its queue (from
//! `plan.queues`, so a pass folded from async compute onto graphics shows on graphics), its
//! dependency level, its render pass and subpass index, its uses (from the graph), the
//! barriers recorded before and after it (from `plan.barriers`, by `position`), and the
//! semaphores it waits for and signals (indices into the page's syncs). Culled passes keep
//! their declared kind and queue, and the plan's reason. Cost: O(passes + uses + barriers +
//! syncs).

use super::Index;
use serde::Serialize;
use std::collections::HashMap;
use tessera_graph::graph::{PassKind, QueueKind};
use tessera_graph::plan::{Barrier, BarrierPosition};
use tessera_graph::{Access, Name};

/// One use of a resource by a pass, as declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UseView {
    /// The resource.
    pub resource: Name,
    /// How it is used.
    pub access: Access,
    /// Cleared at this use.
    pub clear: bool,
}

/// A kept pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PassRow {
    /// Position in `plan.order`.
    pub position: u32,
    /// The pass.
    pub name: Name,
    /// Raster, compute or transfer (compute when the graph does not know the pass).
    pub kind: PassKind,
    /// Queue it runs on in the plan.
    pub queue: QueueKind,
    /// Dependency level.
    pub level: u32,
    /// Index of its render pass in the page's `render_passes` (raster passes only).
    pub render_pass: Option<u32>,
    /// Subpass index inside that render pass.
    pub subpass: Option<u32>,
    /// Declared uses.
    pub uses: Vec<UseView>,
    /// Barriers recorded before the pass (before its render pass for a subpass).
    pub barriers_before: Vec<Barrier>,
    /// Barriers recorded right after it (`position: after`).
    pub barriers_after: Vec<Barrier>,
    /// Indices into the page's `syncs` this pass waits for.
    pub waits: Vec<u32>,
    /// Indices into the page's `syncs` this pass signals.
    pub signals: Vec<u32>,
}

/// A culled pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CulledPass {
    /// The pass.
    pub name: Name,
    /// Declared kind.
    pub kind: PassKind,
    /// Queue it asked for.
    pub queue: QueueKind,
    /// Why the compiler culled it.
    pub reason: String,
    /// Skipped: culled because the persistent resources it writes are still valid (the
    /// plan's `skipped`), not because nothing needs its work.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
}

/// A cross-queue semaphore edge placed on the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncView {
    /// Signalling pass.
    pub signal: Name,
    /// Its queue.
    pub signal_queue: QueueKind,
    /// Its position in `plan.order`.
    pub signal_position: u32,
    /// Waiting pass.
    pub wait: Name,
    /// Its queue.
    pub wait_queue: QueueKind,
    /// Its position in `plan.order`.
    pub wait_position: u32,
    /// Resources whose hazards the edge covers.
    pub resources: Vec<Name>,
    /// Timeline value.
    pub value: u64,
}

/// The page's syncs: `plan.syncs` with positions (0 for names not in the order).
pub(crate) fn syncs(index: &Index<'_>) -> Vec<SyncView> {
    let pos = |n: &Name| index.position.get(n.as_str()).copied().unwrap_or(0);
    index
        .plan
        .syncs
        .iter()
        .map(|s| SyncView {
            signal: s.signal,
            signal_queue: s.signal_queue,
            signal_position: pos(&s.signal),
            wait: s.wait,
            wait_queue: s.wait_queue,
            wait_position: pos(&s.wait),
            resources: s.resources.to_vec(),
            value: s.value,
        })
        .collect()
}

/// Rows of the kept passes in execution order.
pub(crate) fn rows(index: &Index<'_>, syncs: &[SyncView]) -> Vec<PassRow> {
    let plan = index.plan;
    let level: HashMap<&str, u32> = plan
        .levels
        .iter()
        .enumerate()
        .flat_map(|(l, ps)| ps.iter().map(move |n| (n.as_str(), l as u32)))
        .collect();
    let mut subpass: HashMap<&str, (u32, u32)> = HashMap::new();
    for (r, rp) in plan.render_passes.iter().enumerate() {
        for (s, n) in rp.subpasses.iter().enumerate() {
            subpass.insert(n.as_str(), (r as u32, s as u32));
        }
    }
    let mut before: HashMap<&str, Vec<Barrier>> = HashMap::new();
    let mut after: HashMap<&str, Vec<Barrier>> = HashMap::new();
    for b in &plan.barriers {
        let map = match b.position {
            BarrierPosition::Before => &mut before,
            BarrierPosition::After => &mut after,
        };
        map.entry(b.before.as_str()).or_default().push(b.clone());
    }
    plan.order
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let declared = index.pass.get(name.as_str());
            let uses = declared
                .map(|p| {
                    p.uses
                        .iter()
                        .map(|u| UseView {
                            resource: index.graph.resource(u.resource).name,
                            access: u.access,
                            clear: u.clear,
                        })
                        .collect()
                })
                .unwrap_or_default();
            let sp = subpass.get(name.as_str());
            let of = |f: fn(&SyncView) -> &Name| -> Vec<u32> {
                syncs
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| f(s) == name)
                    .map(|(k, _)| k as u32)
                    .collect()
            };
            PassRow {
                position: i as u32,
                name: *name,
                kind: declared.map_or(PassKind::Compute, |p| p.kind),
                queue: index.queue_of(name),
                level: level.get(name.as_str()).copied().unwrap_or(0),
                render_pass: sp.map(|s| s.0),
                subpass: sp.map(|s| s.1),
                uses,
                barriers_before: before.remove(name.as_str()).unwrap_or_default(),
                barriers_after: after.remove(name.as_str()).unwrap_or_default(),
                waits: of(|s| &s.wait),
                signals: of(|s| &s.signal),
            }
        })
        .collect()
}

/// Culled passes in declaration order, with the plan's reasons.
pub(crate) fn culled(index: &Index<'_>) -> Vec<CulledPass> {
    let reason: HashMap<&str, &str> = index
        .plan
        .cull_reasons
        .iter()
        .map(|c| (c.pass.as_str(), c.reason.as_str()))
        .collect();
    index
        .plan
        .culled
        .iter()
        .map(|name| {
            let declared = index.pass.get(name.as_str());
            CulledPass {
                name: *name,
                kind: declared.map_or(PassKind::Compute, |p| p.kind),
                queue: declared.map_or(QueueKind::Graphics, |p| p.queue),
                reason: reason.get(name.as_str()).unwrap_or(&"").to_string(),
                skipped: index.plan.skipped.contains(name),
            }
        })
        .collect()
}
