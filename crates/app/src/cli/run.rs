//! `tessera run [frame flags] [--frames N] [--present-mode fifo|mailbox|immediate]`: the
//! desktop window. A winit 0.30 [`ApplicationHandler`] opens the window, the device for its
//! surface, the renderer and the swapchain; each redraw acquires a swapchain image, renders
//! the frame into it through the graph ([`Renderer::render_to`]: the image is the graph's
//! per-frame imported output with `exit: present`) and presents it.
//!
//! - Resize, `ERROR_OUT_OF_DATE_KHR` and `SUBOPTIMAL_KHR` recreate the swapchain (after the
//!   device is idle) and reconfigure the renderer to the new extent, so the next frame
//!   re-plans.
//! - A minimised window (0×0) has no swapchain: nothing is rendered and no redraw is asked
//!   for (the loop waits for events) until it is restored.
//! - Escape or closing the window quits; `--frames N` quits after N presented frames.
//! - Any error (a lost device or surface among them) ends the loop and the program with one
//!   message; validation messages make the exit status 1.
//!
//! Not yet here (issue 17): camera controls, live toggles, the overlay, screenshots.

use super::frame_args::{profile_parser, Chosen, FrameArgs};
use anyhow::Context;
use ash::vk;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;
use tessera_graph::CompileOptions;
use tessera_render::{Renderer, Settings};
use tessera_vk::executor::ImportedImage;
use tessera_vk::swapchain::{Acquired, PresentMode, Presented, Swapchain};
use tessera_vk::{Gpu, GpuOptions, SurfaceRequest, VkError};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

/// `--present-mode`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PresentModeArg {
    /// Vertical sync (always available).
    #[default]
    Fifo,
    /// Newest frame wins, no tearing (FIFO where unavailable).
    Mailbox,
    /// No vertical sync (FIFO where unavailable).
    Immediate,
}

impl From<PresentModeArg> for PresentMode {
    fn from(m: PresentModeArg) -> PresentMode {
        match m {
            PresentModeArg::Fifo => PresentMode::Fifo,
            PresentModeArg::Mailbox => PresentMode::Mailbox,
            PresentModeArg::Immediate => PresentMode::Immediate,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub frame: FrameArgs,
    /// Device profile: mali and adreno get the configuration's [mobile] preset.
    #[arg(long, default_value = "desktop", value_parser = profile_parser())]
    profile: String,
    /// Every graph optimisation off (whatever [graph] says).
    #[arg(long)]
    no_optimize: bool,
    /// Quit after N presented frames (for tests and scripted runs) [default: run until
    /// Escape or the window closes].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,
    /// How frames are presented.
    #[arg(long, value_enum, default_value_t = PresentModeArg::Fifo)]
    present_mode: PresentModeArg,
    /// Run the async-compute queue's work as separate submits on the graphics queue.
    #[arg(long)]
    emulate_async: bool,
    /// Run without the validation layers.
    #[arg(long)]
    no_validation: bool,
    /// A test aid: after the second presented frame, ask for this window size (`WxH`).
    #[arg(long, hide = true, value_name = "WxH", value_parser = size_arg)]
    test_resize: Option<(u32, u32)>,
}

fn size_arg(s: &str) -> Result<(u32, u32), String> {
    s.split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .filter(|&(w, h)| (1..=16384).contains(&w) && (1..=16384).contains(&h))
        .ok_or_else(|| "expected WIDTHxHEIGHT, each 1-16384".to_string())
}

/// The open window and everything drawn into it. Field order is drop order: the renderer
/// and the swapchain go before the device, the device (which destroys the surface) before
/// the window.
struct Live {
    renderer: Renderer,
    swapchain: Option<Swapchain>,
    gpu: Arc<Gpu>,
    window: Arc<Window>,
    /// The swapchain must be recreated before the next frame.
    stale: bool,
}

struct App {
    /// What to open, taken when the window opens.
    setup: Option<(Settings, tessera_scene::Scene)>,
    options: CompileOptions,
    present_mode: PresentMode,
    validation: bool,
    frames: Option<u64>,
    live: Option<Live>,
    presented: u64,
    error: Option<anyhow::Error>,
    started: Instant,
    messages: (u64, Vec<String>),
    test_resize: Option<(u32, u32)>,
    /// Swapchains created (the first one included).
    swapchains: u64,
    /// The last swapchain's extent.
    extent: (u32, u32),
}

/// One message for a Vulkan error, saying plainly when the device or the surface is lost.
fn explain(e: tessera_render::RenderError) -> anyhow::Error {
    let text = e.to_string();
    if text.contains("ERROR_DEVICE_LOST") {
        anyhow::anyhow!("the GPU device was lost ({text})")
    } else if text.contains("ERROR_SURFACE_LOST_KHR") {
        anyhow::anyhow!("the window surface was lost ({text})")
    } else {
        anyhow::Error::new(e)
    }
}

fn explain_vk(e: VkError) -> anyhow::Error {
    explain(e.into())
}

impl App {
    fn open(&mut self, event_loop: &ActiveEventLoop) -> anyhow::Result<()> {
        let Some((settings, scene)) = self.setup.take() else {
            return Ok(());
        };
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
        let renderer = Renderer::new(gpu.clone(), scene, settings)?;
        self.live = Some(Live {
            renderer,
            swapchain: None,
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

    /// Recreates the swapchain for the window's size (none while it is 0×0) and sets the
    /// renderer to its extent.
    fn recreate(&mut self) -> anyhow::Result<()> {
        let Some(live) = &mut self.live else {
            return Ok(());
        };
        live.stale = false;
        let size = live.window.inner_size();
        // Every frame that used the old swapchain (rendering and presenting) is done.
        live.renderer.wait()?;
        live.gpu.wait_idle().map_err(explain_vk)?;
        let extent = vk::Extent2D {
            width: size.width,
            height: size.height,
        };
        let old = live.swapchain.take();
        live.swapchain = Swapchain::create(&live.gpu, extent, self.present_mode, old)
            .map_err(explain_vk)
            .context("creating the swapchain")?;
        if let Some(sc) = &live.swapchain {
            self.swapchains += 1;
            self.extent = (sc.extent.width, sc.extent.height);
            let s = live.renderer.settings();
            if (sc.extent.width, sc.extent.height) != (s.width, s.height) {
                live.renderer
                    .reconfigure(sc.extent.width, sc.extent.height, self.options)?;
            }
        }
        Ok(())
    }

    /// Renders and presents one frame; `Ok(false)` when the loop should end.
    fn draw(&mut self) -> anyhow::Result<bool> {
        if self.live.as_ref().is_some_and(|l| l.stale) {
            self.recreate()?;
        }
        let Some(live) = &mut self.live else {
            return Ok(true);
        };
        let Some(sc) = &mut live.swapchain else {
            // Minimised: nothing to draw into.
            return Ok(true);
        };
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
        let time = self.presented as f32 / 60.0;
        live.renderer
            .render_to(time, target, acquire, render_finished)
            .map_err(explain)?;
        let presented = sc
            .present(live.gpu.graphics.queue, index, render_finished)
            .map_err(explain_vk)?;
        if suboptimal || presented != Presented::Ok {
            live.stale = true;
        }
        if presented != Presented::OutOfDate {
            self.presented += 1;
        }
        if self.presented == 2 {
            if let Some((w, h)) = self.test_resize.take() {
                log::info!("test: asking for a {w}x{h} window");
                let _ = live
                    .window
                    .request_inner_size(winit::dpi::PhysicalSize::new(w, h));
            }
        }
        Ok(self.frames.is_none_or(|n| self.presented < n))
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
            self.messages = (live.gpu.messages.count(), live.gpu.messages.texts());
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if let Err(e) = self.open(event_loop) {
            self.fail(event_loop, e);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key: Key::Named(NamedKey::Escape),
                        state: ElementState::Pressed,
                        ..
                    },
                ..
            } => event_loop.exit(),
            WindowEvent::Resized(size) => {
                log::info!("resized to {}x{}", size.width, size.height);
                if let Some(l) = &mut self.live {
                    l.stale = true;
                    l.window.request_redraw();
                }
            }
            WindowEvent::RedrawRequested => match self.draw() {
                Ok(true) => {}
                Ok(false) => event_loop.exit(),
                Err(e) => self.fail(event_loop, e),
            },
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        // Continuous redraws while there is a swapchain (or one to recreate); a minimised
        // window waits for events.
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

pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let Chosen {
        profile,
        features,
        options,
        width,
        height,
        scene,
        ..
    } = args.frame.choose(&args.profile, args.no_optimize)?;
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        anyhow::bail!(
            "no display: neither DISPLAY nor WAYLAND_DISPLAY is set (use `tessera render` \
             for a headless frame, or run under xvfb-run)"
        );
    }
    let settings = Settings {
        width,
        height,
        options,
        emulate_async: args.emulate_async,
        read_back: false,
        features,
        profile,
        ..Settings::default()
    };
    let event_loop = EventLoop::new().context("opening the display's event loop")?;
    let mut app = App {
        setup: Some((settings, scene)),
        options,
        present_mode: args.present_mode.into(),
        validation: !args.no_validation,
        frames: args.frames,
        live: None,
        presented: 0,
        error: None,
        started: Instant::now(),
        messages: (0, Vec::new()),
        test_resize: args.test_resize,
        swapchains: 0,
        extent: (0, 0),
    };
    let ran = event_loop.run_app(&mut app);
    app.close();
    if let Some(e) = app.error.take() {
        return Err(e);
    }
    ran.context("the window's event loop")?;
    let secs = app.started.elapsed().as_secs_f64();
    println!(
        "presented {} frames in {:.2} s ({:.1} FPS)",
        app.presented,
        secs,
        app.presented as f64 / secs.max(1e-9)
    );
    println!(
        "swapchains created: {} (last {}x{})",
        app.swapchains, app.extent.0, app.extent.1
    );
    let (count, texts) = &app.messages;
    if app.validation {
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
