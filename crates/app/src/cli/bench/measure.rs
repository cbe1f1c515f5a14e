//! One frame's GPU figures from its pass spans: the frame's length over both queues, the
//! time each queue is busy (the union of its passes' spans: passes of one queue may overlap
//! too), and how much of the async-compute queue's busy time overlaps the graphics queue's.
//! Cost: a sort of the spans, linear after.

use tessera_graph::QueueKind;
use tessera_vk::executor::FrameTimes;

/// The figures of one frame, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameFigures {
    /// First start to last end.
    pub frame_us: f64,
    /// Union of the graphics queue's spans.
    pub graphics_busy_us: f64,
    /// Union of the async-compute queue's spans.
    pub async_busy_us: f64,
    /// Length of the intersection of the two unions.
    pub overlap_us: f64,
}

fn length(spans: &[(f64, f64)]) -> f64 {
    // `+ 0.0`: an empty float sum is -0.0, which would print as "-0.0".
    spans.iter().map(|(s, e)| e - s).sum::<f64>() + 0.0
}

/// Length of the intersection of two sorted, disjoint interval lists.
fn intersection(a: &[(f64, f64)], b: &[(f64, f64)]) -> f64 {
    let (mut i, mut j, mut total) = (0, 0, 0.0);
    while i < a.len() && j < b.len() {
        let lo = a[i].0.max(b[j].0);
        let hi = a[i].1.min(b[j].1);
        if hi > lo {
            total += hi - lo;
        }
        if a[i].1 < b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// The figures of `frame` (zero for a frame without spans).
pub fn figures(frame: &FrameTimes) -> FrameFigures {
    let graphics = frame.queue_spans(QueueKind::Graphics);
    let compute = frame.queue_spans(QueueKind::AsyncCompute);
    FrameFigures {
        frame_us: frame
            .span_ns()
            .map_or(0.0, |(start, end)| (end - start) / 1000.0),
        graphics_busy_us: length(&graphics) / 1000.0,
        async_busy_us: length(&compute) / 1000.0,
        overlap_us: intersection(&graphics, &compute) / 1000.0,
    }
}

/// The end of each frame to the end of the next, in microseconds, over `frames` that ran
/// back to back (in submission order; frames without spans are skipped).
pub fn periods(frames: &[FrameTimes]) -> Vec<f64> {
    let ends: Vec<f64> = frames
        .iter()
        .filter(|f| !f.passes.is_empty())
        .map(|f| f.passes.iter().map(|p| p.end_ns).fold(f64::MIN, f64::max))
        .collect();
    ends.windows(2).map(|w| (w[1] - w[0]) / 1000.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_vk::executor::PassSpan;

    fn span(pass: &str, queue: QueueKind, start_us: f64, end_us: f64) -> PassSpan {
        PassSpan {
            pass: pass.into(),
            queue,
            start_ns: start_us * 1000.0,
            end_ns: end_us * 1000.0,
        }
    }

    #[test]
    fn periods_are_end_to_end_over_frames_in_a_row() {
        use QueueKind::{AsyncCompute as A, Graphics as G};
        // Frame 1 starts before frame 0's async tail ends: the period is shorter than a
        // frame.
        let f0 = FrameTimes {
            passes: vec![span("g", G, 0.0, 80.0), span("post", A, 80.0, 100.0)],
        };
        let f1 = FrameTimes {
            passes: vec![span("g", G, 80.0, 160.0), span("post", A, 160.0, 180.0)],
        };
        let empty = FrameTimes { passes: vec![] };
        assert_eq!(periods(&[f0.clone(), empty, f1]), vec![80.0]);
        assert!(periods(&[f0]).is_empty());
    }

    #[test]
    fn busy_time_is_the_union_and_overlap_the_intersection() {
        use QueueKind::{AsyncCompute as A, Graphics as G};
        let frame = FrameTimes {
            passes: vec![
                span("a", G, 0.0, 10.0),
                span("b", G, 5.0, 12.0),  // overlaps a on its own queue
                span("c", G, 20.0, 30.0), // a gap of 8 after b
                span("x", A, 8.0, 25.0),  // overlaps b by 4 and c by 5
                span("y", A, 40.0, 45.0), // after all graphics work
            ],
        };
        let f = figures(&frame);
        assert_eq!(f.frame_us, 45.0);
        assert_eq!(f.graphics_busy_us, 22.0);
        assert_eq!(f.async_busy_us, 22.0);
        assert_eq!(f.overlap_us, 9.0);
    }

    #[test]
    fn a_frame_on_one_queue_has_no_overlap() {
        let frame = FrameTimes {
            passes: vec![
                span("a", QueueKind::Graphics, 1.0, 2.0),
                span("b", QueueKind::Graphics, 2.0, 4.0),
            ],
        };
        let f = figures(&frame);
        assert_eq!(
            (
                f.frame_us,
                f.graphics_busy_us,
                f.async_busy_us,
                f.overlap_us
            ),
            (3.0, 3.0, 0.0, 0.0)
        );
        assert_eq!(figures(&FrameTimes::default()), FrameFigures::default());
    }
}
