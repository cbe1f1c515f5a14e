//! The window application: a winit 0.30 [`ApplicationHandler`] that opens the window, the
//! device for its surface, the renderer and the swapchain, then on each redraw moves the
//! camera, hands the overlay its text, acquires a swapchain image, renders the frame into
//! it through the graph ([`Renderer::render_to`]: the image is the graph's per-frame
//! imported output with `exit: present`) and presents it.
//!
//! - Resize, `ERROR_OUT_OF_DATE_KHR` and `SUBOPTIMAL_KHR` recreate the swapchain (after the
//!   device is idle) and reconfigure the renderer to the new extent: the next frame
//!   re-plans. A minimised window (0×0, or occluded) renders nothing and asks for no redraw:
//!   the loop sleeps in the event wait until it is restored.
//! - A toggle changes the renderer's features or options; the next frame re-plans and the
//!   overlay and the log say what the plan diff changed, and how long the re-plan took.
//! - Any error (a lost device or surface among them) ends the loop and the program with one
//!   message; validation messages make the exit status 1.

use super::actions::{self, Action};
use super::hud::{self, Notes, Stats};
#[allow(unused_imports)]
use super::script::{Script, Step};
use super::toggles::{changes, Figures, Switches};
use super::touch::{Phase, Touches};
use crate::cli::frame_args::{resolve_profile, Chosen, FrameArgs, AUTO};
use anyhow::Context;
use ash::vk;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tessera_graph::Plan;
use tessera_render::camera::{CameraController, CameraInput, CameraMode, View};
use tessera_render::{Renderer, Settings};
use tessera_vk::capture::Capture;
use tessera_vk::executor::ImportedImage;
use tessera_vk::swapchain::{Acquired, PresentMode, Presented, Swapchain};
use tessera_vk::{Gpu, GpuOptions, SurfaceRequest, VkError, WindowSurface};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, StartCause, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

/// What `tessera run` opens.
pub struct Launch {
    pub chosen: Chosen,
    pub width: u32,
    pub height: u32,
    pub present_mode: PresentMode,
    pub validation: bool,
    pub emulate_async: bool,
    pub frames: Option<u64>,
    pub overlay: bool,
    pub renderdoc: bool,
    pub out_dir: PathBuf,
    pub shader_dir: PathBuf,
    pub script: Script,
    /// `--profile auto` (the phone's): the profile and its preset come from the device once
    /// it is open; these flags then apply to the preset's features.
    pub auto_profile: Option<FrameArgs>,
    /// `--tile-rules`: a tiler's tile facts over the device's own.
    pub tile_rules: Option<tessera_vk::executor::TileRules>,
}

/// The open window and everything drawn into it. Field order is drop order: the renderer
/// and the swapchain go before the surface, the surface before the device, the device
/// before the window.
struct Live {
    renderer: Renderer,
    swapchain: Option<Swapchain>,
    /// The window's surface; `None` while suspended (the platform took the window away).
    surface: Option<Arc<WindowSurface>>,
    gpu: Arc<Gpu>,
    window: Arc<Window>,
    /// The swapchain must be recreated before the next frame.
    stale: bool,
}

/// Held movement keys and mouse state, turned into a [`CameraInput`] each frame.
#[derive(Debug, Default)]
struct Input {
    keys: std::collections::HashSet<KeyCode>,
    look_button: bool,
    orbit_button: bool,
    cursor: Option<(f64, f64)>,
    look: (f32, f32),
    wheel: f32,
    /// The fingers on a touch screen (Android): orbit, pinch zoom, pan and taps.
    touches: Touches,
}

impl Input {
    fn axis(&self, plus: KeyCode, minus: KeyCode) -> f32 {
        f32::from(u8::from(self.keys.contains(&plus)))
            - f32::from(u8::from(self.keys.contains(&minus)))
    }

    /// This frame's input; the mouse motion and wheel are consumed.
    fn take(&mut self) -> CameraInput {
        CameraInput {
            forward: self.axis(KeyCode::KeyW, KeyCode::KeyS),
            right: self.axis(KeyCode::KeyD, KeyCode::KeyA),
            up: self.axis(KeyCode::KeyE, KeyCode::KeyQ),
            look: std::mem::take(&mut self.look),
            wheel: std::mem::take(&mut self.wheel),
            fast: self.keys.contains(&KeyCode::ShiftLeft)
                || self.keys.contains(&KeyCode::ShiftRight),
            ..CameraInput::default()
        }
    }
}

/// Why nothing is drawn, and so what restores it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hidden {
    /// The window is 0×0: a non-zero resize restores it.
    ZeroSize,
    /// The platform says it is occluded: `Occluded(false)` restores it.
    Occluded,
    /// The window manager iconified it (X11 reports neither of the above): any event
    /// after which it is no longer minimised restores it.
    Iconified,
    /// `--script minimise=MS`: restores itself at that time.
    Until(Instant),
}

/// A minimised (or occluded) window: nothing is drawn until it is restored.
#[derive(Debug)]
struct Minimised {
    since: Instant,
    why: Hidden,
    /// Process CPU time when it began.
    cpu: Option<Duration>,
    /// Redraws that came while minimised (none is drawn).
    redraws: u64,
    /// Frames presented when it began.
    presented: u64,
}

/// How long a scripted resize waits for the window system before drawing on.
const RESIZE_WAIT: Duration = Duration::from_secs(5);

/// `--script N:resize=WxH` asked for a size the window does not have yet.
#[derive(Debug)]
struct ScriptedResize {
    size: (u32, u32),
    deadline: Instant,
}

/// The app is suspended: the platform took the native window away (Android's `Suspended`,
/// or `--script suspend=MS`), so the swapchain and the surface are gone and nothing is
/// drawn until `resumed` makes a new surface. The device, the pipelines, the scene and the
/// plan-lifetime resources stay.
#[derive(Debug)]
struct Suspension {
    since: Instant,
    /// `--script suspend=MS`: resumes itself at that time; `None`: when the platform says.
    until: Option<Instant>,
}

/// A re-plan the next frame will make, and what caused it.
struct Replan {
    reason: String,
    before: Option<Plan>,
}

struct App {
    /// What to open, taken when the window opens.
    setup: Option<(Settings, tessera_scene::Scene, Option<View>)>,
    present_mode: PresentMode,
    validation: bool,
    frames: Option<u64>,
    out_dir: PathBuf,
    shader_dir: PathBuf,
    script: Script,
    renderdoc: bool,
    live: Option<Live>,
    capture: Option<Capture>,
    switches: Switches,
    camera: Option<CameraController>,
    input: Input,
    stats: Stats,
    notes: Notes,
    /// Scene and device, the overlay's first words.
    title: String,
    figures: Figures,
    overlay: bool,
    paused: bool,
    /// The lights move 1/60 s per frame (as in `tessera render`) instead of with the clock.
    fixed_step: bool,
    time: f32,
    last_frame: Option<Instant>,
    first_presented: Option<Instant>,
    presented: u64,
    /// Frames rendered: those presented and those whose presentation was dropped.
    rendered: u64,
    screenshot: Option<PathBuf>,
    capture_next: Option<PathBuf>,
    replan: Option<Replan>,
    minimised: Option<Minimised>,
    suspension: Option<Suspension>,
    /// A scripted resize the window system has not applied yet: no frame is drawn until it
    /// is, so the frame a script step names sees the size it asked for however late the
    /// window system answers (a loaded machine answers late).
    resizing: Option<ScriptedResize>,
    /// Suspended periods, ms.
    suspend_log: Vec<f64>,
    /// Window surfaces made (the first one included).
    surfaces: u64,
    /// The overlay last drawn and the output size it was laid out for: what a tap hits.
    hud: Option<(hud::Hud, (u32, u32))>,
    /// `--profile auto`: the flags and configuration the device's preset is chosen from
    /// when the device opens.
    auto_profile: Option<(FrameArgs, tessera_render::config::Config)>,
    /// The plan of the last frame that re-planned, screenshot frames aside: what a switch's
    /// plan is compared with.
    steady_plan: Option<Plan>,
    /// Re-plans made: (reason, ms).
    replans: Vec<(String, f64)>,
    /// Minimised periods: (ms, redraws, frames drawn, CPU ms).
    minimise_log: Vec<(f64, u64, u64, Option<f64>)>,
    /// CPU ms of each presented frame ([`hud::cpu_ms`]), and the ms blocked in submit.
    cpu_ms: Vec<f64>,
    submit_ms: Vec<f64>,
    files: u64,
    error: Option<anyhow::Error>,
    messages: (u64, Vec<String>),
    /// Swapchains created (the first one included).
    swapchains: u64,
    /// The last swapchain's extent.
    extent: (u32, u32),
    quit: bool,
}

/// One message for a Vulkan error, saying plainly when the device or the surface is lost.
fn explain(e: tessera_render::RenderError) -> anyhow::Error {
    match lost(&e) {
        Some(what) => anyhow::anyhow!("{what} was lost ({e})"),
        None => anyhow::Error::new(e),
    }
}

/// What an error says was lost, by its variant: the GPU device or the window surface.
fn lost(e: &tessera_render::RenderError) -> Option<&'static str> {
    match e.vk()? {
        VkError::DeviceLost => Some("the GPU device"),
        VkError::SurfaceLost => Some("the window surface"),
        _ => None,
    }
}

fn explain_vk(e: VkError) -> anyhow::Error {
    explain(e.into())
}

/// This process's CPU time (user + system) from `/proc/self/stat`, where there is one.
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name, which is in parentheses and may contain spaces.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the name), in
    // clock ticks of USER_HZ (100 on Linux).
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

impl App {
    fn open(&mut self, event_loop: &ActiveEventLoop) -> anyhow::Result<()> {
        let Some((mut settings, scene, start)) = self.setup.take() else {
            return Ok(());
        };
        if self.renderdoc {
            // Before the instance: RenderDoc hooks Vulkan as it loads.
            let first = self.out_dir.join("capture.rdc");
            self.capture =
                Some(Capture::load(&first).map_err(|e| anyhow::anyhow!("--renderdoc: {e}"))?);
            log::info!("RenderDoc loaded: F9 captures the next frame");
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
                validation: self.validation,
                surface: Some(SurfaceRequest::new(window.clone())),
            })
            .map_err(|e| match e {
                VkError::NoDevice(_) => anyhow::anyhow!("{e}"),
                e => anyhow::anyhow!("opening the device for the window: {e}"),
            })?,
        );
        log::info!("device: {}", gpu.device_name());
        self.input.touches = Touches::new(window.scale_factor());
        if let Some((args, config)) = self.auto_profile.take() {
            let features = settings.features.clone();
            let (profile, features, why) = resolve_profile(&args, &config, AUTO, features, &gpu)?;
            println!(
                "profile {profile} chosen by the device: {}",
                why.unwrap_or_default()
            );
            settings.profile = profile;
            settings.features = features.clone();
            self.switches.features = features;
        }
        let surface = self.make_surface(&gpu, &window)?;
        let start = start.unwrap_or_else(|| View::of(&scene));
        self.camera = Some(CameraController::new(start, scene.bounds));
        self.title = format!(
            "tessera: {} on {} ({} profile)",
            scene.name,
            gpu.device_name(),
            settings.profile
        );
        let renderer = Renderer::new(gpu.clone(), scene, settings)?;
        self.live = Some(Live {
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

    /// A new surface for the window (at open and on each resume).
    fn make_surface(
        &mut self,
        gpu: &Arc<Gpu>,
        window: &Arc<Window>,
    ) -> anyhow::Result<Arc<WindowSurface>> {
        let surface = WindowSurface::new(gpu, window.clone())
            .map_err(explain_vk)
            .context("creating the window surface")?;
        self.surfaces += 1;
        Ok(Arc::new(surface))
    }

    /// The platform takes the window away: waits for the frames in flight, then drops the
    /// swapchain and the surface before returning (Android destroys the native window once
    /// the `Suspended` handler returns). Everything else stays for the resume.
    fn suspend(&mut self, until: Option<Instant>) -> anyhow::Result<()> {
        if self.suspension.is_some() {
            return Ok(());
        }
        log::info!("suspended: dropping the swapchain and the window surface");
        self.suspension = Some(Suspension {
            since: Instant::now(),
            until,
        });
        // Keys and fingers released while suspended never arrive.
        self.input.keys.clear();
        self.input.touches.clear();
        let Some(live) = &mut self.live else {
            return Ok(());
        };
        // The swapchain's views go: nothing made for them may outlive them.
        live.renderer.forget_targets()?;
        live.gpu.wait_idle().map_err(explain_vk)?;
        live.swapchain = None;
        live.surface = None;
        Ok(())
    }

    /// The platform gives the window back: a new surface, and the next frame makes the
    /// swapchain for the window's size (which may have changed: a rotation).
    fn resume(&mut self) -> anyhow::Result<()> {
        let Some(s) = self.suspension.take() else {
            return Ok(());
        };
        let ms = s.since.elapsed().as_secs_f64() * 1e3;
        log::info!("resumed after {ms:.0} ms suspended: making a new window surface");
        self.suspend_log.push(ms);
        self.last_frame = None;
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
            l.stale = true;
            l.window.request_redraw();
        }
        Ok(())
    }

    /// Recreates the swapchain for the window's size (none while it is 0×0 or suspended)
    /// and sets the renderer to its extent.
    fn recreate(&mut self) -> anyhow::Result<()> {
        let Some(live) = &mut self.live else {
            return Ok(());
        };
        live.stale = false;
        let Some(surface) = live.surface.clone() else {
            return Ok(());
        };
        let size = live.window.inner_size();
        // Every frame that used the old swapchain (rendering and presenting) is done, and
        // nothing made for its views outlives them.
        live.renderer.forget_targets()?;
        live.gpu.wait_idle().map_err(explain_vk)?;
        let extent = vk::Extent2D {
            width: size.width,
            height: size.height,
        };
        let old = live.swapchain.take();
        live.swapchain = Swapchain::create(&surface, extent, self.present_mode, old)
            .map_err(explain_vk)
            .context("creating the swapchain")?;
        if let Some(sc) = &live.swapchain {
            live.renderer.set_targets_readable(sc.can_read_back());
            self.swapchains += 1;
            self.extent = (sc.extent.width, sc.extent.height);
            let s = live.renderer.settings();
            if (sc.extent.width, sc.extent.height) != (s.width, s.height) {
                let before = self.steady_plan.clone();
                live.renderer.reconfigure(
                    sc.extent.width,
                    sc.extent.height,
                    self.switches.options,
                )?;
                if self.replan.is_none() {
                    self.replan = Some(Replan {
                        reason: format!("resize to {}x{}", sc.extent.width, sc.extent.height),
                        before,
                    });
                }
            }
            self.notes.title = format!(
                "{}  {}x{}  {:?}",
                self.title, sc.extent.width, sc.extent.height, self.present_mode
            );
        }
        Ok(())
    }

    /// Marks the next frame's re-plan with `reason` (keeping the plan to diff against).
    fn expect_replan(&mut self, reason: String) {
        let before = self.steady_plan.clone();
        self.replan = Some(Replan { reason, before });
    }

    /// Where a screenshot or capture goes: a path the script names, inside `--out-dir` when
    /// relative, else the next numbered file there.
    fn file(&mut self, given: Option<PathBuf>, stem: &str, ext: &str) -> PathBuf {
        given.map(|p| self.out_dir.join(p)).unwrap_or_else(|| {
            self.files += 1;
            self.out_dir.join(format!("{stem}-{:04}.{ext}", self.files))
        })
    }

    /// Does what a key (or a script step) asks.
    fn act(&mut self, action: Action, path: Option<PathBuf>) -> anyhow::Result<()> {
        log::info!("action: {}", actions::binding(action).name);
        match action {
            Action::Optimisation(o) => {
                let said = self.switches.optimisation(o);
                self.apply_switches(said)?;
            }
            Action::AllOptimisations => {
                let said = self.switches.all_optimisations();
                self.apply_switches(said)?;
            }
            Action::Feature(f) => {
                let said = self.switches.feature(f);
                self.apply_switches(said)?;
            }
            Action::CameraMode => {
                if let Some(c) = &mut self.camera {
                    c.toggle_mode();
                }
            }
            Action::Pause => self.paused = !self.paused,
            Action::Overlay => {
                self.overlay = !self.overlay;
                self.expect_replan(format!(
                    "overlay {}",
                    if self.overlay { "on" } else { "off" }
                ));
            }
            Action::Screenshot => self.screenshot = Some(self.file(path, "screenshot", "png")),
            Action::Capture => {
                if self.capture.is_some() {
                    self.capture_next = Some(self.file(path, "capture", "rdc"));
                } else {
                    self.notes.error =
                        Some("capture: RenderDoc is not loaded (start with --renderdoc)".into());
                    log::warn!("capture: RenderDoc is not loaded (start with --renderdoc)");
                }
            }
            Action::ReloadShaders => self.reload_shaders(),
            Action::DumpPlan => {
                let base = self.file(path, "plan", "json");
                self.dump_plan(&base)?;
            }
            Action::Quit => self.quit = true,
        }
        Ok(())
    }

    /// A tap at window pixel (`x`, `y`): the switch whose cell it hits in the overlay last
    /// drawn toggles; with the overlay hidden, any tap shows it (a phone has no Tab key).
    fn tap(&mut self, x: f64, y: f64) -> anyhow::Result<()> {
        if !self.overlay {
            return self.act(Action::Overlay, None);
        }
        let Some((drawn, (width, height))) = &self.hud else {
            // Not drawn yet: nothing to hit.
            return Ok(());
        };
        match drawn.switch_at(*width, *height, x, y) {
            Some(action) => {
                log::info!("tap at ({x:.0}, {y:.0}): {}", actions::binding(action).name);
                self.act(action, None)
            }
            None => Ok(()),
        }
    }

    /// `--script N:tap=NAME`: a finger down and up at the centre of the switch `action`'s
    /// cell in the overlay last drawn, through the gesture recogniser like a real one.
    fn scripted_tap(&mut self, action: Action) -> anyhow::Result<()> {
        let name = actions::binding(action).name;
        let Some((drawn, (width, height))) = &self.hud else {
            anyhow::bail!("--script tap={name}: the overlay is hidden, nothing to tap");
        };
        let (x, y) = drawn.cell_centre(*width, *height, action).ok_or_else(|| {
            anyhow::anyhow!("--script tap={name}: the overlay shows no switch '{name}'")
        })?;
        let now = Instant::now();
        let touches = &mut self.input.touches;
        touches.touch(u64::MAX, Phase::Started, x, y, now);
        touches.touch(
            u64::MAX,
            Phase::Ended,
            x,
            y,
            now + Duration::from_millis(50),
        );
        Ok(())
    }

    /// Hands the switches to the renderer; the next frame re-plans.
    fn apply_switches(&mut self, said: String) -> anyhow::Result<()> {
        self.expect_replan(said);
        if let Some(l) = &mut self.live {
            let s = l.renderer.settings();
            let (w, h) = (s.width, s.height);
            l.renderer.set_features(self.switches.features.clone());
            l.renderer.reconfigure(w, h, self.switches.options)?;
        }
        Ok(())
    }

    fn reload_shaders(&mut self) {
        let Some(l) = &mut self.live else { return };
        match l.renderer.reload_shaders(&self.shader_dir) {
            Ok(report) => {
                println!(
                    "shaders reloaded from {}: {report:?}",
                    self.shader_dir.display()
                );
                self.notes.error = None;
                self.notes.change = vec![format!(
                    "shaders reloaded from {}",
                    self.shader_dir.display()
                )];
            }
            Err(e) => {
                // The old pipelines stay; the overlay shows why.
                log::error!("shader reload failed, keeping the old pipelines: {e}");
                self.notes.error = Some(format!("shader reload: {e}"));
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
        if self.minimised.is_none() {
            log::info!("minimised ({why:?}): drawing nothing until restored");
            self.minimised = Some(Minimised {
                since: Instant::now(),
                why,
                cpu: process_cpu(),
                redraws: 0,
                presented: self.presented,
            });
        }
    }

    fn hidden(&self) -> Option<Hidden> {
        self.minimised.as_ref().map(|m| m.why)
    }

    fn restore(&mut self) {
        if let Some(m) = self.minimised.take() {
            let ms = m.since.elapsed().as_secs_f64() * 1e3;
            let cpu = match (m.cpu, process_cpu()) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a).as_secs_f64() * 1e3),
                _ => None,
            };
            log::info!("restored after {ms:.0} ms minimised");
            let drawn = self.presented - m.presented;
            self.minimise_log.push((ms, m.redraws, drawn, cpu));
            self.last_frame = None;
            if let Some(l) = &mut self.live {
                l.stale = true;
                l.window.request_redraw();
            }
        }
    }

    /// Renders and presents one frame; `Ok(false)` when the loop should end.
    fn draw(&mut self) -> anyhow::Result<bool> {
        if self.suspension.is_some() {
            return Ok(true);
        }
        if let Some(m) = &mut self.minimised {
            m.redraws += 1;
            return Ok(true);
        }
        if let Some(r) = &self.resizing {
            if Instant::now() < r.deadline {
                if let Some(l) = &self.live {
                    l.window.request_redraw();
                }
                std::thread::sleep(Duration::from_millis(1));
                return Ok(true);
            }
            log::warn!(
                "the window system did not resize the window to {}x{} within {} s; \
                 drawing at the size it has",
                r.size.0,
                r.size.1,
                RESIZE_WAIT.as_secs()
            );
            self.resizing = None;
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
        for &(x, y) in &gestures.taps {
            self.tap(x, y)?;
        }
        if self.live.as_ref().is_some_and(|l| l.stale) {
            self.recreate()?;
        }
        let now = Instant::now();
        let dt = self.last_frame.map_or(0.0, |t| (now - t).as_secs_f64());
        let Some(live) = &mut self.live else {
            return Ok(true);
        };
        let Some(sc) = &mut live.swapchain else {
            // 0×0: nothing to draw into.
            return Ok(true);
        };
        let mut input = self.input.take();
        let moved = gestures.orbit != (0.0, 0.0) || gestures.pan != (0.0, 0.0);
        input.look.0 += gestures.orbit.0;
        input.look.1 += gestures.orbit.1;
        input.pan = gestures.pan;
        input.zoom = gestures.zoom;
        input.viewport_height = sc.extent.height as f32;
        let extent = (sc.extent.width, sc.extent.height);
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
                if self.paused { "paused" } else { "moving" }
            );
        }
        self.hud = self.overlay.then(|| {
            let columns = hud::columns(extent.0, extent.1);
            let drawn = hud::layout(
                &self.stats,
                &self.figures,
                &self.switches,
                &self.notes,
                columns,
            );
            (drawn, extent)
        });
        live.renderer
            .set_overlay(self.hud.as_ref().map(|(drawn, _)| drawn.overlay()));
        let capture_frame = self.screenshot.is_some();
        if capture_frame {
            live.renderer.capture_next();
        }
        let (index, acquire, render_finished, suboptimal) =
            match sc.acquire().map_err(explain_vk)? {
                Acquired::OutOfDate => {
                    live.stale = true;
                    live.window.request_redraw();
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
        let capturing = self.capture_next.take();
        if let (Some(_), Some(c)) = (&capturing, &mut self.capture) {
            c.start();
        }
        let stats = live
            .renderer
            .render_to(self.time, target, acquire, render_finished)
            .map_err(explain)?;
        let presented = sc
            .present(live.gpu.graphics.queue, index, render_finished)
            .map_err(explain_vk)?;
        if let (Some(path), Some(c)) = (capturing, &mut self.capture) {
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
        self.rendered += 1;
        if presented == Presented::OutOfDate {
            log::info!("the window system dropped a presented frame (out of date)");
        } else {
            self.presented += 1;
        }
        self.first_presented.get_or_insert(now);
        self.last_frame = Some(now);
        self.cpu_ms.push(hud::cpu_ms(&stats));
        self.submit_ms.push(stats.submit_us / 1e3);
        self.stats.frame(dt, &stats, &live.renderer.timings());
        if stats.rebuilt {
            if let Some(plan) = live.renderer.executor().plan() {
                // A screenshot's frame has the read-back copy in its plan: not the plan a
                // switch changes.
                if !capture_frame {
                    self.figures = Figures::of(plan);
                    self.steady_plan = Some(plan.clone());
                }
            }
            // Re-plans nobody asked for (the first frame, a screenshot's copy and the
            // frame after it) are not reported.
            if let Some(replan) = self.replan.take() {
                self.report_replan(replan, stats.prepare_us / 1e3);
            }
        } else if let Some(r) = self.replan.take() {
            // A switch that did not change the graph (a feature the frame does not use).
            println!("{}: the graph did not change, no re-plan", r.reason);
            self.notes.change = vec![format!("{}: the same graph", r.reason)];
        }
        if let (Some(path), Some(live)) = (self.screenshot.take(), &mut self.live) {
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
        if !self.paused {
            self.time += if self.fixed_step {
                1.0 / 60.0
            } else {
                dt.min(0.1) as f32
            };
        }
        for step in self.script.due(self.rendered) {
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
                            self.resizing = Some(ScriptedResize {
                                size: (w, h),
                                deadline: Instant::now() + RESIZE_WAIT,
                            });
                        }
                    }
                }
                Step::Minimise(ms) => {
                    self.minimise(Hidden::Until(Instant::now() + Duration::from_millis(ms)));
                }
                Step::Suspend(ms) => {
                    self.suspend(Some(Instant::now() + Duration::from_millis(ms)))?;
                }
                Step::Tap(action) => self.scripted_tap(action)?,
            }
        }
        Ok(!self.quit && self.frames.is_none_or(|n| self.presented < n))
    }

    /// Says what a re-plan a switch (or a resize) caused changed, and how long it took.
    fn report_replan(&mut self, replan: Replan, ms: f64) {
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
        self.notes.change = std::iter::once(format!("{reason} ({ms:.2} ms)"))
            .chain(changed)
            .collect();
        self.replans.push((reason, ms));
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        event_loop.exit();
    }

    /// Waits for the GPU, keeps the validation count and closes everything.
    fn close(&mut self) {
        if let Some(mut live) = self.live.take() {
            if let Err(e) = live.renderer.wait() {
                log::error!("waiting for the last frames: {e}");
            }
            let _ = live.gpu.wait_idle();
            // The renderer and the swapchain are freed before the messages are counted:
            // destruction is validated too.
            let gpu = live.gpu.clone();
            drop(live);
            self.messages = (gpu.messages.count(), gpu.messages.texts());
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
            if matches!(self.hidden(), Some(Hidden::Until(t)) if Instant::now() >= t) {
                self.restore();
            }
            let due = |s: &Suspension| s.until.is_some_and(|t| Instant::now() >= t);
            if self.suspension.as_ref().is_some_and(due) {
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
        let restored = self.hidden() == Some(Hidden::Iconified)
            && self
                .live
                .as_ref()
                .is_some_and(|l| l.window.is_minimized() == Some(false));
        if restored {
            self.restore();
        }
        let result = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(())
            }
            WindowEvent::KeyboardInput { event, .. } => self.on_key(&event),
            WindowEvent::MouseInput { state, button, .. } => {
                let down = state == ElementState::Pressed;
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
                        self.input.look.0 += (p.0 - last.0) as f32;
                        self.input.look.1 += (p.1 - last.1) as f32;
                    }
                }
                self.input.cursor = Some(p);
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
                self.input.touches.touch(t.id, phase, x, y, Instant::now());
                Ok(())
            }
            WindowEvent::Focused(false) => {
                // Keys and fingers released while the window is not focused never arrive.
                self.input.keys.clear();
                self.input.touches.clear();
                Ok(())
            }
            WindowEvent::Occluded(hidden) => {
                if hidden {
                    self.minimise(Hidden::Occluded);
                } else if self.hidden() == Some(Hidden::Occluded) {
                    self.restore();
                }
                Ok(())
            }
            WindowEvent::Resized(size) => {
                log::info!("resized to {}x{}", size.width, size.height);
                if self
                    .resizing
                    .as_ref()
                    .is_some_and(|r| r.size == (size.width, size.height))
                {
                    self.resizing = None;
                }
                if size.width == 0 || size.height == 0 {
                    self.minimise(Hidden::ZeroSize);
                } else if self.hidden() == Some(Hidden::ZeroSize) {
                    self.restore();
                }
                if let Some(l) = &mut self.live {
                    l.stale = true;
                    l.window.request_redraw();
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
        if let Some(s) = &self.suspension {
            // No surface: sleep in the event wait until resumed.
            event_loop.set_control_flow(match s.until {
                Some(t) => ControlFlow::WaitUntil(t),
                None => ControlFlow::Wait,
            });
            return;
        }
        if let Some(m) = &self.minimised {
            // Minimised: sleep in the event wait (until a scripted restore is due).
            event_loop.set_control_flow(match m.why {
                Hidden::Until(t) => ControlFlow::WaitUntil(t),
                _ => ControlFlow::Wait,
            });
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

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
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
    let mut app = App {
        setup: Some((settings, chosen.scene, chosen.camera)),
        present_mode,
        validation,
        frames,
        out_dir,
        shader_dir,
        script,
        renderdoc,
        live: None,
        capture: None,
        switches,
        camera: None,
        input: Input::default(),
        stats: Stats::default(),
        notes: Notes::default(),
        title: String::new(),
        figures: Figures::default(),
        overlay,
        paused: false,
        resizing: None,
        fixed_step,
        time: 0.0,
        last_frame: None,
        first_presented: None,
        presented: 0,
        rendered: 0,
        screenshot: None,
        capture_next: None,
        replan: None,
        minimised: None,
        suspension: None,
        suspend_log: Vec::new(),
        surfaces: 0,
        hud: None,
        auto_profile: auto_profile.map(|a| (a, chosen.config.clone())),
        steady_plan: None,
        replans: Vec::new(),
        minimise_log: Vec::new(),
        cpu_ms: Vec::new(),
        submit_ms: Vec::new(),
        files: 0,
        error: None,
        messages: (0, Vec::new()),
        swapchains: 0,
        extent: (0, 0),
        quit: false,
    };
    let ran = event_loop.run_app(&mut app);
    app.close();
    if let Some(p) = &app.screenshot {
        log::warn!(
            "the run ended before the screenshot {} was taken (a step after frame N shows in frame N+1)",
            p.display()
        );
    }
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    ran.context("the window's event loop")?;
    // FPS after the first frame (which opens everything and compiles the first plan).
    let secs = app
        .first_presented
        .map_or(0.0, |t| t.elapsed().as_secs_f64());
    let after_first = app.presented.saturating_sub(1);
    println!(
        "presented {} frames; {:.1} FPS after the first frame; CPU {:.2} ms per frame \
         (median of declare + prepare + record; {:.2} ms more blocked in vkQueueSubmit2)",
        app.presented,
        after_first as f64 / secs.max(1e-9),
        median(app.cpu_ms.get(1..).unwrap_or_default()),
        median(app.submit_ms.get(1..).unwrap_or_default())
    );
    for (reason, ms) in &app.replans {
        println!("re-plan: {reason}: {ms:.2} ms");
    }
    for (ms, redraws, drawn, cpu) in &app.minimise_log {
        println!(
            "minimised for {ms:.0} ms: {redraws} redraws, {drawn} frames drawn, CPU {}",
            cpu.map_or("unknown".to_string(), |c| format!("{c:.0} ms"))
        );
    }
    for ms in &app.suspend_log {
        println!("suspended for {ms:.0} ms: swapchain and surface dropped, made again on resume");
    }
    println!(
        "window surfaces created: {}; swapchains created: {} (last {}x{})",
        app.surfaces, app.swapchains, app.extent.0, app.extent.1
    );
    let (count, texts) = &app.messages;
    if validation {
        println!("validation messages: {count}");
        for t in texts {
            println!("  {t}");
        }
        if *count > 0 {
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::{explain, lost};
    use ash::vk;
    use tessera_render::RenderError;
    use tessera_vk::VkError;

    #[test]
    fn a_lost_device_is_recognised_by_its_variant() {
        let e = VkError::from(vk::Result::ERROR_DEVICE_LOST);
        assert!(matches!(e, VkError::DeviceLost));
        assert_eq!(lost(&e.into()), Some("the GPU device"));
        // Behind a pass's context too.
        let e = VkError::from(vk::Result::ERROR_DEVICE_LOST).context("pass 'shade'");
        let text = explain(e.into()).to_string();
        assert!(text.starts_with("the GPU device was lost (pass 'shade': vulkan: "));
        let e = RenderError::from(vk::Result::ERROR_SURFACE_LOST_KHR);
        assert_eq!(lost(&e), Some("the window surface"));
        // Text alone is not a lost device.
        assert_eq!(lost(&RenderError::Frame("ERROR_DEVICE_LOST".into())), None);
        assert_eq!(
            lost(&VkError::Setup("vulkan: ERROR_DEVICE_LOST".into()).into()),
            None
        );
    }
}
