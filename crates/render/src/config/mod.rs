//! The configuration file (`config/default.toml`): what to render, the window, the camera, the
//! frame's [`Features`], the graph's [`CompileOptions`], and the `[mobile]` preset that
//! tile-based device profiles get.
//!
//! Loading reads the TOML with serde, as frame and scene files are read: one struct per
//! section with unknown keys refused ([`schema`]), each value read as a type that checks its
//! range or names ([`check`]), sections in file order ([`read`]). The first problem in file
//! order is the one error returned, as `FILE:LINE:COLUMN: [section] key = value: expected
//! ...`, naming the allowed keys, values or range ([`report`] words it). Every key is optional; a missing one
//! keeps its default ([`Features::default`], [`CompileOptions::ALL`], [`Config::builtin`]'s
//! values). Input of any shape gives `Ok` or one error, never a panic. Cost: linear in the
//! file's size (files over 1 MiB are refused).
//!
//! The `[mobile]` preset applies on the `mali` and `adreno` profiles ([`Config::features_for`]):
//! it starts from [`Features::tile_friendly`] of `[features]`, then its own keys (any
//! `[features]` key) override.

mod check;
mod read;
mod report;
mod schema;

use crate::features::{
    Aa, Bloom, DebugView, Exposure, Features, Lighting, PostPath, RenderPath, Ssao, MSAA_VALUES,
};
use check::{Int, SceneName};
use report::Cx;
use schema::FeaturesIn;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use tessera_graph::CompileOptions;
use toml::Spanned;

/// The embedded default configuration.
pub const DEFAULT_TOML: &str = include_str!("../../../../config/default.toml");

/// The name [`Config::builtin`] reports in errors and summaries.
pub const DEFAULT_NAME: &str = "config/default.toml";

/// Device profiles, and those that get the `[mobile]` preset.
pub const PROFILES: &[&str] = &["desktop", "mali", "adreno"];

/// The profiles on which [`Config::features_for`] applies the `[mobile]` preset.
pub const MOBILE_PROFILES: &[&str] = &["mali", "adreno"];

/// The sections a file may have.
pub const SECTIONS: &[&str] = &["render", "window", "camera", "features", "graph", "mobile"];

/// `[render]` keys.
pub const RENDER_KEYS: &[&str] = &[
    "width", "height", "scene", "frames", "path", "msaa", "lighting", "post", "animate",
];
/// `[window]` keys.
pub const WINDOW_KEYS: &[&str] = &["width", "height", "present_mode"];
/// `[camera]` keys.
pub const CAMERA_KEYS: &[&str] = &["position", "target"];
/// `[features]` (and `[mobile]`) keys.
pub const FEATURE_KEYS: &[&str] = &[
    "shadows",
    "cascades",
    "shadow_size",
    "lights",
    "clustering",
    "ssao",
    "ibl",
    "bloom",
    "exposure",
    "exposure_value",
    "aa",
    "resolution_scale",
    "debug_view",
    "path",
    "msaa",
    "lighting",
    "post",
];
/// `[graph]` keys.
pub const GRAPH_KEYS: &[&str] = &[
    "merge",
    "memoryless",
    "alias",
    "async",
    "reorder",
    "minimize_syncs",
];

/// Allowed output and window sizes (pixels per side).
pub const SIZE: (u32, u32) = (1, 16384);
/// Allowed shadow cascade counts.
pub const CASCADES: (u32, u32) = (1, 4);
/// Allowed texels per cascade side (powers of two).
pub const SHADOW_SIZE: (u32, u32) = (64, 8192);
/// Allowed point-light counts.
pub const LIGHTS: (u32, u32) = (0, 1024);
/// Allowed resolution scales.
pub const RESOLUTION_SCALE: (f32, f32) = (0.25, 2.0);
/// Allowed frame counts.
pub const FRAMES: (u64, u64) = (1, 1_000_000);

/// `ssao` values.
pub const SSAO_VALUES: &[&str] = &["gbuffer", "prepass", "off"];
/// `bloom` values.
pub const BLOOM_VALUES: &[&str] = &["hdr", "tonemap", "off"];
/// `exposure` values.
pub const EXPOSURE_VALUES: &[&str] = &["auto", "fixed"];
/// `aa` values.
pub const AA_VALUES: &[&str] = &["taa", "fxaa", "off"];
/// `path` values.
pub const PATH_VALUES: &[&str] = &["deferred", "forward"];
/// `lighting` values.
pub const LIGHTING_VALUES: &[&str] = &["raster", "compute"];
/// `post` values.
pub const POST_VALUES: &[&str] = &["raster", "compute"];
/// `present_mode` values.
pub const PRESENT_MODES: &[&str] = &["fifo", "mailbox", "immediate"];

/// The largest configuration file read, in bytes.
pub const MAX_FILE_BYTES: usize = 1 << 20;

/// One problem with a configuration file: what and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", at.map_or(String::new(), |(l, c)| format!(":{l}:{c}")))]
pub struct ConfigError {
    /// The file, as given.
    pub file: String,
    /// 1-based line and column, where the problem is in the text.
    pub at: Option<(usize, usize)>,
    /// What is wrong and what is allowed (one line).
    pub message: String,
}

/// What `[render]` draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SceneChoice {
    /// The built-in courtyard.
    Builtin,
    /// A scene file (`.toml`) or glTF model (`.gltf`, `.glb`), resolved against the
    /// configuration file's directory.
    File(PathBuf),
}

/// `[render]`: the offscreen render of `tessera render`.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSection {
    /// Output width in pixels.
    pub width: u32,
    /// Output height in pixels.
    pub height: u32,
    /// The scene.
    pub scene: SceneChoice,
    /// Frames to render.
    pub frames: u64,
    /// `path`: the lighting path of every profile, over `[features]` and `[mobile]`.
    pub path: Option<RenderPath>,
    /// `msaa`: the sample count of every profile, over `[features]` and `[mobile]`.
    pub msaa: Option<u32>,
    /// `lighting`: where the deferred lighting runs on every profile, over `[features]` and
    /// `[mobile]`.
    pub lighting: Option<Lighting>,
    /// `post`: the post chain of every profile, over `[features]` and `[mobile]`.
    pub post: Option<PostPath>,
    /// `animate`: play the scene's glTF animations (1/60 s per frame in `tessera render`);
    /// off draws the models' rest pose. `--animate` / `--no-animate` override.
    pub animate: bool,
}

/// How the desktop window presents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresentMode {
    /// Vsync, never tears.
    Fifo,
    /// Vsync with the newest frame replacing the queued one.
    Mailbox,
    /// No vsync, may tear.
    Immediate,
}

impl PresentMode {
    /// The configuration name.
    pub fn name(self) -> &'static str {
        match self {
            PresentMode::Fifo => "fifo",
            PresentMode::Mailbox => "mailbox",
            PresentMode::Immediate => "immediate",
        }
    }
}

/// `[window]`: the desktop app's window.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowSection {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Presentation mode.
    pub present_mode: PresentMode,
}

/// `[camera]`: where the view starts (the scene's own camera when absent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CameraSection {
    /// Eye position (world units).
    pub position: Option<[f32; 3]>,
    /// The point looked at.
    pub target: Option<[f32; 3]>,
}

/// A loaded configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The file it came from, as given (errors and summaries name it).
    pub source: String,
    /// `[render]`.
    pub render: RenderSection,
    /// `[window]`.
    pub window: WindowSection,
    /// `[camera]`.
    pub camera: CameraSection,
    /// `[features]`: the desktop profile's features.
    pub features: Features,
    /// `[features]` with the `[mobile]` preset applied.
    pub mobile: Features,
    /// `[graph]`.
    pub graph: CompileOptions,
}

impl Default for Config {
    /// Every key at its default (the values `config/default.toml` writes out).
    fn default() -> Self {
        Config {
            source: DEFAULT_NAME.into(),
            render: RenderSection {
                width: 1280,
                height: 720,
                scene: SceneChoice::Builtin,
                frames: 3,
                path: None,
                msaa: None,
                lighting: None,
                post: None,
                animate: true,
            },
            window: WindowSection {
                width: 1280,
                height: 720,
                present_mode: PresentMode::Fifo,
            },
            camera: CameraSection::default(),
            features: Features::default(),
            mobile: Features::default().tile_friendly(),
            graph: CompileOptions::ALL,
        }
    }
}

impl Config {
    /// The embedded `config/default.toml`.
    pub fn builtin() -> Config {
        Config::parse_in(DEFAULT_TOML, DEFAULT_NAME, None)
            .expect("config/default.toml is valid (tested)")
    }

    /// Reads and parses the file at `path`; relative scene paths resolve against its directory.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        // Bounded while reading: `--config /dev/zero` or a FIFO is refused, never read on.
        let bytes = tessera_fsio::read_limited(path, MAX_FILE_BYTES as u64, "configuration files")
            .map_err(|e| ConfigError {
                file: path.display().to_string(),
                at: None,
                message: read_error_message(&e, path),
            })?;
        Config::from_bytes(&bytes, path)
    }

    /// Parses a file's bytes (read from disk, or from the APK's assets on Android): at most
    /// [`MAX_FILE_BYTES`], UTF-8 with an optional byte-order mark; `path` names it in errors,
    /// and its directory is where relative scene paths resolve.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Config, ConfigError> {
        let file = path.display().to_string();
        if bytes.len() > MAX_FILE_BYTES {
            return Err(ConfigError {
                file,
                at: None,
                message: format!(
                    "{} bytes; configuration files are at most {MAX_FILE_BYTES}",
                    bytes.len()
                ),
            });
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
            ConfigError {
                file: file.clone(),
                at: Some(tessera_fsio::line_column(valid, valid.len())),
                message: "invalid UTF-8 (configuration files are UTF-8 text)".into(),
            }
        })?;
        let dir = path.parent().unwrap_or(Path::new(""));
        Config::parse_in(text, &file, Some(dir))
    }

    /// Parses `text`; `file_name` names it in errors, and its directory is where relative
    /// scene paths resolve.
    pub fn parse(text: &str, file_name: &str) -> Result<Config, ConfigError> {
        let dir = Path::new(file_name).parent().unwrap_or(Path::new(""));
        Config::parse_in(text, file_name, Some(dir))
    }

    /// The features of `profile`: `[features]`, with the `[mobile]` preset on
    /// [`MOBILE_PROFILES`].
    pub fn features_for(&self, profile: &str) -> Features {
        if MOBILE_PROFILES.contains(&profile) {
            self.mobile.clone()
        } else {
            self.features.clone()
        }
    }

    /// The graph optimisations of `[graph]`.
    pub fn options(&self) -> CompileOptions {
        self.graph
    }

    fn parse_in(text: &str, file: &str, dir: Option<&Path>) -> Result<Config, ConfigError> {
        let cx = Cx { text, file };
        if text.len() > MAX_FILE_BYTES {
            return Err(ConfigError {
                file: file.into(),
                at: None,
                message: format!(
                    "{} bytes; configuration files are at most {MAX_FILE_BYTES}",
                    text.len()
                ),
            });
        }
        let file_in = read::sections(&cx)?;
        let defaults = Config::default();
        let r = file_in.render;
        let w = file_in.window;
        let c = file_in.camera;
        let g = file_in.graph;
        let all = CompileOptions::ALL;
        let mut config = Config {
            source: file.into(),
            render: RenderSection {
                width: r.width.map_or(defaults.render.width, Int::u32),
                height: r.height.map_or(defaults.render.height, Int::u32),
                scene: match r.scene {
                    None | Some(SceneName(None)) => SceneChoice::Builtin,
                    Some(SceneName(Some(p))) => SceneChoice::File(match dir {
                        Some(d) if p.is_relative() => d.join(p),
                        _ => p,
                    }),
                },
                frames: r.frames.map_or(defaults.render.frames, |n| n.0),
                path: r.path.as_ref().map(|p| p.get_ref().0),
                msaa: r.msaa.as_ref().map(|m| m.get_ref().0),
                lighting: r.lighting.map(|l| l.0),
                post: r.post.map(|p| p.0),
                animate: r.animate.unwrap_or(defaults.render.animate),
            },
            window: WindowSection {
                width: w.width.map_or(defaults.window.width, Int::u32),
                height: w.height.map_or(defaults.window.height, Int::u32),
                present_mode: w.present_mode.map_or(defaults.window.present_mode, |m| m.0),
            },
            camera: CameraSection {
                position: c.position.map(|v| v.0),
                target: c.target.as_ref().map(|v| v.get_ref().0),
            },
            graph: CompileOptions {
                merge: g.merge.unwrap_or(all.merge),
                memoryless: g.memoryless.unwrap_or(all.memoryless),
                alias: g.alias.unwrap_or(all.alias),
                async_compute: g.async_compute.unwrap_or(all.async_compute),
                reorder: g.reorder.unwrap_or(all.reorder),
                minimize_syncs: g.minimize_syncs.unwrap_or(all.minimize_syncs),
                overlap_frames: g.overlap_frames.unwrap_or(all.overlap_frames),
            },
            ..defaults
        };
        let features = FeatureKeys::new(&cx, "features", file_in.features);
        let mobile = FeatureKeys::new(&cx, "mobile", file_in.mobile);
        config.features = features.apply(Features::default());
        config.mobile = mobile.apply(config.features.clone().tile_friendly());
        check_shadow_view(&cx, &config.features, &[&features])?;
        check_shadow_view(&cx, &config.mobile, &[&mobile, &features])?;
        // `[render]` path, msaa and post choose for every profile.
        for f in [&mut config.features, &mut config.mobile] {
            f.path = config.render.path.unwrap_or(f.path);
            f.msaa = config.render.msaa.unwrap_or(f.msaa);
            f.lighting = config.render.lighting.unwrap_or(f.lighting);
            f.post = config.render.post.unwrap_or(f.post);
        }
        let render_at = r
            .msaa
            .as_ref()
            .map(|m| m.span().start)
            .or(r.path.as_ref().map(|p| p.span().start));
        for (section, f) in [("features", &config.features), ("mobile", &config.mobile)] {
            if let Err(why) = f.check() {
                let where_ = match section {
                    "mobile" => "[mobile] (the mali and adreno profiles)",
                    _ => "[features] (the desktop profile)",
                };
                let message = format!("{where_}: {why}");
                return Err(match render_at {
                    Some(at) => cx.err(at, message),
                    None => ConfigError {
                        file: file.into(),
                        at: None,
                        message,
                    },
                });
            }
        }
        Ok(config)
    }
}

/// What a read error says after the file's name (which [`ConfigError`] puts first).
fn read_error_message(e: &tessera_fsio::ReadError, path: &Path) -> String {
    let text = e.to_string();
    let shown = format!("{}: ", path.display());
    text.strip_prefix(&shown).unwrap_or(&text).to_string()
}

/// The `[features]` or `[mobile]` keys a file gives (the others keep their base value).
#[derive(Clone, Debug, Default, PartialEq)]
struct FeatureKeys {
    shadows: Option<bool>,
    cascades: Option<u32>,
    shadow_size: Option<u32>,
    lights: Option<u32>,
    clustering: Option<bool>,
    ssao: Option<Ssao>,
    ibl: Option<bool>,
    bloom: Option<Bloom>,
    /// `true` for auto.
    auto_exposure: Option<bool>,
    exposure_value: Option<f32>,
    aa: Option<Aa>,
    resolution_scale: Option<f32>,
    debug_view: Option<DebugView>,
    path: Option<RenderPath>,
    msaa: Option<u32>,
    lighting: Option<Lighting>,
    post: Option<PostPath>,
    /// Where `debug_view` was given: the section, the value's offset and source text.
    view_at: Option<(&'static str, usize, String)>,
}

impl FeatureKeys {
    fn apply(&self, mut f: Features) -> Features {
        macro_rules! set {
            ($($field:ident),*) => { $(if let Some(x) = self.$field { f.$field = x; })* };
        }
        set!(
            shadows,
            cascades,
            shadow_size,
            lights,
            clustering,
            ssao,
            ibl,
            bloom,
            aa,
            resolution_scale,
            debug_view,
            path,
            msaa,
            lighting,
            post
        );
        let (auto, value) = match f.exposure {
            Exposure::Fixed(v) => (false, v),
            Exposure::Auto { compensation } => (true, compensation),
        };
        let value = self.exposure_value.unwrap_or(value);
        f.exposure = if self.auto_exposure.unwrap_or(auto) {
            Exposure::Auto {
                compensation: value,
            }
        } else {
            Exposure::Fixed(value)
        };
        f
    }
}

impl FeatureKeys {
    fn new(cx: &Cx, section: &'static str, f: FeaturesIn) -> FeatureKeys {
        FeatureKeys {
            shadows: f.shadows,
            cascades: f.cascades.map(Int::u32),
            shadow_size: f.shadow_size.map(|n| n.0),
            lights: f.lights.map(Int::u32),
            clustering: f.clustering,
            ssao: f.ssao.map(|c| c.0),
            ibl: f.ibl,
            bloom: f.bloom.map(|c| c.0),
            auto_exposure: f.exposure.map(|c| c.0 .0),
            exposure_value: f.exposure_value.map(|x| x.0),
            aa: f.aa.map(|c| c.0),
            resolution_scale: f.resolution_scale.map(|x| x.0),
            debug_view: f.debug_view.as_ref().map(|v| v.get_ref().0),
            path: f.path.map(|p| p.0),
            msaa: f.msaa.map(|m| m.0),
            lighting: f.lighting.map(|l| l.0),
            post: f.post.map(|p| p.0),
            view_at: f
                .debug_view
                .map(|v| (section, v.span().start, cx.source(v.span()))),
        }
    }
}

/// A `shadowN` debug view needs cascade N: the error names where the view was given (the
/// first of `keys` that sets it; the default view is `none`, so one does).
fn check_shadow_view(cx: &Cx, f: &Features, keys: &[&FeatureKeys]) -> Result<(), ConfigError> {
    let DebugView::Shadow(c) = f.debug_view else {
        return Ok(());
    };
    if c < f.cascades {
        return Ok(());
    }
    let (section, at, value) = keys.iter().find_map(|k| k.view_at.clone()).unwrap_or((
        "features",
        0,
        format!("{:?}", f.debug_view.name()),
    ));
    Err(cx.err(
        at,
        format!(
            "[{section}] debug_view = {value}: expected a view of one of the {} cascades (shadow0 to shadow{}), or cascades > {c}",
            f.cascades,
            f.cascades - 1
        ),
    ))
}

/// The [`Ssao`] of one of [`SSAO_VALUES`] (`off` for anything else).
pub fn parse_ssao(name: &str) -> Ssao {
    match name {
        "gbuffer" => Ssao::GBuffer,
        "prepass" => Ssao::Prepass,
        _ => Ssao::Off,
    }
}

/// The [`Bloom`] of one of [`BLOOM_VALUES`] (`off` for anything else).
pub fn parse_bloom(name: &str) -> Bloom {
    match name {
        "hdr" => Bloom::Hdr,
        "tonemap" => Bloom::Tonemap,
        _ => Bloom::Off,
    }
}

/// The [`Aa`] of one of [`AA_VALUES`] (`off` for anything else).
pub fn parse_aa(name: &str) -> Aa {
    match name {
        "fxaa" => Aa::Fxaa,
        "taa" => Aa::Taa,
        _ => Aa::Off,
    }
}

/// The [`RenderPath`] of one of [`PATH_VALUES`] (`deferred` for anything else).
pub fn parse_path(name: &str) -> RenderPath {
    match name {
        "forward" => RenderPath::Forward,
        _ => RenderPath::Deferred,
    }
}

/// The [`Lighting`] of one of [`LIGHTING_VALUES`] (`compute` for anything else).
pub fn parse_lighting(name: &str) -> Lighting {
    match name {
        "raster" => Lighting::Raster,
        _ => Lighting::Compute,
    }
}

/// The [`PostPath`] of one of [`POST_VALUES`] (`compute` for anything else).
pub fn parse_post(name: &str) -> PostPath {
    match name {
        "raster" => PostPath::Raster,
        _ => PostPath::Compute,
    }
}

/// What `msaa` allows, as messages say it.
pub fn msaa_expected() -> String {
    let n: Vec<String> = MSAA_VALUES.iter().map(u32::to_string).collect();
    format!("one of {}", n.join(", "))
}

/// The configuration names of features' values, for summaries: `(key, value)` in
/// [`FEATURE_KEYS`] order.
pub fn feature_names(f: &Features) -> Vec<(&'static str, String)> {
    let value = match f.exposure {
        Exposure::Fixed(v) => v,
        Exposure::Auto { compensation } => compensation,
    };
    vec![
        ("shadows", f.shadows.to_string()),
        ("cascades", f.cascades.to_string()),
        ("shadow_size", f.shadow_size.to_string()),
        ("lights", f.lights.to_string()),
        ("clustering", f.clustering.to_string()),
        ("ssao", f.ssao.name().into()),
        ("ibl", f.ibl.to_string()),
        ("bloom", f.bloom.name().into()),
        ("exposure", f.exposure.name().into()),
        ("exposure_value", value.to_string()),
        ("aa", f.aa.name().into()),
        ("resolution_scale", f.resolution_scale.to_string()),
        ("debug_view", f.debug_view.name()),
        ("path", f.path.name().into()),
        ("msaa", f.msaa.to_string()),
        ("lighting", f.lighting.name().into()),
        ("post", f.post.name().into()),
    ]
}

#[cfg(test)]
mod tests;
