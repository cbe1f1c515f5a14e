//! The view: the scene's camera when it has one, else a view framing the scene's bounds.

use glam::{Mat4, Vec3};
use tessera_scene::Scene;

/// A perspective camera (right-handed, Y up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Eye position.
    pub position: Vec3,
    /// Point looked at.
    pub target: Vec3,
    /// Up direction.
    pub up: Vec3,
    /// Vertical field of view (radians).
    pub yfov: f32,
    /// Near plane distance (the far plane is at infinity: reversed Z).
    pub znear: f32,
}

impl View {
    /// The scene's camera, or one looking at the centre of its bounds from the front, above
    /// and to the right, far enough back to see all of it.
    pub fn of(scene: &Scene) -> View {
        if let Some(c) = &scene.camera {
            return View {
                position: c.position,
                target: c.target,
                up: c.up,
                yfov: c.yfov,
                znear: c.znear.max(1e-3),
            };
        }
        let (min, max) = (scene.bounds.min, scene.bounds.max);
        let finite = min.is_finite() && max.is_finite() && min.cmple(max).all();
        let (centre, radius) = if finite {
            ((min + max) * 0.5, ((max - min).length() * 0.5).max(1e-3))
        } else {
            (Vec3::ZERO, 1.0)
        };
        let yfov = 45f32.to_radians();
        let distance = radius / (yfov * 0.5).sin() * 1.05;
        let dir = Vec3::new(0.55, 0.45, 1.0).normalize();
        View {
            position: centre + dir * distance,
            target: centre,
            up: Vec3::Y,
            yfov,
            znear: (distance - radius).max(radius * 1e-3) * 0.5,
        }
    }

    /// World to clip for an output of `aspect` (width / height): reversed Z with the far
    /// plane at infinity (depth 1 at the near plane, 0 at infinity).
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        let proj = Mat4::perspective_infinite_reverse_rh(self.yfov, aspect.max(1e-3), self.znear);
        proj * self.view()
    }

    /// World to view (right-handed: the camera looks down -Z).
    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.position, self.target, self.up)
    }
}
