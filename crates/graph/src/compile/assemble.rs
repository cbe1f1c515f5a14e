//! Last phase: turn the id-based phase outputs into the name-based [`Plan`].

use super::barriers::Barriers;
use super::cull::Culling;
use super::deps::Dependencies;
use super::syncs::ownership::Ownership;
use super::syncs::SyncPlan;
use super::Schedule;
use crate::graph::{Graph, QueueKind};
use crate::plan::{
    Bandwidth, Barrier, BarrierPosition, Batch, BatchWait, Break, CullReason, Edge, Memory, Plan,
    QueueTransfer, Queues, RenderPass, ResourceSharing, Sync,
};

/// Everything the plan is made of.
pub(super) struct Parts<'a> {
    pub graph: &'a Graph,
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

impl Parts<'_> {
    #[inline(never)] // a phase of its own in profiles
    pub fn into_plan(self) -> Plan {
        let g = self.graph;
        let s = self.schedule;
        let pass_name = |p: crate::graph::PassId| g.pass(p).name.clone();
        let res_name = |r: crate::graph::ResourceId| g.resource(r).name.clone();
        let order: Vec<crate::name::Name> = s.order.iter().map(|&p| pass_name(p)).collect();
        let max_level = s.order.iter().map(|p| s.level[p.index()]).max();
        // Exact sizes first: one allocation per level and per queue list.
        let mut per_level = vec![0usize; max_level.map_or(0, |l| l as usize + 1)];
        let mut async_passes = 0;
        for &p in &s.order {
            per_level[s.level[p.index()] as usize] += 1;
            async_passes += usize::from(s.queue[p.index()] == QueueKind::AsyncCompute);
        }
        let mut levels: Vec<Vec<crate::name::Name>> =
            per_level.iter().map(|&n| Vec::with_capacity(n)).collect();
        let mut queues = Queues {
            graphics: Vec::with_capacity(s.order.len() - async_passes),
            async_compute: Vec::with_capacity(async_passes),
        };
        for &p in &s.order {
            levels[s.level[p.index()] as usize].push(pass_name(p));
            match s.queue[p.index()] {
                QueueKind::Graphics => queues.graphics.push(pass_name(p)),
                QueueKind::AsyncCompute => queues.async_compute.push(pass_name(p)),
            }
        }
        let mut edges = Vec::with_capacity(self.deps.edges.len());
        edges.extend(
            self.deps
                .edges
                .iter()
                .filter(|e| s.kept[e.from.index()] && s.kept[e.to.index()])
                .map(|e| Edge {
                    from: pass_name(e.from),
                    to: pass_name(e.to),
                    resource: res_name(e.resource),
                    kind: e.kind,
                }),
        );
        let barriers = self
            .barriers
            .barriers
            .iter()
            .map(|b| Barrier {
                before: pass_name(b.before),
                resource: res_name(b.resource),
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
            })
            .collect();
        let syncs: Vec<Sync> = self
            .syncs
            .syncs
            .iter()
            .map(|x| Sync {
                signal: pass_name(x.signal),
                signal_queue: s.queue[x.signal.index()],
                wait: pass_name(x.wait),
                wait_queue: s.queue[x.wait.index()],
                resources: x.resources.iter().map(|&r| res_name(r)).collect(),
                value: x.value,
            })
            .collect();
        let batches = self
            .syncs
            .batches
            .iter()
            .map(|b| Batch {
                queue: b.queue,
                passes: b.passes.iter().map(|&p| pass_name(p)).collect(),
                waits: b
                    .waits
                    .clone()
                    .map(|i| BatchWait {
                        queue: syncs[i].signal_queue,
                        value: syncs[i].value,
                        pass: syncs[i].signal.clone(),
                    })
                    .collect(),
                signal: b.signal,
            })
            .collect();
        let sharing = self
            .ownership
            .decisions
            .iter()
            .map(|(r, mode, reason)| ResourceSharing {
                resource: res_name(*r),
                mode: *mode,
                reason: reason.clone(),
            })
            .collect();
        Plan {
            order,
            culled: self
                .culling
                .reasons
                .iter()
                .map(|(p, _)| pass_name(*p))
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
                    pass: pass_name(*p),
                    reason: r.clone(),
                })
                .collect(),
            batches,
            sync_stats: self.syncs.stats,
            sharing,
        }
    }
}
