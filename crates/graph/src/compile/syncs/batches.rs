//! Submission batches: per queue, passes grouped into one submit until a signal is needed;
//! a pass that waits starts a new batch.
//!
//! Waits are anchored at the first subpass of a render pass and signals after its last, so a
//! batch boundary never splits a render pass. Batches are listed in submission order: by the
//! execution-order position of their first pass (a topological order, so every signal a
//! batch waits for is submitted before it). A batch's passes are a range of its queue's pass
//! list (no list of its own). Cost: O(passes + syncs), plus sorting the batches.

use super::super::Schedule;
use super::SyncDraft;
use crate::graph::{PassId, QueueKind};
use std::ops::Range;

/// One submit, with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchDraft {
    /// Queue.
    pub queue: QueueKind,
    /// Its passes: a range of its queue's pass list ([`super::SyncPlan::passes_of`]).
    pub passes: Range<u32>,
    /// Indices into the sync list of the waits before the first pass (syncs are listed in
    /// execution order of the waiting pass, so they are contiguous).
    pub waits: Range<usize>,
    /// Timeline value signalled after the last pass.
    pub signal: Option<u64>,
}

/// Groups the passes of every queue into batches; `queue_passes` holds each queue's passes
/// in queue order (graphics, async compute).
pub fn batches(
    schedule: &Schedule,
    queue_passes: &[Vec<PassId>; 2],
    syncs: &[SyncDraft],
    index: &[u32],
) -> Vec<BatchDraft> {
    let queues = [QueueKind::Graphics, QueueKind::AsyncCompute];
    let all = |p: &[PassId]| 0..p.len() as u32;
    if syncs.is_empty() {
        // No waits and no signals: one batch per used queue (what the loop below gives).
        let mut out: Vec<BatchDraft> = queues
            .into_iter()
            .zip(queue_passes)
            .filter(|(_, passes)| !passes.is_empty())
            .map(|(queue, passes)| BatchDraft {
                queue,
                passes: all(passes),
                waits: 0..0,
                signal: None,
            })
            .collect();
        sort_batches(schedule, queue_passes, &mut out);
        return out;
    }
    let n = schedule.queue.len();
    // waits of pass p: syncs[wait_start[p]..wait_end[p]]
    let mut wait_start = vec![0u32; n];
    let mut wait_end = vec![0u32; n];
    let mut signals = vec![false; n];
    for (i, s) in syncs.iter().enumerate() {
        let w = s.wait.index();
        if wait_end[w] == 0 {
            wait_start[w] = i as u32;
        }
        debug_assert!(
            wait_end[w] == 0 || wait_end[w] == i as u32,
            "syncs are grouped by waiting pass"
        );
        wait_end[w] = i as u32 + 1;
        signals[s.signal.index()] = true;
    }
    let mut out: Vec<BatchDraft> = Vec::new();
    for (queue, passes) in queues.into_iter().zip(queue_passes) {
        let waits_at = |start: usize| {
            let p = passes[start].index();
            wait_start[p] as usize..wait_end[p] as usize
        };
        let mut start = 0usize;
        for (i, &p) in passes.iter().enumerate() {
            let waits = wait_start[p.index()] as usize..wait_end[p.index()] as usize;
            let signal = signals[p.index()];
            if !waits.is_empty() && i > start {
                out.push(BatchDraft {
                    queue,
                    passes: start as u32..i as u32,
                    waits: waits_at(start),
                    signal: None,
                });
                start = i;
            }
            if signal {
                log::trace!(
                    "batch on {queue} ends after pass #{} to signal {}",
                    p.index(),
                    index[p.index()]
                );
                out.push(BatchDraft {
                    queue,
                    passes: start as u32..i as u32 + 1,
                    waits: waits_at(start),
                    signal: Some(u64::from(index[p.index()])),
                });
                start = i + 1;
            }
        }
        if start < passes.len() {
            out.push(BatchDraft {
                queue,
                passes: start as u32..passes.len() as u32,
                waits: waits_at(start),
                signal: None,
            });
        }
    }
    sort_batches(schedule, queue_passes, &mut out);
    out
}

/// Submission order: by the execution-order position of each batch's first pass.
fn sort_batches(schedule: &Schedule, queue_passes: &[Vec<PassId>; 2], batches: &mut [BatchDraft]) {
    let first_pos = |b: &BatchDraft| {
        let passes = &queue_passes[super::queue_slot(b.queue)];
        passes
            .get(b.passes.start as usize)
            .filter(|_| !b.passes.is_empty())
            .and_then(|p| schedule.position[p.index()])
            .unwrap_or(u32::MAX)
    };
    batches.sort_by_key(|b| (first_pos(b), b.queue));
}
