//! Phase 8, syncs: cross-queue hazards become timeline-semaphore edges (signal after the
//! producer on its queue, wait before the consumer on its queue).
//!
//! One edge per (producer, consumer) pair, listing every resource it covers.

use super::barriers::CrossQueueHazard;
use super::Schedule;
use crate::graph::{Graph, PassId, ResourceId};

/// A semaphore edge with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncDraft {
    /// Pass after which the semaphore is signalled.
    pub signal: PassId,
    /// Pass before which it is waited on.
    pub wait: PassId,
    /// Resources covered.
    pub resources: Vec<ResourceId>,
}

/// Semaphore edges for the hazards, in execution order of the waiting pass.
pub fn syncs(_graph: &Graph, _schedule: &Schedule, hazards: &[CrossQueueHazard]) -> Vec<SyncDraft> {
    let mut out: Vec<SyncDraft> = Vec::new();
    for h in hazards {
        match out
            .iter_mut()
            .find(|s| s.signal == h.from && s.wait == h.to)
        {
            Some(s) => {
                if !s.resources.contains(&h.resource) {
                    s.resources.push(h.resource);
                }
            }
            None => out.push(SyncDraft {
                signal: h.from,
                wait: h.to,
                resources: vec![h.resource],
            }),
        }
    }
    out
}
