//! `tessera run`: the desktop demo. A winit 0.30 window presents the frame rendered through
//! the graph into the swapchain ([`app`]); keys move the camera and switch every graph
//! optimisation and frame feature live ([`actions`], [`toggles`]), and an egui UI painted by
//! a pass of the graph shows and switches them with the mouse or a finger ([`ui`]).
//! `--script` drives the same actions, and the UI, at given frames ([`script`]).
//!
//! What to open comes from the configuration (`[window]` size and present mode, `[render]`
//! scene, `[camera]` start, `[features]`, `[graph]`), with the flags overriding it. Where no
//! display exists (neither `DISPLAY` nor `WAYLAND_DISPLAY`), it says so and renders a few
//! frames headless to `frame.png` instead (`tessera render`'s path), so the first command
//! works on any machine.

pub(crate) mod actions;
mod app;
mod clock;
mod input;
mod launch;
pub(crate) mod no_effect;
mod outputs;
mod presenter;
mod run_log;
mod script;
mod script_run;
mod switching;
pub(crate) mod toggles;
mod touch;
pub(crate) mod ui;
mod visibility;

use super::frame_args::{device_profile_parser, FrameArgs, AUTO};
use super::render::RenderArgs;
use std::path::PathBuf;
use std::process::ExitCode;
use tessera_render::config::PresentMode as ConfigPresentMode;
use tessera_vk::executor::TileRules;
use tessera_vk::swapchain::PresentMode;

/// `--present-mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PresentModeArg {
    /// Vertical sync (always available).
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

fn from_config(m: ConfigPresentMode) -> PresentMode {
    match m {
        ConfigPresentMode::Fifo => PresentMode::Fifo,
        ConfigPresentMode::Mailbox => PresentMode::Mailbox,
        ConfigPresentMode::Immediate => PresentMode::Immediate,
    }
}

/// The key table, for `tessera run --help`.
pub fn keys_help() -> String {
    actions::help()
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub frame: FrameArgs,
    /// Device profile: mali and adreno get the configuration's [mobile] preset; auto takes
    /// the device's (its vendor, Mali architecture and lazily allocated memory).
    #[arg(long, default_value = "desktop", value_parser = device_profile_parser())]
    profile: String,
    /// Every graph optimisation off (whatever [graph] says).
    #[arg(long)]
    no_optimize: bool,
    /// Quit after N presented frames; the lights then move 1/60 s per frame, as in
    /// `tessera render` [default: run until Escape or the window closes].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    frames: Option<u64>,
    /// How frames are presented [default: the config's [window] present_mode].
    #[arg(long, value_enum)]
    present_mode: Option<PresentModeArg>,
    /// Run the async-compute queue's work as separate submits on the graphics queue.
    #[arg(long)]
    emulate_async: bool,
    /// Run without the validation layers.
    #[arg(long)]
    no_validation: bool,
    /// Start with the UI hidden (Tab, or a tap, shows it).
    #[arg(long)]
    no_overlay: bool,
    /// Load RenderDoc (librenderdoc.so) at start so that F9 captures the next frame.
    #[arg(long)]
    renderdoc: bool,
    /// Where screenshots, captures and plan dumps go.
    #[arg(long, value_name = "DIR", default_value = ".")]
    out_dir: PathBuf,
    /// The shader sources F5 reloads [default: shaders/render of the working directory, else
    /// of the source tree tessera was built from].
    #[arg(long, value_name = "DIR")]
    shader_dir: Option<PathBuf>,
    /// Actions at given frames: FRAME:STEP[,FRAME:STEP...], STEP a key's action name
    /// (`merge`, `ssao`, `screenshot=PATH`, `plan=PATH`, `capture=PATH`, ...; a relative
    /// PATH is inside --out-dir), `resize=WxH` (the frames after it wait for the window to
    /// take that size), `minimise=MS`, `suspend=MS` (drop the swapchain and surface as
    /// Android's `Suspended` does, resume after MS), `ui=LABEL` (a mouse click on the UI's
    /// widget with that label: `merge`, `Features`, ...), `tap=LABEL` (the same with a
    /// finger), `click=X,Y` (a click at that window pixel), `drop=PATH` (the file dropped
    /// on the window loads as the scene) or `rotate=DEG` (0, 90, 180, 270: simulate a
    /// surface rotated that much, the frame pre-rotated into the window).
    #[arg(long, value_name = "STEPS", value_parser = script::Script::parse)]
    script: Option<script::Script>,
    /// Plan with this tiler profile's tile facts (lazily allocated memory, tile budget) over
    /// the device's own, as `tessera render --tile-rules` does.
    #[arg(long, value_name = "PROFILE", value_parser = clap::builder::PossibleValuesParser::new(TileRules::NAMES))]
    tile_rules: Option<String>,
}

/// What the phone's window loop opens: the configuration `config/default.toml` of `assets`
/// (the built-in one where the store has none) with the preset of `profile` (`auto`: the
/// device's, chosen once it is open) and its scene read from `assets`, validation as the build profile says (on in debug builds), files written
/// under `out_dir` (the app's internal data directory).
#[derive(Debug, Clone)]
pub struct PhoneLaunch {
    /// The APK's assets (scene files, models, textures, `config/default.toml`).
    pub assets: std::sync::Arc<dyn tessera_scene::assets::Assets>,
    /// Where screenshots and plan dumps go.
    pub out_dir: PathBuf,
    /// The device profile whose preset applies: `mali`, `adreno`, `desktop`, or `auto`
    /// (the device's own, [`tessera_vk::Gpu::class`]).
    pub profile: String,
}

/// Runs the window loop of a phone on `event_loop` (made from the `AndroidApp`) until the
/// activity ends or an error; the window (and so the surface) comes with `resumed`.
pub fn run_window(
    event_loop: winit::event_loop::EventLoop<()>,
    phone: PhoneLaunch,
) -> anyhow::Result<ExitCode> {
    let config = phone_config(phone.assets.as_ref())?;
    let chosen =
        FrameArgs::default().choose_with(config, phone.assets.as_ref(), &phone.profile, false)?;
    let window = &chosen.config.window;
    let (width, height) = (window.width, window.height);
    let present_mode = from_config(window.present_mode);
    app::run_on(
        event_loop,
        launch::Launch {
            chosen,
            width,
            height,
            present_mode,
            validation: cfg!(debug_assertions),
            emulate_async: false,
            frames: None,
            overlay: true,
            renderdoc: false,
            out_dir: phone.out_dir.clone(),
            shader_dir: phone.out_dir.join("shaders"),
            script: script::Script::default(),
            auto_profile: (phone.profile == AUTO).then(FrameArgs::default),
            tile_rules: None,
        },
    )
}

/// The store's `config/default.toml`, or the built-in configuration where it has none.
fn phone_config(
    assets: &dyn tessera_scene::assets::Assets,
) -> anyhow::Result<tessera_render::config::Config> {
    use tessera_render::config::{Config, MAX_FILE_BYTES};
    use tessera_scene::assets::AssetError;
    let name = std::path::Path::new("config/default.toml");
    match assets.read(name, MAX_FILE_BYTES as u64) {
        Ok(bytes) => Ok(Config::from_bytes(&bytes, name)?),
        Err(AssetError::NotFound) => Ok(Config::builtin()),
        Err(e) => Err(anyhow::anyhow!("{}: {e}", name.display())),
    }
}

/// Whether a window can be opened: an X11 or Wayland display is named.
fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}

pub fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    if !args.out_dir.is_dir() {
        let why = if args.out_dir.exists() {
            "is not a folder"
        } else {
            "does not exist"
        };
        return Err(super::usage(anyhow::anyhow!(
            "--out-dir {}: {why}",
            args.out_dir.display()
        )));
    }
    // Up front, not as a warning at the step's frame: the script would run without it.
    if args.script.as_ref().is_some_and(script::Script::captures) && !args.renderdoc {
        return Err(super::usage(anyhow::anyhow!(
            "--script: a capture step needs --renderdoc (RenderDoc is loaded at start)"
        )));
    }
    let chosen = args.frame.choose(&args.profile, args.no_optimize)?;
    // `--width`/`--height` override [window]'s size (not [render]'s: that is `tessera render`'s).
    let window = &chosen.config.window;
    let (w, h) = args.frame.size();
    let (width, height) = (w.unwrap_or(window.width), h.unwrap_or(window.height));
    if !has_display() {
        let out = args.out_dir.join("frame.png");
        println!(
            "no display (neither DISPLAY nor WAYLAND_DISPLAY is set): rendering {} frames \
             headless to {} instead of opening the window",
            args.frames.unwrap_or(chosen.config.render.frames),
            out.display()
        );
        let render = RenderArgs::headless(
            args.frame.clone().with_default_size(width, height),
            args.profile.clone(),
            args.no_optimize,
            args.frames,
            out,
            args.emulate_async,
            args.no_validation,
        )
        .with_tile_rules(args.tile_rules.clone());
        return super::render::run(&render);
    }
    let present_mode = args
        .present_mode
        .map_or(from_config(window.present_mode), PresentMode::from);
    let shader_dir = args.shader_dir.clone().unwrap_or_else(|| {
        let here = PathBuf::from("shaders/render");
        if here.is_dir() {
            here
        } else {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shaders/render"))
        }
    });
    app::run(launch::Launch {
        chosen,
        width,
        height,
        present_mode,
        validation: !args.no_validation,
        emulate_async: args.emulate_async,
        frames: args.frames,
        overlay: !args.no_overlay,
        renderdoc: args.renderdoc,
        out_dir: args.out_dir.clone(),
        shader_dir,
        script: args.script.clone().unwrap_or_default(),
        auto_profile: (args.profile == AUTO).then(|| args.frame.clone()),
        tile_rules: args.tile_rules.as_deref().and_then(TileRules::named),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera_scene::assets::Memory;

    const COURTYARD: &str = include_str!("../../../../../assets/scenes/courtyard.toml");

    #[test]
    fn a_store_without_a_configuration_gives_the_built_in_one() {
        let config = phone_config(&Memory::new()).unwrap();
        assert_eq!(
            config.render.scene,
            tessera_render::config::SceneChoice::Builtin
        );
    }

    /// The phone's path on desktop: the configuration and the scene it names come from the
    /// store (relative to `config/`, normalised as the AssetManager needs).
    #[test]
    fn the_phone_reads_its_configuration_and_scene_from_the_store() {
        let renamed = COURTYARD.replacen("name = \"courtyard\"", "name = \"from the store\"", 1);
        assert_ne!(renamed, COURTYARD, "the scene file names itself");
        let store = Memory::new()
            .with(
                "config/default.toml",
                "[render]\nscene = \"../scenes/yard.toml\"\n",
            )
            .with("scenes/yard.toml", renamed);
        let config = phone_config(&store).unwrap();
        let chosen = FrameArgs::default()
            .choose_with(config, &store, "mali", false)
            .unwrap();
        assert_eq!(chosen.scene.name, "from the store");
        assert_eq!(chosen.profile, "mali");
        // A scene the store lacks is an error naming the normalised path.
        let store = Memory::new().with(
            "config/default.toml",
            "[render]\nscene = \"../scenes/none.toml\"\n",
        );
        let config = phone_config(&store).unwrap();
        let e = FrameArgs::default()
            .choose_with(config, &store, "mali", false)
            .unwrap_err();
        assert!(format!("{e:#}").contains("scenes/none.toml"), "{e:#}");
    }

    #[test]
    fn a_broken_configuration_in_the_store_names_the_file() {
        let store = Memory::new().with("config/default.toml", "[render]\nscene = 3\n");
        let e = phone_config(&store).unwrap_err();
        assert!(format!("{e:#}").contains("config/default.toml"), "{e:#}");
        let store = Memory::new().with("config/default.toml", vec![b'#', b'\n', 0xff, 0xfe]);
        let e = format!("{:#}", phone_config(&store).unwrap_err());
        assert!(
            e.contains("UTF-8") && e.contains("config/default.toml:2:1"),
            "{e}"
        );
        // A byte-order mark is not an error (as in files read from disk).
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(b"[render]\nscene = \"builtin\"\n");
        let store = Memory::new().with("config/default.toml", bom);
        assert!(phone_config(&store).is_ok());
    }
}
