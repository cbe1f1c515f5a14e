//! What `tessera run` opens ([`Launch`]), split by when the app uses it: [`Options`] for the
//! whole run, [`Opening`] once, when the window opens (the platform decides when that is).

use super::script::Script;
use crate::cli::frame_args::{Chosen, FrameArgs};
use std::path::PathBuf;
use tessera_render::camera::View;
use tessera_render::config::Config;
use tessera_render::Settings;
use tessera_vk::swapchain::PresentMode;

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

/// The launch options that never change after start: read anywhere, written nowhere.
pub struct Options {
    pub present_mode: PresentMode,
    /// Validation layers on: their messages are counted at the end and make the exit
    /// status 1.
    pub validation: bool,
    /// `--frames`: quit after this many presented frames.
    pub frames: Option<u64>,
    /// What F5 reloads the shaders from.
    pub shader_dir: PathBuf,
    /// Load RenderDoc when the window opens (before the Vulkan instance).
    pub renderdoc: bool,
}

/// What opening the window takes, once: kept apart so that it can be moved out whole.
pub struct Opening {
    pub settings: Settings,
    pub scene: tessera_scene::Scene,
    /// The camera's start (the scene's own view when absent).
    pub start: Option<View>,
    /// `--profile auto`: the flags and configuration the device's preset is chosen from
    /// when the device opens.
    pub auto_profile: Option<(FrameArgs, Config)>,
}
