//! Frame counts and time: how far the lights have moved, and the figures the frame limit,
//! the script and the FPS are counted in.

use std::time::Instant;

/// The run's frames and the lights' time.
#[derive(Debug, Default)]
pub struct Clock {
    /// The lights' time, s.
    pub time: f32,
    /// Space: the lights stop.
    pub paused: bool,
    /// The lights move 1/60 s per frame (as in `tessera render`) instead of with the clock.
    pub fixed_step: bool,
    /// When the last frame was rendered; `None` after a pause in drawing (a minimise, a
    /// suspension), whose time the camera does not move through.
    pub last_frame: Option<Instant>,
    pub first_presented: Option<Instant>,
    pub presented: u64,
    /// Frames rendered: those presented and those whose presentation was dropped.
    pub rendered: u64,
    /// The glTF animations' time.
    pub animation: AnimationClock,
}

/// The animations' own time, paused and scrubbed apart from the lights' (the UI's
/// "Animate" box and time slider).
#[derive(Debug, Default)]
pub struct AnimationClock {
    /// Whether the animations advance; off, they stay where the slider put them.
    pub playing: bool,
    /// Off: the models are drawn at rest (`--no-animate`, `[render] animate = false`).
    pub enabled: bool,
    /// Seconds into the animations.
    pub time: f32,
}

impl AnimationClock {
    /// The time the renderer draws the animations at (`None`: at rest).
    pub fn drawn(&self) -> Option<f32> {
        self.enabled.then_some(self.time)
    }
}

impl Clock {
    /// Seconds since the last frame (0 for the first one after a pause in drawing).
    pub fn dt(&self, now: Instant) -> f64 {
        self.last_frame.map_or(0.0, |t| (now - t).as_secs_f64())
    }

    /// A frame was rendered at `now`, and presented unless the window system dropped it.
    pub fn rendered(&mut self, now: Instant, presented: bool) {
        self.rendered += 1;
        if presented {
            self.presented += 1;
        }
        self.first_presented.get_or_insert(now);
        self.last_frame = Some(now);
    }

    /// Moves the lights on by a frame of `dt` seconds, unless paused, and the animations
    /// while they play.
    pub fn advance(&mut self, dt: f64) {
        let step = if self.fixed_step {
            1.0 / 60.0
        } else {
            dt.min(0.1) as f32
        };
        if !self.paused {
            self.time += step;
        }
        if self.animation.enabled && self.animation.playing && !self.paused {
            self.animation.time += step;
        }
    }
}
