//! The submission layout of a frame, from the plan's batches: which passes each submit
//! carries, and the timeline values it waits for and signals, frame after frame. Pure logic
//! (no device), so the value arithmetic is tested on its own.
//!
//! Each logical queue has one timeline semaphore. A frame of queue `q` owns the values
//! `f·S_q + 1 ..= f·S_q + S_q`, with `S_q = n_q + 2` (`n_q` passes on `q`):
//! - `f·S_q + v` for a planned value `v` (`Sync.value`, the 1-based position of the
//!   signalling pass in its queue, `1 ≤ v ≤ n_q`);
//! - `f·S_q + n_q + 1`, *work done*: signalled by the queue's last planned batch when it has
//!   no planned value of its own; the tail of the other queue waits for whichever value the
//!   last batch signals.
//!
//! Every wait names a value that some submit signals exactly, never one that is only
//! overtaken by a larger signal: that is legal Vulkan, but the validation layers of Debian 12
//! (1.3.239) then time out tracking the semaphore ("VkSemaphore-state-timeout", seen on the
//! NVIDIA driver with a real async queue), and an exact value costs nothing;
//! - `(f+1)·S_q`, *frame end*: signalled by the tail submit when both queues are used (the
//!   tail waits for the other queue's work done, then reads results back), else by the last
//!   batch directly.
//!
//! Waits: a batch's planned waits `(queue, v)` become `f·S_queue + v`; the first batch of a
//! queue in frame `f > 0` also waits for the frame end of `f − 1` on the other used queue
//! (docs/frame-format.md "Across frames": the plan has no edges for the previous frame's work
//! on the other queue). With overlapping frames (`Plan::frame_overlap`) the first batch of
//! each queue waits for its own queue's frame end of `f − 1` instead (a full dependency on
//! the queue's previous frame, as the other queue's frame end gave before), the async queue's
//! also for the graphics queue's, the batch the plan's cross-frame wait starts for the async
//! queue's frame end of `f − 1`, and the graphics queue's tail waits for nothing: frame `f`'s
//! graphics work may run while frame `f − 1`'s async tail does. Waits on one semaphore are
//! merged into the largest value. Every wait names a value signalled by a submit made earlier (checked
//! by [`SubmitPlan::from_plan`]), so submitting in plan order never deadlocks, even when
//! both logical queues share one `VkQueue`. Cost: O(passes + waits).

use tessera_graph::plan::Plan;
use tessera_graph::QueueKind;

/// Index of a logical queue (graphics 0, async compute 1).
pub fn slot(q: QueueKind) -> usize {
    match q {
        QueueKind::Graphics => 0,
        QueueKind::AsyncCompute => 1,
    }
}

/// The logical queue of an index.
pub fn kind(slot: usize) -> QueueKind {
    if slot == 0 {
        QueueKind::Graphics
    } else {
        QueueKind::AsyncCompute
    }
}

/// One planned submit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubmitBatch {
    /// Logical queue (0 graphics, 1 async compute).
    pub queue: usize,
    /// Positions in `plan.order` of its passes, in queue order.
    pub passes: Vec<usize>,
    /// Planned waits: (logical queue, in-frame value).
    pub waits: Vec<(usize, u64)>,
    /// Planned in-frame signal value.
    pub signal: Option<u64>,
    /// First batch of its queue in the frame.
    pub first_on_queue: bool,
    /// Last batch of its queue in the frame.
    pub last_on_queue: bool,
    /// Waits for the other queue's previous frame (a cross-frame wait of the plan's
    /// `frame_overlap`).
    pub waits_previous_frame: bool,
}

/// The submission layout of one plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubmitPlan {
    /// Planned batches in submission order.
    pub batches: Vec<SubmitBatch>,
    /// Passes per logical queue.
    pub passes: [u64; 2],
    /// Whether each logical queue has work.
    pub used: [bool; 2],
    /// Frames overlap (`frame_overlap`): the graphics queue starts a frame without waiting
    /// for the previous one on the async queue, except where the plan says.
    pub overlap: bool,
}

/// A timeline wait or signal: (logical queue, value).
pub type Point = (usize, u64);

impl SubmitPlan {
    /// Reads and checks `plan.batches`: every kept pass in exactly one batch of its queue,
    /// and every wait on a value that an earlier batch signals.
    pub fn from_plan(plan: &Plan) -> Result<SubmitPlan, String> {
        let pos = plan.positions();
        let mut queue_of = vec![0usize; plan.order.len()];
        let mut index = vec![0u64; plan.order.len()];
        let mut out = SubmitPlan::default();
        for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
            for (k, name) in plan.queues.of(q).iter().enumerate() {
                let &p = pos
                    .get(name.as_str())
                    .ok_or_else(|| format!("queue {q} names unknown pass '{name}'"))?;
                queue_of[p] = slot(q);
                index[p] = k as u64 + 1;
            }
            out.passes[slot(q)] = plan.queues.of(q).len() as u64;
        }
        let mut seen = vec![false; plan.order.len()];
        let mut signalled: Vec<(usize, u64)> = Vec::new();
        for b in &plan.batches {
            let queue = slot(b.queue);
            let mut passes = Vec::with_capacity(b.passes.len());
            for name in &b.passes {
                let &p = pos
                    .get(name.as_str())
                    .ok_or_else(|| format!("a batch names unknown pass '{name}'"))?;
                if queue_of[p] != queue {
                    return Err(format!("pass '{name}' is batched on {}", b.queue));
                }
                if std::mem::replace(&mut seen[p], true) {
                    return Err(format!("pass '{name}' is in two batches"));
                }
                if passes.last().is_some_and(|&l| index[l] >= index[p]) {
                    return Err(format!("batch passes out of queue order at '{name}'"));
                }
                passes.push(p);
            }
            if passes.is_empty() {
                return Err("an empty batch".into());
            }
            let mut waits = Vec::new();
            for w in &b.waits {
                let wq = slot(w.queue);
                if wq == queue || !signalled.contains(&(wq, w.value)) {
                    return Err(format!(
                        "a batch on {} waits for {} value {}, which no earlier batch signals",
                        b.queue, w.queue, w.value
                    ));
                }
                waits.push((wq, w.value));
            }
            if let Some(v) = b.signal {
                let last = *passes.last().unwrap_or(&0);
                if index[last] != v {
                    return Err(format!(
                        "a batch on {} signals {v} after pass #{}",
                        b.queue, index[last]
                    ));
                }
                signalled.push((queue, v));
            }
            out.batches.push(SubmitBatch {
                queue,
                passes,
                waits,
                signal: b.signal,
                first_on_queue: false,
                last_on_queue: false,
                waits_previous_frame: false,
            });
        }
        if let Some(o) = &plan.frame_overlap {
            out.overlap = true;
            for w in &o.waits {
                let b = out
                    .batches
                    .iter_mut()
                    .find(|b| b.queue == 0 && b.passes.first() == pos.get(w.wait.as_str()))
                    .ok_or_else(|| {
                        format!(
                            "the cross-frame wait before '{}' starts no graphics batch",
                            w.wait
                        )
                    })?;
                b.waits_previous_frame = true;
            }
        }
        if let Some(p) = seen.iter().position(|s| !s) {
            return Err(format!("pass '{}' is in no batch", plan.order[p]));
        }
        for q in 0..2 {
            let mine: Vec<usize> = (0..out.batches.len())
                .filter(|&i| out.batches[i].queue == q)
                .collect();
            if let (Some(&f), Some(&l)) = (mine.first(), mine.last()) {
                out.batches[f].first_on_queue = true;
                out.batches[l].last_on_queue = true;
                out.used[q] = true;
            }
        }
        Ok(out)
    }

    /// Whether both logical queues have work (each then gets a tail submit).
    pub fn tails(&self) -> bool {
        self.used[0] && self.used[1]
    }

    /// Timeline values per frame of queue `q`.
    pub fn stride(&self, q: usize) -> u64 {
        self.passes[q] + 2
    }

    /// Value of the in-frame value `v` of queue `q` in frame `f`.
    pub fn value(&self, q: usize, f: u64, v: u64) -> u64 {
        f * self.stride(q) + v
    }

    /// Value signalled when queue `q` has run every planned batch of frame `f`.
    pub fn work_done(&self, q: usize, f: u64) -> u64 {
        self.value(q, f, self.passes[q] + 1)
    }

    /// Value signalled when queue `q` has finished frame `f` (readbacks included).
    pub fn frame_end(&self, q: usize, f: u64) -> u64 {
        (f + 1) * self.stride(q)
    }

    /// Every wait of batch `i` in frame `f`; `planned` false drops the planned ones (a
    /// test-only switch).
    pub fn waits(&self, i: usize, f: u64, planned: bool) -> Vec<Point> {
        let b = &self.batches[i];
        let mut out: Vec<Point> = Vec::new();
        if planned {
            out.extend(b.waits.iter().map(|&(q, v)| (q, self.value(q, f, v))));
        }
        if f > 0 {
            let o = 1 - b.queue;
            if !self.overlap {
                // Frames in sequence: each queue starts a frame after the other's previous.
                if b.first_on_queue && self.used[o] {
                    out.push((o, self.frame_end(o, f - 1)));
                }
            } else {
                if b.first_on_queue {
                    // After its own previous frame, as a semaphore (a full dependency, as
                    // the other queue's frame end gave before frames overlapped); the async
                    // queue also after the graphics queue's previous frame.
                    out.push((b.queue, self.frame_end(b.queue, f - 1)));
                    if b.queue == 1 && self.used[0] {
                        out.push((0, self.frame_end(0, f - 1)));
                    }
                }
                if b.waits_previous_frame && self.used[1] {
                    out.push((1, self.frame_end(1, f - 1)));
                }
            }
        }
        // One wait per semaphore: the largest value implies the others.
        out.sort_unstable();
        out.reverse();
        out.dedup_by_key(|p| p.0);
        out
    }

    /// The signal of batch `i` in frame `f`, if any.
    pub fn signal(&self, i: usize, f: u64) -> Option<Point> {
        let b = &self.batches[i];
        if b.last_on_queue {
            return Some((b.queue, self.last_signal(b.queue, f)));
        }
        b.signal.map(|v| (b.queue, self.value(b.queue, f, v)))
    }

    /// The value the last planned batch of queue `q` signals in frame `f`: its planned value
    /// when it has one (others may wait for exactly that), else work done; the frame end
    /// directly when the other queue is unused (no tail submits).
    fn last_signal(&self, q: usize, f: u64) -> u64 {
        if !self.tails() {
            return self.frame_end(q, f);
        }
        let planned = self
            .batches
            .iter()
            .rev()
            .find(|b| b.queue == q)
            .and_then(|b| b.signal);
        match planned {
            Some(v) => self.value(q, f, v),
            None => self.work_done(q, f),
        }
    }

    /// The tail submit of queue `q` in frame `f` (when [`Self::tails`]): it waits for exactly
    /// what the other queue's last batch signals, and signals the frame end of `q`. With
    /// overlapping frames the graphics queue's waits for nothing: the async queue may still
    /// run the frame's tail while graphics goes on with the next frame.
    pub fn tail(&self, q: usize, f: u64) -> (Option<Point>, Point) {
        let o = 1 - q;
        let wait = (!(self.overlap && q == 0)).then(|| (o, self.last_signal(o, f)));
        (wait, (q, self.frame_end(q, f)))
    }

    /// Submits per frame (batches plus tails).
    pub fn submits(&self) -> usize {
        self.batches.len() + if self.tails() { 2 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_graph::access::Access;
    use tessera_graph::{compile, Capabilities, CompileOptions, Format, Graph, ImageDesc};

    /// Depth prepass, light culling on async compute, then two consumers on graphics.
    fn scenario() -> Plan {
        let mut g = Graph::new("s");
        let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 64, 64));
        let tiles = g.buffer("tiles", 1024);
        let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
        g.resource_mut(hdr).output = true;
        g.raster("prepass").clears(depth, Access::DepthWrite).id();
        g.compute("cull")
            .on_queue(QueueKind::AsyncCompute)
            .uses(depth, Access::Sampled)
            .uses(tiles, Access::StorageWrite)
            .id();
        g.raster("opaque")
            .uses(tiles, Access::StorageRead)
            .uses(depth, Access::DepthRead)
            .clears(hdr, Access::ColorWrite)
            .id();
        let sequential = CompileOptions {
            overlap_frames: false,
            ..CompileOptions::ALL
        };
        compile(&g, &Capabilities::desktop(), &sequential).unwrap()
    }

    /// The scenario plus a post pass on the async queue after the last raster pass (the
    /// tail), compiled with overlapping frames.
    fn overlapping() -> Plan {
        let mut g = Graph::new("o");
        let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 64, 64));
        let tiles = g.buffer("tiles", 1024);
        let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
        let ldr = g.image("ldr", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
        // A read-back target: imported, never placed.
        g.resource_mut(ldr).origin = tessera_graph::Origin::Imported(Default::default());
        g.raster("prepass").clears(depth, Access::DepthWrite).id();
        g.compute("cull")
            .on_queue(QueueKind::AsyncCompute)
            .uses(depth, Access::Sampled)
            .uses(tiles, Access::StorageWrite)
            .id();
        g.raster("opaque")
            .uses(tiles, Access::StorageRead)
            .uses(depth, Access::DepthRead)
            .clears(hdr, Access::ColorWrite)
            .id();
        g.compute("post")
            .on_queue(QueueKind::AsyncCompute)
            .uses(hdr, Access::Sampled)
            .uses(ldr, Access::StorageWrite)
            .id();
        compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap()
    }

    #[test]
    fn overlapping_frames_start_graphics_without_waiting_for_the_async_tail() {
        let plan = overlapping();
        let o = plan
            .frame_overlap
            .as_ref()
            .expect("the plan overlaps frames");
        assert_eq!(o.tail, ["post"]);
        assert_eq!(o.head, ["prepass"]);
        assert!(o.waits.is_empty(), "{o:?}");
        let s = SubmitPlan::from_plan(&plan).unwrap();
        assert!(s.overlap && s.tails());
        replay(&s, 4);
        for i in 0..s.batches.len() {
            let b = &s.batches[i];
            let waits = s.waits(i, 2, true);
            if b.first_on_queue && b.queue == 0 {
                // Its own previous frame only: the async queue may still run frame 1's post.
                assert_eq!(waits, vec![(0, s.frame_end(0, 1))], "{waits:?}");
            }
            if b.first_on_queue && b.queue == 1 {
                // (a later value of a semaphore implies the earlier ones)
                let on = |q: usize| waits.iter().find(|w| w.0 == q).map(|w| w.1);
                assert!(on(0) >= Some(s.frame_end(0, 1)), "{waits:?}");
                assert!(on(1) >= Some(s.frame_end(1, 1)), "{waits:?}");
            }
        }
        assert_eq!(
            s.tail(0, 2).0,
            None,
            "graphics ends its frame without the async tail"
        );
        assert_eq!(s.tail(1, 2).0.map(|w| w.0), Some(0));
    }

    /// Replays `frames` frames in submission order and checks that every wait names a
    /// value some earlier submit signalled exactly, and that values only grow per queue.
    fn replay(s: &SubmitPlan, frames: u64) -> Vec<(usize, u64)> {
        let mut top = [0u64; 2];
        let mut log = Vec::new();
        let signal = |(q, v): Point, top: &mut [u64; 2], log: &mut Vec<Point>| {
            assert!(v > top[q], "queue {q}: {v} after {}", top[q]);
            top[q] = v;
            log.push((q, v));
        };
        for f in 0..frames {
            for i in 0..s.batches.len() {
                for (q, v) in s.waits(i, f, true) {
                    assert!(
                        log.contains(&(q, v)),
                        "frame {f} batch {i} waits {q}:{v}, which no earlier submit signals \
                         exactly ({} is the latest)",
                        top[q]
                    );
                }
                if let Some(p) = s.signal(i, f) {
                    signal(p, &mut top, &mut log);
                }
            }
            if s.tails() {
                for q in 0..2 {
                    let (w, sig) = s.tail(q, f);
                    if let Some(w) = w {
                        assert!(log.contains(&w), "tail of {q} waits {w:?}, never signalled");
                    }
                    signal(sig, &mut top, &mut log);
                }
            }
        }
        log
    }

    #[test]
    fn async_plan_becomes_ordered_submits_with_growing_values() {
        let plan = scenario();
        assert!(
            !plan.queues.async_compute.is_empty(),
            "the scenario uses async compute"
        );
        let s = SubmitPlan::from_plan(&plan).unwrap();
        assert!(s.tails());
        assert_eq!(s.batches.len(), plan.batches.len());
        assert_eq!(s.submits(), plan.batches.len() + 2);
        let log = replay(&s, 4);
        // Each frame signals every planned value once plus one frame end per queue.
        assert!(log.len() >= 4 * 2);
        // A planned wait of frame f is never satisfied by frame f-1's frame end.
        for i in 0..s.batches.len() {
            for &(q, v) in &s.batches[i].waits {
                assert!(s.value(q, 1, v) > s.frame_end(q, 0));
                assert!(s.value(q, 1, v) <= s.work_done(q, 1));
            }
        }
        // The first batch of each queue waits for the other queue's previous frame (or a
        // later value of it), one wait per semaphore.
        for i in 0..s.batches.len() {
            let b = &s.batches[i];
            let o = 1 - b.queue;
            let waits = s.waits(i, 3, true);
            let on_other = waits.iter().find(|w| w.0 == o).map(|w| w.1);
            if b.first_on_queue {
                assert!(on_other >= Some(s.frame_end(o, 2)), "{waits:?}");
            }
            assert_eq!(
                waits.iter().filter(|w| w.0 == o).count(),
                usize::from(on_other.is_some())
            );
            assert!(s.waits(i, 0, false).is_empty());
        }
        // Dropping planned waits keeps only the previous-frame ones.
        let dropped: usize = (0..s.batches.len())
            .map(|i| s.waits(i, 1, false).len())
            .sum();
        assert_eq!(dropped, 2);
    }

    #[test]
    fn one_queue_plan_has_no_tails_and_ends_frames_on_its_last_batch() {
        let caps = Capabilities {
            async_compute: false,
            ..Capabilities::desktop()
        };
        let mut g = Graph::new("one");
        let b = g.buffer("b", 64);
        g.resource_mut(b).output = true;
        g.compute("w").uses(b, Access::StorageWrite).id();
        let one = compile(&g, &caps, &CompileOptions::ALL).unwrap();
        let s = SubmitPlan::from_plan(&one).unwrap();
        assert!(!s.tails());
        assert_eq!(s.submits(), 1);
        assert_eq!(s.signal(0, 5), Some((0, s.frame_end(0, 5))));
        assert!(s.waits(0, 5, true).is_empty());
        replay(&s, 3);
    }

    #[test]
    fn broken_batches_are_rejected() {
        let plan = scenario();
        let mut p = plan.clone();
        p.batches.swap(0, 1);
        assert!(SubmitPlan::from_plan(&p)
            .unwrap_err()
            .contains("no earlier batch"));
        let mut p = plan.clone();
        p.batches.pop();
        assert!(SubmitPlan::from_plan(&p)
            .unwrap_err()
            .contains("in no batch"));
        let mut p = plan;
        let extra = p.batches[0].clone();
        p.batches.push(extra);
        assert!(SubmitPlan::from_plan(&p).is_err());
    }
}
