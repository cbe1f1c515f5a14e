//! The plan's `frame_overlap` section: how frame N's tail on the async queue overlaps frame
//! N+1's head on the graphics queue (see `compile::overlap` for how it is decided).

use super::{Block, List};
use crate::graph::QueueKind;
use crate::name::Name;
use serde::{Deserialize, Serialize};

/// Two consecutive frames on two queues: which passes may run at the same time, what that
/// costs in memory and where the next frame waits for the previous one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameOverlap {
    /// Async-queue passes of frame N that no graphics pass of frame N waits for, in queue
    /// order: they may still run when the graphics queue starts frame N+1.
    pub tail: List<Name>,
    /// Graphics passes of frame N+1, in queue order, that may run while the tail runs (every
    /// pair of a tail pass and a head pass may overlap). The head ends at the first
    /// graphics pass that waits: for the previous frame's tail (`waits`) or, in the frame,
    /// for the async queue (whose own order then puts the whole tail first).
    pub head: List<Name>,
    /// Why the head ends where it ends.
    pub head_end: Name,
    /// Cross-frame semaphore waits (at most one: a wait for the tail's last pass implies
    /// every earlier one, and an in-frame wait on the async queue implies the whole tail).
    pub waits: Vec<CrossFrameWait>,
    /// Transient resources that exist twice, alternating by frame parity, so that the tail
    /// and the head each have their own.
    pub doubled: Vec<DoubledResource>,
    /// Transient resources moved to memory of their own so that the tail's memory and the
    /// head's never alias while both are alive.
    pub replaced: Vec<ReplacedResource>,
    /// Blocks of the odd-frame copies of `doubled` (placements name the resource).
    pub twin_blocks: Vec<Block>,
    /// Bytes the overlap adds to one frame's transient memory (twins and moved resources).
    pub extra_bytes: u64,
    /// The most it may add: a fixed share of the frame's transient memory.
    pub budget_bytes: u64,
}

/// A wait of frame N+1 for frame N on the other queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrossFrameWait {
    /// The pass of frame N+1 before which the semaphore is waited on (the first subpass of
    /// its render pass).
    pub wait: Name,
    /// Its queue.
    pub wait_queue: QueueKind,
    /// The pass of frame N after which the value waited for is signalled (the tail's last).
    pub signal: Name,
    /// Its queue.
    pub signal_queue: QueueKind,
    /// The resources whose cross-frame hazards end the head here.
    pub resources: Vec<Name>,
    /// Why the hazards were not removed instead.
    pub reason: String,
}

/// A transient that exists twice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoubledResource {
    /// The resource (even frames use its placement in `memory`, odd frames its twin in
    /// `twin_blocks`).
    pub resource: Name,
    /// Bytes of the second copy.
    pub bytes: u64,
    /// The tail pass and head pass that both use it.
    pub tail_pass: Name,
    /// See `tail_pass`.
    pub head_pass: Name,
}

/// A transient moved out of the shared block into a block of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplacedResource {
    /// The resource.
    pub resource: Name,
    /// Bytes of its new block.
    pub bytes: u64,
    /// The resource of the other frame whose memory it shared.
    pub aliased_with: Name,
}
