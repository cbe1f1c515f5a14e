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
    /// Indices into the sync list of the waits before the first pass.
    pub waits: Vec<usize>,
    /// Timeline value signalled after the last pass.
    pub signal: Option<u64>,
}

/// Groups the passes of every queue into batches.
pub fn batches(schedule: &Schedule, syncs: &[SyncDraft], index: &[u32]) -> Vec<BatchDraft> {
    let n = schedule.queue.len();
    let mut waits_at: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut signals = vec![false; n];
    for (i, s) in syncs.iter().enumerate() {
        waits_at[s.wait.index()].push(i);
        signals[s.signal.index()] = true;
    }
    let mut out: Vec<BatchDraft> = Vec::new();
    for queue in [QueueKind::Graphics, QueueKind::AsyncCompute] {
        let mut current: Option<BatchDraft> = None;
        for &p in schedule
            .order
            .iter()
            .filter(|p| schedule.queue[p.index()] == queue)
        {
            let waits = &waits_at[p.index()];
            if !waits.is_empty() {
                if let Some(b) = current.take() {
                    out.push(b);
                }
            }
            let b = current.get_or_insert_with(|| BatchDraft {
                queue,
                passes: Vec::new(),
                waits: waits.clone(),
                signal: None,
            });
            b.passes.push(p);
            if signals[p.index()] {
                log::trace!(
                    "batch on {queue} ends after pass #{} to signal {}",
                    p.index(),
                    index[p.index()]
                );
                b.signal = Some(u64::from(index[p.index()]));
                out.extend(current.take());
            }
        }
        out.extend(current);
    }
    let first_pos = |b: &BatchDraft| {
        b.passes
            .first()
            .and_then(|p| schedule.position[p.index()])
            .unwrap_or(u32::MAX)
    };
    out.sort_by_key(|b| (first_pos(b), b.queue));
    out
}
