//! Phase 9, syncs: cross-queue hazards become timeline-semaphore edges (signal after the
//! producer on its queue, wait before the consumer on its queue), minimised, and the passes
//! of each queue are grouped into submission batches.
//!
//! Hazards come from the barrier phase as (producer, consumer, resource). A producer inside a
//! render pass signals after the render pass's last subpass and a consumer waits before its
//! first subpass (a semaphore cannot sit inside a render pass). The distinct (signal, wait)
//! pairs are the *candidate waits*; [`ssis`] keeps only those not implied by the others plus
//! same-queue order (every candidate when `minimize_syncs` is off). Each hazard's resource is
//! listed on the kept sync that covers it. The timeline value of a sync is the 1-based
//! position of the signalling pass in its queue. [`super::ownership`] (run before the barrier phase)
//! decides EXCLUSIVE vs CONCURRENT sharing; [`batches`] builds the submits.
//! Cost: O(passes + hazards) plus the minimisation. Per-pass and per-sync lists (candidate
//! waits, kept waits, covered resources, batch passes) live in shared buffers
//! ([`ssis::Lists`], ranges), not in one allocation each.

pub mod batches;
pub mod ssis;

use super::barriers::CrossQueueHazard;
use super::renderpass::RenderPassGrouping;
use super::Schedule;
use crate::caps::CompileOptions;
use crate::graph::{Graph, PassId, QueueKind, ResourceId};
use crate::plan::SyncStats;
use batches::BatchDraft;
use ssis::Lists;

/// A semaphore edge with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncDraft {
    /// Pass after which the semaphore is signalled.
    pub signal: PassId,
    /// Pass before which it is waited on.
    pub wait: PassId,
    /// Timeline value: 1-based position of `signal` in its queue.
    pub value: u64,
}

/// Output of the sync phase.
#[derive(Clone, Debug, Default)]
pub struct SyncPlan {
    /// Kept semaphore edges, in execution order of the waiting pass.
    pub syncs: Vec<SyncDraft>,
    /// Candidate vs kept accounting.
    pub stats: SyncStats,
    /// Submission batches in submission order.
    pub batches: Vec<BatchDraft>,
    /// Resources covered by each sync (indexed like `syncs`).
    pub resources: Lists<ResourceId>,
    /// Passes of each queue in queue order (graphics, async compute): the batches' passes
    /// are ranges of these.
    pub queue_passes: [Vec<PassId>; 2],
}

impl SyncPlan {
    /// Passes of batch `b`, in queue order.
    pub fn passes_of(&self, b: &BatchDraft) -> &[PassId] {
        &self.queue_passes[queue_slot(b.queue)][b.passes.start as usize..b.passes.end as usize]
    }
}

fn queue_slot(q: QueueKind) -> usize {
    match q {
        QueueKind::Graphics => 0,
        QueueKind::AsyncCompute => 1,
    }
}

/// Semaphore edges for the hazards, and the submission batches.
pub fn syncs(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
    hazards: &[CrossQueueHazard],
    options: &CompileOptions,
) -> SyncPlan {
    let n = graph.passes.len();
    let queue_passes: [Vec<PassId>; 2] = [QueueKind::Graphics, QueueKind::AsyncCompute].map(|q| {
        schedule
            .order
            .iter()
            .copied()
            .filter(|p| schedule.queue[p.index()] == q)
            .collect()
    });
    if hazards.is_empty() {
        // Nothing crosses queues: no syncs, one batch per queue.
        let batches = batches::batches(schedule, &queue_passes, &[], &[]);
        return SyncPlan {
            syncs: Vec::new(),
            stats: SyncStats::default(),
            batches,
            resources: Lists::default(),
            queue_passes,
        };
    }
    let group = |p: PassId| {
        grouping
            .group_of
            .get(p.index())
            .copied()
            .flatten()
            .map(|g| &grouping.groups[g as usize])
    };
    let anchor = |p: PassId| group(p).and_then(|g| g.first().copied()).unwrap_or(p);
    let end = |p: PassId| group(p).and_then(|g| g.last().copied()).unwrap_or(p);

    // Queue positions (1-based) and predecessors.
    let mut index = vec![0u32; n];
    let mut prev = vec![None; n];
    let mut last: [Option<usize>; 2] = [None, None];
    let mut count = [0u32; 2];
    for &p in &schedule.order {
        let q = queue_slot(schedule.queue[p.index()]);
        count[q] += 1;
        index[p.index()] = count[q];
        prev[p.index()] = last[q];
        last[q] = Some(p.index());
    }

    // Candidate waits: distinct (signal point, wait point) pairs across queues, listed per
    // waiting pass in hazard order.
    let mut resolved: Vec<(usize, usize, ResourceId)> = Vec::with_capacity(hazards.len());
    for h in hazards {
        let (s, w) = (end(h.from).index(), anchor(h.to).index());
        if schedule.queue[s] == schedule.queue[w] {
            debug_assert!(false, "cross-queue hazard between passes of one queue");
            continue;
        }
        resolved.push((s, w, h.resource));
    }
    let pairs: Vec<(u32, usize)> = resolved.iter().map(|&(s, w, _)| (w as u32, s)).collect();
    let deps = Lists::distinct_by_owner(n, &pairs);
    let candidates = deps.all().len();

    // Processing order: merge the two queue sequences, taking a pass once all its
    // producers are processed (earliest in execution order first).
    let queues = &queue_passes;
    let mut head = [0usize; 2];
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(schedule.order.len());
    let pos = |v: usize| schedule.position[v].unwrap_or(u32::MAX);
    while order.len() < schedule.order.len() {
        let heads = (0..2).filter_map(|q| queues[q].get(head[q]).map(|&v| (q, v.index())));
        let ready = heads
            .clone()
            .filter(|&(_, v)| deps.of(v).iter().all(|&u| done[u]))
            .min_by_key(|&(_, v)| pos(v));
        let Some((q, v)) = ready.or_else(|| {
            log::warn!(
                "syncs: a cross-queue round trip inside a render pass; the plan cannot be ordered"
            );
            heads.min_by_key(|&(_, v)| pos(v))
        }) else {
            break;
        };
        head[q] += 1;
        done[v] = true;
        order.push(v);
    }

    let problem = ssis::Problem {
        queues: 2,
        queue: schedule.queue.iter().map(|&q| queue_slot(q)).collect(),
        index: index.clone(),
        prev,
        deps,
        order,
    };
    let solution = ssis::solve(&problem, options.minimize_syncs);

    // Kept syncs in execution order of the waiting pass; those of pass w start at first[w].
    let mut syncs: Vec<SyncDraft> = Vec::new();
    let mut first = vec![0u32; n];
    for &p in &schedule.order {
        let w = p.index();
        first[w] = syncs.len() as u32;
        for &s in solution.kept_of(w) {
            syncs.push(SyncDraft {
                signal: PassId(s as u32),
                wait: p,
                value: u64::from(index[s]),
            });
        }
    }
    let slot = |syncs: &[SyncDraft], (w, s): (usize, usize)| {
        let start = first[w] as usize;
        (start..start + solution.kept_of(w).len()).find(|&i| syncs[i].signal.index() == s)
    };
    // Each hazard's resource goes to the kept sync that covers it, in hazard order.
    let mut covered: Vec<(u32, ResourceId)> = Vec::with_capacity(resolved.len());
    for (s, w, r) in resolved {
        let q = problem.queue[s];
        let by = solution.via_of(w)[q].and_then(|k| slot(&syncs, k));
        debug_assert!(
            by.is_some() && solution.ssis_of(w)[q] >= index[s],
            "every hazard is covered by a kept sync"
        );
        if let Some(i) = by {
            covered.push((i as u32, r));
        }
    }
    let resources = Lists::distinct_by_owner(syncs.len(), &covered);
    if log::log_enabled!(log::Level::Debug) {
        for w in 0..problem.deps.owners() {
            for &s in problem
                .deps
                .of(w)
                .iter()
                .filter(|&&s| !solution.kept_of(w).contains(&s))
            {
                let by = solution.via_of(w)[problem.queue[s]]
                    .map(|(x, y)| (graph.passes[y].name.as_str(), graph.passes[x].name.as_str()));
                log::debug!(
                    "sync '{}' -> '{}' removed: implied by {:?} (signal, wait) plus queue order",
                    graph.passes[s].name,
                    graph.passes[w].name,
                    by
                );
            }
        }
    }
    let stats = SyncStats {
        candidate_waits: candidates as u32,
        removed: (candidates - syncs.len()) as u32,
        kept: syncs.len() as u32,
    };
    log::debug!(
        "syncs: {} candidate waits, {} kept, {} removed",
        stats.candidate_waits,
        stats.kept,
        stats.removed
    );
    let batches = batches::batches(schedule, &queue_passes, &syncs, &index);
    SyncPlan {
        syncs,
        stats,
        batches,
        resources,
        queue_passes,
    }
}
