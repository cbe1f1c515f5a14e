//! Submission batches: per queue, passes grouped into one submit until a signal is needed;
//! a pass that waits starts a new batch.
//!
//! Waits are anchored at the first subpass of a render pass and signals after its last, so a
//! batch boundary never splits a render pass. Batches are listed in submission order: by the
//! execution-order position of their first pass (a topological order, so every signal a
//! batch waits for is submitted before it). Cost: O(passes + syncs).

use super::super::Schedule;
use super::SyncDraft;
use crate::graph::{PassId, QueueKind};

/// One submit, with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchDraft {
    /// Queue.
    pub queue: QueueKind,
    /// Passes in queue order.
    pub passes: Vec<PassId>,
    /// Indices into the sync list of the waits before the first pass (syncs are listed in
    /// execution order of the waiting pass, so they are contiguous).
    pub waits: std::ops::Range<usize>,
    /// Timeline value signalled after the last pass.
    pub signal: Option<u64>,
}

/// Groups the passes of every queue into batches.
pub fn batches(schedule: &Schedule, syncs: &[SyncDraft], index: &[u32]) -> Vec<BatchDraft> {
    let queue_passes = |queue: QueueKind| -> Vec<PassId> {
        schedule
            .order
            .iter()
            .copied()
            .filter(|p| schedule.queue[p.index()] == queue)
            .collect()
    };
    if syncs.is_empty() {
        // No waits and no signals: one batch per used queue (what the loop below gives).
        let mut out: Vec<BatchDraft> = [QueueKind::Graphics, QueueKind::AsyncCompute]
            .into_iter()
            .map(|queue| BatchDraft {
                queue,
                passes: queue_passes(queue),
                waits: 0..0,
                signal: None,
            })
            .filter(|b| !b.passes.is_empty())
            .collect();
        sort_batches(schedule, &mut out);
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
    for queue in [QueueKind::Graphics, QueueKind::AsyncCompute] {
        let passes = queue_passes(queue);
        let mut start = 0usize;
        for (i, &p) in passes.iter().enumerate() {
            let waits = wait_start[p.index()] as usize..wait_end[p.index()] as usize;
            let signal = signals[p.index()];
            if !waits.is_empty() && i > start {
                out.push(BatchDraft {
                    queue,
                    passes: passes[start..i].to_vec(),
                    waits: batch_waits(&passes, start, &wait_start, &wait_end),
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
                    passes: passes[start..=i].to_vec(),
                    waits: batch_waits(&passes, start, &wait_start, &wait_end),
                    signal: Some(u64::from(index[p.index()])),
                });
                start = i + 1;
            }
        }
        if start < passes.len() {
            out.push(BatchDraft {
                queue,
                passes: passes[start..].to_vec(),
                waits: batch_waits(&passes, start, &wait_start, &wait_end),
                signal: None,
            });
        }
    }
    sort_batches(schedule, &mut out);
    out
}

/// Submission order: by the execution-order position of each batch's first pass.
fn sort_batches(schedule: &Schedule, batches: &mut [BatchDraft]) {
    let first_pos = |b: &BatchDraft| {
        b.passes
            .first()
            .and_then(|p| schedule.position[p.index()])
            .unwrap_or(u32::MAX)
    };
    batches.sort_by_key(|b| (first_pos(b), b.queue));
}

/// The waits of the batch starting at `passes[start]`.
fn batch_waits(
    passes: &[PassId],
    start: usize,
    wait_start: &[u32],
    wait_end: &[u32],
) -> std::ops::Range<usize> {
    let p = passes[start].index();
    wait_start[p] as usize..wait_end[p] as usize
}
