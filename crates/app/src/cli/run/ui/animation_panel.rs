//! The Animation panel, shown for a scene with glTF animations: an "Animate" box that plays and pauses them and a time slider that scrubs
//! (live while dragged: no re-plan, only the pose changes).

use super::panels::{record, Command, View, Widgets};
use egui::Ui;

/// The animations as the app runs them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimationView {
    /// Whether they advance.
    pub playing: bool,
    /// Seconds in.
    pub time: f32,
    /// The longest animation's duration (the slider's end; each loops over its own).
    pub duration: f32,
}

pub fn show(ui: &mut Ui, view: &View, out: &mut Vec<Command>, w: &mut Widgets) {
    let Some(a) = view.animation else {
        return;
    };
    let mut playing = a.playing;
    if record(w, "animate", ui.checkbox(&mut playing, "animate")).changed() {
        out.push(Command::Animate(playing));
    }
    let duration = a.duration.max(1e-3);
    // The time shown within the loop.
    let mut t = a.time.rem_euclid(duration);
    let r = ui.add(
        egui::Slider::new(&mut t, 0.0..=duration)
            .text("animation s")
            .fixed_decimals(2),
    );
    if record(w, "animation time", r).changed() {
        out.push(Command::AnimationTime(t));
    }
}
