//! Touch gestures: a phone's fingers turned into camera motion and taps.
//!
//! Fed each finger event ([`Touches::touch`], winit's `WindowEvent::Touch` as plain data),
//! it sums what the fingers did until the frame takes it ([`Touches::take`]):
//!
//! - One finger down: its motion orbits, once it has left a circle of [`SLOP`] around where
//!   it landed (the motion inside is dropped), so a tap never nudges the camera.
//! - Two or more down: the first two to land pinch and pan: zoom is the ln of their
//!   distance's ratio, pan their midpoint's motion; no orbit. Further fingers are tracked
//!   (their lifts are known) but move nothing until one of the two lifts and they step up,
//!   in landing order.
//! - A tap: a finger down and up within [`TAP_TIME`], never farther than the slop from
//!   where it landed, and no other finger down at any time in between; it is reported
//!   where it landed. `Cancelled` lifts a finger without a tap.
//!
//! Every gesture is the difference of one event's positions for a fixed set of fingers,
//! so a finger landing or lifting never jumps the camera: the fingers that stay carry on
//! from where they are, and a lone finger left after a pinch must leave the slop again
//! before it orbits. An event for an unknown finger is ignored, as are non-finite
//! coordinates (a lift with them still lifts). Each event costs O(fingers down).

use std::time::{Duration, Instant};

/// Logical pixels a finger moves before it drags rather than taps (Android's touch slop);
/// times the window's scale factor in physical pixels.
pub const SLOP: f64 = 8.0;
/// The longest press that is still a tap.
pub const TAP_TIME: Duration = Duration::from_millis(300);
/// Finger distances (physical pixels) below which a pinch's ratio is not taken: two
/// fingers this close are one blurred contact, and ln(0) is no zoom.
const MIN_SPREAD: f64 = 1.0;

/// Where a finger is in its touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// It landed.
    Started,
    /// It moved.
    Moved,
    /// It lifted.
    Ended,
    /// The system took the touch away (no tap).
    Cancelled,
}

impl From<winit::event::TouchPhase> for Phase {
    fn from(p: winit::event::TouchPhase) -> Phase {
        use winit::event::TouchPhase as T;
        match p {
            T::Started => Phase::Started,
            T::Moved => Phase::Moved,
            T::Ended => Phase::Ended,
            T::Cancelled => Phase::Cancelled,
        }
    }
}

/// What the fingers did since the last [`Touches::take`], in physical pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Gestures {
    /// One-finger drag (x right, y down).
    pub orbit: (f32, f32),
    /// Two-finger midpoint motion (x right, y down).
    pub pan: (f32, f32),
    /// ln(new finger distance / old): positive as the fingers spread (closer).
    pub zoom: f32,
    /// Where each tap landed, in order.
    pub taps: Vec<(f64, f64)>,
}

/// One finger down.
#[derive(Clone, Copy, Debug)]
struct Finger {
    id: u64,
    at: (f64, f64),
    /// Where it landed: the tap's position.
    down: (f64, f64),
    since: Instant,
    /// Still a tap: alone all along, within the slop of `down`.
    tap: bool,
    /// Where the slop circle is centred: `down`, or where it was when the fingers changed.
    anchor: (f64, f64),
    /// Left the slop circle: its motion orbits when alone.
    dragging: bool,
}

/// The gesture recogniser: the fingers down, in landing order, and the sums not yet taken.
#[derive(Debug)]
pub struct Touches {
    fingers: Vec<Finger>,
    slop: f64,
    out: Gestures,
}

impl Default for Touches {
    fn default() -> Touches {
        Touches::new(1.0)
    }
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

impl Touches {
    /// A recogniser for a window of `scale_factor` physical pixels per logical pixel
    /// (winit's `Window::scale_factor`; not a positive number counts as 1).
    pub fn new(scale_factor: f64) -> Touches {
        let scale = if scale_factor.is_finite() && scale_factor > 0.0 {
            scale_factor
        } else {
            1.0
        };
        Touches {
            fingers: Vec::new(),
            slop: SLOP * scale,
            out: Gestures::default(),
        }
    }

    /// Takes one finger event: finger `id`, at physical pixel (`x`, `y`) of the window.
    pub fn touch(&mut self, id: u64, phase: Phase, x: f64, y: f64, time: Instant) {
        let finite = x.is_finite() && y.is_finite();
        let index = self.fingers.iter().position(|f| f.id == id);
        match (phase, index) {
            (Phase::Started, _) if !finite => {}
            (Phase::Started, _) => {
                // A second Started for a finger down replaces it (no tap).
                if let Some(i) = index {
                    self.fingers.remove(i);
                }
                let alone = self.fingers.is_empty();
                self.fingers.push(Finger {
                    id,
                    at: (x, y),
                    down: (x, y),
                    since: time,
                    tap: alone,
                    anchor: (x, y),
                    dragging: false,
                });
                self.rebase();
            }
            (Phase::Moved, Some(i)) if finite => self.moved(i, (x, y)),
            (Phase::Ended, Some(i)) => {
                if finite {
                    self.moved(i, (x, y));
                }
                let f = self.fingers.remove(i);
                if f.tap && time.saturating_duration_since(f.since) <= TAP_TIME {
                    self.out.taps.push(f.down);
                }
                self.rebase();
            }
            (Phase::Cancelled, Some(i)) => {
                self.fingers.remove(i);
                self.rebase();
            }
            // Unknown fingers, non-finite motion.
            _ => {}
        }
    }

    /// Forgets every finger down: their lifts will never arrive (the app was suspended or
    /// lost focus). What they did before stays for [`Touches::take`].
    pub fn clear(&mut self) {
        self.fingers.clear();
    }

    /// What the fingers did since the last call.
    pub fn take(&mut self) -> Gestures {
        std::mem::take(&mut self.out)
    }

    /// The fingers down changed: none is a tap any more unless alone, and each must leave
    /// the slop from where it is before it orbits (a pinch's last finger does not jump).
    fn rebase(&mut self) {
        let many = self.fingers.len() > 1;
        for f in &mut self.fingers {
            f.tap &= !many;
            if many || !f.tap {
                f.anchor = f.at;
                f.dragging = false;
            }
        }
    }

    /// Finger `i` moved to `to`.
    fn moved(&mut self, i: usize, to: (f64, f64)) {
        let f = &mut self.fingers[i];
        let from = f.at;
        f.at = to;
        if distance(to, f.down) > self.slop {
            f.tap = false;
        }
        match (self.fingers.len(), i) {
            (1, _) => {
                let f = &mut self.fingers[0];
                if f.dragging {
                    self.out.orbit.0 += (to.0 - from.0) as f32;
                    self.out.orbit.1 += (to.1 - from.1) as f32;
                } else if distance(to, f.anchor) > self.slop {
                    f.dragging = true;
                }
            }
            (_, 0 | 1) => {
                let other = self.fingers[1 - i].at;
                let mid = |p: (f64, f64)| ((p.0 + other.0) * 0.5, (p.1 + other.1) * 0.5);
                let (m0, m1) = (mid(from), mid(to));
                self.out.pan.0 += (m1.0 - m0.0) as f32;
                self.out.pan.1 += (m1.1 - m0.1) as f32;
                let (d0, d1) = (distance(from, other), distance(to, other));
                if d0 >= MIN_SPREAD && d1 >= MIN_SPREAD {
                    self.out.zoom += (d1 / d0).ln() as f32;
                }
            }
            // A third finger or later: tracked, moves nothing.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recogniser and a clock: events `ms` milliseconds after the start.
    struct Hand {
        t: Touches,
        start: Instant,
    }

    impl Hand {
        fn new() -> Hand {
            Hand {
                t: Touches::default(),
                start: Instant::now(),
            }
        }

        fn at(&mut self, ms: u64, id: u64, phase: Phase, x: f64, y: f64) -> &mut Hand {
            let time = self.start + Duration::from_millis(ms);
            self.t.touch(id, phase, x, y, time);
            self
        }
    }

    fn close(a: f32, b: f64) -> bool {
        (f64::from(a) - b).abs() < 1e-4
    }

    #[test]
    fn a_quick_still_touch_is_a_tap_where_it_landed() {
        let mut h = Hand::new();
        h.at(0, 7, Phase::Started, 100.0, 200.0)
            .at(50, 7, Phase::Moved, 104.0, 203.0)
            .at(120, 7, Phase::Ended, 105.0, 204.0);
        let g = h.t.take();
        assert_eq!(g.taps, [(100.0, 200.0)]);
        assert_eq!(g.orbit, (0.0, 0.0), "a tap does not turn the camera");
        assert_eq!(h.t.take(), Gestures::default(), "taken once");
        assert!(h.t.fingers.is_empty());
    }

    #[test]
    fn a_drag_past_the_slop_a_slow_press_and_a_cancel_are_no_taps() {
        let mut h = Hand::new();
        // Out past the slop and back: it was a drag.
        h.at(0, 1, Phase::Started, 100.0, 100.0)
            .at(30, 1, Phase::Moved, 120.0, 100.0)
            .at(60, 1, Phase::Ended, 100.0, 100.0);
        assert!(h.t.take().taps.is_empty());
        // Lifting past the slop.
        h.at(100, 2, Phase::Started, 100.0, 100.0)
            .at(150, 2, Phase::Ended, 100.0, 109.0);
        assert!(h.t.take().taps.is_empty());
        // Still, but held too long (just inside the limit is a tap).
        h.at(200, 3, Phase::Started, 10.0, 10.0)
            .at(200 + 301, 3, Phase::Ended, 10.0, 10.0);
        assert!(h.t.take().taps.is_empty());
        h.at(600, 4, Phase::Started, 10.0, 10.0)
            .at(900, 4, Phase::Ended, 10.0, 10.0);
        assert_eq!(h.t.take().taps, [(10.0, 10.0)]);
        h.at(1000, 5, Phase::Started, 10.0, 10.0)
            .at(1010, 5, Phase::Cancelled, 10.0, 10.0);
        assert!(h.t.take().taps.is_empty());
    }

    #[test]
    fn a_touch_with_another_finger_down_is_no_tap() {
        let mut h = Hand::new();
        // The second finger lands and lifts during the first: neither taps.
        h.at(0, 1, Phase::Started, 10.0, 10.0)
            .at(20, 2, Phase::Started, 300.0, 10.0)
            .at(60, 2, Phase::Ended, 300.0, 10.0)
            .at(100, 1, Phase::Ended, 10.0, 10.0);
        assert!(h.t.take().taps.is_empty());
        // A finger that lands while another is down and outlives it: no tap either.
        h.at(200, 1, Phase::Started, 10.0, 10.0)
            .at(210, 2, Phase::Started, 300.0, 10.0)
            .at(220, 1, Phase::Ended, 10.0, 10.0)
            .at(260, 2, Phase::Ended, 300.0, 10.0);
        assert!(h.t.take().taps.is_empty());
    }

    #[test]
    fn one_finger_orbits_once_past_the_slop() {
        let slop = SLOP;
        let mut h = Hand::new();
        h.at(0, 1, Phase::Started, 100.0, 100.0)
            .at(10, 1, Phase::Moved, 105.0, 100.0);
        assert_eq!(h.t.take().orbit, (0.0, 0.0), "inside the slop");
        h.at(20, 1, Phase::Moved, 100.0 + slop + 1.0, 100.0);
        assert_eq!(h.t.take().orbit, (0.0, 0.0), "the move out is dropped");
        h.at(30, 1, Phase::Moved, 130.0, 95.0)
            .at(40, 1, Phase::Moved, 140.0, 90.0);
        let g = h.t.take();
        assert!(
            close(g.orbit.0, 140.0 - 109.0) && close(g.orbit.1, -10.0),
            "{g:?}"
        );
        assert_eq!((g.pan, g.zoom), ((0.0, 0.0), 0.0));
        // The lift's own motion counts.
        h.at(50, 1, Phase::Ended, 150.0, 90.0);
        assert!(close(h.t.take().orbit.0, 10.0));
    }

    #[test]
    fn the_slop_scales_with_the_window() {
        // 20 px and back: a drag at scale 1, still a tap at 3 (24 px of slop).
        let t0 = Instant::now();
        for (scale, tap) in [(1.0, false), (3.0, true)] {
            let mut t = Touches::new(scale);
            t.touch(1, Phase::Started, 0.0, 0.0, t0);
            t.touch(1, Phase::Moved, 10.0, 0.0, t0);
            t.touch(1, Phase::Moved, 20.0, 0.0, t0);
            t.touch(1, Phase::Moved, 23.0, 0.0, t0);
            t.touch(1, Phase::Ended, 0.0, 0.0, t0);
            let g = t.take();
            assert_eq!(g.taps.len(), usize::from(tap), "{scale}: {g:?}");
            assert_eq!(g.orbit.0 == 0.0, tap, "{scale}: {g:?}");
        }
        assert_eq!(Touches::new(f64::NAN).slop, SLOP);
        assert_eq!(Touches::new(-2.0).slop, SLOP);
    }

    #[test]
    fn spreading_two_fingers_zooms_by_the_log_of_the_distance_ratio() {
        let mut h = Hand::new();
        h.at(0, 1, Phase::Started, 100.0, 100.0)
            .at(5, 2, Phase::Started, 200.0, 100.0)
            .at(20, 1, Phase::Moved, 80.0, 100.0)
            .at(30, 2, Phase::Moved, 220.0, 100.0)
            .at(40, 2, Phase::Moved, 250.0, 100.0);
        let g = h.t.take();
        assert!(close(g.zoom, (170.0f64 / 100.0).ln()), "{g:?}");
        assert!(g.zoom > 0.0);
        assert_eq!(g.orbit, (0.0, 0.0), "two fingers do not orbit");
        // The midpoint went from 150 to 165.
        assert!(close(g.pan.0, 15.0) && close(g.pan.1, 0.0), "{g:?}");
        // Pinching back in zooms out by as much.
        h.at(50, 1, Phase::Moved, 100.0, 100.0)
            .at(60, 2, Phase::Moved, 200.0, 100.0);
        assert!(close(h.t.take().zoom, -(170.0f64 / 100.0).ln()));
    }

    #[test]
    fn two_fingers_moving_together_pan_by_their_midpoint() {
        let mut h = Hand::new();
        h.at(0, 1, Phase::Started, 100.0, 100.0)
            .at(0, 2, Phase::Started, 100.0, 200.0)
            .at(10, 1, Phase::Moved, 130.0, 80.0)
            .at(10, 2, Phase::Moved, 130.0, 180.0);
        let g = h.t.take();
        assert!(close(g.pan.0, 30.0) && close(g.pan.1, -20.0), "{g:?}");
        assert!(close(g.zoom, 0.0), "{g:?}");
        assert_eq!(g.orbit, (0.0, 0.0));
    }

    #[test]
    fn fingers_landing_or_lifting_never_jump_the_camera() {
        let mut h = Hand::new();
        // One finger orbits, a second lands far away: no pan or orbit from the landing.
        h.at(0, 1, Phase::Started, 100.0, 100.0)
            .at(10, 1, Phase::Moved, 150.0, 100.0)
            .at(20, 1, Phase::Moved, 160.0, 100.0);
        assert!(close(h.t.take().orbit.0, 10.0));
        h.at(30, 2, Phase::Started, 600.0, 500.0);
        assert_eq!(h.t.take(), Gestures::default());
        // Pinch a while, then lift one: the one left neither orbits by the distance to
        // where it was before the pinch nor by the pinch's motion.
        h.at(40, 2, Phase::Moved, 700.0, 600.0)
            .at(50, 1, Phase::Moved, 100.0, 50.0)
            .at(60, 2, Phase::Ended, 700.0, 600.0);
        let _ = h.t.take();
        h.at(70, 1, Phase::Moved, 103.0, 50.0);
        assert_eq!(h.t.take(), Gestures::default(), "inside the new slop");
        h.at(80, 1, Phase::Moved, 120.0, 50.0)
            .at(90, 1, Phase::Moved, 125.0, 52.0);
        let g = h.t.take();
        assert!(close(g.orbit.0, 5.0) && close(g.orbit.1, 2.0), "{g:?}");
        assert_eq!((g.pan, g.zoom, g.taps.len()), ((0.0, 0.0), 0.0, 0));
    }

    #[test]
    fn a_third_finger_is_ignored_until_one_of_the_pair_lifts() {
        let mut h = Hand::new();
        h.at(0, 1, Phase::Started, 0.0, 0.0)
            .at(0, 2, Phase::Started, 100.0, 0.0)
            .at(0, 3, Phase::Started, 500.0, 500.0)
            .at(10, 3, Phase::Moved, 900.0, 900.0);
        assert_eq!(h.t.take(), Gestures::default());
        // Finger 1 lifts: 2 and 3 pinch from where they are.
        h.at(20, 1, Phase::Ended, 0.0, 0.0);
        assert_eq!(h.t.take(), Gestures::default());
        h.at(30, 3, Phase::Moved, 900.0, 800.0);
        let g = h.t.take();
        assert!(close(g.pan.0, 0.0) && close(g.pan.1, -50.0), "{g:?}");
        let (d0, d1) = (800f64.hypot(900.0), 800f64.hypot(800.0));
        assert!(close(g.zoom, (d1 / d0).ln()), "{g:?}");
        // Down to one, then none: no taps anywhere.
        h.at(40, 2, Phase::Ended, 100.0, 0.0)
            .at(50, 3, Phase::Ended, 900.0, 800.0);
        assert!(h.t.take().taps.is_empty());
        assert!(h.t.fingers.is_empty());
    }

    #[test]
    fn unknown_fingers_and_non_finite_coordinates_are_ignored() {
        let mut h = Hand::new();
        h.at(0, 9, Phase::Ended, 1.0, 1.0)
            .at(0, 9, Phase::Cancelled, 1.0, 1.0)
            .at(0, 9, Phase::Moved, 1.0, 1.0)
            .at(0, 8, Phase::Started, f64::NAN, 1.0)
            .at(0, 8, Phase::Ended, 1.0, 1.0);
        assert_eq!(h.t.take(), Gestures::default());
        assert!(h.t.fingers.is_empty());
        // A finger's NaN motion is dropped, its NaN lift still lifts (and taps).
        h.at(10, 1, Phase::Started, 10.0, 10.0)
            .at(20, 1, Phase::Moved, f64::INFINITY, 10.0)
            .at(30, 1, Phase::Ended, f64::NAN, f64::NAN);
        let g = h.t.take();
        assert_eq!(g.taps, [(10.0, 10.0)]);
        assert_eq!(g.orbit, (0.0, 0.0));
        assert!(h.t.fingers.is_empty());
        // Two fingers on one spot: no ln(0).
        h.at(40, 1, Phase::Started, 5.0, 5.0)
            .at(40, 2, Phase::Started, 5.0, 5.0)
            .at(50, 2, Phase::Moved, 50.0, 5.0)
            .at(60, 2, Phase::Moved, 5.0, 5.0);
        assert!(h.t.take().zoom.is_finite());
    }

    #[test]
    fn a_repeated_start_replaces_the_finger() {
        let mut h = Hand::new();
        h.at(0, 1, Phase::Started, 0.0, 0.0)
            .at(10, 1, Phase::Started, 50.0, 50.0)
            .at(20, 1, Phase::Ended, 50.0, 50.0);
        assert_eq!(h.t.take().taps, [(50.0, 50.0)]);
        assert!(h.t.fingers.is_empty());
    }

    #[test]
    fn winit_phases_map_one_to_one() {
        use winit::event::TouchPhase as T;
        assert_eq!(Phase::from(T::Started), Phase::Started);
        assert_eq!(Phase::from(T::Moved), Phase::Moved);
        assert_eq!(Phase::from(T::Ended), Phase::Ended);
        assert_eq!(Phase::from(T::Cancelled), Phase::Cancelled);
    }
}
