//! The UI's panels: collapsible frames down the left and at the top right, small enough to
//! leave the frame visible (at 1280×720, 14% of the window with the default panels open, 21%
//! with the Last change panel too; on an output under 960×540 every panel starts collapsed
//! to its title).
//!
//! - down the left: *Optimisations* (a checkbox per switch, greyed with the reason where it
//!   cannot change the plan on this device, and the plan's figures), *Features* (the
//!   frame's features: [`super::features_panel`]), *Animation* (for a scene with glTF
//!   animations: play, pause and scrub, [`super::animation_panel`]), *Plan* (writes the plan JSON and the
//!   viewer page), *Keys* (the key table) and, once there is one, *Last change* (what the
//!   last switch did to the plan and to the measured GPU frame time, errors, files written);
//! - top right: *Frame* (frame times, queues, GPU ms per pass: [`super::frame_panel`]).
//!
//! Every widget a script may click is recorded with its label ([`Widgets`]).

use super::timing::Timing;
use crate::cli::run::actions::{self, Action, Optimisation, BINDINGS, MOVEMENT_HELP};
use crate::cli::run::no_effect;
use crate::cli::run::toggles::{self, mib, Figures, Switches};
use egui::{Align2, CollapsingHeader, Color32, Context, Frame, Rect, RichText, Ui, Vec2};
use std::collections::HashMap;
use tessera_render::features::Features;

/// Where each labelled widget was drawn (points).
pub type Widgets = HashMap<String, Rect>;

/// Colours: text that must be read on any picture, on an almost opaque panel.
pub const RED: Color32 = Color32::from_rgb(255, 110, 100);
pub const YELLOW: Color32 = Color32::from_rgb(255, 220, 90);
pub const CPU: Color32 = Color32::from_rgb(255, 170, 60);
pub const GPU: Color32 = Color32::from_rgb(110, 200, 255);

/// An output narrower or lower than this (points) starts with every panel collapsed.
const SMALL: Vec2 = Vec2::new(960.0, 540.0);

/// What the app's state shows in the UI this frame.
pub struct View<'a> {
    /// The switches as they are.
    pub switches: &'a Switches,
    /// The optimisations that cannot change the plan on this device, and why.
    pub greyed: &'a [(Optimisation, String)],
    /// The steady plan's figures.
    pub figures: &'a Figures,
    /// Frame and GPU times, the last change.
    pub timing: &'a Timing,
    /// The last error, and the files written.
    pub notes: &'a Notes,
    /// The scene's lights (the lights slider's end).
    pub scene_lights: u32,
    /// The animations, when the scene has any.
    pub animation: Option<super::animation_panel::AnimationView>,
    /// The sun the app set in place of the scene's, if any.
    pub sun: super::sky_panel::SunAngles,
}

/// What the UI says besides the figures.
#[derive(Debug, Default)]
pub struct Notes {
    /// Camera mode and speed, the lights' motion.
    pub camera: String,
    /// The files last written (screenshot, capture, plan).
    pub wrote: Option<String>,
    /// The last error (a shader that failed to compile, a dropped file that did not load).
    pub error: Option<String>,
}

/// What the user asked for in the UI.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// What a key does.
    Act(Action),
    /// New features, and what changed in words ("lights 12").
    Features(Box<Features>, String),
    /// Play (`true`) or pause the animations.
    Animate(bool),
    /// Put the animations at this time (seconds).
    AnimationTime(f32),
    /// Put the sun there (elevation, azimuth in degrees), or the scene's back.
    Sun(super::sky_panel::SunAngles),
}

/// The look: egui's dark theme, panels nearly opaque (text stays readable over a bright
/// frame), no shadows (they would darken more of the frame than the panels cover).
pub fn style(ctx: &Context) {
    ctx.style_mut(|s| {
        s.visuals = egui::Visuals::dark();
        s.visuals.window_shadow = egui::Shadow::NONE;
        s.visuals.popup_shadow = egui::Shadow::NONE;
        s.visuals.window_fill = Color32::from_rgba_premultiplied(18, 18, 20, 235);
        s.spacing.item_spacing = Vec2::new(6.0, 3.0);
        s.spacing.interact_size.y = 16.0;
    });
}

/// Builds the panels.
pub fn show(ctx: &Context, view: &View, out: &mut Vec<Command>, widgets: &mut Widgets) {
    let screen = ctx.screen_rect().size();
    let open = screen.x >= SMALL.x && screen.y >= SMALL.y;
    egui::Area::new("left".into())
        .anchor(Align2::LEFT_TOP, Vec2::splat(6.0))
        .show(ctx, |ui| {
            panel(ui, "Optimisations", open, widgets, |ui, w| {
                optimisations(ui, view, out, w);
            });
            if view.animation.is_some() {
                panel(ui, "Animation", open, widgets, |ui, w| {
                    super::animation_panel::show(ui, view, out, w);
                });
            }
            panel(ui, "Features", false, widgets, |ui, w| {
                super::features_panel::show(ui, view, out, w);
            });
            panel(ui, "Sky", false, widgets, |ui, w| {
                super::sky_panel::show(ui, view, out, w);
            });
            panel(ui, "Plan", false, widgets, |ui, w| plan(ui, view, out, w));
            panel(ui, "Keys", false, widgets, |ui, _| keys(ui));
            let notes = view.notes;
            if view.timing.change.is_some() || notes.error.is_some() || notes.wrote.is_some() {
                panel(ui, "Last change", open, widgets, |ui, _| {
                    last_change(ui, view)
                });
            }
        });
    egui::Area::new("right".into())
        .anchor(Align2::RIGHT_TOP, Vec2::new(-6.0, 6.0))
        .show(ctx, |ui| {
            panel(ui, "Frame", open, widgets, |ui, w| {
                super::frame_panel::show(ui, view, w);
            });
        });
}

/// One collapsible panel: a frame holding a header (recorded under `title`) and, open,
/// what `add` draws.
fn panel(
    ui: &mut Ui,
    title: &str,
    open: bool,
    widgets: &mut Widgets,
    add: impl FnOnce(&mut Ui, &mut Widgets),
) {
    Frame::window(ui.style())
        .inner_margin(egui::Margin::symmetric(6, 4))
        .show(ui, |ui| {
            let r = CollapsingHeader::new(RichText::new(title).strong())
                .id_salt(title)
                .default_open(open)
                .show(ui, |ui| add(ui, widgets));
            widgets.insert(title.to_string(), r.header_response.rect);
        });
    ui.add_space(4.0);
}

/// Records `r` under `label` and gives it back.
pub fn record(widgets: &mut Widgets, label: &str, r: egui::Response) -> egui::Response {
    widgets.insert(label.to_string(), r.rect);
    r
}

/// The key of `action` and what it does, as a hover text.
pub fn key_hint(action: Action) -> String {
    let b = actions::binding(action);
    format!("[{}] {}", b.key.label(), b.help)
}

fn optimisations(ui: &mut Ui, view: &View, out: &mut Vec<Command>, w: &mut Widgets) {
    ui.set_max_width(180.0);
    let o = &view.switches.options;
    for opt in no_effect::ALL {
        let label = toggles::name(opt);
        let mut on = *toggles::flag(&mut o.clone(), opt);
        let greyed = view.greyed.iter().find(|(g, _)| *g == opt);
        let action = Action::Optimisation(opt);
        let r = ui.add_enabled(greyed.is_none(), egui::Checkbox::new(&mut on, label));
        let r = match greyed {
            Some((_, why)) => r.on_disabled_hover_text(format!("{}\n{why}", key_hint(action))),
            None => r.on_hover_text(key_hint(action)),
        };
        if record(w, label, r).changed() {
            out.push(Command::Act(action));
        }
    }
    let all = if *o == tessera_graph::CompileOptions::ALL {
        "all off"
    } else {
        "all on"
    };
    let r = ui
        .button(all)
        .on_hover_text(key_hint(Action::AllOptimisations));
    if record(w, "optimisations", r).clicked() {
        out.push(Command::Act(Action::AllOptimisations));
    }
    let f = view.figures;
    ui.separator();
    small(
        ui,
        format!(
            "{} passes, {} render passes ({} subpasses)\n{} barriers, {} semaphores\n\
             memory {} aliased ({} unaliased)\n{} memoryless; tile traffic {} ({} naive)",
            f.passes,
            f.render_passes,
            f.subpasses,
            f.barriers,
            f.semaphores,
            mib(f.aliased),
            mib(f.unaliased),
            mib(f.memoryless),
            mib(f.bandwidth),
            mib(f.naive_bandwidth)
        ),
    );
}

fn plan(ui: &mut Ui, view: &View, out: &mut Vec<Command>, w: &mut Widgets) {
    let r = ui
        .button("write plan")
        .on_hover_text(key_hint(Action::DumpPlan));
    if record(w, "plan", r).clicked() {
        out.push(Command::Act(Action::DumpPlan));
    }
    let r = ui
        .button("screenshot")
        .on_hover_text(key_hint(Action::Screenshot));
    if record(w, "screenshot", r).clicked() {
        out.push(Command::Act(Action::Screenshot));
    }
    if let Some(wrote) = &view.notes.wrote {
        small(ui, format!("wrote {wrote}"));
    }
}

fn keys(ui: &mut Ui) {
    let lines: Vec<String> = BINDINGS
        .iter()
        .map(|b| format!("{:>5}  {}", b.key.label(), b.help))
        .collect();
    ui.label(RichText::new(lines.join("\n")).small().monospace());
    ui.add(egui::Label::new(RichText::new(MOVEMENT_HELP).small()).wrap());
}

fn last_change(ui: &mut Ui, view: &View) {
    ui.set_max_width(340.0);
    if let Some(e) = &view.notes.error {
        ui.add(egui::Label::new(RichText::new(format!("error: {e}")).color(RED)).wrap());
    }
    if let Some(c) = &view.timing.change {
        ui.label(
            RichText::new(format!(
                "{} (re-planned in {:.2} ms)",
                c.reason, c.replan_ms
            ))
            .color(YELLOW),
        );
        if c.summary.is_empty() {
            small(ui, "the plan is the same".into());
        }
        for line in &c.summary {
            small(ui, line.clone());
        }
        let t = view.timing;
        let (before, after) = (t.median_of(c.plans.0), t.median_of(c.plans.1));
        let measured = match (before, after) {
            (Some((b, nb)), Some((a, na))) => format!(
                "GPU frame {b:.3} -> {a:.3} ms ({:+.1}%), medians of {nb} | {na} frames",
                (a - b) / b.max(1e-9) * 100.0
            ),
            (Some((b, nb)), None) => {
                format!("GPU frame {b:.3} ms before (median of {nb}); after: measuring")
            }
            (None, Some((a, na))) => format!("GPU frame {a:.3} ms after (median of {na})"),
            (None, None) => "GPU frame: measuring".into(),
        };
        ui.label(RichText::new(measured).color(GPU));
    }
    if let Some(wrote) = &view.notes.wrote {
        small(ui, format!("wrote {wrote}"));
    }
}

/// Text in the small style, wrapped to the panel.
pub fn small(ui: &mut Ui, text: String) {
    ui.add(egui::Label::new(RichText::new(text).small()).wrap());
}
