//! # tessera-render
//!
//! Tessera's renderer: a deferred frame of a glTF scene whose every pass and resource is
//! declared through the render graph, every frame, and run by the executor
//! ([`tessera_vk::executor`]).
//!
//! - [`config`]: the configuration file (`config/default.toml`): features, graph
//!   optimisations, the `[mobile]` preset.
//! - [`builder`]: how a pass is written (declaration and recording together, typed and
//!   output-relative resources).
//! - [`frame`]: the frame's passes (G-buffer, lighting through input attachments,
//!   transparents, tone mapping, the egui UI).
//! - [`renderer`]: the [`Renderer`]: device-lifetime state (pipelines, the uploaded scene),
//!   the output image, one call per frame.
//! - [`gpu`]: what the renderer owns on the GPU; [`shaders`]: the embedded GLSL;
//!   [`camera`]: the view.
//!
//! Design notes: `docs/renderer.md`.

#![warn(missing_docs)]

pub mod builder;
pub mod camera;
pub mod config;
pub mod features;
pub mod frame;
pub mod gpu;
pub mod picture_diff;
pub mod png_out;
mod pose;
pub mod renderer;
pub mod shaders;
pub mod shadows;

/// The egui version the `ui` pass paints (its data types are this crate's).
pub use egui;
pub use frame::ui::UiFrame;
pub use frame::Rotation;
pub use renderer::{frame_graph, physical_extent, FrameStats, Renderer, Settings};
pub use shaders::ReloadReport;

/// What can go wrong while rendering.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The executor or device failed.
    #[error(transparent)]
    Exec(#[from] tessera_vk::VkError),
    /// A shader did not compile (the message names file and line).
    #[error("shader: {0}")]
    Shader(String),
    /// The scene could not be loaded.
    #[error(transparent)]
    Scene(#[from] tessera_scene::SceneError),
    /// The frame could not be declared or recorded.
    #[error("frame: {0}")]
    Frame(String),
    /// Writing the picture failed.
    #[error("{0}")]
    Output(String),
}

impl From<ash::vk::Result> for RenderError {
    /// Through [`tessera_vk::VkError`]'s own mapping (a lost device is
    /// [`tessera_vk::VkError::DeviceLost`]).
    fn from(r: ash::vk::Result) -> Self {
        RenderError::Exec(r.into())
    }
}

impl RenderError {
    /// The executor's error behind this one, if it is one.
    pub fn vk(&self) -> Option<&tessera_vk::VkError> {
        match self {
            RenderError::Exec(e) => Some(e.root()),
            _ => None,
        }
    }

    /// Whether the device was lost.
    pub fn is_device_lost(&self) -> bool {
        self.vk().is_some_and(tessera_vk::VkError::is_device_lost)
    }

    /// Whether the window surface was lost.
    pub fn is_surface_lost(&self) -> bool {
        self.vk().is_some_and(tessera_vk::VkError::is_surface_lost)
    }
}

#[cfg(test)]
mod error_tests {
    use super::RenderError;
    use ash::vk;
    use tessera_vk::VkError;

    #[test]
    fn vulkan_results_keep_their_case() {
        let e = RenderError::from(vk::Result::ERROR_DEVICE_LOST);
        assert!(e.is_device_lost());
        assert!(matches!(e.vk(), Some(VkError::DeviceLost)));
        assert_eq!(
            e.to_string(),
            format!("vulkan: {}", vk::Result::ERROR_DEVICE_LOST)
        );
        let e = RenderError::from(VkError::from(vk::Result::ERROR_SURFACE_LOST_KHR).context("x"));
        assert!(e.is_surface_lost() && !e.is_device_lost());
        assert!(!RenderError::Frame("ERROR_DEVICE_LOST".into()).is_device_lost());
    }
}
