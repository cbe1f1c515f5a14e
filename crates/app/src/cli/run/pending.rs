//! MERGE: stand-ins for the helpers' APIs, deleted at merge.
#![allow(dead_code, missing_docs)]
use tessera_render::camera::View;
use tessera_render::{RenderError, Renderer};
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraMode {
    Fly,
    Orbit,
}
#[derive(Clone, Copy, Debug, Default)]
pub struct CameraInput {
    pub forward: f32,
    pub right: f32,
    pub up: f32,
    pub look: (f32, f32),
    pub wheel: f32,
    pub fast: bool,
}
#[derive(Debug)]
pub struct CameraController {
    v: View,
    m: CameraMode,
}
impl CameraController {
    pub fn new(v: View, _b: &tessera_scene::Aabb) -> Self {
        CameraController {
            v,
            m: CameraMode::Fly,
        }
    }
    pub fn update(&mut self, _i: &CameraInput, _dt: f32) {}
    pub fn toggle_mode(&mut self) {
        self.m = if self.m == CameraMode::Fly {
            CameraMode::Orbit
        } else {
            CameraMode::Fly
        };
    }
    pub fn mode(&self) -> CameraMode {
        self.m
    }
    pub fn view(&self) -> View {
        self.v
    }
    pub fn speed(&self) -> f32 {
        1.0
    }
}
pub trait RendererExt {
    fn reload_shaders(&mut self, dir: &std::path::Path) -> Result<usize, RenderError>;
    fn set_camera(&mut self, v: Option<View>);
}
impl RendererExt for Renderer {
    fn reload_shaders(&mut self, _dir: &std::path::Path) -> Result<usize, RenderError> {
        Err(RenderError::Shader("not yet".into()))
    }
    fn set_camera(&mut self, _v: Option<View>) {}
}
