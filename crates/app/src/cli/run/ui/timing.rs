//! The figures the UI's Frame panel draws: frame times over the last few hundred frames,
//! the newest completed frame's GPU time per pass and per queue, and the measured effect of
//! the last change (medians of the frames on each side).
//!
//! GPU times come from the executor's newest completed frame ([`TimedFrame`]), which
//! survives re-plans, so they never freeze while switches change the plan every frame: a
//! frame that ran under an earlier plan is still shown, marked stale, until one of the
//! current plan completes.

use std::collections::{HashMap, VecDeque};
use tessera_graph::QueueKind;
use tessera_render::FrameStats;
use tessera_vk::executor::TimedFrame;

/// Frames the graphs keep.
pub const HISTORY: usize = 300;
/// Frames of one plan a median takes at most.
const MEDIAN_OF: usize = 60;
/// Steady plans whose samples are kept (the last change needs the newest two).
const PLANS_KEPT: u64 = 4;
/// Weight of the newest frame in the smoothed FPS.
const SMOOTHING: f64 = 0.1;

/// The CPU work of a frame in ms: declaring, preparing and recording it; the time blocked
/// in `vkQueueSubmit2` is left out (lavapipe runs the frame's work there).
pub fn cpu_ms(cpu: &FrameStats) -> f64 {
    (cpu.declare_us + cpu.prepare_us + cpu.record_us - cpu.submit_us) / 1000.0
}

/// One completed frame's GPU figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuFrame {
    /// The executor's frame number.
    pub frame: u64,
    /// Which steady plan ran it ([`Timing::plan_ran`]); `None`: a plan of its own (a
    /// screenshot's read-back copy).
    pub steady: Option<u64>,
    /// (pass, queue, ms), in execution order.
    pub passes: Vec<(String, QueueKind, f64)>,
    /// Busy ms of the graphics and the async queue: the union of their passes' spans.
    pub busy: [f64; 2],
    /// First pass start to last pass end, ms.
    pub span: f64,
}

impl GpuFrame {
    fn of(t: &TimedFrame, steady: Option<u64>) -> GpuFrame {
        let times = &t.times;
        GpuFrame {
            frame: t.frame,
            steady,
            passes: times
                .passes
                .iter()
                .map(|s| (s.pass.clone(), s.queue, s.ms()))
                .collect(),
            busy: [QueueKind::Graphics, QueueKind::AsyncCompute].map(|q| times.queue_busy_ms(q)),
            span: times.span_ms(),
        }
    }

    /// The sum of the passes' times, ms.
    pub fn total(&self) -> f64 {
        self.passes.iter().map(|p| p.2).sum()
    }
}

/// The median of `v` (`None` when empty).
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// A change of switches and what it did: the plan diff's summary and the GPU frame time
/// before and after.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Change {
    /// What changed ("merge off").
    pub reason: String,
    /// The re-plan's CPU ms.
    pub replan_ms: f64,
    /// The plan diff in a few words, a line each.
    pub summary: Vec<String>,
    /// The steady plans before and after.
    pub plans: (u64, u64),
}

/// Frame times, the newest GPU frame, and the GPU times per steady plan.
#[derive(Debug, Default)]
pub struct Timing {
    /// CPU ms per presented frame, newest last.
    pub cpu: VecDeque<f64>,
    /// GPU ms (pass sum) per completed frame, newest last.
    pub gpu: VecDeque<f64>,
    /// The newest completed frame.
    pub newest: Option<GpuFrame>,
    /// Seconds between presented frames, smoothed.
    interval: Option<f64>,
    /// The CPU parts of the last frame: declare, prepare, record, submit (µs).
    pub parts: [f64; 4],
    /// The executor's plan generation → the steady plan it is (screenshots' plans absent).
    steady_of: HashMap<u64, u64>,
    /// The steady plan now running.
    pub steady: u64,
    /// GPU ms of the last frames of each steady plan (at most [`MEDIAN_OF`]).
    per_plan: HashMap<u64, VecDeque<f64>>,
    /// The last change.
    pub change: Option<Change>,
    /// Frames taken, and how many of them brought a newer GPU frame than the one before.
    pub frames: u64,
    pub gpu_updates: u64,
    /// The first frame (from 1) that brought GPU times, and how many after it brought none.
    pub first_update: Option<u64>,
    pub missed: u64,
}

impl Timing {
    /// Takes one presented frame: `dt` seconds since the previous one, its CPU figures and
    /// the executor's newest completed frame.
    pub fn frame(&mut self, dt: f64, cpu: &FrameStats, newest: Option<&TimedFrame>) {
        if dt > 0.0 {
            let i = self.interval.get_or_insert(dt);
            *i += (dt - *i) * SMOOTHING;
        }
        push(&mut self.cpu, cpu_ms(cpu));
        self.parts = [
            cpu.declare_us,
            cpu.prepare_us,
            cpu.record_us - cpu.submit_us,
            cpu.submit_us,
        ];
        self.frames += 1;
        let new = newest.filter(|t| self.newest.as_ref().is_none_or(|n| n.frame < t.frame));
        let Some(t) = new else {
            if self.first_update.is_some() {
                self.missed += 1;
            }
            return;
        };
        self.first_update.get_or_insert(self.frames);
        let g = GpuFrame::of(t, self.steady_of.get(&t.plan).copied());
        self.gpu_updates += 1;
        push(&mut self.gpu, g.total());
        if let Some(s) = g.steady {
            let samples = self.per_plan.entry(s).or_default();
            if samples.len() == MEDIAN_OF {
                samples.pop_front();
            }
            samples.push_back(g.total());
        }
        self.newest = Some(g);
    }

    /// The executor built plan `generation`: the steady plan `steady` (the switches' plan),
    /// or `None` for a plan of its own (a screenshot's frame).
    pub fn plan_ran(&mut self, generation: u64, steady: Option<u64>) {
        match steady {
            Some(s) => {
                self.steady_of.insert(generation, s);
                self.steady = s;
                // A change compares the two newest steady plans: older ones are forgotten,
                // so switching all day keeps a few plans' samples, not every one's.
                let oldest = s.saturating_sub(PLANS_KEPT - 1);
                self.steady_of.retain(|_, p| *p >= oldest);
                self.per_plan.retain(|p, _| *p >= oldest);
            }
            None => {
                self.steady_of.remove(&generation);
            }
        }
    }

    /// Whether the newest GPU frame ran under another plan than the one running now.
    pub fn stale(&self) -> bool {
        self.newest
            .as_ref()
            .is_some_and(|n| n.steady != Some(self.steady))
    }

    /// Whether the GPU times were new in every frame since they first came, in words.
    pub fn freshness(&self) -> String {
        match self.first_update {
            None => format!("no GPU times in {} frames", self.frames),
            Some(f) if self.missed == 0 => {
                format!(
                    "GPU times new in every frame from frame {f} of {}",
                    self.frames
                )
            }
            Some(f) => format!(
                "GPU times new in {} of the frames from frame {f} of {} ({} without)",
                self.gpu_updates, self.frames, self.missed
            ),
        }
    }

    /// Frames per second, smoothed.
    pub fn fps(&self) -> f64 {
        self.interval.map_or(0.0, |i| 1.0 / i.max(1e-9))
    }

    /// The median GPU ms of steady plan `plan`'s frames, and how many it took.
    pub fn median_of(&self, plan: u64) -> Option<(f64, usize)> {
        let v: Vec<f64> = self.per_plan.get(&plan)?.iter().copied().collect();
        Some((median(&v)?, v.len()))
    }
}

/// Appends to a history of [`HISTORY`] values.
fn push(v: &mut VecDeque<f64>, x: f64) {
    if v.len() == HISTORY {
        v.pop_front();
    }
    v.push_back(x);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_vk::executor::{FrameTimes, PassSpan};

    fn timed(frame: u64, plan: u64, spans: &[(&str, QueueKind, f64, f64)]) -> TimedFrame {
        TimedFrame {
            frame,
            plan,
            times: FrameTimes {
                passes: spans
                    .iter()
                    .map(|&(p, q, s, e)| PassSpan {
                        pass: p.into(),
                        queue: q,
                        start_ns: s * 1e6,
                        end_ns: e * 1e6,
                    })
                    .collect(),
            },
        }
    }

    #[test]
    fn queue_busy_time_is_the_union_of_its_spans() {
        let g = GpuFrame::of(
            &timed(
                1,
                1,
                &[
                    ("a", QueueKind::Graphics, 0.0, 2.0),
                    ("b", QueueKind::Graphics, 1.0, 3.0),
                    ("c", QueueKind::Graphics, 5.0, 6.0),
                    ("d", QueueKind::AsyncCompute, 2.0, 4.5),
                ],
            ),
            Some(0),
        );
        assert!((g.busy[0] - 4.0).abs() < 1e-9, "{g:?}");
        assert!((g.busy[1] - 2.5).abs() < 1e-9, "{g:?}");
        assert!((g.span - 6.0).abs() < 1e-9, "{g:?}");
        assert!((g.total() - 7.5).abs() < 1e-9, "{g:?}");
    }

    #[test]
    fn a_replan_keeps_the_old_times_marked_stale_until_new_ones_arrive() {
        let mut t = Timing::default();
        let cpu = FrameStats::default();
        t.plan_ran(1, Some(0));
        t.frame(
            0.016,
            &cpu,
            Some(&timed(1, 1, &[("a", QueueKind::Graphics, 0.0, 1.0)])),
        );
        assert!(!t.stale());
        // A switch: plan 2 is steady plan 1; the newest completed frame is still plan 1's.
        t.plan_ran(2, Some(1));
        t.frame(
            0.016,
            &cpu,
            Some(&timed(2, 1, &[("a", QueueKind::Graphics, 0.0, 3.0)])),
        );
        assert!(t.stale());
        assert_eq!(t.newest.as_ref().map(|n| n.frame), Some(2));
        // The same frame again is no update.
        t.frame(
            0.016,
            &cpu,
            Some(&timed(2, 1, &[("a", QueueKind::Graphics, 0.0, 3.0)])),
        );
        assert_eq!(t.gpu_updates, 2);
        t.frame(
            0.016,
            &cpu,
            Some(&timed(3, 2, &[("a", QueueKind::Graphics, 0.0, 0.5)])),
        );
        assert!(!t.stale());
        assert_eq!(t.median_of(0), Some((3.0, 2)));
        assert_eq!(t.median_of(1), Some((0.5, 1)));
        assert_eq!(t.gpu.len(), 3);
        assert_eq!(t.frames, 4);
    }

    #[test]
    fn only_the_newest_steady_plans_keep_their_samples() {
        let mut t = Timing::default();
        let cpu = FrameStats::default();
        for g in 0..10 {
            t.plan_ran(g, Some(g));
            t.frame(
                0.016,
                &cpu,
                Some(&timed(g, g, &[("a", QueueKind::Graphics, 0.0, 1.0)])),
            );
        }
        assert_eq!(t.median_of(9), Some((1.0, 1)));
        assert_eq!(t.median_of(6), Some((1.0, 1)));
        assert_eq!(t.median_of(5), None);
        assert_eq!(t.steady_of.len(), PLANS_KEPT as usize);
    }

    #[test]
    fn a_screenshots_plan_counts_for_no_steady_plan() {
        let mut t = Timing::default();
        let cpu = FrameStats::default();
        t.plan_ran(1, Some(0));
        t.plan_ran(2, None);
        t.frame(
            0.016,
            &cpu,
            Some(&timed(1, 2, &[("a", QueueKind::Graphics, 0.0, 9.0)])),
        );
        assert_eq!(t.median_of(0), None);
        assert!(t.stale());
    }
}
