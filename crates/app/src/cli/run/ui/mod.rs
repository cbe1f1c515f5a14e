//! The window's UI: egui, fed by egui-winit (mouse, touch, keys, the scale factor), built
//! from the app's state each frame ([`panels`]) and handed to the renderer as one
//! [`UiFrame`], which the graph's `ui` pass paints over the output.
//!
//! What the user does in it comes back as [`Command`]s the app carries out as it does the
//! keys'. `--script` drives it through egui's own input path: `ui=LABEL` and `tap=LABEL`
//! press and release the mouse (or a finger) at the centre of the widget with that label as
//! drawn in the last frame, `click=X,Y` at a window pixel ([`Ui::click_at`]).
//!
//! With a simulated surface rotation (`--script N:rotate=DEG`) the window shows the
//! physical image, the frame pre-rotated: egui's screen is the logical (upright) one and the
//! window's pointer and touch positions are turned into it ([`to_upright`]). A real rotated
//! surface (Android) needs no such turn: its input comes in the upright orientation.

pub mod animation_panel;
mod features_panel;
mod frame_panel;
pub mod panels;
pub mod sky_panel;
pub mod timing;

use egui::{Event, PointerButton, Pos2, Rect, TouchDeviceId, TouchId, TouchPhase};
use std::collections::{HashMap, VecDeque};
use std::time::Instant;
use tessera_render::frame::ui::UiFrame;
use tessera_render::Rotation;
use winit::window::Window;

pub use panels::{Command, View};

/// Where a widget was drawn, in window pixels.
pub struct Spot {
    /// Its centre (where a script clicks).
    pub centre: (f64, f64),
    /// Left, top, right, bottom.
    pub rect: [f64; 4],
}

/// The longest press that is a click, seconds (egui's default is 0.8).
const MAX_CLICK_SECONDS: f64 = 5.0;

/// Frames whose build time the median takes.
const BUILD_TIMES: usize = 1000;

/// The UI between frames.
pub struct Ui {
    ctx: egui::Context,
    /// egui's winit input, once the window is open.
    input: Option<egui_winit::State>,
    /// Tab: the UI is drawn (and takes input).
    pub shown: bool,
    /// Scripted input, a frame's events each, the next frame's first.
    scripted: VecDeque<Vec<Event>>,
    /// Frames built since the UI was last shown.
    frames_shown: u32,
    /// Where each labelled widget was drawn in the last frame (points).
    widgets: HashMap<String, Rect>,
    /// Points per pixel of the last frame.
    pixels_per_point: f32,
    /// CPU µs of the last frames' build and tessellation (at most [`BUILD_TIMES`]).
    build_us: VecDeque<f64>,
    /// The simulated surface rotation the window's input is turned back from.
    rotation: Rotation,
    /// The window's size in pixels at the last frame (the physical image's).
    window_px: (f32, f32),
}

/// Where window position `p` (of a window `size`, physical orientation, points or pixels
/// alike) lies on the upright picture that `rotation` pre-rotated into the window: the
/// inverse of the pre-rotation (`tessera_render::frame::rotate`), continuous.
pub fn to_upright(rotation: Rotation, size: (f32, f32), p: (f32, f32)) -> (f32, f32) {
    let (w, h) = size;
    match rotation {
        Rotation::R0 => p,
        Rotation::R90 => (h - p.1, p.0),
        Rotation::R180 => (w - p.0, h - p.1),
        Rotation::R270 => (p.1, w - p.0),
    }
}

impl Ui {
    /// A UI, shown or hidden at start.
    pub fn new(shown: bool) -> Ui {
        let ctx = egui::Context::default();
        panels::style(&ctx);
        // egui times a click by its frames' input times: a press and a release a slow frame
        // apart (a software rasteriser, a phone under load) are still a click.
        ctx.options_mut(|o| o.input_options.max_click_duration = MAX_CLICK_SECONDS);
        Ui {
            ctx,
            input: None,
            shown,
            scripted: VecDeque::new(),
            frames_shown: 0,
            widgets: HashMap::new(),
            pixels_per_point: 1.0,
            build_us: VecDeque::new(),
            rotation: Rotation::R0,
            window_px: (0.0, 0.0),
        }
    }

    /// The median CPU µs of building and tessellating a frame's UI, and of how many frames.
    pub fn build_median_us(&self) -> Option<(f64, usize)> {
        let v: Vec<f64> = self.build_us.iter().copied().collect();
        Some((timing::median(&v)?, v.len()))
    }

    /// Takes its input from `window` from now on (the window's scale factor scales it).
    pub fn attach(&mut self, window: &Window) {
        // The font atlas's largest side: every Vulkan device samples 4096² images.
        let max_texture_side = 4096;
        self.input = Some(egui_winit::State::new(
            self.ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(max_texture_side),
        ));
    }

    /// Notes that the UI is not drawn this frame (it measures itself again when shown).
    pub fn hidden_frame(&mut self) {
        self.frames_shown = 0;
    }

    /// Hands a window event to egui; `true` when egui used it (the camera must not). A
    /// hidden UI takes nothing (its input would pile up until shown).
    pub fn on_event(&mut self, window: &Window, event: &winit::event::WindowEvent) -> bool {
        let Some(state) = self.input.as_mut().filter(|_| self.shown) else {
            return false;
        };
        state.on_window_event(window, event).consumed
    }

    /// Turns the window's input by the inverse of the simulated `rotation` from the next
    /// frame on ([`to_upright`]).
    pub fn set_simulated_rotation(&mut self, rotation: Rotation) {
        self.rotation = rotation;
    }

    /// Window pixel (`x`, `y`) on the upright picture (the simulated rotation undone).
    pub fn upright(&self, x: f64, y: f64) -> (f64, f64) {
        let (x, y) = to_upright(self.rotation, self.window_px, (x as f32, y as f32));
        (f64::from(x), f64::from(y))
    }

    /// Whether window pixel (`x`, `y`) is on the UI as last drawn (a press there is the
    /// UI's, not the camera's).
    pub fn covers(&self, x: f64, y: f64) -> bool {
        let (x, y) = self.upright(x, y);
        let p = Pos2::new(x as f32, y as f32) / self.pixels_per_point;
        self.shown && self.ctx.layer_id_at(p).is_some()
    }

    /// Builds this frame's UI over `view` for the output `window` shows: the painted frame
    /// for the renderer and what the user asked for.
    pub fn frame(&mut self, window: &Window, view: &View) -> (UiFrame, Vec<Command>) {
        let mut raw = match &mut self.input {
            Some(state) => state.take_egui_input(window),
            None => egui::RawInput::default(),
        };
        let size = window.inner_size();
        self.window_px = (size.width as f32, size.height as f32);
        if let (Some(screen), true) = (raw.screen_rect, self.rotation != Rotation::R0) {
            // The window's points, physical orientation, onto the upright screen.
            let (w, h) = (screen.width(), screen.height());
            let (uw, uh) = if self.rotation.swaps() {
                (h, w)
            } else {
                (w, h)
            };
            raw.screen_rect = Some(Rect::from_min_size(screen.min, egui::vec2(uw, uh)));
            let turn = |p: &mut Pos2| {
                let (x, y) = to_upright(self.rotation, (w, h), (p.x, p.y));
                *p = Pos2::new(x, y);
            };
            for e in &mut raw.events {
                match e {
                    Event::PointerMoved(p) => turn(p),
                    Event::PointerButton { pos, .. } | Event::Touch { pos, .. } => turn(pos),
                    _ => {}
                }
            }
        }
        let (frame, commands, output) = self.build(raw, view);
        if let Some(state) = &mut self.input {
            state.handle_platform_output(window, output);
        }
        (frame, commands)
    }

    /// This frame's UI for an output of `size` pixels without a window or input, a point a
    /// pixel (`tessera bench --ui`).
    pub fn frame_headless(&mut self, size: (u32, u32), view: &View) -> UiFrame {
        let screen = egui::vec2(size.0 as f32, size.1 as f32);
        let raw = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, screen)),
            ..egui::RawInput::default()
        };
        self.build(raw, view).0
    }

    /// Runs egui over `raw` and the panels; tessellates.
    fn build(
        &mut self,
        mut raw: egui::RawInput,
        view: &View,
    ) -> (UiFrame, Vec<Command>, egui::PlatformOutput) {
        let started = Instant::now();
        // egui hit-tests against the widgets of the frame before, and an area's first frame
        // only measures it: scripted input waits until the UI has been drawn twice.
        if self.frames_shown >= 2 {
            if let Some(events) = self.scripted.pop_front() {
                raw.events.extend(events);
            }
        }
        self.frames_shown += 1;
        let mut commands = Vec::new();
        let mut widgets = HashMap::new();
        let output = self.ctx.run(raw, |ctx| {
            panels::show(ctx, view, &mut commands, &mut widgets);
        });
        self.widgets = widgets;
        self.pixels_per_point = output.pixels_per_point;
        let primitives = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        if self.build_us.len() == BUILD_TIMES {
            self.build_us.pop_front();
        }
        self.build_us
            .push_back(started.elapsed().as_secs_f64() * 1e6);
        let frame = UiFrame {
            primitives,
            textures_delta: output.textures_delta,
            pixels_per_point: output.pixels_per_point,
        };
        (frame, commands, output.platform_output)
    }

    /// Where the widget labelled `label` was drawn in the last frame.
    pub fn widget_at(&self, label: &str) -> anyhow::Result<Spot> {
        if !self.shown {
            anyhow::bail!("the UI is hidden (Tab shows it): no widget '{label}' to click");
        }
        let rect = self.widgets.get(label).ok_or_else(|| {
            let mut shown: Vec<&str> = self.widgets.keys().map(String::as_str).collect();
            shown.sort_unstable();
            anyhow::anyhow!(
                "the UI shows no widget '{label}' (shown: {}; a closed panel's widgets show once \
                 its title is clicked)",
                shown.join(", ")
            )
        })?;
        let px = |v: f32| f64::from(v * self.pixels_per_point);
        let c = rect.center();
        Ok(Spot {
            centre: (px(c.x), px(c.y)),
            rect: [
                px(rect.min.x),
                px(rect.min.y),
                px(rect.max.x),
                px(rect.max.y),
            ],
        })
    }

    /// A mouse click at window pixel (`x`, `y`), through egui's input: the pointer moves
    /// there, presses and releases in the next frame (as egui's own test harness clicks).
    pub fn click_at(&mut self, x: f64, y: f64) {
        let pos = Pos2::new(x as f32, y as f32) / self.pixels_per_point;
        let button = |pressed| Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        self.script(vec![Event::PointerMoved(pos), button(true), button(false)]);
    }

    /// A finger's tap at window pixel (`x`, `y`): the touch events egui-winit makes of a
    /// finger, with the pointer events it derives from the first finger.
    pub fn tap_at(&mut self, x: f64, y: f64) {
        let pos = Pos2::new(x as f32, y as f32) / self.pixels_per_point;
        let touch = |phase| Event::Touch {
            device_id: TouchDeviceId(0),
            id: TouchId(0),
            phase,
            pos,
            force: None,
        };
        let button = |pressed| Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        self.script(vec![
            touch(TouchPhase::Start),
            Event::PointerMoved(pos),
            button(true),
            touch(TouchPhase::End),
            button(false),
            Event::PointerGone,
        ]);
    }

    /// Queues scripted events for the frame after those already queued.
    fn script(&mut self, events: Vec<Event>) {
        self.scripted.push_back(events);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_positions_turn_onto_the_upright_picture() {
        // A 4×2 window showing a 2×4 upright picture pre-rotated for a 90° transform: the
        // engine turns the window's top-left corner to the picture's top-right.
        let size = (4.0, 2.0);
        assert_eq!(to_upright(Rotation::R90, size, (0.0, 0.0)), (2.0, 0.0));
        assert_eq!(to_upright(Rotation::R90, size, (4.0, 2.0)), (0.0, 4.0));
        assert_eq!(to_upright(Rotation::R180, size, (1.0, 0.5)), (3.0, 1.5));
        assert_eq!(to_upright(Rotation::R270, size, (0.0, 0.0)), (0.0, 4.0));
        assert_eq!(to_upright(Rotation::R0, size, (1.0, 0.5)), (1.0, 0.5));
        // A pixel centre maps to the centre of the upright pixel the output's writers take for
        // it: 90°, physical (px, py) shows upright (W - 1 - py, px), W the upright width.
        let (px, py) = (3.0, 1.0);
        let (x, y) = to_upright(Rotation::R90, size, (px + 0.5, py + 0.5));
        assert_eq!((x - 0.5, y - 0.5), (2.0 - 1.0 - py, px));
    }
}
