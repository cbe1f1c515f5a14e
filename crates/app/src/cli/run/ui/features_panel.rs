//! The Features panel: every feature of the frame, each change a [`Command::Features`]
//! the app checks ([`Features::check`]) and applies as a key's toggle (the next frame
//! re-plans). A slider applies when it is let go, so a drag re-plans once.

use super::panels::{record, small, Command, View, Widgets};
use egui::{ComboBox, Ui};
use tessera_render::features::{
    Aa, Bloom, DebugView, Exposure, Features, RenderPath, Ssao, MSAA_VALUES,
};

/// Shadow map sizes offered (texels per cascade side).
const SHADOW_SIZES: [u32; 4] = [512, 1024, 2048, 4096];

pub fn show(ui: &mut Ui, view: &View, out: &mut Vec<Command>, w: &mut Widgets) {
    let now = &view.switches.features;
    let mut f = now.clone();
    let mut said = None;
    ui.set_max_width(200.0);
    if record(w, "shadows", ui.checkbox(&mut f.shadows, "shadows")).changed() {
        said = Some(format!("shadows {}", on_off(f.shadows)));
    }
    ui.add_enabled_ui(f.shadows, |ui| {
        if let Some(v) = slider(ui, w, "cascades", f.cascades as f64, 1.0..=4.0, 1.0) {
            f.cascades = v as u32;
            said = Some(format!("cascades {}", f.cascades));
        }
        if let Some(v) = choose(ui, w, "shadow size", f.shadow_size, &SHADOW_SIZES, |s| {
            s.to_string()
        }) {
            f.shadow_size = v;
            said = Some(format!("shadow size {v}"));
        }
    });
    let ssao = [Ssao::Off, Ssao::GBuffer, Ssao::Prepass];
    if let Some(v) = choose(ui, w, "ssao", f.ssao, &ssao, |s| s.name().into()) {
        f.ssao = v;
        said = Some(format!("ssao {}", v.name()));
    }
    let bloom = [Bloom::Off, Bloom::Hdr, Bloom::Tonemap];
    if let Some(v) = choose(ui, w, "bloom", f.bloom, &bloom, |b| b.name().into()) {
        f.bloom = v;
        said = Some(format!("bloom {}", v.name()));
    }
    exposure(ui, w, &mut f, &mut said);
    let aa = [Aa::Off, Aa::Fxaa, Aa::Taa];
    if let Some(v) = choose(ui, w, "aa", f.aa, &aa, |a| a.name().into()) {
        f.aa = v;
        said = Some(format!("aa {}", v.name()));
    }
    if record(
        w,
        "clustering",
        ui.checkbox(&mut f.clustering, "clustering"),
    )
    .changed()
    {
        said = Some(format!("clustering {}", on_off(f.clustering)));
    }
    if record(
        w,
        "image-based light",
        ui.checkbox(&mut f.ibl, "image-based light"),
    )
    .changed()
    {
        said = Some(format!("image-based light {}", on_off(f.ibl)));
    }
    let lights = f64::from(view.scene_lights.max(f.lights));
    if let Some(v) = slider(ui, w, "lights", f64::from(f.lights), 0.0..=lights, 1.0) {
        f.lights = v as u32;
        said = Some(format!("lights {}", f.lights));
    }
    let scale = f64::from(f.resolution_scale);
    if let Some(v) = slider(ui, w, "resolution scale", scale, 0.25..=2.0, 0.05) {
        f.resolution_scale = v as f32;
        said = Some(format!("resolution scale {v:.2}"));
    }
    let views: Vec<DebugView> = DebugView::NAMES
        .iter()
        .filter_map(|n| DebugView::parse(n))
        .filter(|v| !matches!(v, DebugView::Shadow(c) if *c >= f.cascades))
        .collect();
    if let Some(v) = choose(ui, w, "debug view", f.debug_view, &views, |v| v.name()) {
        f.debug_view = v;
        said = Some(format!("debug view {}", v.name()));
    }
    let paths = [RenderPath::Deferred, RenderPath::Forward];
    if let Some(v) = choose(ui, w, "path", f.path, &paths, |p| p.name().into()) {
        f.path = v;
        said = Some(format!("path {}", v.name()));
    }
    if let Some(v) = choose(ui, w, "msaa", f.msaa, MSAA_VALUES, |m| format!("{m}x")) {
        f.msaa = v;
        said = Some(format!("msaa {v}"));
    }
    if let Err(why) = f.check() {
        // What the panel would make is refused: say why, change nothing.
        small(ui, why);
    } else if let Some(said) = said.filter(|_| f != *now) {
        out.push(Command::Features(Box::new(f), said));
    }
}

fn exposure(ui: &mut Ui, w: &mut Widgets, f: &mut Features, said: &mut Option<String>) {
    let auto = matches!(f.exposure, Exposure::Auto { .. });
    let modes = [true, false];
    let name = |a: &bool| if *a { "auto" } else { "fixed" }.to_string();
    if let Some(a) = choose(ui, w, "exposure", auto, &modes, name) {
        f.exposure = match f.exposure {
            Exposure::Auto { compensation } => Exposure::Fixed(2f32.powf(compensation)),
            Exposure::Fixed(x) => Exposure::Auto {
                compensation: x.max(1e-3).log2(),
            },
        };
        *said = Some(format!("exposure {}", name(&a)));
    }
    // Both sliders in EV: a fixed exposure is a multiplier of 2^EV.
    let ev = match f.exposure {
        Exposure::Auto { compensation } => f64::from(compensation),
        Exposure::Fixed(x) => f64::from(x.max(1e-3).log2()),
    };
    let label = if auto {
        "compensation EV"
    } else {
        "exposure EV"
    };
    if let Some(v) = slider(ui, w, label, ev, -6.0..=6.0, 0.25) {
        f.exposure = match f.exposure {
            Exposure::Auto { .. } => Exposure::Auto {
                compensation: v as f32,
            },
            Exposure::Fixed(_) => Exposure::Fixed(2f32.powf(v as f32)),
        };
        *said = Some(format!("{label} {v:+.2}"));
    }
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// A drop-down of `options`; the one picked when it differs from `now`.
fn choose<T: PartialEq + Copy>(
    ui: &mut Ui,
    w: &mut Widgets,
    label: &str,
    now: T,
    options: &[T],
    name: impl Fn(&T) -> String,
) -> Option<T> {
    let mut picked = now;
    let r = ComboBox::from_label(label)
        .selected_text(name(&now))
        .show_ui(ui, |ui| {
            for o in options {
                let r = ui.selectable_value(&mut picked, *o, name(o));
                record(w, &format!("{label}={}", name(o)), r);
            }
        });
    record(w, label, r.response);
    (picked != now).then_some(picked)
}

/// A slider showing `now`; the value when it is let go (or typed) at another value. The
/// dragged value lives in egui's memory meanwhile, so the frame keeps its plan.
fn slider(
    ui: &mut Ui,
    w: &mut Widgets,
    label: &str,
    now: f64,
    range: std::ops::RangeInclusive<f64>,
    step: f64,
) -> Option<f64> {
    let id = ui.id().with(("slider", label));
    let mut v = ui.data(|d| d.get_temp::<f64>(id)).unwrap_or(now);
    let mut s = egui::Slider::new(&mut v, range).step_by(step).text(label);
    if step >= 1.0 {
        s = s.integer();
    }
    let r = ui.add(s);
    let r = record(w, label, r);
    if r.dragged() || r.has_focus() {
        ui.data_mut(|d| d.insert_temp(id, v));
        return None;
    }
    ui.data_mut(|d| d.remove::<f64>(id));
    ((r.drag_stopped() || r.changed()) && (v - now).abs() > step / 2.0).then_some(v)
}
