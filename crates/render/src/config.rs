//! The configuration file (`config/default.toml`): what to render, the window, the camera, the
//! frame's [`Features`], the graph's [`CompileOptions`], and the `[mobile]` preset that
//! tile-based device profiles get.
//!
//! Loading parses the TOML into a spanned tree ([`toml::de::DeTable`]) and walks it once,
//! section by section, key by key, checking each value against its type and range as it goes:
//! the first problem in file order is the one error returned, as
//! `FILE:LINE:COLUMN: [section] key = value: expected ...`, naming the allowed keys, values
//! or range. Every key is optional; a missing one keeps its default ([`Features::default`],
//! [`CompileOptions::ALL`], [`Config::builtin`]'s values). Input of any shape gives `Ok` or
//! one error, never a panic. Cost: linear in the file's size (files over 1 MiB are refused).
//!
//! The `[mobile]` preset applies on the `mali` and `adreno` profiles ([`Config::features_for`]):
//! it starts from [`Features::tile_friendly`] of `[features]`, then its own keys (any
//! `[features]` key) override.

use crate::features::{Aa, Bloom, DebugView, Exposure, Features, Ssao};
use std::ops::Range;
use std::path::{Path, PathBuf};
use tessera_graph::CompileOptions;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// The embedded default configuration.
pub const DEFAULT_TOML: &str = include_str!("../../../config/default.toml");

/// The name [`Config::builtin`] reports in errors and summaries.
pub const DEFAULT_NAME: &str = "config/default.toml";

/// Device profiles, and those that get the `[mobile]` preset.
pub const PROFILES: &[&str] = &["desktop", "mali", "adreno"];

/// The profiles on which [`Config::features_for`] applies the `[mobile]` preset.
pub const MOBILE_PROFILES: &[&str] = &["mali", "adreno"];

/// The sections a file may have.
pub const SECTIONS: &[&str] = &["render", "window", "camera", "features", "graph", "mobile"];

/// `[render]` keys.
pub const RENDER_KEYS: &[&str] = &["width", "height", "scene", "frames"];
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
    "bloom",
    "exposure",
    "exposure_value",
    "aa",
    "resolution_scale",
    "debug_view",
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
pub const AA_VALUES: &[&str] = &["fxaa", "off"];
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
                at: Some(line_column(valid, valid.len())),
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
        let root = DeTable::parse(text).map_err(|e| {
            let at = e.span().map_or(0, |s| s.start);
            let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
            cx.err(at, format!("invalid TOML: {message}"))
        })?;
        let mut config = Config {
            source: file.into(),
            ..Config::default()
        };
        let mut features = FeatureKeys::default();
        let mut mobile = FeatureKeys::default();
        for (key, value) in sorted(root.get_ref()) {
            let name: &str = key.get_ref();
            let Some(&section) = SECTIONS.iter().find(|&&s| s == name) else {
                let what = if matches!(value.get_ref(), DeValue::Table(_)) {
                    format!("unknown section [{}]", shown(name))
                } else {
                    format!("key {} outside any section", shown(name))
                };
                return Err(cx.err(
                    key.span().start,
                    format!("{what}; allowed sections: {}", SECTIONS.join(", ")),
                ));
            };
            let DeValue::Table(table) = value.get_ref() else {
                return Err(cx.err(
                    value.span().start,
                    format!(
                        "{section} = {}: expected a section, written [{section}] on a line of its own",
                        cx.source(value.span())
                    ),
                ));
            };
            match section {
                "render" => config.render = render_section(&cx, table, dir)?,
                "window" => config.window = window_section(&cx, table)?,
                "camera" => config.camera = camera_section(&cx, table)?,
                "features" => features = feature_keys(&cx, "features", table)?,
                "mobile" => mobile = feature_keys(&cx, "mobile", table)?,
                _ => config.graph = graph_section(&cx, table)?,
            }
        }
        config.features = features.apply(Features::default());
        config.mobile = mobile.apply(config.features.clone().tile_friendly());
        check_shadow_view(&cx, &config.features, &[&features])?;
        check_shadow_view(&cx, &config.mobile, &[&mobile, &features])?;
        Ok(config)
    }
}

/// 1-based line and column (in characters) of a byte offset.
/// What a read error says after the file's name (which [`ConfigError`] puts first).
fn read_error_message(e: &tessera_fsio::ReadError, path: &Path) -> String {
    let text = e.to_string();
    let shown = format!("{}: ", path.display());
    text.strip_prefix(&shown).unwrap_or(&text).to_string()
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// A key as shown in a message: itself when plain, else quoted and cut short.
fn shown(key: &str) -> String {
    let plain = !key.is_empty()
        && key.len() <= 40
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        key.to_string()
    } else {
        let short: String = key.chars().take(40).collect();
        format!("{short:?}")
    }
}

/// A table's entries in file order.
fn sorted<'a, 'i>(
    table: &'a DeTable<'i>,
) -> Vec<(
    &'a Spanned<toml::de::DeString<'i>>,
    &'a Spanned<DeValue<'i>>,
)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}

struct Cx<'a> {
    text: &'a str,
    file: &'a str,
}

impl Cx<'_> {
    fn err(&self, offset: usize, message: String) -> ConfigError {
        ConfigError {
            file: self.file.into(),
            at: Some(line_column(self.text, offset)),
            message,
        }
    }

    /// The source text of a value, on one line and cut short.
    fn source(&self, span: Range<usize>) -> String {
        let raw = self.text.get(span).unwrap_or("?");
        let one: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
        if one.chars().count() > 40 {
            one.chars().take(37).collect::<String>() + "..."
        } else {
            one
        }
    }

    /// `[section] key = value: expected ...`.
    fn bad(
        &self,
        section: &str,
        key: &str,
        value: &Spanned<DeValue>,
        expected: &str,
    ) -> ConfigError {
        self.err(
            value.span().start,
            format!(
                "[{section}] {key} = {}: expected {expected}",
                self.source(value.span())
            ),
        )
    }

    /// The keys of a section, each known, in file order.
    fn keys<'a, 'i>(
        &self,
        section: &str,
        table: &'a DeTable<'i>,
        allowed: &[&str],
    ) -> Result<Vec<(&'static str, &'a Spanned<DeValue<'i>>)>, ConfigError> {
        let mut out = Vec::new();
        for (key, value) in sorted(table) {
            let name: &str = key.get_ref();
            match allowed.iter().find(|&&k| k == name) {
                Some(_) => out.push((static_key(name), value)),
                None => {
                    return Err(self.err(
                        key.span().start,
                        format!(
                            "unknown key [{section}] {}; allowed: {}",
                            shown(name),
                            allowed.join(", ")
                        ),
                    ))
                }
            }
        }
        Ok(out)
    }

    fn bool(&self, s: &str, k: &str, v: &Spanned<DeValue>) -> Result<bool, ConfigError> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            _ => Err(self.bad(s, k, v, "true or false")),
        }
    }

    fn int(
        &self,
        s: &str,
        k: &str,
        v: &Spanned<DeValue>,
        lo: u64,
        hi: u64,
    ) -> Result<u64, ConfigError> {
        let expected = format!("an integer from {lo} to {hi}");
        match v.get_ref() {
            DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix())
                .ok()
                .filter(|&n| n >= lo as i128 && n <= hi as i128)
                .map(|n| n as u64)
                .ok_or_else(|| self.bad(s, k, v, &expected)),
            _ => Err(self.bad(s, k, v, &expected)),
        }
    }

    fn u32(
        &self,
        s: &str,
        k: &str,
        v: &Spanned<DeValue>,
        (lo, hi): (u32, u32),
    ) -> Result<u32, ConfigError> {
        Ok(self.int(s, k, v, lo as u64, hi as u64)? as u32)
    }

    /// A finite number (integer or float), or `None` for another type.
    fn number(v: &DeValue) -> Option<f64> {
        match v {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|n| n as f64),
            DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
            _ => None,
        }
        .filter(|x| x.is_finite())
    }

    fn float(
        &self,
        s: &str,
        k: &str,
        v: &Spanned<DeValue>,
        lo: f32,
        hi: f32,
    ) -> Result<f32, ConfigError> {
        // Unbounded above still means finite as an `f32`: 1e308 parses but is out of range.
        let expected = if hi == f32::MAX {
            format!("a number greater than {lo} and at most 3.4e38")
        } else {
            format!("a number from {lo} to {hi}")
        };
        Self::number(v.get_ref())
            .map(|x| x as f32)
            .filter(|&x| {
                x.is_finite()
                    && if hi == f32::MAX {
                        x > lo
                    } else {
                        x >= lo && x <= hi
                    }
            })
            .ok_or_else(|| self.bad(s, k, v, &expected))
    }

    fn choice<'n>(
        &self,
        s: &str,
        k: &str,
        v: &Spanned<DeValue>,
        names: &[&'n str],
    ) -> Result<&'n str, ConfigError> {
        let expected = format!(
            "one of {}",
            names
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        match v.get_ref() {
            DeValue::String(text) => names
                .iter()
                .find(|&&n| n == text.as_ref())
                .copied()
                .ok_or_else(|| self.bad(s, k, v, &expected)),
            _ => Err(self.bad(s, k, v, &expected)),
        }
    }

    fn vec3(&self, s: &str, k: &str, v: &Spanned<DeValue>) -> Result<[f32; 3], ConfigError> {
        let bad = || self.bad(s, k, v, "an array of three finite numbers, [x, y, z]");
        let DeValue::Array(items) = v.get_ref() else {
            return Err(bad());
        };
        let xs: Vec<f32> = items
            .iter()
            .filter_map(|x| Self::number(x.get_ref()))
            .map(|x| x as f32)
            .filter(|x| x.is_finite())
            .collect();
        match (items.len(), xs.as_slice()) {
            (3, &[x, y, z]) => Ok([x, y, z]),
            _ => Err(bad()),
        }
    }
}

/// The `'static` copy of a known key.
fn static_key(name: &str) -> &'static str {
    [
        RENDER_KEYS,
        WINDOW_KEYS,
        CAMERA_KEYS,
        FEATURE_KEYS,
        GRAPH_KEYS,
    ]
    .iter()
    .flat_map(|ks| ks.iter())
    .find(|&&k| k == name)
    .copied()
    .unwrap_or("?")
}

fn render_section(
    cx: &Cx,
    table: &DeTable,
    dir: Option<&Path>,
) -> Result<RenderSection, ConfigError> {
    const S: &str = "render";
    let mut r = Config::default().render;
    for (k, v) in cx.keys(S, table, RENDER_KEYS)? {
        match k {
            "width" => r.width = cx.u32(S, k, v, SIZE)?,
            "height" => r.height = cx.u32(S, k, v, SIZE)?,
            "frames" => r.frames = cx.int(S, k, v, FRAMES.0, FRAMES.1)?,
            _ => {
                let expected =
                    r#""builtin" or the path of a scene (.toml) or glTF model (.gltf, .glb)"#;
                let DeValue::String(path) = v.get_ref() else {
                    return Err(cx.bad(S, k, v, expected));
                };
                r.scene = if path.as_ref() == "builtin" {
                    SceneChoice::Builtin
                } else {
                    let p = Path::new(path.as_ref());
                    let ext = p
                        .extension()
                        .and_then(|e| e.to_str())
                        .map(str::to_ascii_lowercase);
                    if !matches!(ext.as_deref(), Some("toml" | "gltf" | "glb")) {
                        return Err(cx.bad(S, k, v, expected));
                    }
                    SceneChoice::File(match dir {
                        Some(d) if p.is_relative() => d.join(p),
                        _ => p.to_path_buf(),
                    })
                };
            }
        }
    }
    Ok(r)
}

fn window_section(cx: &Cx, table: &DeTable) -> Result<WindowSection, ConfigError> {
    const S: &str = "window";
    let mut w = Config::default().window;
    for (k, v) in cx.keys(S, table, WINDOW_KEYS)? {
        match k {
            "width" => w.width = cx.u32(S, k, v, SIZE)?,
            "height" => w.height = cx.u32(S, k, v, SIZE)?,
            _ => {
                w.present_mode = match cx.choice(S, k, v, PRESENT_MODES)? {
                    "fifo" => PresentMode::Fifo,
                    "mailbox" => PresentMode::Mailbox,
                    _ => PresentMode::Immediate,
                }
            }
        }
    }
    Ok(w)
}

fn camera_section(cx: &Cx, table: &DeTable) -> Result<CameraSection, ConfigError> {
    const S: &str = "camera";
    let mut c = CameraSection::default();
    let mut target_at = None;
    for (k, v) in cx.keys(S, table, CAMERA_KEYS)? {
        match k {
            "position" => c.position = Some(cx.vec3(S, k, v)?),
            _ => {
                c.target = Some(cx.vec3(S, k, v)?);
                target_at = Some(v);
            }
        }
    }
    if let (Some(p), Some(t), Some(v)) = (c.position, c.target, target_at) {
        if p == t {
            return Err(cx.bad(S, "target", v, "a point other than the position"));
        }
    }
    Ok(c)
}

fn graph_section(cx: &Cx, table: &DeTable) -> Result<CompileOptions, ConfigError> {
    const S: &str = "graph";
    let mut o = CompileOptions::ALL;
    for (k, v) in cx.keys(S, table, GRAPH_KEYS)? {
        let on = cx.bool(S, k, v)?;
        match k {
            "merge" => o.merge = on,
            "memoryless" => o.memoryless = on,
            "alias" => o.alias = on,
            "async" => o.async_compute = on,
            "reorder" => o.reorder = on,
            _ => o.minimize_syncs = on,
        }
    }
    Ok(o)
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
    bloom: Option<Bloom>,
    /// `true` for auto.
    auto_exposure: Option<bool>,
    exposure_value: Option<f32>,
    aa: Option<Aa>,
    resolution_scale: Option<f32>,
    debug_view: Option<DebugView>,
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
            bloom,
            aa,
            resolution_scale,
            debug_view
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

fn feature_keys(cx: &Cx, s: &'static str, table: &DeTable) -> Result<FeatureKeys, ConfigError> {
    let mut f = FeatureKeys::default();
    for (k, v) in cx.keys(s, table, FEATURE_KEYS)? {
        if k == "debug_view" {
            f.view_at = Some((s, v.span().start, cx.source(v.span())));
        }
        match k {
            "shadows" => f.shadows = Some(cx.bool(s, k, v)?),
            "cascades" => f.cascades = Some(cx.u32(s, k, v, CASCADES)?),
            "shadow_size" => {
                let expected =
                    format!("a power of two from {} to {}", SHADOW_SIZE.0, SHADOW_SIZE.1);
                let n = cx
                    .u32(s, k, v, SHADOW_SIZE)
                    .map_err(|_| cx.bad(s, k, v, &expected))?;
                if !n.is_power_of_two() {
                    return Err(cx.bad(s, k, v, &expected));
                }
                f.shadow_size = Some(n);
            }
            "lights" => f.lights = Some(cx.u32(s, k, v, LIGHTS)?),
            "clustering" => f.clustering = Some(cx.bool(s, k, v)?),
            "ssao" => f.ssao = Some(parse_ssao(cx.choice(s, k, v, SSAO_VALUES)?)),
            "bloom" => f.bloom = Some(parse_bloom(cx.choice(s, k, v, BLOOM_VALUES)?)),
            "exposure" => f.auto_exposure = Some(cx.choice(s, k, v, EXPOSURE_VALUES)? == "auto"),
            "exposure_value" => f.exposure_value = Some(cx.float(s, k, v, 0.0, f32::MAX)?),
            "aa" => f.aa = Some(parse_aa(cx.choice(s, k, v, AA_VALUES)?)),
            "resolution_scale" => {
                f.resolution_scale =
                    Some(cx.float(s, k, v, RESOLUTION_SCALE.0, RESOLUTION_SCALE.1)?)
            }
            _ => {
                let name = cx.choice(s, k, v, DebugView::NAMES)?;
                f.debug_view = DebugView::parse(name);
            }
        }
    }
    Ok(f)
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
        _ => Aa::Off,
    }
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
        ("bloom", f.bloom.name().into()),
        ("exposure", f.exposure.name().into()),
        ("exposure_value", value.to_string()),
        ("aa", f.aa.name().into()),
        ("resolution_scale", f.resolution_scale.to_string()),
        ("debug_view", f.debug_view.name()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_value_names_round_trip_through_their_parsers() {
        for &v in SSAO_VALUES {
            assert_eq!(parse_ssao(v).name(), v);
        }
        for &v in BLOOM_VALUES {
            assert_eq!(parse_bloom(v).name(), v);
        }
        for &v in AA_VALUES {
            assert_eq!(parse_aa(v).name(), v);
        }
    }

    fn err(text: &str) -> String {
        Config::parse(text, "config/x.toml")
            .expect_err(text)
            .to_string()
    }

    #[test]
    fn the_builtin_file_is_the_defaults() {
        let c = Config::builtin();
        assert_eq!(c.features, Features::default());
        assert_eq!(c.options(), CompileOptions::ALL);
        assert_eq!(c, Config::default());
        // An empty file too.
        let e = Config::parse("", "e.toml").unwrap();
        assert_eq!(e.features, Features::default());
        assert_eq!(e.graph, CompileOptions::ALL);
        assert_eq!(e.render, Config::default().render);
    }

    #[test]
    fn the_builtin_file_documents_every_key() {
        for key in FEATURE_KEYS
            .iter()
            .chain(GRAPH_KEYS)
            .chain(RENDER_KEYS)
            .chain(WINDOW_KEYS)
            .chain(CAMERA_KEYS)
        {
            let line = DEFAULT_TOML
                .lines()
                .position(|l| {
                    l.trim_start()
                        .trim_start_matches("# ")
                        .starts_with(&format!("{key} ="))
                })
                .unwrap_or_else(|| panic!("{key} is not in config/default.toml"));
            let before = DEFAULT_TOML.lines().nth(line.saturating_sub(1)).unwrap();
            assert!(before.trim_start().starts_with('#'), "{key} has no comment");
        }
    }

    #[test]
    fn the_mobile_preset_applies_on_mali_and_adreno_only() {
        let c = Config::builtin();
        for p in ["mali", "adreno"] {
            let f = c.features_for(p);
            assert_eq!((f.ssao, f.bloom), (Ssao::Prepass, Bloom::Tonemap), "{p}");
            assert_eq!(f, Features::default().tile_friendly(), "{p}");
        }
        let d = c.features_for("desktop");
        assert_eq!((d.ssao, d.bloom), (Ssao::GBuffer, Bloom::Hdr));
        // [mobile] keys override [features] there only; what [features] turns off stays off
        // on mobile unless [mobile] says otherwise.
        let c = Config::parse(
            "[features]\nbloom = \"off\"\nlights = 8\n[mobile]\nlights = 4\nssao = \"gbuffer\"\n",
            "m.toml",
        )
        .unwrap();
        let m = c.features_for("mali");
        assert_eq!((m.lights, m.ssao, m.bloom), (4, Ssao::GBuffer, Bloom::Off));
        let d = c.features_for("desktop");
        assert_eq!((d.lights, d.ssao, d.bloom), (8, Ssao::GBuffer, Bloom::Off));
    }

    #[test]
    fn every_key_is_read() {
        let c = Config::parse(
            r#"
[render]
width = 64
height = 36
scene = "scenes/a.gltf"
frames = 2
[window]
width = 800
height = 600
present_mode = "mailbox"
[camera]
position = [1, 2.5, 3]
target = [0, 0, 0]
[features]
shadows = false
cascades = 2
shadow_size = 512
lights = 0
clustering = false
ssao = "prepass"
bloom = "tonemap"
exposure = "fixed"
exposure_value = 1.5
aa = "off"
resolution_scale = 0.5
debug_view = "shadow1"
[graph]
merge = false
memoryless = false
alias = false
async = false
reorder = false
minimize_syncs = false
"#,
            "dir/c.toml",
        )
        .unwrap();
        assert_eq!(
            c.render,
            RenderSection {
                width: 64,
                height: 36,
                scene: SceneChoice::File(PathBuf::from("dir/scenes/a.gltf")),
                frames: 2
            }
        );
        assert_eq!(c.window.present_mode, PresentMode::Mailbox);
        assert_eq!((c.window.width, c.window.height), (800, 600));
        assert_eq!(c.camera.position, Some([1.0, 2.5, 3.0]));
        assert_eq!(c.camera.target, Some([0.0; 3]));
        let f = Features {
            shadows: false,
            cascades: 2,
            shadow_size: 512,
            lights: 0,
            clustering: false,
            ssao: Ssao::Prepass,
            bloom: Bloom::Tonemap,
            exposure: Exposure::Fixed(1.5),
            aa: Aa::Off,
            resolution_scale: 0.5,
            debug_view: DebugView::Shadow(1),
        };
        assert_eq!(c.features, f);
        assert_eq!(c.options(), CompileOptions::NONE);
        // Auto exposure keeps the value as its compensation.
        let c = Config::parse("[features]\nexposure_value = 2\n", "a.toml").unwrap();
        assert_eq!(c.features.exposure, Exposure::Auto { compensation: 2.0 });
        // An absolute scene path stays as it is.
        let c = Config::parse("[render]\nscene = \"/s/b.glb\"\n", "d/a.toml").unwrap();
        assert_eq!(c.render.scene, SceneChoice::File("/s/b.glb".into()));
    }

    #[test]
    fn an_unknown_section_names_the_allowed_ones() {
        let e = err("[render]\nwidth = 4\n\n[featurs]\nssao = \"off\"\n");
        assert!(
            e.starts_with("config/x.toml:4:2: unknown section [featurs]"),
            "{e}"
        );
        assert!(
            e.contains("allowed sections: render, window, camera, features, graph, mobile"),
            "{e}"
        );
        let e = err("width = 4\n");
        assert!(
            e.starts_with("config/x.toml:1:1: key width outside any section"),
            "{e}"
        );
        let e = err("features = 4\n");
        assert!(
            e.starts_with("config/x.toml:1:12: features = 4: expected a section"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_key_names_the_allowed_ones() {
        let e = err("[features]\nshadows = true\nssoa = \"off\"\n");
        assert!(e.starts_with("config/x.toml:3:1: unknown key [features] ssoa; allowed: shadows, cascades, shadow_size,"), "{e}");
        assert!(e.ends_with("debug_view"), "{e}");
        let e = err("[mobile]\nmerge = false\n");
        assert!(
            e.starts_with("config/x.toml:2:1: unknown key [mobile] merge; allowed: shadows"),
            "{e}"
        );
        let e = err("[graph]\nasync_compute = false\n");
        assert!(e.contains(":2:1: unknown key [graph] async_compute; allowed: merge, memoryless, alias, async, reorder, minimize_syncs"), "{e}");
        // A sub-table is an unknown key of its section.
        let e = err("[features.ssao]\nx = 1\n");
        assert!(e.contains("[features] ssao = "), "{e}");
    }

    #[test]
    fn a_wrong_type_names_the_expected_one() {
        let e = err("[features]\nshadows = \"yes\"\n");
        assert_eq!(
            e,
            "config/x.toml:2:11: [features] shadows = \"yes\": expected true or false"
        );
        let e = err("[render]\nwidth = 1.5\n");
        assert_eq!(
            e,
            "config/x.toml:2:9: [render] width = 1.5: expected an integer from 1 to 16384"
        );
        let e = err("[camera]\nposition = [1, 2]\n");
        assert!(
            e.starts_with(
                "config/x.toml:2:12: [camera] position = [1, 2]: expected an array of three"
            ),
            "{e}"
        );
        let e = err("[features]\nssao = false\n");
        assert!(
            e.contains(
                ":2:8: [features] ssao = false: expected one of \"gbuffer\", \"prepass\", \"off\""
            ),
            "{e}"
        );
    }

    #[test]
    fn an_out_of_range_value_names_the_range() {
        let e = err("[features]\ncascades = 7\n");
        assert_eq!(
            e,
            "config/x.toml:2:12: [features] cascades = 7: expected an integer from 1 to 4"
        );
        let e = err("[features]\nshadow_size = 1000\n");
        assert_eq!(e, "config/x.toml:2:15: [features] shadow_size = 1000: expected a power of two from 64 to 8192");
        let e = err("[features]\nshadow_size = 16384\n");
        assert!(
            e.ends_with("expected a power of two from 64 to 8192"),
            "{e}"
        );
        let e = err("[features]\nlights = -1\n");
        assert!(e.ends_with("expected an integer from 0 to 1024"), "{e}");
        let e = err("[features]\nresolution_scale = 3.0\n");
        assert!(
            e.contains(
                ":2:20: [features] resolution_scale = 3.0: expected a number from 0.25 to 2"
            ),
            "{e}"
        );
        for value in ["0", "nan", "inf", "1e308", "-1e308"] {
            let e = err(&format!("[features]\nexposure_value = {value}\n"));
            assert!(
                e.ends_with(&format!(
                    "exposure_value = {value}: expected a number greater than 0 and at most 3.4e38"
                )),
                "{e}"
            );
        }
        assert!(Config::parse("[features]\nexposure_value = 3e38\n", "x.toml").is_ok());
        let e = err("[render]\nframes = 99999999999999999999999\n");
        assert!(
            e.contains("[render] frames = 99999999999999999999999: expected an integer from 1 to"),
            "{e}"
        );
        let e = err("[camera]\nposition = [1, 1, 1]\ntarget = [1, 1, 1]\n");
        assert!(
            e.contains(
                ":3:10: [camera] target = [1, 1, 1]: expected a point other than the position"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_shadow_view_needs_its_cascade() {
        let e = err("[features]\ncascades = 2\ndebug_view = \"shadow2\"\n");
        assert_eq!(e, "config/x.toml:3:14: [features] debug_view = \"shadow2\": expected a view of one of the 2 cascades (shadow0 to shadow1), or cascades > 2");
        // [mobile] lowers the cascade count below [features]' view: the view is named.
        let e = err("[features]\ndebug_view = \"shadow1\"\n[mobile]\ncascades = 1\n");
        assert!(
            e.starts_with("config/x.toml:2:14: [features] debug_view = \"shadow1\""),
            "{e}"
        );
        let e = err("[mobile]\ncascades = 1\n[features]\ndebug_view = \"shadow1\"\n");
        assert!(e.starts_with("config/x.toml:4:14:"), "{e}");
        let c = Config::parse(
            "[features]\ncascades = 2\ndebug_view = \"shadow1\"\n",
            "ok.toml",
        )
        .unwrap();
        assert_eq!(c.features.debug_view, DebugView::Shadow(1));
    }

    #[test]
    fn a_bad_name_lists_the_allowed_ones() {
        let e = err("\n\n[features]\nssao = \"half\"\n");
        assert_eq!(e, "config/x.toml:4:8: [features] ssao = \"half\": expected one of \"gbuffer\", \"prepass\", \"off\"");
        let e = err("[mobile]\nbloom = \"tile\"\n");
        assert!(
            e.ends_with("[mobile] bloom = \"tile\": expected one of \"hdr\", \"tonemap\", \"off\""),
            "{e}"
        );
        let e = err("[features]\ndebug_view = \"shadow4\"\n");
        assert!(e.contains("\"shadow3\", \"clusters\", \"exposure\""), "{e}");
        let e = err("[window]\npresent_mode = \"vsync\"\n");
        assert!(
            e.ends_with("expected one of \"fifo\", \"mailbox\", \"immediate\""),
            "{e}"
        );
        let e = err("[render]\nscene = \"a.obj\"\n");
        assert!(
            e.contains(":2:9: [render] scene = \"a.obj\": expected \"builtin\" or the path"),
            "{e}"
        );
    }

    #[test]
    fn malformed_toml_is_one_line_with_the_place() {
        let e = err("[features]\nssao = \"off\nbloom = \"hdr\"\n");
        assert!(e.starts_with("config/x.toml:2:"), "{e}");
        assert!(e.contains("invalid TOML"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        let e = err("[features]\nshadows = true\nshadows = false\n");
        assert!(e.starts_with("config/x.toml:3:"), "{e}");
        let e = err("[features]\n[features]\n");
        assert!(e.starts_with("config/x.toml:2:"), "{e}");
    }

    #[test]
    fn load_names_the_file() {
        let dir = std::env::temp_dir().join(format!("tessera-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.toml");
        std::fs::write(&path, "[features]\ncascades = 0\n").unwrap();
        let e = Config::load(&path).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:2:12: [features] cascades = 0", path.display())),
            "{e}"
        );
        std::fs::write(&path, b"[features]\nssao = \"\xff\"\n").unwrap();
        let e = Config::load(&path).unwrap_err().to_string();
        assert!(e.contains(":2:9: invalid UTF-8"), "{e}");
        std::fs::write(&path, "[render]\nscene = \"s.glb\"\n").unwrap();
        let c = Config::load(&path).unwrap();
        assert_eq!(c.render.scene, SceneChoice::File(dir.join("s.glb")));
        let e = Config::load(&dir.join("missing.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("missing.toml: no such file"), "{e}");
        // Bounded while reading: an endless device or a folder is refused, not read.
        let e = Config::load(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/dev/zero: not a regular file"), "{e}");
        let e = Config::load(&dir).unwrap_err().to_string();
        assert!(e.contains("not a regular file (a directory)"), "{e}");
        std::fs::write(&path, vec![b'#'; MAX_FILE_BYTES + 1]).unwrap();
        let e = Config::load(&path).unwrap_err().to_string();
        assert!(
            e.ends_with("larger than the 1 MiB limit of configuration files"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn feature_names_round_trip_through_a_file() {
        let mut f = Config::builtin().features_for("mali");
        f.debug_view = DebugView::Shadow(2);
        f.exposure = Exposure::Fixed(0.75);
        let text = String::from("[features]\n")
            + &feature_names(&f)
                .iter()
                .map(
                    |(k, v)| match v.parse::<f64>().is_ok() || v == "true" || v == "false" {
                        true => format!("{k} = {v}\n"),
                        false => format!("{k} = {v:?}\n"),
                    },
                )
                .collect::<String>();
        assert_eq!(
            Config::parse(&text, "r.toml").unwrap().features,
            f,
            "{text}"
        );
    }

    mod garbled {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(512))]

            /// Random edits of the default file, and random text: Ok or one error, never a
            /// panic.
            #[test]
            fn any_input_gives_a_config_or_one_error(
                cut in 0..DEFAULT_TOML.len(),
                insert in "[\\[\\]=\"a-z0-9_. \n#'-]{0,12}",
                noise in "\\PC{0,64}",
            ) {
                let mut text = DEFAULT_TOML.as_bytes()[..cut].to_vec();
                text.extend_from_slice(insert.as_bytes());
                text.extend_from_slice(&DEFAULT_TOML.as_bytes()[cut..]);
                let text = String::from_utf8_lossy(&text).into_owned();
                if let Err(e) = Config::parse(&text, "g.toml") {
                    let e = e.to_string();
                    prop_assert!(e.starts_with("g.toml"), "{e}");
                    prop_assert!(!e.contains('\n'), "{e}");
                }
                let _ = Config::parse(&noise, "n.toml");
                let keyed = format!("[features]\n{noise}\n");
                let _ = Config::parse(&keyed, "k.toml");
            }

            #[test]
            fn any_value_of_any_key_gives_a_config_or_one_error(
                section in prop::sample::select(SECTIONS),
                key in prop::sample::select(
                    [FEATURE_KEYS, GRAPH_KEYS, RENDER_KEYS, WINDOW_KEYS, CAMERA_KEYS].concat()
                ),
                value in prop_oneof![
                    any::<i64>().prop_map(|n| n.to_string()),
                    any::<f64>().prop_map(|x| format!("{x:?}")),
                    "\"[a-z0-9]{0,8}\"",
                    Just("[1, 2, 3]".to_string()),
                    Just("[[1], {a = 1}, 3]".to_string()),
                    Just("{ x = 1 }".to_string()),
                    Just("1979-05-27T07:32:00Z".to_string()),
                    Just("inf".to_string()),
                ],
            ) {
                let text = format!("[{section}]\n{key} = {value}\n");
                if let Err(e) = Config::parse(&text, "v.toml") {
                    let e = e.to_string();
                    prop_assert!(e.starts_with("v.toml:"), "{e}");
                    prop_assert!(e.contains(':'), "{e}");
                }
            }
        }
    }
}
