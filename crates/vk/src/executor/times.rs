//! GPU pass times as the executor hands them out: one frame's spans ([`FrameTimes`]), the
//! newest completed frame kept across re-plans ([`TimedFrame`]) and the running plan's
//! means ([`PassTiming`]). A leaf module: plain data and arithmetic, no Vulkan.
//!
//! The newest frame lives outside the plan because a re-plan reads the frames in flight
//! into the old plan and then retires it: a window that toggles every frame or two would
//! otherwise never show a GPU time.

use tessera_graph::QueueKind;

/// One pass's GPU span in one frame (device timestamps, nanoseconds).
#[derive(Clone, Debug, PartialEq)]
pub struct PassSpan {
    /// Pass name.
    pub pass: String,
    /// The logical queue it ran on.
    pub queue: QueueKind,
    /// Timestamp before its first command.
    pub start_ns: f64,
    /// Timestamp after its last command.
    pub end_ns: f64,
}

impl PassSpan {
    /// The pass's own GPU time in milliseconds (end minus start).
    pub fn ms(&self) -> f64 {
        (self.end_ns - self.start_ns) / 1e6
    }
}

/// The pass spans of one frame, in execution order (passes without valid timestamps left out).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameTimes {
    /// The spans.
    pub passes: Vec<PassSpan>,
}

impl FrameTimes {
    /// Each pass's own GPU time in milliseconds, in execution order. Passes that overlap
    /// (the two queues, or the subpasses of one render pass on a tiler) each count in full,
    /// so the sum can exceed [`FrameTimes::span_ms`].
    pub fn gpu_ms_per_pass(&self) -> Vec<(&str, f64)> {
        self.passes
            .iter()
            .map(|s| (s.pass.as_str(), s.ms()))
            .collect()
    }

    /// The time `queue` was busy with the frame's passes, as sorted, disjoint intervals in
    /// nanoseconds: the union of its passes' spans (passes of one queue may overlap: the
    /// subpasses of a render pass on a tiler).
    pub fn queue_spans(&self, queue: QueueKind) -> Vec<(f64, f64)> {
        let mut spans: Vec<(f64, f64)> = self
            .passes
            .iter()
            .filter(|s| s.queue == queue)
            .map(|s| (s.start_ns, s.end_ns))
            .collect();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut out: Vec<(f64, f64)> = Vec::new();
        for (start, end) in spans {
            match out.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => out.push((start, end)),
            }
        }
        out
    }

    /// How long `queue` was busy with the frame's passes, in milliseconds: the length of
    /// [`FrameTimes::queue_spans`], so overlapping spans count once and the gaps between
    /// passes (barriers and render pass begins no pass timestamp covers) not at all. 0
    /// without passes on it.
    pub fn queue_busy_ms(&self, queue: QueueKind) -> f64 {
        // `+ 0.0`: an empty float sum is -0.0.
        self.queue_spans(queue)
            .iter()
            .map(|(s, e)| e - s)
            .sum::<f64>()
            / 1e6
            + 0.0
    }

    /// The frame's GPU span in nanoseconds: the earliest pass start and the latest pass end
    /// over both queues (`None` without passes). The two queues share the device's
    /// timestamp clock, so their spans compare.
    pub fn span_ns(&self) -> Option<(f64, f64)> {
        let start = self.passes.iter().map(|s| s.start_ns).reduce(f64::min)?;
        let end = self.passes.iter().map(|s| s.end_ns).reduce(f64::max)?;
        Some((start, end))
    }

    /// [`FrameTimes::span_ns`] as a length in milliseconds (0 without passes): the frame's
    /// GPU latency from its first pass to its last, idle gaps included.
    pub fn span_ms(&self) -> f64 {
        self.span_ns().map_or(0.0, |(s, e)| (e - s) / 1e6)
    }
}

/// One completed frame's GPU pass times.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedFrame {
    /// The frame's number: the value [`crate::executor::Executor::frames`] had when it was
    /// submitted (0 for the first frame).
    pub frame: u64,
    /// The plan that ran it ([`crate::executor::Executor::plan_generation`] then): when it
    /// differs from the running plan's, these times are of an older plan (stale).
    pub plan: u64,
    /// Its pass spans.
    pub times: FrameTimes,
}

/// Keeps `frame` (run by plan `plan`) in `newest` when it is newer than the frame kept and
/// has at least one timed pass (a frame without one has nothing to show, so the last times
/// stay). Each frame is read once and, today, oldest first; the check keeps that order from
/// being something the newest frame relies on.
pub(crate) fn keep_newest(
    newest: &mut Option<TimedFrame>,
    frame: u64,
    plan: u64,
    times: impl FnOnce() -> FrameTimes,
) {
    if newest.as_ref().is_some_and(|n| n.frame >= frame) {
        return;
    }
    let times = times();
    if !times.passes.is_empty() {
        *newest = Some(TimedFrame { frame, plan, times });
    }
}

/// Per-pass GPU time.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTiming {
    /// Pass name.
    pub pass: String,
    /// Mean GPU time in microseconds over the timed frames.
    pub mean_us: f64,
    /// Frames timed.
    pub frames: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(pass: &str, queue: QueueKind, start_ns: f64, end_ns: f64) -> PassSpan {
        PassSpan {
            pass: pass.into(),
            queue,
            start_ns,
            end_ns,
        }
    }

    fn frame() -> FrameTimes {
        use QueueKind::{AsyncCompute as A, Graphics as G};
        FrameTimes {
            passes: vec![
                span("a", G, 1e6, 2e6),
                span("b", G, 1.5e6, 3e6),
                span("c", A, 2e6, 6e6),
                span("d", G, 5e6, 7e6),
            ],
        }
    }

    #[test]
    fn per_pass_busy_and_span() {
        let f = frame();
        assert_eq!(
            f.gpu_ms_per_pass(),
            vec![("a", 1.0), ("b", 1.5), ("c", 4.0), ("d", 2.0)]
        );
        // Graphics: [1, 3] ∪ [5, 7] = 4 ms; the overlap of a and b counts once.
        assert_eq!(f.queue_busy_ms(QueueKind::Graphics), 4.0);
        assert_eq!(f.queue_busy_ms(QueueKind::AsyncCompute), 4.0);
        assert_eq!(f.span_ns(), Some((1e6, 7e6)));
        assert_eq!(f.span_ms(), 6.0);
        let empty = FrameTimes::default();
        assert_eq!(empty.queue_busy_ms(QueueKind::Graphics), 0.0);
        assert_eq!(empty.span_ns(), None);
        assert_eq!(empty.span_ms(), 0.0);
    }

    #[test]
    fn only_a_newer_timed_frame_replaces_the_kept_one() {
        let mut newest = None;
        keep_newest(&mut newest, 3, 1, frame);
        assert_eq!(newest.as_ref().map(|n| (n.frame, n.plan)), Some((3, 1)));
        keep_newest(&mut newest, 2, 2, frame);
        keep_newest(&mut newest, 3, 2, frame);
        assert_eq!(newest.as_ref().map(|n| (n.frame, n.plan)), Some((3, 1)));
        keep_newest(&mut newest, 4, 2, FrameTimes::default);
        assert_eq!(newest.as_ref().map(|n| n.frame), Some(3), "no timed pass");
        keep_newest(&mut newest, 5, 2, frame);
        assert_eq!(newest.as_ref().map(|n| (n.frame, n.plan)), Some((5, 2)));
    }
}
