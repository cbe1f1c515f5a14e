//! The checks of single values: each checked type reads one value and refuses what is out of
//! its range or not one of its names, and [`expected`] says, for every key, what is allowed
//! (the end of each value error's message).

use super::*;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};

/// An integer from `LO` to `HI`.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "i64")]
pub(super) struct Int<const LO: u64, const HI: u64>(pub u64);

impl<const LO: u64, const HI: u64> TryFrom<i64> for Int<LO, HI> {
    type Error = &'static str;
    fn try_from(n: i64) -> Result<Self, Self::Error> {
        u64::try_from(n)
            .ok()
            .filter(|n| (LO..=HI).contains(n))
            .map(Int)
            .ok_or("out of range")
    }
}

impl<const LO: u64, const HI: u64> Int<LO, HI> {
    /// The value as a `u32` (every `u32` key's `HI` fits).
    pub fn u32(self) -> u32 {
        self.0 as u32
    }
}

/// Output and window sizes ([`SIZE`]).
pub(super) type Size = Int<{ SIZE.0 as u64 }, { SIZE.1 as u64 }>;

/// `shadow_size`: a power of two in [`SHADOW_SIZE`].
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "i64")]
pub(super) struct ShadowSize(pub u32);

impl TryFrom<i64> for ShadowSize {
    type Error = &'static str;
    fn try_from(n: i64) -> Result<Self, Self::Error> {
        let Int(n) = Int::<{ SHADOW_SIZE.0 as u64 }, { SHADOW_SIZE.1 as u64 }>::try_from(n)?;
        match n.is_power_of_two() {
            true => Ok(ShadowSize(n as u32)),
            false => Err("not a power of two"),
        }
    }
}

/// `msaa`: one of [`MSAA_VALUES`].
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "i64")]
pub(super) struct Msaa(pub u32);

impl TryFrom<i64> for Msaa {
    type Error = &'static str;
    fn try_from(n: i64) -> Result<Self, Self::Error> {
        MSAA_VALUES
            .iter()
            .copied()
            .find(|&m| i64::from(m) == n)
            .map(Msaa)
            .ok_or("not a sample count")
    }
}

/// A finite number (integer or float) as an `f32`, read as today's files write it.
fn finite(x: f64) -> Option<f32> {
    Some(x)
        .filter(|x| x.is_finite())
        .map(|x| x as f32)
        .filter(|x| x.is_finite())
}

/// `resolution_scale`: a number in [`RESOLUTION_SCALE`].
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "f64")]
pub(super) struct Scale(pub f32);

impl TryFrom<f64> for Scale {
    type Error = &'static str;
    fn try_from(x: f64) -> Result<Self, Self::Error> {
        finite(x)
            .filter(|&x| x >= RESOLUTION_SCALE.0 && x <= RESOLUTION_SCALE.1)
            .map(Scale)
            .ok_or("out of range")
    }
}

/// `exposure_value`: a number greater than 0, finite as an `f32` (1e308 is refused).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "f64")]
pub(super) struct Positive(pub f32);

impl TryFrom<f64> for Positive {
    type Error = &'static str;
    fn try_from(x: f64) -> Result<Self, Self::Error> {
        finite(x)
            .filter(|&x| x > 0.0)
            .map(Positive)
            .ok_or("out of range")
    }
}

/// `position` and `target`: three finite numbers.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(try_from = "Vec<f64>")]
pub(super) struct Vec3(pub [f32; 3]);

impl TryFrom<Vec<f64>> for Vec3 {
    type Error = &'static str;
    fn try_from(xs: Vec<f64>) -> Result<Self, Self::Error> {
        let xs: Vec<f32> = xs.into_iter().filter_map(finite).collect();
        match xs.as_slice() {
            &[x, y, z] => Ok(Vec3([x, y, z])),
            _ => Err("not three finite numbers"),
        }
    }
}

/// `scene`: `builtin`, or a path ending in `.toml`, `.gltf` or `.glb` (any case).
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "String")]
pub(super) struct SceneName(pub Option<PathBuf>);

impl TryFrom<String> for SceneName {
    type Error = &'static str;
    fn try_from(path: String) -> Result<Self, Self::Error> {
        if path == "builtin" {
            return Ok(SceneName(None));
        }
        let ext = Path::new(&path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("toml" | "gltf" | "glb") => Ok(SceneName(Some(path.into()))),
            _ => Err("not a scene"),
        }
    }
}

/// A value named by one of a fixed list of names.
pub(super) trait Named: Sized {
    /// The names, in the order messages list them.
    const NAMES: &'static [&'static str];
    /// The value of one of [`Named::NAMES`].
    fn of(name: &str) -> Self;
}

/// One of `T`'s names.
#[derive(Clone, Copy, Debug)]
pub(super) struct Choice<T>(pub T);

impl<'de, T: Named> Deserialize<'de> for Choice<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        match T::NAMES.contains(&name.as_str()) {
            true => Ok(Choice(T::of(&name))),
            false => Err(D::Error::custom("not one of the names")),
        }
    }
}

impl Named for Ssao {
    const NAMES: &'static [&'static str] = SSAO_VALUES;
    fn of(name: &str) -> Self {
        parse_ssao(name)
    }
}

impl Named for Bloom {
    const NAMES: &'static [&'static str] = BLOOM_VALUES;
    fn of(name: &str) -> Self {
        parse_bloom(name)
    }
}

impl Named for Aa {
    const NAMES: &'static [&'static str] = AA_VALUES;
    fn of(name: &str) -> Self {
        parse_aa(name)
    }
}

impl Named for DebugView {
    const NAMES: &'static [&'static str] = DebugView::NAMES;
    fn of(name: &str) -> Self {
        DebugView::parse(name).unwrap_or(DebugView::None)
    }
}

impl Named for RenderPath {
    const NAMES: &'static [&'static str] = PATH_VALUES;
    fn of(name: &str) -> Self {
        parse_path(name)
    }
}

impl Named for Lighting {
    const NAMES: &'static [&'static str] = LIGHTING_VALUES;
    fn of(name: &str) -> Self {
        parse_lighting(name)
    }
}

impl Named for PostPath {
    const NAMES: &'static [&'static str] = POST_VALUES;
    fn of(name: &str) -> Self {
        parse_post(name)
    }
}

impl Named for PresentMode {
    const NAMES: &'static [&'static str] = PRESENT_MODES;
    fn of(name: &str) -> Self {
        match name {
            "fifo" => PresentMode::Fifo,
            "mailbox" => PresentMode::Mailbox,
            _ => PresentMode::Immediate,
        }
    }
}

/// `exposure`: `true` for auto.
#[derive(Clone, Copy, Debug)]
pub(super) struct AutoExposure(pub bool);

impl Named for AutoExposure {
    const NAMES: &'static [&'static str] = EXPOSURE_VALUES;
    fn of(name: &str) -> Self {
        AutoExposure(name == "auto")
    }
}

/// What `[section] key` allows, as the message's `expected ...` says it.
pub(super) fn expected(section: &str, key: &str) -> String {
    fn one_of(names: &[&str]) -> String {
        let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
        format!("one of {}", quoted.join(", "))
    }
    fn int<T: std::fmt::Display>((lo, hi): (T, T)) -> String {
        format!("an integer from {lo} to {hi}")
    }
    match (section, key) {
        ("graph", _) | ("render", "animate") | (_, "shadows" | "clustering" | "ibl") => {
            "true or false".into()
        }
        ("render" | "window", "width" | "height") => int(SIZE),
        ("render", "frames") => int(FRAMES),
        ("render", "scene") => {
            r#""builtin" or the path of a scene (.toml) or glTF model (.gltf, .glb)"#.into()
        }
        ("window", _) => one_of(PRESENT_MODES),
        ("camera", _) => "an array of three finite numbers, [x, y, z]".into(),
        (_, "cascades") => int(CASCADES),
        (_, "lights") => int(LIGHTS),
        (_, "shadow_size") => format!("a power of two from {} to {}", SHADOW_SIZE.0, SHADOW_SIZE.1),
        (_, "ssao") => one_of(SSAO_VALUES),
        (_, "bloom") => one_of(BLOOM_VALUES),
        (_, "exposure") => one_of(EXPOSURE_VALUES),
        (_, "aa") => one_of(AA_VALUES),
        (_, "debug_view") => one_of(DebugView::NAMES),
        (_, "path") => one_of(PATH_VALUES),
        (_, "lighting") => one_of(LIGHTING_VALUES),
        (_, "msaa") => msaa_expected(),
        (_, "post") => one_of(POST_VALUES),
        (_, "exposure_value") => "a number greater than 0 and at most 3.4e38".into(),
        _ => format!(
            "a number from {} to {}",
            RESOLUTION_SCALE.0, RESOLUTION_SCALE.1
        ),
    }
}
