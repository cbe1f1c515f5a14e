//! Ownership of resources used on both queues: EXCLUSIVE sharing with queue-family
//! ownership transfers, or CONCURRENT sharing. Runs before the barrier phase, which emits
//! the release/acquire pairs this decides on.
//!
//! The rule, per resource whose kept uses fall on both queues (uses replayed in execution
//! order; a *hand-over* is two consecutive uses on different queues):
//! 1. Buffers are CONCURRENT: they have no layout and no compression metadata, so concurrent
//!    sharing costs nothing and saves every transfer pair.
//! 2. An image with a hand-over between two reads is CONCURRENT. No dependency orders two
//!    reads (they may share a dependency level), so an exclusive owner would need transfers
//!    (and waits) the graph does not ask for; this covers "read on both queues in one level".
//! 3. An imported image whose content is needed at its first use in the frame, with the first
//!    and last uses on different queues, is CONCURRENT: a transfer would have to cross the
//!    frame boundary.
//! 4. Every other image is EXCLUSIVE: each hand-over follows a dependency edge (the later use
//!    writes, or reads what the earlier one wrote), so the release after the earlier use and
//!    the acquire before the later one are ordered by the semaphore that edge needs anyway.
//!
//! Cost: O(uses).

use super::super::Schedule;
use crate::graph::{Graph, QueueKind, ResourceId};
use crate::plan::SharingMode;
use crate::sync::Layout;

/// How the barrier phase treats a resource across queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Used on one queue only (or not at all): nothing to share.
    OneQueue,
    /// Owned by one queue at a time; every hand-over is a release/acquire pair.
    Exclusive,
    /// Usable by both queues without transfers.
    Concurrent,
}

/// The sharing decision for every resource.
#[derive(Clone, Debug, Default)]
pub struct Ownership {
    /// Indexed by resource.
    pub sharing: Vec<Sharing>,
    /// Resources used on both queues, in declaration order, with mode and reason.
    pub decisions: Vec<(ResourceId, SharingMode, String)>,
}

/// True when a compute-only queue can have an image in `layout` (as the old or new layout of
/// a barrier it records). Attachment-write layouts and presentation belong to graphics.
pub fn compute_can_use(layout: Layout) -> bool {
    !matches!(
        layout,
        Layout::COLOR_ATTACHMENT_OPTIMAL
            | Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
            | Layout::PRESENT_SRC_KHR
    )
}

#[derive(Clone, Copy)]
struct UseAt {
    pass: crate::graph::PassId,
    queue: QueueKind,
    writes: bool,
}

/// Decides the sharing mode of every resource.
pub fn decide(graph: &Graph, schedule: &Schedule) -> Ownership {
    let mut uses: Vec<Vec<UseAt>> = vec![Vec::new(); graph.resources.len()];
    let mut first_keeps = vec![false; graph.resources.len()];
    for &p in &schedule.order {
        let queue = schedule.queue[p.index()];
        for u in &graph.pass(p).uses {
            let list = &mut uses[u.resource.index()];
            if list.is_empty() {
                first_keeps[u.resource.index()] = u.access.keeps_content(u.clear);
            }
            list.push(UseAt {
                pass: p,
                queue,
                writes: u.access.writes(),
            });
        }
    }
    let mut out = Ownership {
        sharing: vec![Sharing::OneQueue; graph.resources.len()],
        decisions: Vec::new(),
    };
    for (r, list) in graph.resource_ids().zip(&uses) {
        let Some(first) = list.first() else { continue };
        if list.iter().all(|u| u.queue == first.queue) {
            continue;
        }
        let res = graph.resource(r);
        let name = |p: crate::graph::PassId| graph.pass(p).name.as_str();
        let (mode, reason) = if res.image_desc().is_none() {
            (SharingMode::Concurrent, "buffer: no layout or compression to protect, so concurrent sharing is free and needs no transfers".to_string())
        } else if let Some(w) = list
            .windows(2)
            .find(|w| w[0].queue != w[1].queue && !w[0].writes && !w[1].writes)
        {
            (
                SharingMode::Concurrent,
                format!(
                    "read on both queues with no dependency between the reads ('{}' on {}, '{}' on {}): exclusive ownership would need extra transfers and waits",
                    name(w[0].pass),
                    w[0].queue,
                    name(w[1].pass),
                    w[1].queue
                ),
            )
        } else if res.imported
            && !res.clear_on_first_use
            && first_keeps[r.index()]
            && list.last().map(|l| l.queue) != Some(first.queue)
        {
            (
                SharingMode::Concurrent,
                format!("imported content crosses the frame boundary from {} (last use) to {} (first use)", list.last().map_or(first.queue, |l| l.queue), first.queue),
            )
        } else {
            (SharingMode::Exclusive, "image; every hand-over follows a dependency, so a release/acquire pair rides on the semaphore it needs anyway".to_string())
        };
        log::debug!("sharing of '{}': {mode:?} ({reason})", res.name);
        out.sharing[r.index()] = match mode {
            SharingMode::Exclusive => Sharing::Exclusive,
            SharingMode::Concurrent => Sharing::Concurrent,
        };
        out.decisions.push((r, mode, reason));
    }
    out
}
