//! TOML scene files: a camera, lights (listed, or generated as moving rings), and objects that
//! are procedural shapes (`plane`, `box`, `sphere`, `cylinder`) or glTF models, each with a
//! transform and an inline material, plus material grids (one shape repeated across metallic ×
//! roughness). Unknown keys are errors; every error names the file and the key
//! (`objects[3].material.roughness`). The format is documented on [`SceneFile`].

use std::collections::HashMap;
use std::f32::consts::TAU;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use serde::Deserialize;

use crate::assets::{Assets, Files};
use crate::limits::Totals;
use crate::procedural::{self, MeshData};
use crate::{
    AlphaMode, Camera, Instance, Light, LightKind, Material, Mesh, Motion, Primitive, Scene,
    SceneError,
};

/// The default scene's text, compiled in so [`crate::builtin`] works from any directory.
pub const COURTYARD: &str = include_str!("../../../assets/scenes/courtyard.toml");
/// Where [`COURTYARD`] lives, relative to the workspace root (named in its errors).
pub const COURTYARD_PATH: &str = "assets/scenes/courtyard.toml";

/// A scene file's top level.
///
/// ```toml
/// name = "demo"
/// [camera]                      # position, target, up = [0,1,0], yfov (degrees) = 50,
/// position = [0, 2, 8]          # znear = 0.1, zfar (absent = infinite), aspect
/// target = [0, 1, 0]
/// [[lights]]                    # kind = "directional" | "point" | "spot", color, intensity,
/// kind = "point"                # position, direction, range, inner_cone/outer_cone (degrees),
/// position = [0, 2, 0]          # motion = { center, radius, speed (rad/s), phase (degrees),
///                               #            bob_amplitude, bob_speed }
/// [[light_rings]]               # count point lights on a circle, all circling at `speed`
/// count = 16
/// center = [0, 1, 0]
/// radius = 3
/// [[objects]]                   # shape = "plane" | "box" | "sphere" | "cylinder", or
/// shape = "sphere"              # model = "file.glb" (relative to this file); translation,
/// translation = [0, 1, 0]       # rotation (Euler degrees, X then Y then Z) or quaternion
/// material = { base_color = [1, 0, 0], roughness = 0.3, texture = "checker" }
/// [[material_grids]]            # a shape repeated `columns` × `rows`, metallic 0→1 along
/// origin = [-2, 0.5, 0]         # the columns (+X), roughness 0→1 along the rows (+Y)
/// ```
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// Scene name (default: the file stem).
    pub name: Option<String>,
    /// The camera.
    pub camera: Option<CameraDef>,
    /// Individually listed lights.
    #[serde(default)]
    pub lights: Vec<LightDef>,
    /// Rings of moving point lights.
    #[serde(default)]
    pub light_rings: Vec<LightRing>,
    /// Placed shapes and models.
    #[serde(default)]
    pub objects: Vec<ObjectDef>,
    /// Metallic × roughness grids of one shape.
    #[serde(default)]
    pub material_grids: Vec<MaterialGrid>,
}

/// `[camera]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraDef {
    /// Eye position.
    pub position: [f32; 3],
    /// Point looked at.
    pub target: [f32; 3],
    /// Up vector.
    #[serde(default = "up")]
    pub up: [f32; 3],
    /// Vertical field of view in degrees.
    #[serde(default = "yfov")]
    pub yfov: f32,
    /// Near plane.
    #[serde(default = "znear")]
    pub znear: f32,
    /// Far plane (absent = infinite).
    pub zfar: Option<f32>,
    /// Aspect ratio (absent = the viewport's).
    pub aspect: Option<f32>,
}

fn up() -> [f32; 3] {
    [0.0, 1.0, 0.0]
}
fn yfov() -> f32 {
    50.0
}
fn znear() -> f32 {
    0.1
}
fn one() -> f32 {
    1.0
}
fn white() -> [f32; 3] {
    [1.0; 3]
}

/// `[[lights]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LightDef {
    /// `directional`, `point` or `spot`.
    pub kind: String,
    /// Linear RGB.
    #[serde(default = "white")]
    pub color: [f32; 3],
    /// Candela (point, spot) or lux (directional).
    #[serde(default = "one")]
    pub intensity: f32,
    /// Position (point, spot).
    #[serde(default)]
    pub position: [f32; 3],
    /// Direction the light shines towards (directional, spot).
    pub direction: Option<[f32; 3]>,
    /// Range (point, spot).
    pub range: Option<f32>,
    /// Spot inner cone, degrees.
    pub inner_cone: Option<f32>,
    /// Spot outer cone, degrees.
    pub outer_cone: Option<f32>,
    /// Movement.
    pub motion: Option<MotionDef>,
}

/// `motion = { ... }` of a light.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionDef {
    /// Centre of the circle (default: the light's position).
    pub center: Option<[f32; 3]>,
    /// Circle radius.
    #[serde(default)]
    pub radius: f32,
    /// Angular speed, rad/s.
    #[serde(default)]
    pub speed: f32,
    /// Start angle, degrees.
    #[serde(default)]
    pub phase: f32,
    /// Vertical bob amplitude.
    #[serde(default)]
    pub bob_amplitude: f32,
    /// Vertical bob angular frequency, rad/s.
    #[serde(default)]
    pub bob_speed: f32,
}

/// `[[light_rings]]`: `count` point lights evenly spaced on a horizontal circle, circling
/// together; colours cycle through `colors`, and each light bobs with its own phase.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LightRing {
    /// Number of lights.
    pub count: u32,
    /// Centre of the circle.
    pub center: [f32; 3],
    /// Radius.
    pub radius: f32,
    /// Angular speed, rad/s (negative = the other way).
    #[serde(default)]
    pub speed: f32,
    /// Start angle of the first light, degrees.
    #[serde(default)]
    pub phase: f32,
    /// Candela per light.
    #[serde(default = "one")]
    pub intensity: f32,
    /// Range per light.
    pub range: Option<f32>,
    /// Colours, cycled over the lights.
    #[serde(default = "white_list")]
    pub colors: Vec<[f32; 3]>,
    /// Vertical bob amplitude.
    #[serde(default)]
    pub bob_amplitude: f32,
    /// Vertical bob angular frequency, rad/s.
    #[serde(default)]
    pub bob_speed: f32,
}

fn white_list() -> Vec<[f32; 3]> {
    vec![[1.0; 3]]
}

/// `[[objects]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectDef {
    /// Name (default: the shape or model).
    pub name: Option<String>,
    /// `plane`, `box`, `sphere` or `cylinder`.
    pub shape: Option<String>,
    /// A glTF file relative to the scene file.
    pub model: Option<String>,
    /// Translation.
    #[serde(default)]
    pub translation: [f32; 3],
    /// Euler angles in degrees, applied about X, then Y, then Z (world axes).
    pub rotation: Option<[f32; 3]>,
    /// Rotation quaternion `[x, y, z, w]` (instead of `rotation`).
    pub quaternion: Option<[f32; 4]>,
    /// Scale: one number or per axis.
    pub scale: Option<Scale>,
    /// Copies: `{ count, offset }` places `count` instances, each `offset` further.
    pub repeat: Option<Repeat>,
    /// Tessellation: sphere and cylinder segments around (default 32 / 24).
    pub segments: Option<u32>,
    /// Tessellation: sphere rings (default 16).
    pub rings: Option<u32>,
    /// Tessellation: plane quads per side (default 1).
    pub subdivisions: Option<u32>,
    /// UV multiplier, so textures tile on large shapes.
    #[serde(default = "one")]
    pub uv_scale: f32,
    /// The material (shapes only; models keep their own).
    #[serde(default)]
    pub material: MaterialDef,
}

/// A uniform or per-axis scale.
#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(untagged)]
pub enum Scale {
    /// Same on all axes.
    Uniform(f32),
    /// Per axis.
    Axes([f32; 3]),
}

/// `repeat = { count, offset }`.
#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    /// Number of copies (≥ 1).
    pub count: u32,
    /// Translation between consecutive copies.
    pub offset: [f32; 3],
}

/// An inline material.
#[derive(Debug, Deserialize, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MaterialDef {
    /// Linear RGB or RGBA.
    #[serde(default = "white_vec")]
    pub base_color: Vec<f32>,
    /// 0..=1.
    #[serde(default)]
    pub metallic: f32,
    /// 0..=1.
    #[serde(default = "half")]
    pub roughness: f32,
    /// Linear RGB emission.
    #[serde(default)]
    pub emissive: [f32; 3],
    /// Multiplies `emissive` (as `KHR_materials_emissive_strength`).
    #[serde(default = "one")]
    pub emissive_strength: f32,
    /// `opaque`, `mask` or `blend`.
    #[serde(default = "opaque")]
    pub alpha_mode: String,
    /// Cutoff for `mask`.
    #[serde(default = "half")]
    pub alpha_cutoff: f32,
    /// Draw back faces.
    #[serde(default)]
    pub double_sided: bool,
    /// Procedural base-colour texture: one of [`crate::texture::PATTERNS`].
    pub texture: Option<String>,
    /// Its size in texels (power of two, default 256).
    pub texture_size: Option<u32>,
}

fn white_vec() -> Vec<f32> {
    vec![1.0; 3]
}
fn half() -> f32 {
    0.5
}
fn opaque() -> String {
    "opaque".into()
}

impl Default for MaterialDef {
    fn default() -> Self {
        MaterialDef {
            base_color: white_vec(),
            metallic: 0.0,
            roughness: 0.5,
            emissive: [0.0; 3],
            emissive_strength: 1.0,
            alpha_mode: opaque(),
            alpha_cutoff: 0.5,
            double_sided: false,
            texture: None,
            texture_size: None,
        }
    }
}

/// `[[material_grids]]`: `columns` × `rows` copies of a shape, metallic from 0 to 1 along the
/// columns (+X from `origin`) and roughness from 0 to 1 along the rows (+Y), so one look shows
/// the whole BRDF range.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialGrid {
    /// Shape of every cell (default sphere).
    #[serde(default = "sphere")]
    pub shape: String,
    /// Centre of the first (metallic 0, roughness 0) cell.
    pub origin: [f32; 3],
    /// Distance between cells.
    pub spacing: f32,
    /// Cells along X (metallic).
    pub columns: u32,
    /// Cells along Y (roughness).
    pub rows: u32,
    /// Uniform scale of each cell.
    #[serde(default = "one")]
    pub scale: f32,
    /// Linear RGB of every cell.
    #[serde(default = "white")]
    pub base_color: [f32; 3],
    /// Tessellation (sphere/cylinder segments).
    pub segments: Option<u32>,
    /// Tessellation (sphere rings).
    pub rings: Option<u32>,
}

fn sphere() -> String {
    "sphere".into()
}

/// Loads a scene file from `assets`.
pub(crate) fn load(assets: &dyn Assets, path: &Path) -> Result<Scene, SceneError> {
    let bytes = crate::assets::read(assets, path, crate::MAX_SCENE_FILE_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|_| SceneError::SceneFile {
        path: path.to_path_buf(),
        key: "file".into(),
        message: "is not UTF-8 text".into(),
    })?;
    parse_from(assets, &text, path)
}

/// The built-in courtyard.
pub(crate) fn builtin() -> Result<Scene, SceneError> {
    parse(COURTYARD, Path::new(COURTYARD_PATH))
}

/// Parses scene-file text; `path` names the file in errors and anchors relative model paths,
/// which are read from disk ([`Files`]).
pub fn parse(text: &str, path: &Path) -> Result<Scene, SceneError> {
    parse_from(&Files::new(), text, path)
}

/// [`parse`] with models read from `assets` (relative to `path`, normalised).
pub fn parse_from(assets: &dyn Assets, text: &str, path: &Path) -> Result<Scene, SceneError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let file: SceneFile = toml::from_str(text).map_err(|e| {
        let key = e
            .span()
            .map(|s| key_at(text, s.start))
            .unwrap_or_else(|| "file".into());
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        SceneError::SceneFile {
            path: path.to_path_buf(),
            key,
            message: match line {
                Some(l) => format!("{} (line {l})", e.message()),
                None => e.message().to_string(),
            },
        }
    })?;
    Builder::new(assets, path).build(file)
}

/// The dotted key at byte `pos` of a TOML text: the table header above it (with the index of
/// array-of-tables entries) and the `key =` of its line, so type errors name what to fix.
fn key_at(text: &str, pos: usize) -> String {
    let pos = pos.min(text.len());
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut table = String::new();
    for line in text[..pos].split_inclusive('\n') {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let name = name.trim().to_string();
            let n = counts.entry(name.clone()).or_insert(0);
            table = format!("{name}[{n}]");
            *n += 1;
        } else if let Some(name) = t.strip_prefix('[').and_then(|r| r.split(']').next()) {
            // A sub-table of the latest array entry (`[objects.material]`) keeps its index.
            let name = name.trim();
            table = match counts.keys().find(|k| name.starts_with(&format!("{k}."))) {
                Some(k) => format!("{k}[{}]{}", counts[k] - 1, &name[k.len()..]),
                None => name.to_string(),
            };
        }
    }
    // The line holding `pos` (split_inclusive above stopped inside it).
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
    let line = &text[start..end];
    let key = line
        .split('=')
        .next()
        .map(str::trim)
        .filter(|k| !k.is_empty() && !k.starts_with('[') && line.contains('='))
        .unwrap_or("");
    // A position inside an inline table names the inner key if one precedes it.
    let inner = text[start..pos]
        .rsplit([',', '{'])
        .next()
        .and_then(|seg| seg.split('=').next())
        .map(str::trim)
        .filter(|k| !k.is_empty() && text[start..pos].contains('{') && *k != key);
    // A span on a key inside an inline table (an unknown field) names that key.
    let word: String = text[pos..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    let word_is_key = !word.is_empty()
        && word != key
        && text[start..pos].contains('{')
        && text[pos + word.len()..].trim_start().starts_with('=');
    let inner = inner.or(if word_is_key {
        Some(word.as_str())
    } else {
        None
    });
    let mut full = table;
    for k in [Some(key), inner]
        .into_iter()
        .flatten()
        .filter(|k| !k.is_empty())
    {
        if !full.is_empty() {
            full.push('.');
        }
        full.push_str(k);
    }
    if full.is_empty() {
        "file".into()
    } else {
        full
    }
}

struct Builder<'a> {
    assets: &'a dyn Assets,
    path: &'a Path,
    scene: Scene,
    /// Shared geometry: shape key → a primitive (material 0) over its vertex/index range.
    shapes: HashMap<String, Primitive>,
    textures: HashMap<(String, u32), usize>,
    /// Each model file, loaded once, with what one copy of it adds.
    models: HashMap<PathBuf, (Scene, Totals)>,
    /// Every material of the scene → its first index, so identical materials are shared
    /// without a linear search.
    materials: HashMap<MaterialKey, usize>,
    /// What the scene holds so far, checked against the caps before anything is added.
    totals: Totals,
}

/// A [`Material`] as a hashable key: floats by their bits (`-0.0` as `0.0`).
#[derive(Clone, PartialEq, Eq, Hash)]
struct MaterialKey {
    name: String,
    floats: [u32; 14],
    textures: [Option<usize>; 5],
    alpha_mode: u8,
    double_sided: bool,
}

impl MaterialKey {
    fn of(m: &Material) -> MaterialKey {
        let (alpha_mode, cutoff) = match m.alpha_mode {
            AlphaMode::Opaque => (0, 0.0),
            AlphaMode::Mask { cutoff } => (1, cutoff),
            AlphaMode::Blend => (2, 0.0),
        };
        let [r, g, b, a] = m.base_color;
        let [er, eg, eb] = m.emissive;
        let f = [
            r,
            g,
            b,
            a,
            m.metallic,
            m.roughness,
            er,
            eg,
            eb,
            m.normal_scale,
            m.occlusion_strength,
            cutoff,
            0.0,
            0.0,
        ];
        MaterialKey {
            name: m.name.clone(),
            floats: f.map(|x| (x + 0.0).to_bits()),
            textures: [
                m.base_color_texture,
                m.metallic_roughness_texture,
                m.normal_texture,
                m.occlusion_texture,
                m.emissive_texture,
            ],
            alpha_mode,
            double_sided: m.double_sided,
        }
    }
}

impl<'a> Builder<'a> {
    fn new(assets: &'a dyn Assets, path: &'a Path) -> Self {
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scene".into());
        Builder {
            assets,
            path,
            scene: Scene::empty(name),
            shapes: HashMap::new(),
            textures: HashMap::new(),
            models: HashMap::new(),
            materials: HashMap::new(),
            totals: Totals::default(),
        }
    }

    /// Counts `copies` × `more` into the scene's totals, or refuses at `key` before anything
    /// is added when a cap would be passed.
    fn grow(&mut self, key: &str, more: Totals, copies: u64) -> Result<(), SceneError> {
        self.totals = self
            .totals
            .plus(&more, copies)
            .map_err(|m| self.err(key, m))?;
        Ok(())
    }

    fn err(&self, key: impl Into<String>, message: impl Into<String>) -> SceneError {
        SceneError::SceneFile {
            path: self.path.to_path_buf(),
            key: key.into(),
            message: message.into(),
        }
    }

    fn finite(&self, key: &str, values: &[f32]) -> Result<(), SceneError> {
        if values.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(self.err(key, "must be finite"))
        }
    }

    fn build(mut self, file: SceneFile) -> Result<Scene, SceneError> {
        if let Some(name) = file.name {
            self.scene.name = name;
        }
        if let Some(c) = &file.camera {
            self.camera(c)?;
        }
        for (i, l) in file.lights.iter().enumerate() {
            let key = format!("lights[{i}]");
            let light = self.light(l, &key)?;
            let one = Totals {
                lights: 1,
                ..Totals::default()
            };
            self.grow(&key, one, 1)?;
            self.scene.lights.push(light);
        }
        for (i, r) in file.light_rings.iter().enumerate() {
            self.ring(r, &format!("light_rings[{i}]"))?;
        }
        for (i, o) in file.objects.iter().enumerate() {
            self.object(o, &format!("objects[{i}]"))?;
        }
        for (i, g) in file.material_grids.iter().enumerate() {
            self.grid(g, &format!("material_grids[{i}]"))?;
        }
        self.scene.update_bounds();
        Ok(self.scene)
    }

    fn camera(&mut self, c: &CameraDef) -> Result<(), SceneError> {
        self.finite("camera.position", &c.position)?;
        self.finite("camera.target", &c.target)?;
        self.finite("camera.up", &c.up)?;
        let (p, t, up) = (
            Vec3::from(c.position),
            Vec3::from(c.target),
            Vec3::from(c.up),
        );
        if (t - p).length_squared() < 1e-12 {
            return Err(self.err("camera.target", "equals camera.position"));
        }
        if up.length_squared() < 1e-12 || (t - p).normalize().cross(up.normalize()).length() < 1e-4
        {
            return Err(self.err("camera.up", "is zero or parallel to the view direction"));
        }
        if !(c.yfov > 0.0 && c.yfov < 180.0) {
            return Err(self.err(
                "camera.yfov",
                format!("{} is not between 0 and 180 degrees", c.yfov),
            ));
        }
        if !(c.znear > 0.0 && c.znear.is_finite()) {
            return Err(self.err("camera.znear", "must be positive"));
        }
        if let Some(f) = c.zfar {
            if !(f > c.znear && f.is_finite()) {
                return Err(self.err("camera.zfar", "must be larger than znear"));
            }
        }
        if let Some(a) = c.aspect {
            if !(a > 0.0 && a.is_finite()) {
                return Err(self.err("camera.aspect", "must be positive"));
            }
        }
        self.scene.camera = Some(Camera {
            position: p,
            target: t,
            up,
            yfov: c.yfov.to_radians(),
            znear: c.znear,
            zfar: c.zfar,
            aspect: c.aspect,
        });
        Ok(())
    }

    fn light(&self, l: &LightDef, key: &str) -> Result<Light, SceneError> {
        self.finite(&format!("{key}.color"), &l.color)?;
        self.finite(&format!("{key}.position"), &l.position)?;
        if !(l.intensity >= 0.0 && l.intensity.is_finite()) {
            return Err(self.err(format!("{key}.intensity"), "must be a non-negative number"));
        }
        if l.color.iter().any(|c| *c < 0.0) {
            return Err(self.err(format!("{key}.color"), "must not be negative"));
        }
        if let Some(r) = l.range {
            if !(r > 0.0 && r.is_finite()) {
                return Err(self.err(format!("{key}.range"), "must be positive"));
            }
        }
        let direction = match l.direction {
            Some(d) => {
                self.finite(&format!("{key}.direction"), &d)?;
                Vec3::from(d)
                    .try_normalize()
                    .ok_or_else(|| self.err(format!("{key}.direction"), "must not be zero"))?
            }
            None => Vec3::NEG_Y,
        };
        let kind = match l.kind.as_str() {
            "directional" => LightKind::Directional,
            "point" => LightKind::Point,
            "spot" => {
                let outer = l.outer_cone.unwrap_or(45.0);
                let inner = l.inner_cone.unwrap_or(0.0);
                if !(outer > 0.0 && outer <= 90.0) {
                    return Err(self.err(format!("{key}.outer_cone"), "must be in (0, 90] degrees"));
                }
                if !(inner >= 0.0 && inner < outer) {
                    return Err(self.err(
                        format!("{key}.inner_cone"),
                        "must be in [0, outer_cone) degrees",
                    ));
                }
                LightKind::Spot {
                    inner_cone: inner.to_radians(),
                    outer_cone: outer.to_radians(),
                }
            }
            other => {
                return Err(self.err(
                    format!("{key}.kind"),
                    format!("unknown light kind '{other}' (expected directional, point or spot)"),
                ))
            }
        };
        if !matches!(kind, LightKind::Spot { .. })
            && (l.inner_cone.is_some() || l.outer_cone.is_some())
        {
            return Err(self.err(format!("{key}.inner_cone"), "only spot lights have cones"));
        }
        let motion = match &l.motion {
            Some(m) => {
                let mkey = format!("{key}.motion");
                let center = m.center.unwrap_or(l.position);
                self.finite(&format!("{mkey}.center"), &center)?;
                self.finite(
                    &mkey,
                    &[m.radius, m.speed, m.phase, m.bob_amplitude, m.bob_speed],
                )?;
                Some(Motion {
                    center: Vec3::from(center),
                    radius: m.radius,
                    speed: m.speed,
                    phase: m.phase.to_radians(),
                    bob_amplitude: m.bob_amplitude,
                    bob_speed: m.bob_speed,
                })
            }
            None => None,
        };
        if motion.is_some() && kind == LightKind::Directional {
            return Err(self.err(
                format!("{key}.motion"),
                "a directional light has no position to move",
            ));
        }
        let position = motion.map_or(Vec3::from(l.position), |m| m.position_at(0.0));
        Ok(Light {
            kind,
            color: l.color,
            intensity: l.intensity,
            position,
            direction,
            range: l.range,
            motion,
        })
    }

    fn ring(&mut self, r: &LightRing, key: &str) -> Result<(), SceneError> {
        if r.count == 0 || r.count > 4096 {
            return Err(self.err(
                format!("{key}.count"),
                format!("{} is not in 1..=4096", r.count),
            ));
        }
        self.finite(&format!("{key}.center"), &r.center)?;
        self.finite(
            key,
            &[
                r.radius,
                r.speed,
                r.phase,
                r.intensity,
                r.bob_amplitude,
                r.bob_speed,
            ],
        )?;
        if r.colors.is_empty() {
            return Err(self.err(format!("{key}.colors"), "must list at least one colour"));
        }
        if r.intensity.is_nan() || r.intensity < 0.0 {
            return Err(self.err(format!("{key}.intensity"), "must not be negative"));
        }
        if let Some(range) = r.range {
            if !(range > 0.0 && range.is_finite()) {
                return Err(self.err(format!("{key}.range"), "must be positive"));
            }
        }
        let one = Totals {
            lights: 1,
            ..Totals::default()
        };
        self.grow(&format!("{key}.count"), one, r.count as u64)?;
        for i in 0..r.count {
            let phase = r.phase.to_radians() + TAU * i as f32 / r.count as f32;
            let motion = Motion {
                center: Vec3::from(r.center),
                radius: r.radius,
                speed: r.speed,
                phase,
                bob_amplitude: r.bob_amplitude,
                bob_speed: r.bob_speed,
            };
            self.scene.lights.push(Light {
                kind: LightKind::Point,
                color: r.colors[i as usize % r.colors.len()],
                intensity: r.intensity,
                position: motion.position_at(0.0),
                direction: Vec3::NEG_Y,
                range: r.range,
                motion: Some(motion),
            });
        }
        Ok(())
    }

    fn transform(&self, o: &ObjectDef, key: &str) -> Result<Mat4, SceneError> {
        self.finite(&format!("{key}.translation"), &o.translation)?;
        let rotation = match (o.rotation, o.quaternion) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    format!("{key}.quaternion"),
                    "give either rotation or quaternion, not both",
                ))
            }
            (Some(e), None) => {
                self.finite(&format!("{key}.rotation"), &e)?;
                let [x, y, z] = e.map(f32::to_radians);
                Quat::from_rotation_z(z) * Quat::from_rotation_y(y) * Quat::from_rotation_x(x)
            }
            (None, Some(q)) => {
                self.finite(&format!("{key}.quaternion"), &q)?;
                let q = Quat::from_array(q);
                if q.length() < 1e-6 {
                    return Err(self.err(format!("{key}.quaternion"), "must not be zero"));
                }
                q.normalize()
            }
            (None, None) => Quat::IDENTITY,
        };
        let scale = match o.scale {
            Some(Scale::Uniform(s)) => Vec3::splat(s),
            Some(Scale::Axes(a)) => Vec3::from(a),
            None => Vec3::ONE,
        };
        self.finite(&format!("{key}.scale"), &scale.to_array())?;
        if scale.abs().min_element() < 1e-6 {
            return Err(self.err(format!("{key}.scale"), "must not be zero on any axis"));
        }
        Ok(Mat4::from_scale_rotation_translation(
            scale,
            rotation,
            Vec3::from(o.translation),
        ))
    }

    fn material(&mut self, m: &MaterialDef, key: &str, name: &str) -> Result<usize, SceneError> {
        let base_color = match m.base_color[..] {
            [r, g, b] => [r, g, b, 1.0],
            [r, g, b, a] => [r, g, b, a],
            _ => {
                return Err(self.err(
                    format!("{key}.base_color"),
                    format!(
                        "has {} components, expected 3 (RGB) or 4 (RGBA)",
                        m.base_color.len()
                    ),
                ))
            }
        };
        self.finite(&format!("{key}.base_color"), &base_color)?;
        self.finite(&format!("{key}.emissive"), &m.emissive)?;
        if base_color.iter().any(|c| !(0.0..=1.0).contains(c)) {
            return Err(self.err(format!("{key}.base_color"), "components must be in 0..=1"));
        }
        for (k, v) in [
            ("metallic", m.metallic),
            ("roughness", m.roughness),
            ("alpha_cutoff", m.alpha_cutoff),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(self.err(format!("{key}.{k}"), format!("{v} is not in 0..=1")));
            }
        }
        if !(m.emissive_strength >= 0.0 && m.emissive_strength.is_finite())
            || m.emissive.iter().any(|c| *c < 0.0)
        {
            return Err(self.err(format!("{key}.emissive"), "emission must not be negative"));
        }
        let alpha_mode = match m.alpha_mode.as_str() {
            "opaque" => AlphaMode::Opaque,
            "mask" => AlphaMode::Mask {
                cutoff: m.alpha_cutoff,
            },
            "blend" => AlphaMode::Blend,
            other => {
                return Err(self.err(
                    format!("{key}.alpha_mode"),
                    format!("unknown alpha mode '{other}' (expected opaque, mask or blend)"),
                ))
            }
        };
        let base_color_texture = match &m.texture {
            Some(t) => Some(self.texture(t, m.texture_size.unwrap_or(256), key)?),
            None if m.texture_size.is_some() => {
                return Err(self.err(format!("{key}.texture_size"), "given without a texture"))
            }
            None => None,
        };
        let mat = Material {
            name: name.to_string(),
            base_color,
            metallic: m.metallic,
            roughness: m.roughness,
            emissive: m.emissive.map(|c| c * m.emissive_strength),
            base_color_texture,
            alpha_mode,
            double_sided: m.double_sided,
            ..Material::default()
        };
        self.push_material(mat, key)
    }

    /// Adds a material, reusing an identical one (repeated objects share one entry).
    fn push_material(&mut self, mat: Material, key: &str) -> Result<usize, SceneError> {
        let k = MaterialKey::of(&mat);
        if let Some(&i) = self.materials.get(&k) {
            return Ok(i);
        }
        let one = Totals {
            materials: 1,
            ..Totals::default()
        };
        self.grow(key, one, 1)?;
        self.scene.materials.push(mat);
        let i = self.scene.materials.len() - 1;
        self.materials.insert(k, i);
        Ok(i)
    }

    fn texture(&mut self, name: &str, size: u32, key: &str) -> Result<usize, SceneError> {
        if !size.is_power_of_two() || !(4..=4096).contains(&size) {
            return Err(self.err(
                format!("{key}.texture_size"),
                format!("{size} is not a power of two in 4..=4096"),
            ));
        }
        if let Some(&i) = self.textures.get(&(name.to_string(), size)) {
            return Ok(i);
        }
        let texels = Totals {
            texels: size as u64 * size as u64,
            ..Totals::default()
        };
        self.grow(&format!("{key}.texture_size"), texels, 1)?;
        let tex = crate::texture::pattern(name, size).ok_or_else(|| {
            self.err(
                format!("{key}.texture"),
                format!(
                    "unknown procedural texture '{name}' (expected one of {})",
                    crate::texture::PATTERNS.join(", ")
                ),
            )
        })?;
        self.scene.textures.push(tex);
        let i = self.scene.textures.len() - 1;
        self.textures.insert((name.to_string(), size), i);
        Ok(i)
    }

    /// The shared geometry of a shape, generated on first use.
    fn shape(&mut self, shape: &str, o: ShapeParams, key: &str) -> Result<Primitive, SceneError> {
        let check = |v: Option<u32>, lo: u32, what: &str| -> Result<(), SceneError> {
            match v {
                Some(n) if !(lo..=256).contains(&n) => {
                    Err(self.err(format!("{key}.{what}"), format!("{n} is not in {lo}..=256")))
                }
                _ => Ok(()),
            }
        };
        check(o.segments, 3, "segments")?;
        check(o.rings, 2, "rings")?;
        check(o.subdivisions, 1, "subdivisions")?;
        if !(o.uv_scale > 0.0 && o.uv_scale.is_finite()) {
            return Err(self.err(format!("{key}.uv_scale"), "must be positive"));
        }
        let cache = format!(
            "{shape}/{:?}/{:?}/{:?}/{}",
            o.segments, o.rings, o.subdivisions, o.uv_scale
        );
        if let Some(p) = self.shapes.get(&cache) {
            return Ok(p.clone());
        }
        let data: MeshData = match shape {
            "plane" => procedural::plane(o.subdivisions.unwrap_or(1), o.uv_scale),
            "box" => procedural::cube(o.uv_scale),
            "sphere" => {
                procedural::sphere(o.segments.unwrap_or(32), o.rings.unwrap_or(16), o.uv_scale)
            }
            "cylinder" => procedural::cylinder(o.segments.unwrap_or(24), o.uv_scale),
            other => {
                return Err(self.err(
                    format!("{key}.shape"),
                    format!("unknown shape '{other}' (expected plane, box, sphere or cylinder)"),
                ))
            }
        };
        let geometry = Totals {
            vertices: data.vertices.len() as u64,
            indices: data.indices.len() as u64,
            ..Totals::default()
        };
        self.grow(key, geometry, 1)?;
        let p = self.scene.push_primitive(&data.vertices, &data.indices, 0);
        self.shapes.insert(cache, p.clone());
        Ok(p)
    }

    /// Adds a one-primitive mesh placed `copies` times (the caller pushes the instances),
    /// refused at `key` before anything is added when a cap would be passed.
    fn add_mesh(
        &mut self,
        name: String,
        prim: Primitive,
        material: usize,
        copies: u64,
        key: &str,
    ) -> Result<usize, SceneError> {
        let mesh = Totals {
            primitives: 1,
            ..Totals::default()
        };
        self.grow(key, mesh, 1)?;
        let placed = Totals {
            instances: 1,
            drawn_triangles: prim.index_count as u64 / 3,
            ..Totals::default()
        };
        self.grow(key, placed, copies)?;
        self.scene.meshes.push(Mesh {
            name,
            primitives: vec![Primitive { material, ..prim }],
            weights: Vec::new(),
        });
        Ok(self.scene.meshes.len() - 1)
    }

    fn object(&mut self, o: &ObjectDef, key: &str) -> Result<(), SceneError> {
        let transform = self.transform(o, key)?;
        let repeat = o.repeat.unwrap_or(Repeat {
            count: 1,
            offset: [0.0; 3],
        });
        if repeat.count == 0 || repeat.count > 10_000 {
            return Err(self.err(
                format!("{key}.repeat.count"),
                format!("{} is not in 1..=10000", repeat.count),
            ));
        }
        self.finite(&format!("{key}.repeat.offset"), &repeat.offset)?;
        let placements: Vec<Mat4> = (0..repeat.count)
            .map(|i| Mat4::from_translation(Vec3::from(repeat.offset) * i as f32) * transform)
            .collect();
        match (&o.shape, &o.model) {
            (Some(_), Some(_)) => Err(self.err(
                format!("{key}.model"),
                "give either shape or model, not both",
            )),
            (None, None) => Err(self.err(
                format!("{key}.shape"),
                "missing: every object needs a shape or a model",
            )),
            (Some(shape), None) => {
                let name = o.name.clone().unwrap_or_else(|| shape.clone());
                let prim = self.shape(
                    shape,
                    ShapeParams {
                        segments: o.segments,
                        rings: o.rings,
                        subdivisions: o.subdivisions,
                        uv_scale: o.uv_scale,
                    },
                    key,
                )?;
                let material = self.material(&o.material, &format!("{key}.material"), &name)?;
                let count_key = format!("{key}.repeat.count");
                let mesh =
                    self.add_mesh(name, prim, material, placements.len() as u64, &count_key)?;
                for t in placements {
                    self.scene.instances.push(Instance { mesh, transform: t });
                }
                Ok(())
            }
            (None, Some(model)) => {
                if o.material != MaterialDef::default() {
                    return Err(
                        self.err(format!("{key}.material"), "a model keeps its own materials")
                    );
                }
                let file = crate::assets::beside(self.path, model);
                let is_gltf = matches!(
                    file.extension()
                        .and_then(|e| e.to_str())
                        .map(str::to_ascii_lowercase)
                        .as_deref(),
                    Some("gltf") | Some("glb")
                );
                if !is_gltf {
                    return Err(self.err(
                        format!("{key}.model"),
                        format!("'{model}' is not a .gltf or .glb file"),
                    ));
                }
                if !self.models.contains_key(&file) {
                    let scene = crate::gltf_load::load(self.assets, &file).map_err(|e| {
                        SceneError::Model {
                            path: self.path.to_path_buf(),
                            key: format!("{key}.model"),
                            source: Box::new(e),
                        }
                    })?;
                    let totals = Totals::of(&scene);
                    self.models.insert(file.clone(), (scene, totals));
                }
                let (model_scene, one_copy) = &self.models[&file];
                let (model_scene, one_copy) = (model_scene.clone(), *one_copy);
                // Every copy is counted before the first is made.
                let count_key = if placements.len() > 1 {
                    format!("{key}.repeat.count")
                } else {
                    format!("{key}.model")
                };
                self.grow(&count_key, one_copy, placements.len() as u64)?;
                for t in placements {
                    let first = self.scene.materials.len();
                    self.scene.append(model_scene.clone(), t);
                    for (i, m) in self.scene.materials.iter().enumerate().skip(first) {
                        self.materials.entry(MaterialKey::of(m)).or_insert(i);
                    }
                }
                Ok(())
            }
        }
    }

    fn grid(&mut self, g: &MaterialGrid, key: &str) -> Result<(), SceneError> {
        for (k, n) in [("columns", g.columns), ("rows", g.rows)] {
            if !(1..=64).contains(&n) {
                return Err(self.err(format!("{key}.{k}"), format!("{n} is not in 1..=64")));
            }
        }
        self.finite(&format!("{key}.origin"), &g.origin)?;
        self.finite(key, &[g.spacing, g.scale])?;
        if g.scale.is_nan() || g.scale <= 0.0 {
            return Err(self.err(format!("{key}.scale"), "must be positive"));
        }
        let prim = self.shape(
            &g.shape,
            ShapeParams {
                segments: g.segments,
                rings: g.rings,
                subdivisions: None,
                uv_scale: 1.0,
            },
            key,
        )?;
        let t = |n: u32, i: u32| {
            if n > 1 {
                i as f32 / (n - 1) as f32
            } else {
                0.0
            }
        };
        for row in 0..g.rows {
            for col in 0..g.columns {
                let (metallic, roughness) = (t(g.columns, col), t(g.rows, row));
                let def = MaterialDef {
                    base_color: g.base_color.to_vec(),
                    metallic,
                    roughness,
                    ..MaterialDef::default()
                };
                let name = format!("{} m{metallic:.2} r{roughness:.2}", g.shape);
                let material = self.material(&def, key, &name)?;
                let mesh = self.add_mesh(name, prim.clone(), material, 1, key)?;
                let pos = Vec3::from(g.origin) + Vec3::new(col as f32, row as f32, 0.0) * g.spacing;
                self.scene.instances.push(Instance {
                    mesh,
                    transform: Mat4::from_scale_rotation_translation(
                        Vec3::splat(g.scale),
                        Quat::IDENTITY,
                        pos,
                    ),
                });
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
struct ShapeParams {
    segments: Option<u32>,
    rings: Option<u32>,
    subdivisions: Option<u32>,
    uv_scale: f32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_positions() {
        let text = "name = 'x'\n[[objects]]\nshape = 'box'\n[[objects]]\nshape = 'sphere'\nmaterial = { roughness = 'high' }\n[objects.repeat]\ncount = -1\n";
        let at = |s: &str| key_at(text, text.find(s).unwrap());
        assert_eq!(at("'high'"), "objects[1].material.roughness");
        assert_eq!(at("-1"), "objects[1].repeat.count");
        assert_eq!(at("'x'"), "name");
        assert_eq!(at("'box'"), "objects[0].shape");
    }
}
