//! What the barrier phase records of each resource's kept uses for the aliasing barriers
//! ([`super::alias_barriers`]): its first use and, per queue, the stages, writes and last
//! position of its uses. Its own module so that the barrier phase, which fills it, and the
//! aliasing barriers, which read it, do not import each other both ways.

use crate::access::SyncScope;
use crate::graph::{PassId, QueueKind};
use crate::sync::{AccessMask, StageMask};

/// What the uses of one resource on one queue add to a later occupant's barrier.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct QueueUses {
    pub(super) stages: StageMask,
    pub(super) writes: AccessMask,
    /// Last use on this queue: its position in the order plus one, 0 for none (so that
    /// the union of several is a plain maximum).
    pub(super) last: u32,
}

/// The first kept use of a resource and its per-queue summaries. The barrier phase gathers
/// them in its walk over the uses ([`Barriers`](super::barriers::Barriers)), so the aliasing
/// barriers walk no use.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ResourceUses {
    pub(super) first: Option<FirstUse>,
    pub(super) per_queue: [QueueUses; 2],
}

/// The first kept use of a resource.
#[derive(Clone, Copy, Debug)]
pub(super) struct FirstUse {
    pub(super) pass: PassId,
    /// Where barriers before `pass` are recorded (the first subpass of its render pass).
    pub(super) anchor: PassId,
    pub(super) queue: QueueKind,
    pub(super) scope: SyncScope,
}

impl ResourceUses {
    /// Where barriers before the first use are recorded, if the resource is used.
    pub(crate) fn first_anchor(&self) -> Option<PassId> {
        self.first.map(|f| f.anchor)
    }

    /// Adds a use at `position` in the order (uses come in execution order) by `pass`, whose
    /// barriers are recorded before `anchor`.
    pub(crate) fn note(
        &mut self,
        position: usize,
        pass: PassId,
        anchor: PassId,
        queue: QueueKind,
        scope: SyncScope,
    ) {
        if self.first.is_none() {
            self.first = Some(FirstUse {
                pass,
                anchor,
                queue,
                scope,
            });
        }
        let q = &mut self.per_queue[slot(queue)];
        q.stages |= scope.stages;
        q.writes |= scope.access & AccessMask::WRITES;
        q.last = position as u32 + 1;
    }
}

/// The union of several occupants' [`QueueUses`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Occupants {
    pub(super) any: bool,
    pub(super) per_queue: [QueueUses; 2],
}

impl Occupants {
    pub(super) fn add(&mut self, r: &ResourceUses) {
        self.any = true;
        for (acc, q) in self.per_queue.iter_mut().zip(&r.per_queue) {
            acc.stages |= q.stages;
            acc.writes |= q.writes;
            acc.last = acc.last.max(q.last);
        }
    }
}

pub(super) fn slot(q: QueueKind) -> usize {
    match q {
        QueueKind::Graphics => 0,
        QueueKind::AsyncCompute => 1,
    }
}
