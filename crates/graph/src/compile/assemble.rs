//! Phase 10, assemble: turn the id-based phase outputs into the name-based [`Plan`].
//!
//! Cost model: the plan is ~13,000 names for a 1,000-pass frame (order, levels, queues,
//! edges, barriers, placements, ...). Names are interned pointers ([`Name`]), so each is a
//! copy and the loops here are "index, copy, store", with the pass and resource tables
//! borrowed as local slices and every list allocated once at its exact length. Lists that
//! are the same names in the same order share one buffer ([`List::shared`]: one buffer to
//! fill and free): `order`, the list of a queue that runs every pass, a batch of a whole
//! queue, and the levels when the order visits them in order (with async compute it does).
//! Otherwise the levels are one flat list ([`Levels`]) sorted by a counting sort, not one
//! allocation per level. Edges need no filter: after culling the dependency phase only has
//! edges between kept passes.

use super::barriers::{BarrierDraft, Barriers};
use super::cull::Culling;
use super::deps::Dependencies;
use super::ownership::Ownership;
use super::syncs::SyncPlan;
use super::Schedule;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{Graph, Pass, PassId, QueueKind, Resource, ResourceId};
use crate::name::Name;
use crate::plan::{
    Bandwidth, Barrier, BarrierPosition, Batch, BatchWait, Break, CullReason, Edge, HistoryPlan,
    Levels, List, Memory, PersistentPlan, Plan, QueueTransfer, Queues, RenderPass, ResourceSharing,
    Sync,
};
use std::sync::Arc;

/// Everything the plan is made of.
pub(super) struct Parts<'a> {
    pub graph: &'a Graph,
    pub caps: &'a Capabilities,
    pub options: &'a CompileOptions,
    pub deps: &'a Dependencies,
    pub culling: &'a Culling,
    pub schedule: &'a Schedule,
    pub render_passes: Vec<RenderPass>,
    pub breaks: Vec<Break>,
    pub barriers: &'a Barriers,
    pub syncs: &'a SyncPlan,
    pub ownership: &'a Ownership,
    pub memory: Memory,
    pub bandwidth: Bandwidth,
}

/// Names by id, over borrowed tables.
#[derive(Clone, Copy)]
struct Names<'a> {
    passes: &'a [Pass],
    resources: &'a [Resource],
}

impl Names<'_> {
    fn pass(self, p: PassId) -> Name {
        self.passes[p.index()].name
    }

    fn resource(self, r: ResourceId) -> Name {
        self.resources[r.index()].name
    }

    #[inline]
    fn barrier(self, b: &BarrierDraft) -> Barrier {
        Barrier {
            before: self.pass(b.before),
            resource: self.resource(b.resource),
            src_stage: b.src_stage,
            src_access: b.src_access,
            dst_stage: b.dst_stage,
            dst_access: b.dst_access,
            old_layout: b.layouts.map(|l| l.0),
            new_layout: b.layouts.map(|l| l.1),
            queue_transfer: b
                .transfer
                .map(|(src_queue, dst_queue, half)| QueueTransfer {
                    src_queue,
                    dst_queue,
                    half,
                }),
            position: if b.after {
                BarrierPosition::After
            } else {
                BarrierPosition::Before
            },
        }
    }
}

impl Parts<'_> {
    #[inline(never)] // a phase of its own in profiles
    pub fn into_plan(self) -> Plan {
        let s = self.schedule;
        let names = Names {
            passes: &self.graph.passes,
            resources: &self.graph.resources,
        };
        let all: Arc<[Name]> = s.order.iter().map(|&p| names.pass(p)).collect();
        let order = List::shared(&all, 0..all.len());
        let (levels, queues) = levels_and_queues(s, &all);
        debug_assert!(self
            .deps
            .edges
            .iter()
            .all(|e| s.kept[e.from.index()] && s.kept[e.to.index()]));
        let edges = self
            .deps
            .edges
            .iter()
            .map(|e| Edge {
                from: names.pass(e.from),
                to: names.pass(e.to),
                resource: names.resource(e.resource),
                kind: e.kind,
            })
            .collect();
        let barriers = self
            .barriers
            .barriers
            .iter()
            .map(|b| names.barrier(b))
            .collect();
        // The resources of every sync, the waits of every batch and the passes of every
        // batch that is not a whole queue: one shared buffer each (none when empty).
        let sync_resources = shared(
            self.syncs
                .resources
                .all()
                .iter()
                .map(|&r| names.resource(r)),
        );
        let syncs: Vec<Sync> = self
            .syncs
            .syncs
            .iter()
            .enumerate()
            .map(|(i, x)| Sync {
                signal: names.pass(x.signal),
                signal_queue: s.queue[x.signal.index()],
                wait: names.pass(x.wait),
                wait_queue: s.queue[x.wait.index()],
                resources: slice(&sync_resources, self.syncs.resources.range_of(i)),
                value: x.value,
            })
            .collect();
        let whole =
            |b: &super::syncs::batches::BatchDraft| b.passes.len() == queues.of(b.queue).len();
        let batch_passes = shared(
            self.syncs
                .batches
                .iter()
                .filter(|b| !whole(b))
                .flat_map(|b| self.syncs.passes_of(b))
                .map(|&p| names.pass(p)),
        );
        let batch_waits = shared(self.syncs.batches.iter().flat_map(|b| b.waits.clone()).map(
            |i| BatchWait {
                queue: syncs[i].signal_queue,
                value: syncs[i].value,
                pass: syncs[i].signal,
            },
        ));
        let (mut passes_at, mut waits_at) = (0, 0);
        let batches = self
            .syncs
            .batches
            .iter()
            .map(|b| Batch {
                queue: b.queue,
                // A batch of a whole queue is that queue's list.
                passes: if whole(b) {
                    queues.list(b.queue).clone()
                } else {
                    passes_at += b.passes.len();
                    slice(&batch_passes, passes_at - b.passes.len()..passes_at)
                },
                waits: {
                    waits_at += b.waits.len();
                    slice(&batch_waits, waits_at - b.waits.len()..waits_at)
                },
                signal: b.signal,
            })
            .collect();
        let sharing = self
            .ownership
            .decisions
            .iter()
            .map(|(r, mode, reason)| ResourceSharing {
                resource: names.resource(*r),
                mode: *mode,
                reason: *reason,
            })
            .collect();
        Plan {
            order,
            culled: self
                .culling
                .reasons
                .iter()
                .map(|(p, _)| names.pass(*p))
                .collect(),
            levels,
            queues,
            render_passes: self.render_passes,
            breaks: self.breaks,
            syncs,
            barriers,
            memory: self.memory,
            bandwidth: self.bandwidth,
            edges,
            cull_reasons: self
                .culling
                .reasons
                .iter()
                .map(|(p, r)| CullReason {
                    pass: names.pass(*p),
                    reason: r.clone(),
                })
                .collect(),
            batches,
            sync_stats: self.syncs.stats,
            sharing,
            external: super::external::external(self.graph, s),
            history: history(self.graph),
            skipped: self
                .culling
                .skipped
                .iter()
                .map(|p| names.pass(*p))
                .collect(),
            persistent: persistent(self.graph),
            device: Some(self.caps.clone()),
            options: Some(*self.options),
            frame_overlap: None,
        }
    }
}

/// The plan's `history` entries: each history resource of the lowered graph, with its
/// buffering and the bytes of its physical resources.
fn history(graph: &Graph) -> Vec<HistoryPlan> {
    graph
        .resource_ids()
        .filter_map(|id| {
            let (buffering, reason) = crate::history::decision(graph, id)?;
            let r = graph.resource(id);
            let previous = r.history_twin();
            Some(HistoryPlan {
                resource: r.name,
                buffering,
                previous: previous.map(|p| graph.resource(p).name),
                bytes: r
                    .bytes()
                    .saturating_add(previous.map_or(0, |p| graph.resource(p).bytes())),
                reason,
            })
        })
        .collect()
}

/// The plan's `persistent` entries: each persistent resource, in declaration order.
fn persistent(graph: &Graph) -> Vec<PersistentPlan> {
    graph
        .resources
        .iter()
        .filter_map(|r| {
            Some(PersistentPlan {
                resource: r.name,
                valid: r.persistent_valid()?,
                bytes: r.bytes(),
            })
        })
        .collect()
}

/// One buffer shared by several lists of the plan, `None` when there is nothing to share
/// (no allocation).
fn shared<T>(items: impl Iterator<Item = T>) -> Option<Arc<[T]>> {
    let all: Vec<T> = items.collect();
    (!all.is_empty()).then(|| Arc::from(all))
}

/// The lists of `all` at `range` (empty when nothing is shared).
fn slice<T>(all: &Option<Arc<[T]>>, range: std::ops::Range<usize>) -> List<T> {
    match all {
        Some(all) if !range.is_empty() => List::shared(all, range),
        _ => List::default(),
    }
}

/// The passes of each level and of each queue, in execution order, from the names of
/// `order` (`all`): when levels never decrease along the order the levels are slices of it,
/// otherwise one list sorted by level (a counting sort of positions, stable so each level
/// keeps execution order); a queue that runs every pass shares `all`, otherwise each queue
/// list is allocated once at its length.
fn levels_and_queues(s: &Schedule, all: &Arc<[Name]>) -> (Levels, Queues) {
    let mut ends: Vec<u32> = Vec::new();
    let mut async_passes = 0;
    let mut sorted = true;
    let mut last = 0;
    for &p in &s.order {
        let l = s.level[p.index()] as usize;
        if l >= ends.len() {
            ends.resize(l + 1, 0);
        }
        ends[l] += 1;
        sorted &= l >= last;
        last = l;
        async_passes += usize::from(s.queue[p.index()] == QueueKind::AsyncCompute);
    }
    // Counts to ends, and the next free slot of each level.
    let mut next: Vec<u32> = Vec::with_capacity(if sorted { 0 } else { ends.len() });
    let mut total = 0;
    for e in &mut ends {
        if !sorted {
            next.push(total);
        }
        total += *e;
        *e = total;
    }
    let names = if sorted {
        List::shared(all, 0..all.len())
    } else {
        let mut by_level = vec![0u32; all.len()];
        for (i, &p) in s.order.iter().enumerate() {
            let slot = &mut next[s.level[p.index()] as usize];
            by_level[*slot as usize] = i as u32;
            *slot += 1;
        }
        by_level.iter().map(|&i| all[i as usize]).collect()
    };
    let levels = Levels::from_flat(names, ends);
    let queues = if async_passes == 0 {
        Queues {
            graphics: List::shared(all, 0..all.len()),
            async_compute: List::default(),
        }
    } else {
        let mut graphics = Vec::with_capacity(all.len() - async_passes);
        let mut async_compute = Vec::with_capacity(async_passes);
        for (&p, name) in s.order.iter().zip(all.iter()) {
            match s.queue[p.index()] {
                QueueKind::Graphics => graphics.push(*name),
                QueueKind::AsyncCompute => async_compute.push(*name),
            }
        }
        Queues {
            graphics: graphics.into(),
            async_compute: async_compute.into(),
        }
    };
    (levels, queues)
}
