//! The Sky panel: the sun's elevation and azimuth, which move the sky and the light it
//! casts (the environment's passes run again on the next frame; the plan shows them skipped
//! on the frames after). "Scene's sun" puts the scene's own back.

use super::panels::{record, Command, View, Widgets};
use egui::Ui;

/// The sun as the panel shows it: degrees above the horizon and clockwise from north (-Z)
/// seen from above, or `None` for the scene's own.
pub type SunAngles = Option<(f32, f32)>;

/// The direction a sun at `elevation` and `azimuth` (degrees) sends its light.
pub fn direction((elevation, azimuth): (f32, f32)) -> glam::Vec3 {
    let (e, a) = (elevation.to_radians(), azimuth.to_radians());
    // Towards the sun: up by the elevation, around +Y from -Z by the azimuth.
    let to_sun = glam::Vec3::new(e.cos() * a.sin(), e.sin(), -e.cos() * a.cos());
    -to_sun
}

/// Where the sliders start when the scene's sun is let go: high in the south-west.
const START: (f32, f32) = (40.0, 220.0);

pub fn show(ui: &mut Ui, view: &View, out: &mut Vec<Command>, w: &mut Widgets) {
    let mut scene = view.sun.is_none();
    if record(w, "scene's sun", ui.checkbox(&mut scene, "scene's sun")).changed() {
        out.push(Command::Sun((!scene).then_some(START)));
    }
    let (mut elevation, mut azimuth) = view.sun.unwrap_or(START);
    ui.add_enabled_ui(!scene, |ui| {
        let e = ui.add(egui::Slider::new(&mut elevation, -5.0..=90.0).text("sun elevation °"));
        let a = ui.add(egui::Slider::new(&mut azimuth, 0.0..=360.0).text("sun azimuth °"));
        if record(w, "sun elevation", e).changed() | record(w, "sun azimuth", a).changed() {
            out.push(Command::Sun(Some((elevation, azimuth))));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sun_overhead_shines_down_and_one_in_the_south_shines_north() {
        let d = direction((90.0, 0.0));
        assert!((d - glam::Vec3::NEG_Y).length() < 1e-6, "{d}");
        // Azimuth 180° is the south (+Z): its light travels north (-Z), level.
        let d = direction((0.0, 180.0));
        assert!((d - glam::Vec3::NEG_Z).length() < 1e-6, "{d}");
    }
}
