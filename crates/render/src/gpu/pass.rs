//! The generic frame builder bound to this renderer: every pass body records with the
//! uploaded scene and the pipelines ([`Shared`]).

use super::pipelines::Pipelines;
use super::scene::SceneGpu;
use crate::builder;
use crate::RenderError;
use std::cell::RefCell;

/// What every body records with: the renderer's device-lifetime objects. A frame declared
/// without them (`tessera plan --frame`) has bodies that cannot record.
#[derive(Clone, Copy, Debug)]
pub struct Shared<'a> {
    /// The uploaded scene.
    pub scene: &'a SceneGpu,
    /// The pipelines.
    pub pipelines: &'a RefCell<Pipelines>,
    /// The egui pass's textures and pipeline, once a UI was handed in.
    pub ui: Option<&'a RefCell<super::ui::UiGpu>>,
}

/// A frame of this renderer being declared.
pub type FrameBuilder<'a> = builder::FrameBuilder<'a, Shared<'a>>;
/// What a body of this renderer gets when it records (`'s`: the shared objects' borrow).
pub type PassContext<'a, 'r, 's> = builder::PassContext<'a, 'r, Shared<'s>>;
/// The bodies of a frame of this renderer.
pub type FrameBodies<'a> = builder::FrameBodies<'a, Shared<'a>>;

impl<'s> PassContext<'_, '_, 's> {
    /// The uploaded scene.
    pub fn scene(&self) -> Result<&'s SceneGpu, RenderError> {
        Ok(self.shared()?.scene)
    }

    /// The renderer's pipelines.
    pub fn pipelines(&self) -> Result<&'s RefCell<Pipelines>, RenderError> {
        Ok(self.shared()?.pipelines)
    }
}
