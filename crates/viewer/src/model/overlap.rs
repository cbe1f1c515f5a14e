//! Two consecutive frames on the queue lanes, for a plan with `frame_overlap`.
//!
//! Passes are equal-width columns, as on the single-frame lanes (a plan has no timing).
//! Frame N keeps the single-frame columns (column = position in `plan.order`). Frame N+1's
//! passes, in plan order, each go to the first column that respects:
//! - its queue: after frame N's last pass on that queue (one queue runs one frame after the
//!   other) and, keeping frame N's spacing on the lane, as far after the previous pass of
//!   frame N+1 on its queue as it is in the plan's order; so frame N+1's graphics lane starts
//!   right after frame N's last graphics pass, beside frame N's async tail;
//! - the frame's semaphores (`plan.syncs`): after the pass of frame N+1 it waits for;
//! - a cross-frame wait (`frame_overlap.waits`): after the pass of frame N it waits for.
//!
//! Cost: O(passes + waits).

use super::Index;
use serde::Serialize;
use std::collections::HashMap;
use tessera_graph::graph::QueueKind;
use tessera_graph::plan::{DoubledResource, ReplacedResource};
use tessera_graph::Name;

/// One pass of one of the two frames, placed in a column of the two-frame lanes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FramePass {
    /// 0 for frame N, 1 for frame N+1.
    pub frame: u32,
    /// Index into the page's `passes` (its position in `plan.order`).
    pub pass: u32,
    /// The pass.
    pub name: Name,
    /// Its queue.
    pub queue: QueueKind,
    /// Column on the two-frame lanes.
    pub column: u32,
    /// In the tail (async passes of frame N no graphics pass of frame N waits for).
    pub tail: bool,
    /// In the head (graphics passes of frame N+1 that may run beside frame N's tail).
    pub head: bool,
}

/// A cross-frame semaphore wait placed on the two-frame lanes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrossFrameWaitView {
    /// The pass of frame N that signals (the tail's last).
    pub signal: Name,
    /// Its queue.
    pub signal_queue: QueueKind,
    /// Its column (frame N).
    pub signal_column: u32,
    /// The pass of frame N+1 that waits.
    pub wait: Name,
    /// Its queue.
    pub wait_queue: QueueKind,
    /// Its column (frame N+1).
    pub wait_column: u32,
    /// The resources whose hazards end the head there.
    pub resources: Vec<Name>,
    /// Why the hazards were not removed instead.
    pub reason: String,
}

/// Two overlapping frames: the passes of frame N and N+1 on the lanes and what the overlap
/// costs in memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TwoFrames {
    /// Columns on the two-frame lanes.
    pub columns: u32,
    /// Frame N's passes (in plan order), then frame N+1's.
    pub passes: Vec<FramePass>,
    /// Column of frame N+1's first graphics pass (right after frame N's last graphics pass).
    pub next_frame_column: u32,
    /// Column after frame N's last pass (where frame N, its tail included, ends).
    pub frame_end_column: u32,
    /// Frame N's tail, in queue order.
    pub tail: Vec<Name>,
    /// Frame N+1's head, in queue order.
    pub head: Vec<Name>,
    /// The graphics pass of frame N+1 where the head ends (empty when the head holds every
    /// graphics pass).
    pub head_end: Name,
    /// Its column (frame N+1).
    pub head_end_column: Option<u32>,
    /// Cross-frame waits.
    pub waits: Vec<CrossFrameWaitView>,
    /// Transients that exist twice.
    pub doubled: Vec<DoubledResource>,
    /// Transients placed apart.
    pub replaced: Vec<ReplacedResource>,
    /// Bytes the overlap adds to the frame's transient memory.
    pub extra_bytes: u64,
    /// The most it may add.
    pub budget_bytes: u64,
    /// `extra_bytes` as a percentage of `budget_bytes` (0 when the budget is 0).
    pub budget_percent: f64,
}

impl TwoFrames {
    /// The entry of `name` in `frame` (0 or 1).
    pub fn entry(&self, frame: u32, name: &str) -> Option<&FramePass> {
        self.passes
            .iter()
            .find(|p| p.frame == frame && p.name == name)
    }
}

/// The two-frame view of the plan, if it overlaps frames.
pub(crate) fn two_frames(index: &Index<'_>) -> Option<TwoFrames> {
    let plan = index.plan;
    let o = plan.frame_overlap.as_ref()?;
    let queues: Vec<QueueKind> = plan.order.iter().map(|n| index.queue_of(n)).collect();
    let last_on = |q: QueueKind| queues.iter().rposition(|&k| k == q).map(|i| i as u32);
    let last_graphics = last_on(QueueKind::Graphics);
    let last_async = last_on(QueueKind::AsyncCompute);
    let after = |c: Option<u32>| c.map_or(0, |c| c + 1);
    let n = plan.order.len() as u32;
    let in_list = |list: &[Name], name: &Name| list.iter().any(|x| x == name);
    let tail: Vec<Name> = o.tail.to_vec();
    let head: Vec<Name> = o.head.to_vec();
    // Cross-frame waits by waiting pass: the column after their signal's (frame N).
    let mut wait_after: HashMap<&str, u32> = HashMap::new();
    for w in &o.waits {
        if let Some(&p) = index.position.get(w.signal.as_str()) {
            let e = wait_after.entry(w.wait.as_str()).or_insert(0);
            *e = (*e).max(p + 1);
        }
    }
    let mut passes: Vec<FramePass> = plan
        .order
        .iter()
        .enumerate()
        .map(|(i, name)| FramePass {
            frame: 0,
            pass: i as u32,
            name: *name,
            queue: queues[i],
            column: i as u32,
            tail: in_list(&tail, name),
            head: false,
        })
        .collect();
    // Frame N+1: per queue, the previous pass's column and position.
    let mut prev: HashMap<QueueKind, (u32, u32)> = HashMap::new();
    let mut col1: HashMap<&str, u32> = HashMap::new();
    let mut columns = n;
    for (i, name) in plan.order.iter().enumerate() {
        let q = queues[i];
        let on_queue = match prev.get(&q) {
            Some(&(c, p)) => c + (i as u32 - p),
            None => match q {
                QueueKind::Graphics => after(last_graphics),
                QueueKind::AsyncCompute => after(last_async),
            },
        };
        let in_frame = plan
            .syncs
            .iter()
            .filter(|s| s.wait == *name)
            .filter_map(|s| col1.get(s.signal.as_str()).map(|c| c + 1))
            .max()
            .unwrap_or(0);
        let column = on_queue
            .max(in_frame)
            .max(wait_after.get(name.as_str()).copied().unwrap_or(0));
        prev.insert(q, (column, i as u32));
        col1.insert(name.as_str(), column);
        columns = columns.max(column + 1);
        passes.push(FramePass {
            frame: 1,
            pass: i as u32,
            name: *name,
            queue: q,
            column,
            tail: false,
            head: in_list(&head, name),
        });
    }
    let column_of = |frame: u32, name: &Name| {
        passes
            .iter()
            .find(|p| p.frame == frame && p.name == *name)
            .map(|p| p.column)
    };
    let waits = o
        .waits
        .iter()
        .map(|w| CrossFrameWaitView {
            signal: w.signal,
            signal_queue: w.signal_queue,
            signal_column: column_of(0, &w.signal).unwrap_or(0),
            wait: w.wait,
            wait_queue: w.wait_queue,
            wait_column: column_of(1, &w.wait).unwrap_or(0),
            resources: w.resources.clone(),
            reason: w.reason.clone(),
        })
        .collect();
    // The pass of frame N+1 where the head ends (none when the head holds every graphics pass).
    let head_end_column = if o.head_end.as_str().is_empty() {
        None
    } else {
        column_of(1, &o.head_end)
    };
    let next_frame_column = passes
        .iter()
        .find(|p| p.frame == 1 && p.queue == QueueKind::Graphics)
        .map_or(after(last_graphics), |p| p.column);
    let budget_percent = if o.budget_bytes == 0 {
        0.0
    } else {
        100.0 * o.extra_bytes as f64 / o.budget_bytes as f64
    };
    Some(TwoFrames {
        columns,
        passes,
        next_frame_column,
        frame_end_column: n,
        tail,
        head,
        head_end: o.head_end,
        head_end_column,
        waits,
        doubled: o.doubled.clone(),
        replaced: o.replaced.clone(),
        extra_bytes: o.extra_bytes,
        budget_bytes: o.budget_bytes,
        budget_percent,
    })
}
