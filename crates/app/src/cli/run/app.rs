//! The window application: a winit 0.30 [`ApplicationHandler`] that opens the window, the
//! device for its surface, the renderer and the swapchain, then on each redraw moves the
//! camera, builds the UI ([`super::ui`]), acquires a swapchain image, renders the frame into
//! it through the graph ([`Renderer::render_to`]: the image is the graph's per-frame
//! imported output with `exit: present`) and presents it.
//!
//! - Resize, `ERROR_OUT_OF_DATE_KHR` and `SUBOPTIMAL_KHR` recreate the swapchain (after the
//!   device is idle) and reconfigure the renderer to the new extent: the next frame
//!   re-plans. A minimised window (0×0, or occluded) renders nothing and asks for no redraw:
//!   the loop sleeps in the event wait until it is restored.
//! - A toggle changes the renderer's features or options; the next frame re-plans and the
//!   UI and the log say what the plan diff changed, how long the re-plan took, and the
//!   GPU frame time before and after.
//! - Mouse and touch go to the UI first; the camera takes what the UI does not. A file
//!   dropped on the window loads as the scene (a bad one is an error in the UI, and the old
//!   scene stays).
//! - Any error (a lost device or surface among them) ends the loop and the program with one
//!   message; validation messages make the exit status 1.

use super::actions::{self, Action};
use super::clock::Clock;
use super::input::Input;
use super::launch::{Launch, Opening, Options};
use super::no_effect;
use super::outputs::Outputs;
use super::presenter::{explain, explain_vk, new_surface, Presenter};
use super::run_log::RunLog;
use super::script::Step;
use super::script_run::ScriptRun;
use super::switching::{Replan, Switching};
use super::toggles::{changes, Figures, Switches};
use super::touch::{Phase, Touches};
use super::ui::animation_panel::AnimationView;
use super::ui::panels::Notes;
use super::ui::sky_panel;
use super::ui::timing::{self, Change, Timing};
use super::ui::{Command, Ui, View as UiView};
use super::visibility::{Hidden, Visibility};
use crate::cli::frame_args::{resolve_profile, AUTO};
use anyhow::Context;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tessera_render::camera::{CameraController, CameraMode, View};
use tessera_render::{Renderer, Rotation, Settings};
use tessera_vk::executor::ImportedImage;
use tessera_vk::swapchain::{Acquired, Presented};
use tessera_vk::{Gpu, GpuOptions, SurfaceRequest, VkError, WindowSurface};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, StartCause, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::PhysicalKey;
use winit::window::{Window, WindowId};

/// The window app: each part holds one kind of state, and the methods here are what needs
/// several of them (a frame, an action, the platform's events). Field order is drop order:
/// the Vulkan objects go before RenderDoc (in `outputs`), which hooked them.
struct App {
    /// The launch options, fixed for the run.
    options: Options,
    /// What to open, taken when the window opens.
    opening: Option<Opening>,
    /// The window and the Vulkan objects, once open.
    live: Option<Presenter>,
    outputs: Outputs,
    switching: Switching,
    ui: Ui,
    /// What the UI shows besides the switches.
    notes: Notes,
    timing: Timing,
    /// The steady plan's figures.
    figures: Figures,
    /// The optimisations that cannot change the steady plan, and why.
    greyed: Vec<(super::actions::Optimisation, String)>,
    /// The sun the Sky panel set in place of the scene's (elevation, azimuth in degrees).
    sun: sky_panel::SunAngles,
    /// Steady plans seen (each switch that changes the plan makes one).
    steady_plans: u64,
    /// The surface transform `--script N:rotate=DEG` simulates on a surface that has none:
    /// the window shows the physical (native) image, the frame and the UI are drawn for the
    /// logical one, its sides swapped at 90° and 270°.
    simulated_rotation: Rotation,
    /// Fingers that landed on the UI: theirs, not the camera's.
    ui_fingers: std::collections::HashSet<u64>,
    camera: Option<CameraController>,
    input: Input,
    clock: Clock,
    script: ScriptRun,
    visibility: Visibility,
    log: RunLog,
    error: Option<anyhow::Error>,
    quit: bool,
}

impl App {
    fn new(launch: Launch) -> App {
        let Launch {
            chosen,
            width,
            height,
            present_mode,
            validation,
            emulate_async,
            frames,
            overlay,
            renderdoc,
            out_dir,
            shader_dir,
            script,
            auto_profile,
            tile_rules,
        } = launch;
        let settings = Settings {
            width,
            height,
            options: chosen.options,
            emulate_async,
            read_back: false,
            features: chosen.features.clone(),
            profile: chosen.profile.clone(),
            tile_rules,
            ..Settings::default()
        };
        let switches = Switches {
            features: chosen.features.clone(),
            options: chosen.options,
        };
        let fixed_step = frames.is_some() || !script.is_empty();
        App {
            options: Options {
                present_mode,
                validation,
                frames,
                shader_dir,
                renderdoc,
            },
            opening: Some(Opening {
                settings,
                scene: chosen.scene,
                start: chosen.camera,
                auto_profile: auto_profile.map(|a| (a, chosen.config.clone())),
            }),
            live: None,
            outputs: Outputs::new(out_dir),
            switching: Switching::new(switches),
            ui: Ui::new(overlay),
            notes: Notes::default(),
            timing: Timing::default(),
            figures: Figures::default(),
            greyed: Vec::new(),
            sun: None,
            steady_plans: 0,
            simulated_rotation: Rotation::R0,
            ui_fingers: Default::default(),
            camera: None,
            input: Input::default(),
            clock: Clock {
                fixed_step,
                animation: super::clock::AnimationClock {
                    playing: chosen.animate,
                    enabled: chosen.animate,
                    time: 0.0,
                },
                ..Clock::default()
            },
            script: ScriptRun::new(script),
            visibility: Visibility::default(),
            log: RunLog::default(),
            error: None,
            quit: false,
        }
    }

    fn open(&mut self, event_loop: &ActiveEventLoop) -> anyhow::Result<()> {
        let Some(Opening {
            mut settings,
            scene,
            start,
            auto_profile,
        }) = self.opening.take()
        else {
            return Ok(());
        };
        if self.options.renderdoc {
            // Before the instance: RenderDoc hooks Vulkan as it loads.
            self.outputs.load_renderdoc()?;
        }
        let attrs = Window::default_attributes()
            .with_title("tessera")
            .with_inner_size(winit::dpi::PhysicalSize::new(
                settings.width,
                settings.height,
            ));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .context("opening the window")?,
        );
        let gpu = Arc::new(
            Gpu::new(&GpuOptions {
                validation: self.options.validation,
                surface: Some(SurfaceRequest::new(window.clone())),
                ..Default::default()
            })
            .map_err(|e| match e {
                VkError::NoDevice(_) => anyhow::anyhow!("{e}"),
                e => anyhow::anyhow!("opening the device for the window: {e}"),
            })?,
        );
        log::info!("device: {}", gpu.device_name());
        self.input.touches = Touches::new(window.scale_factor());
        self.ui.attach(&window);
        if let Some((args, config)) = auto_profile {
            let features = settings.features.clone();
            let (profile, features, why) = resolve_profile(&args, &config, AUTO, features, &gpu)?;
            println!(
                "profile {profile} chosen by the device: {}",
                why.unwrap_or_default()
            );
            settings.profile = profile;
            settings.features = features.clone();
            self.switching.switches.features = features;
        }
        let surface = self.make_surface(&gpu, &window)?;
        let start = start.unwrap_or_else(|| View::of(&scene));
        self.camera = Some(CameraController::new(start, scene.bounds));
        window.set_title(&title(&scene.name, &settings.profile, &gpu.device_name()));
        let renderer = Renderer::new(gpu.clone(), scene, settings)?;
        self.live = Some(Presenter {
            renderer,
            swapchain: None,
            surface: Some(surface),
            gpu,
            window,
            stale: true,
        });
        self.recreate()?;
        if let Some(l) = &self.live {
            l.window.request_redraw();
        }
        Ok(())
    }

    /// A new surface for the window (at open and on each resume), counted.
    fn make_surface(
        &mut self,
        gpu: &Arc<Gpu>,
        window: &Arc<Window>,
    ) -> anyhow::Result<Arc<WindowSurface>> {
        let surface = new_surface(gpu, window)?;
        self.log.surfaces += 1;
        Ok(surface)
    }

    /// The platform takes the window away: waits for the frames in flight, then drops the
    /// swapchain and the surface before returning (Android destroys the native window once
    /// the `Suspended` handler returns). Everything else stays for the resume.
    fn suspend(&mut self, until: Option<Instant>) -> anyhow::Result<()> {
        if !self.visibility.suspend(until) {
            return Ok(());
        }
        // Keys and fingers released while suspended never arrive.
        self.input.release_all();
        self.ui_fingers.clear();
        let Some(live) = &mut self.live else {
            return Ok(());
        };
        live.drop_surface()
    }

    /// The platform gives the window back: a new surface, and the next frame makes the
    /// swapchain for the window's size (which may have changed: a rotation).
    fn resume(&mut self) -> anyhow::Result<()> {
        let Some(ms) = self.visibility.resume() else {
            return Ok(());
        };
        self.log.suspend_log.push(ms);
        self.clock.last_frame = None;
        let Some((gpu, window)) = self
            .live
            .as_ref()
            .map(|l| (l.gpu.clone(), l.window.clone()))
        else {
            return Ok(());
        };
        let surface = self.make_surface(&gpu, &window)?;
        if let Some(l) = &mut self.live {
            l.surface = Some(surface);
            l.redraw_stale();
        }
        Ok(())
    }

    /// Recreates the swapchain for the window's size (none while it is 0×0 or suspended)
    /// and sets the renderer to its logical extent and rotation: the surface's pre-rotation
    /// when it has one, else the simulated one (`--script N:rotate=DEG`).
    fn recreate(&mut self) -> anyhow::Result<()> {
        let Some(live) = &mut self.live else {
            return Ok(());
        };
        let Some((extent, turns)) = live.recreate_swapchain(self.options.present_mode)? else {
            return Ok(());
        };
        self.log.swapchains += 1;
        self.log.extent = (extent.width, extent.height);
        let rotation = match turns {
            0 => self.simulated_rotation,
            t => Rotation::from_degrees(t * 90).unwrap_or_default(),
        };
        // Only the simulation maps window pixels: a real surface's input is upright already.
        self.ui.set_simulated_rotation(match turns {
            0 => self.simulated_rotation,
            _ => Rotation::R0,
        });
        let (width, height) = rotation.swap((extent.width, extent.height));
        let s = live.renderer.settings();
        if (width, height, rotation) != (s.width, s.height, s.output_rotation) {
            let before = self.switching.steady.clone();
            live.renderer.set_output_rotation(rotation)?;
            live.renderer
                .reconfigure(width, height, self.switching.switches.options)?;
            if self.switching.pending.is_none() {
                let turned = match rotation {
                    Rotation::R0 => String::new(),
                    r => format!(", pre-rotated {}°", r.degrees()),
                };
                self.switching.pending = Some(Replan {
                    reason: format!("resize to {width}x{height}{turned}"),
                    before,
                });
            }
        }
        Ok(())
    }

    /// Does what a key (or a script step) asks.
    fn act(&mut self, action: Action, path: Option<PathBuf>) -> anyhow::Result<()> {
        log::info!("action: {}", actions::binding(action).name);
        match action {
            Action::Optimisation(o) => {
                let said = self.switching.switches.optimisation(o);
                self.apply_switches(said)?;
            }
            Action::AllOptimisations => {
                let said = self.switching.switches.all_optimisations();
                self.apply_switches(said)?;
            }
            Action::Feature(f) => {
                let said = self.switching.switches.feature(f);
                self.apply_switches(said)?;
            }
            Action::CameraMode => {
                if let Some(c) = &mut self.camera {
                    c.toggle_mode();
                }
            }
            Action::Pause => self.clock.paused = !self.clock.paused,
            Action::Overlay => {
                self.ui.shown = !self.ui.shown;
                self.switching
                    .expect_replan(format!("ui {}", if self.ui.shown { "on" } else { "off" }));
            }
            Action::Screenshot => {
                self.outputs.screenshot = Some(self.outputs.file(path, "screenshot", "png"));
            }
            Action::Capture => {
                if self.outputs.capture.is_some() {
                    self.outputs.capture_next = Some(self.outputs.file(path, "capture", "rdc"));
                } else {
                    self.notes.error =
                        Some("capture: RenderDoc is not loaded (start with --renderdoc)".into());
                    log::warn!("capture: RenderDoc is not loaded (start with --renderdoc)");
                }
            }
            Action::ReloadShaders => self.reload_shaders(),
            Action::DumpPlan => {
                let base = self.outputs.file(path, "plan", "json");
                self.dump_plan(&base)?;
            }
            Action::Quit => self.quit = true,
        }
        Ok(())
    }

    /// A tap the gesture recogniser saw away from the UI: with the UI hidden it shows it (a
    /// phone has no Tab key); taps on the UI are egui's.
    fn tap(&mut self) -> anyhow::Result<()> {
        if !self.ui.shown {
            return self.act(Action::Overlay, None);
        }
        Ok(())
    }

    /// `--script ui=LABEL` (a mouse click) or `tap=LABEL` (a finger, `finger`) on the UI's
    /// widget `label` as last drawn, through egui's input; says where.
    fn scripted_click(&mut self, label: &str, finger: bool) -> anyhow::Result<()> {
        let step = if finger { "tap" } else { "ui" };
        let spot = self
            .ui
            .widget_at(label)
            .map_err(|e| anyhow::anyhow!("--script {step}={label}: {e}"))?;
        let ((x, y), [left, top, right, bottom]) = (spot.centre, spot.rect);
        println!(
            "script: {step}={label} at ({x:.0}, {y:.0}), the widget's pixels \
             ({left:.0}, {top:.0})-({right:.0}, {bottom:.0})"
        );
        if finger {
            self.ui.tap_at(x, y);
        } else {
            self.ui.click_at(x, y);
        }
        Ok(())
    }

    /// What the user asked for in the UI, as the keys do it.
    fn command(&mut self, command: Command) -> anyhow::Result<()> {
        match command {
            Command::Act(a) => self.act(a, None),
            Command::Features(features, said) => {
                self.switching.switches.features = *features;
                self.apply_switches(said)
            }
            Command::Animate(on) => {
                let a = &mut self.clock.animation;
                a.playing = on;
                // Playing shows the animation even when the run started at rest.
                a.enabled |= on;
                println!("animation {}", if on { "playing" } else { "paused" });
                Ok(())
            }
            Command::AnimationTime(t) => {
                let a = &mut self.clock.animation;
                a.time = t;
                a.enabled = true;
                Ok(())
            }
            Command::Sun(angles) => {
                self.sun = angles;
                if let Some(l) = &mut self.live {
                    l.renderer.set_sun(angles.map(sky_panel::direction));
                }
                Ok(())
            }
        }
    }

    /// Loads a file dropped on the window as the scene; a file that does not load leaves
    /// the scene as it was and says why in the UI.
    fn load_dropped(&mut self, path: &Path) -> anyhow::Result<()> {
        let Some(l) = &mut self.live else {
            return Ok(());
        };
        let scene = match tessera_scene::load(path) {
            Ok(scene) => scene,
            Err(e) => {
                let said = format!("{} did not load, the scene stays: {e}", path.display());
                log::warn!("{said}");
                println!("{said}");
                self.notes.error = Some(said);
                return Ok(());
            }
        };
        let name = scene.name.clone();
        let start = View::of(&scene);
        let bounds = scene.bounds;
        l.renderer.set_scene(scene)?;
        let s = l.renderer.settings();
        l.window
            .set_title(&title(&name, &s.profile, &l.gpu.device_name()));
        self.camera = Some(CameraController::new(start, bounds));
        self.notes.error = None;
        println!("loaded the dropped scene {}", path.display());
        self.switching
            .expect_replan(format!("scene {}", path.display()));
        Ok(())
    }

    /// Hands the switches to the renderer; the next frame re-plans.
    fn apply_switches(&mut self, said: String) -> anyhow::Result<()> {
        self.switching.expect_replan(said);
        if let Some(l) = &mut self.live {
            let s = l.renderer.settings();
            let (w, h) = (s.width, s.height);
            let switches = &self.switching.switches;
            l.renderer.set_features(switches.features.clone());
            l.renderer.reconfigure(w, h, switches.options)?;
        }
        Ok(())
    }

    fn reload_shaders(&mut self) {
        let Some(l) = &mut self.live else { return };
        let shader_dir = &self.options.shader_dir;
        let notes = &mut self.notes;
        match l.renderer.reload_shaders(shader_dir) {
            Ok(report) => {
                println!("shaders reloaded from {}: {report:?}", shader_dir.display());
                notes.error = None;
            }
            Err(e) => {
                // The old pipelines stay; the UI shows why.
                log::error!("shader reload failed, keeping the old pipelines: {e}");
                notes.error = Some(format!("shader reload: {e}"));
            }
        }
    }

    /// Writes the running plan as JSON (`path`) and as the viewer page beside it (`.html`).
    fn dump_plan(&mut self, path: &Path) -> anyhow::Result<()> {
        let Some(l) = &self.live else { return Ok(()) };
        let exec = l.renderer.executor();
        let (Some(plan), Some(graph)) = (exec.plan(), exec.graph()) else {
            return Ok(());
        };
        let json = serde_json::to_string_pretty(plan)? + "\n";
        std::fs::write(path, json).with_context(|| format!("writing {}", path.display()))?;
        let html_path = path.with_extension("html");
        let page = tessera_viewer::Page::build(graph, plan);
        std::fs::write(&html_path, tessera_viewer::html::html(&page, None))
            .with_context(|| format!("writing {}", html_path.display()))?;
        let said = format!("{} and {}", path.display(), html_path.display());
        println!("wrote the plan: {said}");
        self.notes.wrote = Some(said);
        Ok(())
    }

    fn minimise(&mut self, why: Hidden) {
        self.visibility.minimise(why, self.clock.presented);
    }

    fn restore(&mut self) {
        if let Some(period) = self.visibility.restore(self.clock.presented) {
            self.log.minimise_log.push(period);
            self.clock.last_frame = None;
            if let Some(l) = &mut self.live {
                l.redraw_stale();
            }
        }
    }

    /// Renders and presents one frame; `Ok(false)` when the loop should end.
    fn draw(&mut self) -> anyhow::Result<bool> {
        if self.visibility.skip_redraw() {
            return Ok(true);
        }
        if self.script.waiting() {
            if let Some(l) = &self.live {
                l.window.request_redraw();
            }
            std::thread::sleep(Duration::from_millis(1));
            return Ok(true);
        }
        // X11 reports an iconified window neither as 0×0 nor (always) as occluded; the
        // window manager's state says it.
        if self
            .live
            .as_ref()
            .is_some_and(|l| l.window.is_minimized() == Some(true))
        {
            self.minimise(Hidden::Iconified);
            return Ok(true);
        }
        let gestures = self.input.touches.take();
        for _ in &gestures.taps {
            self.tap()?;
        }
        if self.live.as_ref().is_some_and(|l| l.stale) {
            self.recreate()?;
        }
        let now = Instant::now();
        let dt = self.clock.dt(now);
        let Some(live) = &mut self.live else {
            return Ok(true);
        };
        if live.swapchain.is_none() {
            // 0×0: nothing to draw into.
            return Ok(true);
        }
        let mut input = self.input.take();
        let moved = gestures.orbit != (0.0, 0.0) || gestures.pan != (0.0, 0.0);
        input.look.0 += gestures.orbit.0;
        input.look.1 += gestures.orbit.1;
        input.pan = gestures.pan;
        input.zoom = gestures.zoom;
        input.viewport_height = live.renderer.settings().height as f32;
        if let Some(c) = &mut self.camera {
            if (moved || gestures.zoom != 0.0) && c.mode() == CameraMode::Fly {
                // A finger drags the scene around its centre: touch orbits.
                c.toggle_mode();
            }
            c.update(&input, dt.min(0.1) as f32);
            live.renderer.set_camera(Some(c.view()));
            self.notes.camera = format!(
                "camera: {:?} (C), speed {:.2}; lights {} (Space)",
                c.mode(),
                c.speed(),
                if self.clock.paused {
                    "paused"
                } else {
                    "moving"
                }
            );
        }
        let commands = if self.ui.shown {
            let view = UiView {
                switches: &self.switching.switches,
                greyed: &self.greyed,
                figures: &self.figures,
                timing: &self.timing,
                notes: &self.notes,
                scene_lights: live.renderer.scene().lights.len() as u32,
                animation: live.renderer.scene().is_animated().then(|| {
                    let a = &self.clock.animation;
                    AnimationView {
                        playing: a.enabled && a.playing,
                        time: a.time,
                        duration: live.renderer.scene().animation_duration(),
                    }
                }),
                sun: self.sun,
            };
            let (frame, commands) = self.ui.frame(&live.window, &view);
            live.renderer.set_ui(Some(frame))?;
            commands
        } else {
            self.ui.hidden_frame();
            live.renderer.set_ui(None)?;
            Vec::new()
        };
        for c in commands {
            self.command(c)?;
        }
        let Some(live) = &mut self.live else {
            return Ok(true);
        };
        let Some(sc) = &mut live.swapchain else {
            return Ok(true);
        };
        let capture_frame = self.outputs.screenshot.is_some();
        if capture_frame {
            live.renderer.capture_next();
        }
        let (index, acquire, render_finished, suboptimal) =
            match sc.acquire().map_err(explain_vk)? {
                Acquired::OutOfDate => {
                    live.redraw_stale();
                    return Ok(true);
                }
                Acquired::Image {
                    index,
                    acquire,
                    render_finished,
                    suboptimal,
                } => (index, acquire, render_finished, suboptimal),
            };
        let i = index as usize;
        let target = ImportedImage {
            image: sc.images[i],
            view: sc.views[i],
            format: sc.format,
            extent: sc.extent,
        };
        let capturing = self.outputs.capture_next.take();
        if let (Some(_), Some(c)) = (&capturing, &mut self.outputs.capture) {
            c.start();
        }
        live.renderer
            .set_animation_time(self.clock.animation.drawn());
        let stats = live
            .renderer
            .render_to(self.clock.time, target, acquire, render_finished)
            .map_err(explain)?;
        let presented = sc
            .present(live.gpu.graphics.queue, index, render_finished)
            .map_err(explain_vk)?;
        if let (Some(path), Some(c)) = (capturing, &mut self.outputs.capture) {
            c.set_out(&path);
            let written = c
                .end()
                .map_err(|e| anyhow::anyhow!("RenderDoc capture: {e}"))?;
            let files = crate::cli::capture::write_beside(&written, &live.renderer)?;
            println!(
                "wrote the RenderDoc capture {} (its plan {}; check it with `tessera \
                 verify-capture {}`)",
                written.display(),
                files.plan.display(),
                written.display()
            );
            self.notes.wrote = Some(written.display().to_string());
        }
        // A rotated surface presented upright is suboptimal by choice (`compositor_rotates`);
        // a real change comes as out-of-date or a resize.
        let suboptimal = suboptimal || presented == Presented::Suboptimal;
        if presented == Presented::OutOfDate || (suboptimal && !sc.compositor_rotates) {
            live.stale = true;
        }
        // A frame whose presentation the window system dropped was still rendered: its
        // temporal state (the exposure) advanced. The script and the light motion count
        // rendered frames, so the picture at a step never depends on when the window system
        // answers (a loaded machine answers late, and more presents find the swapchain out
        // of date).
        let dropped = presented == Presented::OutOfDate;
        if dropped {
            log::info!("the window system dropped a presented frame (out of date)");
        }
        self.clock.rendered(now, !dropped);
        self.log.cpu_ms.push(timing::cpu_ms(&stats));
        self.log.submit_ms.push(stats.submit_us / 1e3);
        if stats.rebuilt {
            let before = self.steady_plans;
            let exec = live.renderer.executor();
            if let (Some(plan), Some(graph)) = (exec.plan(), exec.graph()) {
                // A screenshot's frame has the read-back copy in its plan: not the plan a
                // switch changes.
                let steady = (!capture_frame).then(|| {
                    if self.switching.steady.as_ref() != Some(plan) {
                        self.steady_plans += 1;
                        self.figures = Figures::of(plan);
                        self.greyed = no_effect::without_effect(graph, plan);
                        self.switching.steady = Some(plan.clone());
                    }
                    self.steady_plans
                });
                self.timing
                    .plan_ran(live.renderer.plan_generation(), steady);
            }
            // Re-plans nobody asked for (the first frame, a screenshot's copy and the
            // frame after it) are not reported.
            if let Some(replan) = self.switching.pending.take() {
                self.report_replan(replan, stats.prepare_us / 1e3, before);
            }
        } else if let Some(r) = self.switching.pending.take() {
            // A switch that did not change the graph (a feature the frame does not use).
            println!("{}: the graph did not change, no re-plan", r.reason);
            let plan = self.timing.steady;
            self.timing.change = Some(Change {
                reason: format!("{}: the same graph", r.reason),
                replan_ms: 0.0,
                summary: Vec::new(),
                plans: (plan, plan),
            });
        }
        if let Some(live) = &self.live {
            self.timing
                .frame(dt, &stats, live.renderer.newest_gpu_frame());
        }
        if let (Some(path), Some(live)) = (self.outputs.screenshot.take(), &mut self.live) {
            let picture = live
                .renderer
                .picture()?
                .ok_or_else(|| anyhow::anyhow!("screenshot: nothing was read back"))?;
            picture
                .write_png(&path)
                .with_context(|| format!("writing the screenshot {}", path.display()))?;
            println!("wrote the screenshot {}", path.display());
            self.notes.wrote = Some(path.display().to_string());
        }
        self.clock.advance(dt);
        for step in self.script.due(self.clock.rendered) {
            match step {
                Step::Action(a, path) => self.act(a, path)?,
                Step::Resize(w, h) => {
                    if let Some(l) = &mut self.live {
                        log::info!("script: asking for a {w}x{h} window");
                        let size = winit::dpi::PhysicalSize::new(w, h);
                        // Already that size: no Resized event will come, nothing to wait for.
                        let same = l.window.inner_size() == size;
                        if same || l.window.request_inner_size(size).is_some() {
                            // Applied at once: the next frame recreates the swapchain.
                            l.stale |= !same;
                        } else {
                            self.script.wait_for((w, h));
                        }
                    }
                }
                Step::Minimise(ms) => {
                    self.minimise(Hidden::Until(Instant::now() + Duration::from_millis(ms)));
                }
                Step::Suspend(ms) => {
                    self.suspend(Some(Instant::now() + Duration::from_millis(ms)))?;
                }
                Step::Tap(label) => self.scripted_click(&label, true)?,
                Step::Ui(label) => self.scripted_click(&label, false)?,
                Step::Click(x, y) => {
                    let (x, y) = self.ui.upright(f64::from(x), f64::from(y));
                    self.ui.click_at(x, y)
                }
                Step::Drop(path) => self.load_dropped(&path)?,
                Step::Rotate(degrees) => {
                    self.simulated_rotation = Rotation::from_degrees(degrees).unwrap_or_default();
                    println!("script: simulating a surface rotated {degrees}°");
                    if let Some(l) = &mut self.live {
                        l.stale = true;
                    }
                }
            }
        }
        Ok(!self.quit && self.options.frames.is_none_or(|n| self.clock.presented < n))
    }

    /// Says what a re-plan a switch (or a resize) caused changed, and how long it took.
    /// `before` is the steady plan the change left.
    fn report_replan(&mut self, replan: Replan, ms: f64, before: u64) {
        let Some(plan) = self
            .live
            .as_ref()
            .and_then(|l| l.renderer.executor().plan())
        else {
            return;
        };
        let reason = replan.reason;
        let changed = match &replan.before {
            Some(old) => {
                log::info!(
                    "{reason}: re-planned in {ms:.2} ms; the plan diff:\n{}",
                    tessera_viewer::diff::diff(old, plan)
                );
                changes(old, plan)
            }
            None => Vec::new(),
        };
        let summary = if changed.is_empty() {
            "the plan is the same".to_string()
        } else {
            changed.join(", ")
        };
        println!("{reason}: re-planned in {ms:.2} ms: {summary}");
        self.log.replans.push((reason.clone(), ms));
        self.timing.change = Some(Change {
            reason,
            replan_ms: ms,
            summary: changed,
            plans: (before, self.steady_plans),
        });
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        event_loop.exit();
    }

    /// Waits for the GPU, keeps the validation count and closes everything.
    fn close(&mut self) {
        let built = self
            .ui
            .build_median_us()
            .map_or("no UI frames built".into(), |(us, n)| {
                format!("{n} UI frames built, {us:.0} us each (median of build + tessellate)")
            });
        self.log.ui = Some(format!("ui: {built}; {}", self.timing.freshness()));
        if let Some(live) = self.live.take() {
            self.log.messages = live.close();
        }
    }

    fn on_key(&mut self, event: &winit::event::KeyEvent) -> anyhow::Result<()> {
        if let PhysicalKey::Code(code) = event.physical_key {
            match event.state {
                ElementState::Pressed => self.input.keys.insert(code),
                ElementState::Released => self.input.keys.remove(&code),
            };
        }
        if event.state == ElementState::Pressed && !event.repeat {
            if let Some(a) = actions::action_for(&event.logical_key) {
                self.act(a, None)?;
            }
        }
        Ok(())
    }
}

impl ApplicationHandler for App {
    fn new_events(&mut self, event_loop: &ActiveEventLoop, cause: StartCause) {
        if let StartCause::ResumeTimeReached { .. } = cause {
            if self.visibility.restore_due() {
                self.restore();
            }
            if self.visibility.resume_due() {
                if let Err(e) = self.resume() {
                    self.fail(event_loop, e);
                }
            }
        }
    }

    /// The first time: opens the window, device, renderer and surface. After a suspend
    /// (Android): a new surface for the same window.
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let r = if self.live.is_some() {
            self.resume()
        } else {
            self.open(event_loop)
        };
        if let Err(e) = r {
            self.fail(event_loop, e);
        }
    }

    fn suspended(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.suspend(None) {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        // Any event may be the one that follows a restore from the window manager.
        let restored = self.visibility.hidden() == Some(Hidden::Iconified)
            && self
                .live
                .as_ref()
                .is_some_and(|l| l.window.is_minimized() == Some(false));
        if restored {
            self.restore();
        }
        // egui sees every event first; what it uses, the camera and the keys do not.
        let used_by_ui = match &self.live {
            Some(l) => self.ui.on_event(&l.window, &event),
            None => false,
        };
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::KeyboardInput { event, .. } if !used_by_ui => self.on_key(&event),
            WindowEvent::MouseInput { state, button, .. } => {
                // A press on the UI is the UI's; a release always ends the camera's drag.
                let on_ui =
                    used_by_ui || self.input.cursor.is_some_and(|(x, y)| self.ui.covers(x, y));
                let down = state == ElementState::Pressed && !on_ui;
                match button {
                    MouseButton::Right => self.input.look_button = down,
                    MouseButton::Left => self.input.orbit_button = down,
                    _ => {}
                }
                Ok(())
            }
            WindowEvent::CursorMoved { position, .. } => {
                let p = (position.x, position.y);
                if let Some(last) = self.input.cursor {
                    let orbit = self
                        .camera
                        .as_ref()
                        .is_some_and(|c| c.mode() == CameraMode::Orbit);
                    if self.input.look_button || (orbit && self.input.orbit_button) {
                        // On the upright picture (a simulated rotation turns the window's).
                        let (to, from) =
                            (self.ui.upright(p.0, p.1), self.ui.upright(last.0, last.1));
                        self.input.look.0 += (to.0 - from.0) as f32;
                        self.input.look.1 += (to.1 - from.1) as f32;
                    }
                }
                self.input.cursor = Some(p);
                Ok(())
            }
            WindowEvent::MouseWheel { .. }
                if used_by_ui || self.input.cursor.is_some_and(|(x, y)| self.ui.covers(x, y)) =>
            {
                Ok(())
            }
            WindowEvent::MouseWheel { delta, .. } => {
                self.input.wheel += match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => (p.y / 40.0) as f32,
                };
                Ok(())
            }
            WindowEvent::Touch(t) => {
                let (x, y) = (t.location.x, t.location.y);
                let phase = Phase::from(t.phase);
                // A finger that lands on the UI stays the UI's until it lifts.
                if phase == Phase::Started && self.ui.covers(x, y) {
                    self.ui_fingers.insert(t.id);
                }
                if self.ui_fingers.contains(&t.id) {
                    if matches!(phase, Phase::Ended | Phase::Cancelled) {
                        self.ui_fingers.remove(&t.id);
                    }
                } else {
                    // Gestures on the upright picture, as the UI's input.
                    let (x, y) = self.ui.upright(x, y);
                    self.input.touches.touch(t.id, phase, x, y, Instant::now());
                }
                Ok(())
            }
            WindowEvent::DroppedFile(path) => self.load_dropped(&path),
            WindowEvent::Focused(false) => {
                // Keys and fingers released while the window is not focused never arrive.
                self.input.release_all();
                self.ui_fingers.clear();
                Ok(())
            }
            WindowEvent::Occluded(hidden) => {
                if hidden {
                    self.minimise(Hidden::Occluded);
                } else if self.visibility.hidden() == Some(Hidden::Occluded) {
                    self.restore();
                }
                Ok(())
            }
            WindowEvent::Resized(size) => {
                log::info!("resized to {}x{}", size.width, size.height);
                self.script.resized((size.width, size.height));
                if size.width == 0 || size.height == 0 {
                    self.minimise(Hidden::ZeroSize);
                } else if self.visibility.hidden() == Some(Hidden::ZeroSize) {
                    self.restore();
                }
                if let Some(l) = &mut self.live {
                    l.redraw_stale();
                }
                Ok(())
            }
            WindowEvent::RedrawRequested => match self.draw() {
                Ok(true) => Ok(()),
                Ok(false) => {
                    event_loop.exit();
                    Ok(())
                }
                Err(e) => Err(e),
            },
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.fail(event_loop, e);
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(flow) = self.visibility.control_flow() {
            // Suspended or minimised: sleep in the event wait until restored.
            event_loop.set_control_flow(flow);
            return;
        }
        // Continuous redraws while there is a swapchain (or one to recreate); a 0×0 window
        // waits for events.
        match &self.live {
            Some(l) if l.swapchain.is_some() || l.stale => {
                event_loop.set_control_flow(ControlFlow::Poll);
                l.window.request_redraw();
            }
            _ => event_loop.set_control_flow(ControlFlow::Wait),
        }
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        self.close();
    }
}

/// The window's title: what is shown, planned for which profile, on which device.
fn title(scene: &str, profile: &str, device: &str) -> String {
    format!("tessera: {scene} - {profile} profile - {device}")
}

/// Opens the window and runs until it closes, Escape, `--frames` or an error.
pub fn run(launch: Launch) -> anyhow::Result<ExitCode> {
    let event_loop = EventLoop::new().map_err(|e| display_error(&e))?;
    run_on(event_loop, launch)
}

/// Why the display could not be opened, naming it (winit's own message names only a line
/// of its source).
fn display_error(e: &winit::error::EventLoopError) -> anyhow::Error {
    let named = |var: &str| std::env::var(var).ok().filter(|v| !v.is_empty());
    let display = match (named("WAYLAND_DISPLAY"), named("DISPLAY")) {
        (Some(w), _) => format!("the Wayland display WAYLAND_DISPLAY={w}"),
        (None, Some(x)) => format!("the X display DISPLAY={x}"),
        (None, None) => "a display".to_string(),
    };
    let why = match e {
        winit::error::EventLoopError::Os(os) => {
            // "os error at <path>:<line>: <message>": keep the message.
            let text = os.to_string();
            text.rsplit_once(": ")
                .map_or(text.clone(), |(_, m)| m.to_string())
        }
        other => other.to_string(),
    };
    anyhow::anyhow!(
        "cannot open {display} ({why}): start one (xvfb-run -a tessera run), or unset \
         DISPLAY and WAYLAND_DISPLAY to render headless"
    )
}

/// [`run`] on an event loop made by the caller (Android's comes from its `AndroidApp`).
pub fn run_on(event_loop: EventLoop<()>, launch: Launch) -> anyhow::Result<ExitCode> {
    let mut app = App::new(launch);
    let ran = event_loop.run_app(&mut app);
    app.close();
    if let Some(p) = &app.outputs.screenshot {
        log::warn!(
            "the run ended before the screenshot {} was taken (a step after frame N shows in frame N+1)",
            p.display()
        );
    }
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    ran.context("the window's event loop")?;
    Ok(app.log.print(&app.clock, app.options.validation))
}
