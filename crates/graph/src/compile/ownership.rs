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
//! 4. A persistent resource ([`crate::graph::Origin::Persistent`]) is CONCURRENT: its
//!    writer may run on one queue in one frame and its readers on the other in later frames
//!    whose plans differ (the writer skipped), so no one plan could place the transfers; the
//!    executor creates every persistent resource concurrent for the same reason.
//! 5. Every other image is EXCLUSIVE: each hand-over follows a dependency edge (the later use
//!    writes, or reads what the earlier one wrote), so the release after the earlier use and
//!    the acquire before the later one are ordered by the semaphore that edge needs anyway.
//!
//! Cost: O(uses).

use super::Schedule;
use crate::graph::{Graph, QueueKind, ResourceId};
use crate::name::Name;
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
    pub decisions: Vec<(ResourceId, SharingMode, Name)>,
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

/// What the replay remembers per resource.
#[derive(Clone, Copy, Default)]
struct Seen {
    first: Option<UseAt>,
    first_keeps: bool,
    last: Option<UseAt>,
    both: bool,
    read_read: Option<(UseAt, UseAt)>,
}

/// Decides the sharing mode of every resource.
pub fn decide(graph: &Graph, schedule: &Schedule) -> Ownership {
    let mut out = Ownership {
        sharing: vec![Sharing::OneQueue; graph.resources.len()],
        decisions: Vec::new(),
    };
    if !schedule.uses_async() {
        return out;
    }
    let mut seen = vec![Seen::default(); graph.resources.len()];
    for &p in &schedule.order {
        let queue = schedule.queue[p.index()];
        for u in &graph.pass(p).uses {
            let s = &mut seen[u.resource.index()];
            let me = UseAt {
                pass: p,
                queue,
                writes: u.access.writes(),
            };
            match s.last {
                None => {
                    s.first = Some(me);
                    s.first_keeps = u.access.keeps_content(u.clear);
                }
                Some(l) if l.queue != queue => {
                    s.both = true;
                    if !l.writes && !me.writes && s.read_read.is_none() {
                        s.read_read = Some((l, me));
                    }
                }
                Some(_) => {}
            }
            s.last = Some(me);
        }
    }
    // The two halves of a double-buffered history pair are one physical resource each,
    // alternating: each crosses the queues of both (as `both`, with the reason below).
    let queues = |s: &Seen| {
        [s.first, s.last]
            .into_iter()
            .flatten()
            .fold(0u8, |m, u| m | (1 << (u.queue as u8)))
            | if s.both { 3 } else { 0 }
    };
    let mut pair_crosses = vec![false; graph.resources.len()];
    for r in graph.resource_ids() {
        if let Some(twin) = graph.resource(r).history_twin() {
            pair_crosses[r.index()] = (queues(&seen[r.index()]) | queues(&seen[twin.index()])) == 3;
        }
    }
    // Reasons are shared text (one allocation per compile, not per resource).
    let reasons: [Name; 6] = [
        Name::from("buffer: no layout or compression to protect, so concurrent sharing is free and needs no transfers"),
        Name::from("read on both queues with no dependency between the reads: exclusive ownership would need extra transfers and waits"),
        Name::from("imported content crosses the frame boundary between the queues of its last and first uses"),
        Name::from("image; every hand-over follows a dependency, so a release/acquire pair rides on the semaphore it needs anyway"),
        Name::from("half of a double-buffered history pair whose two halves are used on different queues: each physical resource crosses between them at the frame boundary"),
        Name::from("persistent: written on one queue and read on the other across frames whose plans differ (the writer skipped), so no plan could place the transfers"),
    ];
    for (r, s) in graph.resource_ids().zip(&seen) {
        let res = graph.resource(r);
        // (Also a half no kept pass uses this frame: its image is its twin next frame.)
        let (mode, reason) = if pair_crosses[r.index()] {
            (SharingMode::Concurrent, &reasons[4])
        } else if !s.both {
            continue;
        } else if let (Some(first), Some(last)) = (s.first, s.last) {
            if res.is_kept_across_plans() {
                (SharingMode::Concurrent, &reasons[5])
            } else if res.image_desc().is_none() {
                (SharingMode::Concurrent, &reasons[0])
            } else if let Some((a, b)) = s.read_read {
                log::trace!(
                    "'{}' is read by '{}' ({}) then '{}' ({})",
                    res.name,
                    graph.pass(a.pass).name,
                    a.queue,
                    graph.pass(b.pass).name,
                    b.queue
                );
                (SharingMode::Concurrent, &reasons[1])
            } else if res.is_persistent()
                && !res.clear_on_first_use()
                && s.first_keeps
                && last.queue != first.queue
            {
                (SharingMode::Concurrent, &reasons[2])
            } else {
                (SharingMode::Exclusive, &reasons[3])
            }
        } else {
            continue;
        };
        let reason = *reason;
        log::debug!("sharing of '{}': {mode:?} ({reason})", res.name);
        out.sharing[r.index()] = match mode {
            SharingMode::Exclusive => Sharing::Exclusive,
            SharingMode::Concurrent => Sharing::Concurrent,
        };
        out.decisions.push((r, mode, reason));
    }
    out
}
