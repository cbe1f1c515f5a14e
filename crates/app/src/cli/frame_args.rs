//! The flags that choose a frame, shared by `tessera render`, `tessera plan --frame` and
//! `tessera graph --frame`: the configuration file, the profile, the scene, the size, the
//! features and the graph optimisations. Each flag given overrides the file.

use std::path::PathBuf;
use tessera_graph::CompileOptions;
use tessera_render::camera::{start_view, View};
use tessera_render::config::{self, CameraSection, Config, SceneChoice};
use tessera_render::features::{DebugView, Exposure, Features};
use tessera_scene::Scene;

fn shadow_size(s: &str) -> Result<u32, String> {
    let (lo, hi) = config::SHADOW_SIZE;
    s.parse::<u32>()
        .ok()
        .filter(|n| (lo..=hi).contains(n) && n.is_power_of_two())
        .ok_or_else(|| format!("expected a power of two from {lo} to {hi}"))
}

fn positive(s: &str) -> Result<f32, String> {
    s.parse::<f32>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| "expected a number greater than 0".to_string())
}

/// `X,Y,Z`: three finite numbers.
fn vec3(s: &str) -> Result<[f32; 3], String> {
    let n: Vec<f32> = s
        .split(',')
        .map(|p| p.trim().parse::<f32>().ok().filter(|x| x.is_finite()))
        .collect::<Option<_>>()
        .unwrap_or_default();
    n.try_into()
        .map_err(|_| "expected three comma-separated numbers X,Y,Z (e.g. 0,2,8)".to_string())
}

fn msaa(s: &str) -> Result<u32, String> {
    s.parse::<u32>()
        .ok()
        .filter(|n| tessera_render::features::MSAA_VALUES.contains(n))
        .ok_or_else(|| format!("expected {}", config::msaa_expected()))
}

fn resolution_scale(s: &str) -> Result<f32, String> {
    let (lo, hi) = config::RESOLUTION_SCALE;
    s.parse::<f32>()
        .ok()
        .filter(|x| (lo..=hi).contains(x))
        .ok_or_else(|| format!("expected a number from {lo} to {hi}"))
}

/// The frame flags; the profile and `--no-optimize` belong to each command (a frame file
/// has its own device).
#[derive(Clone, Debug, Default, PartialEq, clap::Args)]
pub struct FrameArgs {
    /// Configuration file (see config/README.md); the embedded config/default.toml when absent.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Scene file (.toml) or glTF model (.gltf, .glb), or `builtin` [default: the config's].
    #[arg(long, value_name = "FILE")]
    scene: Option<PathBuf>,
    /// Output width in pixels [default: the config's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16384))]
    width: Option<u32>,
    /// Output height in pixels [default: the config's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16384))]
    height: Option<u32>,
    /// Do not merge raster passes into subpasses.
    #[arg(long)]
    no_merge: bool,
    /// Do not keep attachments in tile memory.
    #[arg(long)]
    no_memoryless: bool,
    /// Do not alias transient memory.
    #[arg(long)]
    no_alias: bool,
    /// Do not use the async-compute queue.
    #[arg(long)]
    no_async: bool,
    /// Let the next frame's graphics work start while this frame's post chain still runs on
    /// the async queue (the default where an async queue exists; `[graph] overlap_frames`).
    #[arg(long, conflicts_with = "no_overlap")]
    overlap_frames: bool,
    /// Run frames one after the other on the two queues (no overlap).
    #[arg(long)]
    no_overlap: bool,
    /// No sun shadows.
    #[arg(long)]
    no_shadows: bool,
    /// Play the scene's glTF animations, 1/60 s per frame (the default: `[render] animate`).
    #[arg(long, conflicts_with = "no_animate")]
    animate: bool,
    /// Draw every glTF model at rest, its animations stopped.
    #[arg(long)]
    no_animate: bool,
    /// Shadow cascades (1-4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4))]
    cascades: Option<u32>,
    /// Texels per side of each shadow cascade (a power of two, 64-8192).
    #[arg(long, value_name = "N", value_parser = shadow_size)]
    shadow_size: Option<u32>,
    /// Point lights drawn: the scene's first N (0-1024).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1024))]
    lights: Option<u32>,
    /// Every pixel loops over every light (no clustering pass).
    #[arg(long)]
    no_clustering: bool,
    /// Ambient light from a constant hemisphere instead of the sky's image-based light.
    #[arg(long)]
    no_ibl: bool,
    /// Ambient occlusion.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(config::SSAO_VALUES))]
    ssao: Option<String>,
    /// Bloom.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(config::BLOOM_VALUES))]
    bloom: Option<String>,
    /// Fixed exposure: this multiplier before tone mapping.
    #[arg(long, value_name = "X", value_parser = positive, conflicts_with_all = ["auto_exposure", "fixed_exposure"])]
    exposure: Option<f32>,
    /// Auto exposure (the config's exposure_value is its compensation).
    #[arg(long, conflicts_with = "fixed_exposure")]
    auto_exposure: bool,
    /// Fixed exposure at the config's exposure_value.
    #[arg(long)]
    fixed_exposure: bool,
    /// Anti-aliasing: taa, fxaa or off.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(config::AA_VALUES))]
    aa: Option<String>,
    /// The frame renders at this fraction of the output size (0.25-2).
    #[arg(long, value_name = "F", value_parser = resolution_scale)]
    resolution_scale: Option<f32>,
    /// What the output shows.
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(DebugView::NAMES))]
    debug_view: Option<String>,
    /// Lighting path: deferred or forward [default: the config's, per profile].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(config::PATH_VALUES))]
    path: Option<String>,
    /// MSAA samples per pixel: 1, 2, 4 or 8 (above 1 needs --path forward) [default: the
    /// config's, per profile].
    #[arg(long, value_name = "N", value_parser = msaa)]
    msaa: Option<u32>,
    /// Where the deferred lighting runs: compute (sampling the G-buffer; immediate-mode
    /// GPUs) or raster (a subpass reading it as input attachments; tilers) [default: the
    /// config's, per profile].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(config::LIGHTING_VALUES))]
    lighting: Option<String>,
    /// Post chain: compute or raster [default: the config's, per profile: compute on
    /// desktop, raster on tilers].
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(config::POST_VALUES))]
    post: Option<String>,
    /// Where the eye starts [default: the config's [camera], else the scene's camera].
    #[arg(long, value_name = "X,Y,Z", value_parser = vec3, allow_hyphen_values = true)]
    camera_position: Option<[f32; 3]>,
    /// The point the camera starts looking at [default: the config's [camera], else the
    /// scene's camera].
    #[arg(long, value_name = "X,Y,Z", value_parser = vec3, allow_hyphen_values = true)]
    camera_target: Option<[f32; 3]>,
}

impl FrameArgs {
    /// `[graph]`, with the flags turning optimisations off.
    pub fn options(&self, config: &Config, no_optimize: bool) -> CompileOptions {
        if no_optimize {
            return CompileOptions::NONE;
        }
        let mut o = config.options();
        o.merge &= !self.no_merge;
        o.memoryless &= !self.no_memoryless;
        o.alias &= !self.no_alias;
        o.async_compute &= !self.no_async;
        o.overlap_frames = (o.overlap_frames || self.overlap_frames) && !self.no_overlap;
        o
    }

    /// The profile's features from the configuration, with the flags given applied.
    pub fn features(&self, config: &Config, profile: &str) -> anyhow::Result<Features> {
        let mut f = config.features_for(profile);
        f.shadows &= !self.no_shadows;
        f.clustering &= !self.no_clustering;
        f.ibl &= !self.no_ibl;
        if let Some(n) = self.cascades {
            f.cascades = n;
        }
        if let Some(n) = self.shadow_size {
            f.shadow_size = n;
        }
        if let Some(n) = self.lights {
            f.lights = n;
        }
        if let Some(s) = &self.ssao {
            f.ssao = config::parse_ssao(s);
        }
        if let Some(b) = &self.bloom {
            f.bloom = config::parse_bloom(b);
        }
        if let Some(a) = &self.aa {
            f.aa = config::parse_aa(a);
        }
        if let Some(r) = self.resolution_scale {
            f.resolution_scale = r;
        }
        if let Some(v) = self.debug_view.as_deref().and_then(DebugView::parse) {
            f.debug_view = v;
        }
        let value = match f.exposure {
            Exposure::Fixed(v) => v,
            Exposure::Auto { compensation } => compensation,
        };
        if let Some(x) = self.exposure {
            f.exposure = Exposure::Fixed(x);
        } else if self.auto_exposure {
            f.exposure = Exposure::Auto {
                compensation: value,
            };
        } else if self.fixed_exposure {
            f.exposure = Exposure::Fixed(value);
        }
        if let Some(p) = &self.path {
            f.path = config::parse_path(p);
        }
        if let Some(n) = self.msaa {
            f.msaa = n;
        }
        if let Some(l) = &self.lighting {
            f.lighting = config::parse_lighting(l);
        }
        if let Some(p) = &self.post {
            f.post = config::parse_post(p);
        }
        f.check().map_err(|why| anyhow::anyhow!("{why}"))?;
        if let DebugView::Shadow(c) = f.debug_view {
            if c >= f.cascades {
                anyhow::bail!(
                    "--debug-view shadow{c} needs cascades > {c} (this run has {}; --cascades N sets them)",
                    f.cascades
                );
            }
        }
        Ok(f)
    }

    /// The start view: `[camera]` with the flags given over it, on the scene's view; `None`
    /// when neither sets anything (the scene's view).
    pub fn camera(&self, config: &Config, scene: &Scene) -> anyhow::Result<Option<View>> {
        let mut section = config.camera.clone();
        section.position = self.camera_position.or(section.position);
        section.target = self.camera_target.or(section.target);
        if section == CameraSection::default() {
            return Ok(None);
        }
        let whence = match (self.camera_position, self.camera_target) {
            (Some(_), Some(_)) => "--camera-position and --camera-target".to_string(),
            (Some(_), None) => "--camera-position".to_string(),
            (None, Some(_)) => "--camera-target".to_string(),
            (None, None) => format!("[camera] of {}", config.source),
        };
        start_view(&section, scene)
            .map(Some)
            .map_err(|e| anyhow::anyhow!("{whence}: {e}"))
    }
}

/// A frame chosen by the flags and the configuration.
#[derive(Debug)]
pub struct Chosen {
    /// The configuration read.
    pub config: Config,
    /// The profile whose preset applied.
    pub profile: String,
    /// The features.
    pub features: Features,
    /// The optimisations.
    pub options: CompileOptions,
    /// Output width.
    pub width: u32,
    /// Output height.
    pub height: u32,
    /// The scene, loaded.
    pub scene: Scene,
    /// The start view (`[camera]` and the camera flags); `None`: the scene's.
    pub camera: Option<View>,
    /// Play the scene's animations (`--animate` / `--no-animate` over `[render] animate`).
    pub animate: bool,
}

impl FrameArgs {
    /// The size flags given (`--width`, `--height`).
    pub fn size(&self) -> (Option<u32>, Option<u32>) {
        (self.width, self.height)
    }

    /// These flags with `--width`/`--height` set where they were not given.
    pub fn with_default_size(mut self, width: u32, height: u32) -> FrameArgs {
        self.width.get_or_insert(width);
        self.height.get_or_insert(height);
        self
    }

    /// Whether any frame flag was given (a frame file takes none).
    pub fn any_given(&self) -> bool {
        *self != FrameArgs::default()
    }

    /// The files these flags name (`--config`, `--scene`), as (option, path): inputs no
    /// output may overwrite.
    pub fn inputs(&self) -> Vec<(&'static str, &std::path::Path)> {
        let mut inputs = Vec::new();
        if let Some(c) = &self.config {
            inputs.push(("--config", c.as_path()));
        }
        if let Some(s) = self.scene_given() {
            inputs.push(("--scene", s));
        }
        inputs
    }

    /// The scene file `--scene` names (`None` for none or `builtin`).
    fn scene_given(&self) -> Option<&std::path::Path> {
        self.scene.as_deref().filter(|p| p.as_os_str() != "builtin")
    }

    /// The scene file `config` names, when it is the one used (no `--scene`), as an input.
    pub fn config_scene<'c>(
        &self,
        config: &'c Config,
    ) -> Option<(&'static str, &'c std::path::Path)> {
        match (&self.scene, &config.render.scene) {
            (None, SceneChoice::File(path)) => Some(("the scene of --config", path.as_path())),
            _ => None,
        }
    }

    /// Whether `--width` or `--height` was given.
    pub fn size_given(&self) -> bool {
        self.width.is_some() || self.height.is_some()
    }

    /// Reads the configuration and the scene and applies the flags for `profile` (no device
    /// needed); `no_optimize` turns every optimisation off.
    pub fn choose(&self, profile: &str, no_optimize: bool) -> anyhow::Result<Chosen> {
        let config = match &self.config {
            Some(path) => Config::load(path).map_err(|e| super::usage(e.into()))?,
            None => Config::builtin(),
        };
        self.choose_with(
            config,
            &tessera_scene::assets::Files::new(),
            profile,
            no_optimize,
        )
    }

    /// [`FrameArgs::choose`] with the configuration given and the scene read from `assets`
    /// (the APK's on Android).
    pub fn choose_with(
        &self,
        config: Config,
        assets: &dyn tessera_scene::assets::Assets,
        profile: &str,
        no_optimize: bool,
    ) -> anyhow::Result<Chosen> {
        let features = self.features(&config, profile).map_err(super::usage)?;
        let options = self.options(&config, no_optimize);
        let (scene_choice, named_by) = match &self.scene {
            Some(p) if p.as_os_str() == "builtin" => (SceneChoice::Builtin, None),
            Some(p) => (SceneChoice::File(p.clone()), None),
            None => (config.render.scene.clone(), Some(&config.source)),
        };
        let scene = match &scene_choice {
            // A scene the configuration names is missing: say which configuration, since
            // its path resolves against the configuration's folder, not the working one.
            SceneChoice::File(path) => {
                tessera_scene::load_from(assets, path).map_err(|e| match (e, named_by) {
                    (tessera_scene::SceneError::NotFound { path: missing }, Some(config))
                        if missing == *path =>
                    {
                        anyhow::anyhow!("scene {} named by {config}: no such file", path.display())
                    }
                    (e, _) => e.into(),
                })?
            }
            SceneChoice::Builtin => tessera_scene::builtin(),
        };
        log::info!(
            "scene '{}': {} instances, {} lights",
            scene.name,
            scene.instances.len(),
            scene.lights.len()
        );
        // The camera of the flags and the file is the user's input: a usage error.
        let camera = self.camera(&config, &scene).map_err(super::usage)?;
        Ok(Chosen {
            camera,
            animate: match (self.animate, self.no_animate) {
                (true, _) => true,
                (_, true) => false,
                _ => config.render.animate,
            },
            width: self.width.unwrap_or(config.render.width),
            height: self.height.unwrap_or(config.render.height),
            profile: profile.to_string(),
            features,
            options,
            scene,
            config,
        })
    }
}

/// The profiles a frame may be chosen for.
pub fn profile_parser() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(config::PROFILES)
}

/// `--profile auto`: the profile is the device's ([`tessera_vk::Gpu::class`]), chosen once
/// the device is open.
pub const AUTO: &str = "auto";

/// The profiles a frame on a device may be chosen for: [`profile_parser`]'s and `auto`.
pub fn device_profile_parser() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(config::PROFILES.iter().copied().chain([AUTO]))
}

/// The profile for `requested` on `gpu` (the device's own for `auto`, with why) and its
/// features: `chosen`'s unless `auto` picked a profile whose preset differs.
pub fn resolve_profile(
    args: &FrameArgs,
    config: &Config,
    requested: &str,
    chosen: Features,
    gpu: &tessera_vk::Gpu,
) -> anyhow::Result<(String, Features, Option<String>)> {
    if requested != AUTO {
        return Ok((requested.to_string(), chosen, None));
    }
    let class = gpu.class();
    log::info!(
        "profile {} for {}: {}",
        class.profile,
        gpu.device_name(),
        class.reason
    );
    let features = args.features(config, class.profile).map_err(super::usage)?;
    Ok((class.profile.to_string(), features, Some(class.reason)))
}
