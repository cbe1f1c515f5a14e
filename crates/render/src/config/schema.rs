//! The file's shape: one serde struct per section, unknown keys refused, every key optional
//! (a missing one keeps its default).
//! Values are read as their checked types ([`super::check`]); those that a later check or
//! message needs the place of are [`Spanned`].

use super::check::{
    AutoExposure, Choice, Int, Msaa, Positive, Scale, SceneName, ShadowSize, Size, Vec3,
};
use super::*;
use serde::Deserialize;

/// `[render]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RenderIn {
    pub width: Option<Size>,
    pub height: Option<Size>,
    pub scene: Option<SceneName>,
    pub frames: Option<Int<{ FRAMES.0 }, { FRAMES.1 }>>,
    pub path: Option<Spanned<Choice<RenderPath>>>,
    pub msaa: Option<Spanned<Msaa>>,
    pub lighting: Option<Choice<Lighting>>,
    pub post: Option<Choice<PostPath>>,
    pub animate: Option<bool>,
}

/// `[window]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WindowIn {
    pub width: Option<Size>,
    pub height: Option<Size>,
    pub present_mode: Option<Choice<PresentMode>>,
}

/// `[camera]`: the target's place names it when it is the position.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CameraIn {
    pub position: Option<Vec3>,
    pub target: Option<Spanned<Vec3>>,
}

/// `[features]` and `[mobile]`: the debug view's place names it when its cascade is missing.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FeaturesIn {
    pub shadows: Option<bool>,
    pub cascades: Option<Int<{ CASCADES.0 as u64 }, { CASCADES.1 as u64 }>>,
    pub shadow_size: Option<ShadowSize>,
    pub lights: Option<Int<{ LIGHTS.0 as u64 }, { LIGHTS.1 as u64 }>>,
    pub clustering: Option<bool>,
    pub ssao: Option<Choice<Ssao>>,
    pub ibl: Option<bool>,
    pub bloom: Option<Choice<Bloom>>,
    pub exposure: Option<Choice<AutoExposure>>,
    pub exposure_value: Option<Positive>,
    pub aa: Option<Choice<Aa>>,
    pub resolution_scale: Option<Scale>,
    pub debug_view: Option<Spanned<Choice<DebugView>>>,
    pub path: Option<Choice<RenderPath>>,
    pub msaa: Option<Msaa>,
    pub lighting: Option<Choice<Lighting>>,
    pub post: Option<Choice<PostPath>>,
}

/// `[graph]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GraphIn {
    pub merge: Option<bool>,
    pub memoryless: Option<bool>,
    pub alias: Option<bool>,
    #[serde(rename = "async")]
    pub async_compute: Option<bool>,
    pub reorder: Option<bool>,
    pub minimize_syncs: Option<bool>,
    pub overlap_frames: Option<bool>,
}
