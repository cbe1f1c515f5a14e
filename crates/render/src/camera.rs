//! The view: the scene's camera when it has one, else a view framing the scene's bounds;
//! the start view of `[camera]` ([`start_view`]); and the fly / orbit
//! [`CameraController`] the window app drives (pure logic: the app turns window events into
//! a [`CameraInput`]).

use crate::config::CameraSection;
use glam::{Mat4, Vec3};
use tessera_scene::{Aabb, Scene};

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

    /// Whether the view can be rendered: finite, an eye apart from its target, a positive
    /// near plane and field of view, and an up direction not along the view direction.
    pub fn is_usable(&self) -> bool {
        let dir = self.target - self.position;
        let finite = self.position.is_finite()
            && self.target.is_finite()
            && self.up.is_finite()
            && self.yfov.is_finite()
            && self.znear.is_finite();
        finite
            && dir.length_squared() > 0.0
            && self.znear > 0.0
            && self.yfov > 0.0
            && self.yfov < std::f32::consts::PI
            && dir.normalize().cross(self.up).length_squared() > 1e-12
    }
}

/// The view the run starts with: `[camera]`'s `position` and `target` over the scene's view
/// ([`View::of`]), whose field of view, near plane and up direction stay. An up direction
/// along the new view direction (looking straight down or up) is replaced by -Z or +Z, so
/// the picture's top points where the eye would be facing before it tilted.
pub fn start_view(section: &CameraSection, scene: &Scene) -> Result<View, String> {
    let mut view = View::of(scene);
    if let Some(p) = section.position {
        view.position = Vec3::from_array(p);
    }
    if let Some(t) = section.target {
        view.target = Vec3::from_array(t);
    }
    if !view.position.is_finite() || !view.target.is_finite() {
        return Err("the position and the target must be finite numbers".into());
    }
    if view.position == view.target {
        let p = view.position;
        let what = match (section.position, section.target) {
            (Some(_), None) => "the position is the point the scene's view looks at",
            (None, Some(_)) => "the target is the scene view's eye",
            _ => "the position and the target are the same point",
        };
        return Err(format!("{what} ({}, {}, {})", p.x, p.y, p.z));
    }
    let dir = (view.target - view.position).normalize();
    if dir.cross(view.up).length_squared() <= 1e-12 {
        view.up = if dir.y < 0.0 { Vec3::NEG_Z } else { Vec3::Z };
    }
    Ok(view)
}

/// How the [`CameraController`] moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraMode {
    /// A free camera: the mouse turns it, the keys move the eye.
    Fly,
    /// Around a pivot: the mouse turns the eye around it, the wheel changes the distance,
    /// the keys move the pivot.
    Orbit,
}

/// What the user did since the last frame (the app fills it from window events).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CameraInput {
    /// Held keys W (+1) and S (-1): along the view direction.
    pub forward: f32,
    /// Held keys D (+1) and A (-1): sideways.
    pub right: f32,
    /// Held keys E (+1) and Q (-1): along world up.
    pub up: f32,
    /// Mouse motion in pixels (x right, y down) while the look button is held.
    pub look: (f32, f32),
    /// Wheel lines (positive away from the user): fly changes the speed (×1.2 per line),
    /// orbit the distance (÷1.2 per line: closer).
    pub wheel: f32,
    /// Shift held: four times the speed.
    pub fast: bool,
    /// Drag in pixels (x right, y down) that moves eye and target together in the view
    /// plane, so the point at the target distance follows the finger (two-finger drag).
    pub pan: (f32, f32),
    /// Output height in pixels, the scale of `pan`; 0 (or not a positive number) stands
    /// for [`DEFAULT_VIEWPORT_HEIGHT`].
    pub viewport_height: f32,
    /// Magnification as a natural log (pinch: ln of the finger distance's ratio): the
    /// target distance is divided by e^zoom in either mode, the eye moving along the view
    /// direction; positive is closer, 0 nothing.
    pub zoom: f32,
}

/// The output height `pan` is scaled by when [`CameraInput::viewport_height`] is unset.
pub const DEFAULT_VIEWPORT_HEIGHT: f32 = 720.0;

/// Radians turned per pixel of mouse motion.
pub const LOOK_RADIANS_PER_PIXEL: f32 = 0.003;
/// Speed and orbit distance change per wheel line.
pub const WHEEL_STEP: f32 = 1.2;
/// Speed multiplier while `fast` is held.
pub const FAST: f32 = 4.0;
/// The longest frame step the controller integrates (s): a stall (a breakpoint, a resize)
/// does not throw the camera across the scene.
pub const MAX_DT: f32 = 0.1;
/// Pitch limit (radians) short of straight up or down, where yaw would be undefined.
pub const MAX_PITCH: f32 = 89.0 * std::f32::consts::PI / 180.0;

/// A fly / orbit camera: yaw and pitch (no roll) in the right-handed, Y-up convention of
/// [`View`], yaw 0 looking down -Z and growing to the right. The eye and the target (the
/// point in front at the target distance, the orbit's pivot) are kept together, so switching
/// modes keeps the view.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraController {
    mode: CameraMode,
    eye: Vec3,
    target: Vec3,
    yaw: f32,
    pitch: f32,
    distance: f32,
    speed: f32,
    speed_range: (f32, f32),
    distance_range: (f32, f32),
    yfov: f32,
    znear: f32,
}

fn finite_or_zero(x: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// The unit view direction of `yaw` and `pitch`.
fn direction(yaw: f32, pitch: f32) -> Vec3 {
    let (sy, cy) = yaw.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    Vec3::new(cp * sy, sp, -cp * cy)
}

impl CameraController {
    /// A fly camera at `start`. `scene_bounds` sets the scale: the base speed crosses the
    /// scene's diagonal in about four seconds, and the orbit distance stays within a
    /// hundred diagonals (an empty or unbounded scene counts as 10 units across).
    pub fn new(start: View, scene_bounds: Aabb) -> Self {
        let (min, max) = (scene_bounds.min, scene_bounds.max);
        let diagonal = if min.is_finite() && max.is_finite() && min.cmple(max).all() {
            (max - min).length()
        } else {
            0.0
        };
        let size = if diagonal > 1e-6 { diagonal } else { 10.0 };
        let speed = size * 0.25;
        let znear = if start.znear.is_finite() && start.znear > 0.0 {
            start.znear
        } else {
            1e-3
        };
        let offset = start.target - start.position;
        let distance = offset.length();
        let (eye, target, dir) = if distance > 0.0 && distance.is_finite() {
            (start.position, start.target, offset / distance)
        } else {
            let eye = if start.position.is_finite() {
                start.position
            } else {
                Vec3::ZERO
            };
            (eye, eye + Vec3::NEG_Z, Vec3::NEG_Z)
        };
        let distance = (target - eye).length();
        let pitch = dir.y.clamp(-1.0, 1.0).asin().clamp(-MAX_PITCH, MAX_PITCH);
        let yaw = dir.x.atan2(-dir.z);
        let mut c = CameraController {
            mode: CameraMode::Fly,
            eye,
            target,
            yaw,
            pitch,
            distance,
            speed,
            speed_range: (speed * 1e-3, speed * 1e3),
            distance_range: (znear * 2.0, (size * 100.0).max(distance)),
            yfov: if start.yfov.is_finite() && start.yfov > 0.0 {
                start.yfov
            } else {
                45f32.to_radians()
            },
            znear,
        };
        if dir.y.abs() > MAX_PITCH.sin() {
            // Looking (almost) straight up or down: the clamped pitch moves the target.
            c.target = c.eye + c.direction() * c.distance;
        }
        c
    }

    /// The unit view direction.
    fn direction(&self) -> Vec3 {
        direction(self.yaw, self.pitch)
    }

    /// Moves the camera by what the user did over `dt` seconds (clamped to [`MAX_DT`]).
    pub fn update(&mut self, input: &CameraInput, dt: f32) {
        let dt = finite_or_zero(dt).clamp(0.0, MAX_DT);
        let (lx, ly) = (finite_or_zero(input.look.0), finite_or_zero(input.look.1));
        if lx != 0.0 || ly != 0.0 {
            // Mouse right turns right; mouse down (y grows) looks down.
            self.yaw = (self.yaw + lx * LOOK_RADIANS_PER_PIXEL).rem_euclid(std::f32::consts::TAU);
            self.pitch = (self.pitch - ly * LOOK_RADIANS_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
            let dir = self.direction();
            match self.mode {
                CameraMode::Fly => self.target = self.eye + dir * self.distance,
                CameraMode::Orbit => self.eye = self.target - dir * self.distance,
            }
        }
        let wheel = finite_or_zero(input.wheel);
        if wheel != 0.0 {
            let factor = WHEEL_STEP.powf(wheel);
            match self.mode {
                CameraMode::Fly => {
                    self.speed = (self.speed * factor).clamp(self.speed_range.0, self.speed_range.1)
                }
                CameraMode::Orbit => {
                    self.distance = (self.distance / factor)
                        .clamp(self.distance_range.0, self.distance_range.1);
                    self.eye = self.target - self.direction() * self.distance;
                }
            }
        }
        let zoom = finite_or_zero(input.zoom);
        if zoom != 0.0 {
            self.distance = (self.distance / zoom.clamp(-20.0, 20.0).exp())
                .clamp(self.distance_range.0, self.distance_range.1);
            self.eye = self.target - self.direction() * self.distance;
        }
        let (px, py) = (finite_or_zero(input.pan.0), finite_or_zero(input.pan.1));
        if px != 0.0 || py != 0.0 {
            let h = input.viewport_height;
            let h = if h.is_finite() && h > 0.0 {
                h
            } else {
                DEFAULT_VIEWPORT_HEIGHT
            };
            // World size of one pixel at the target distance.
            let pixel = 2.0 * self.distance * (self.yfov * 0.5).tan() / h;
            let dir = self.direction();
            let right = Vec3::new(self.yaw.cos(), 0.0, self.yaw.sin());
            let up = right.cross(dir);
            // The scene follows the finger: the camera moves the other way.
            let step = (up * py - right * px) * pixel;
            if step.is_finite() {
                self.eye += step;
                self.target += step;
            }
        }
        let axis = |x: f32| finite_or_zero(x).clamp(-1.0, 1.0);
        let (f, r, u) = (axis(input.forward), axis(input.right), axis(input.up));
        if (f != 0.0 || r != 0.0 || u != 0.0) && dt > 0.0 {
            let dir = self.direction();
            // Sideways stays horizontal: no roll.
            let right = Vec3::new(self.yaw.cos(), 0.0, self.yaw.sin());
            let mut v = dir * f + right * r + Vec3::Y * u;
            if v.length_squared() > 1.0 {
                v = v.normalize();
            }
            let fast = if input.fast { FAST } else { 1.0 };
            let step = v * self.speed * fast * dt;
            // Fly moves the eye, orbit the pivot: both move together.
            self.eye += step;
            self.target += step;
        }
    }

    /// Fly ↔ orbit. The view stays: the orbit pivots around the point in front of the eye
    /// at the target distance, and flying continues from the orbit's eye.
    pub fn toggle_mode(&mut self) {
        self.mode = match self.mode {
            CameraMode::Fly => CameraMode::Orbit,
            CameraMode::Orbit => CameraMode::Fly,
        };
    }

    /// The current mode.
    pub fn mode(&self) -> CameraMode {
        self.mode
    }

    /// The view to render (up is world +Y).
    pub fn view(&self) -> View {
        View {
            position: self.eye,
            target: self.target,
            up: Vec3::Y,
            yfov: self.yfov,
            znear: self.znear,
        }
    }

    /// Fly speed in world units per second (before `fast`).
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// The distance from the eye to the target (the orbit's radius).
    pub fn distance(&self) -> f32 {
        self.distance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPS: f32 = 1e-5;

    fn bounds() -> Aabb {
        Aabb {
            min: Vec3::splat(-5.0),
            max: Vec3::splat(5.0),
        }
    }

    /// At (0, 1, 10) looking at (0, 1, 0): down -Z, level.
    fn start() -> View {
        View {
            position: Vec3::new(0.0, 1.0, 10.0),
            target: Vec3::new(0.0, 1.0, 0.0),
            up: Vec3::Y,
            yfov: 0.8,
            znear: 0.1,
        }
    }

    fn dir(v: &View) -> Vec3 {
        (v.target - v.position).normalize()
    }

    fn close(a: Vec3, b: Vec3, eps: f32) -> bool {
        (a - b).abs().max_element() <= eps
    }

    fn same_view(a: &View, b: &View) -> bool {
        close(a.position, b.position, EPS)
            && close(a.target, b.target, EPS)
            && close(a.up, b.up, EPS)
            && (a.yfov - b.yfov).abs() <= EPS
            && (a.znear - b.znear).abs() <= EPS
    }

    #[test]
    fn a_new_controller_shows_the_start_view() {
        let oblique = View {
            position: Vec3::new(3.0, 4.0, -2.0),
            target: Vec3::new(-1.0, 0.5, 6.0),
            ..start()
        };
        for v in [start(), oblique] {
            let c = CameraController::new(v, bounds());
            assert_eq!(c.mode(), CameraMode::Fly);
            assert!(same_view(&c.view(), &v), "{:?} vs {v:?}", c.view());
        }
    }

    #[test]
    fn zero_input_leaves_the_view_unchanged() {
        let mut c = CameraController::new(start(), bounds());
        let before = c.view();
        for dt in [0.0, 0.016, 5.0] {
            c.update(&CameraInput::default(), dt);
        }
        c.toggle_mode();
        c.update(&CameraInput::default(), 0.016);
        assert_eq!(c.view(), before);
    }

    #[test]
    fn w_moves_along_the_view_direction_and_shift_is_four_times_faster() {
        let oblique = View {
            position: Vec3::new(3.0, 4.0, -2.0),
            target: Vec3::new(-1.0, 0.5, 6.0),
            ..start()
        };
        let mut c = CameraController::new(oblique, bounds());
        let d = dir(&oblique);
        let w = CameraInput {
            forward: 1.0,
            ..Default::default()
        };
        c.update(&w, 0.05);
        let moved = c.view().position - oblique.position;
        assert!(close(moved, d * c.speed() * 0.05, 1e-4), "{moved:?}");
        assert!(close(dir(&c.view()), d, EPS), "the direction stays");
        let p = c.view().position;
        c.update(&CameraInput { fast: true, ..w }, 0.05);
        let fast = c.view().position - p;
        assert!(
            (fast.length() - 4.0 * moved.length()).abs() < 1e-4,
            "{fast:?}"
        );
        // S goes back, D right (+X when looking down -Z), E up.
        let mut c = CameraController::new(start(), bounds());
        let step = c.speed() * 0.05;
        for (input, along) in [
            (
                CameraInput {
                    forward: -1.0,
                    ..Default::default()
                },
                Vec3::Z,
            ),
            (
                CameraInput {
                    right: 1.0,
                    ..Default::default()
                },
                Vec3::X,
            ),
            (
                CameraInput {
                    up: 1.0,
                    ..Default::default()
                },
                Vec3::Y,
            ),
        ] {
            let p = c.view().position;
            c.update(&input, 0.05);
            assert!(
                close(c.view().position - p, along * step, 1e-4),
                "{input:?}"
            );
        }
    }

    #[test]
    fn a_large_dt_is_clamped() {
        let w = CameraInput {
            forward: 1.0,
            ..Default::default()
        };
        let mut a = CameraController::new(start(), bounds());
        let mut b = a.clone();
        a.update(&w, 30.0);
        b.update(&w, MAX_DT);
        assert_eq!(a.view(), b.view());
        let mut n = CameraController::new(start(), bounds());
        n.update(&w, f32::NAN);
        n.update(&w, -1.0);
        assert_eq!(n.view(), start(), "no step for a NaN or negative dt");
    }

    #[test]
    fn the_speed_follows_the_scene_size() {
        let small = CameraController::new(start(), bounds());
        let big = Aabb {
            min: Vec3::splat(-500.0),
            max: Vec3::splat(500.0),
        };
        let big = CameraController::new(start(), big);
        assert!((big.speed() / small.speed() - 100.0).abs() < 1e-3);
        let empty = CameraController::new(start(), Aabb::EMPTY);
        assert!(empty.speed() > 0.0 && empty.speed().is_finite());
    }

    #[test]
    fn mouse_right_turns_right_and_mouse_down_looks_down() {
        let mut c = CameraController::new(start(), bounds());
        c.update(
            &CameraInput {
                look: (100.0, 0.0),
                ..Default::default()
            },
            0.016,
        );
        let d = dir(&c.view());
        assert!(d.x > 0.2 && d.y.abs() < EPS, "{d:?}");
        assert!(
            close(c.view().position, start().position, EPS),
            "fly turns in place"
        );
        // Right of the old direction: the turn is clockwise seen from above.
        assert!(Vec3::NEG_Z.cross(d).y < 0.0);
        c.update(
            &CameraInput {
                look: (0.0, 50.0),
                ..Default::default()
            },
            0.016,
        );
        assert!(dir(&c.view()).y < -0.1, "{:?}", dir(&c.view()));
    }

    #[test]
    fn the_pitch_clamps_short_of_straight_up_and_down() {
        let mut c = CameraController::new(start(), bounds());
        for pixels in [-1e6, 1e6] {
            c.update(
                &CameraInput {
                    look: (0.0, pixels),
                    ..Default::default()
                },
                0.016,
            );
            let v = c.view();
            let d = dir(&v);
            assert!(d.y.abs() < 1.0 - 1e-5, "{d:?}");
            assert!((d.y.abs() - MAX_PITCH.sin()).abs() < 1e-4, "{d:?}");
            assert!(v.is_usable(), "{v:?}");
            assert!(v.view_proj(16.0 / 9.0).is_finite());
        }
        // A start looking straight down is clamped too.
        let down = View {
            position: Vec3::new(0.0, 10.0, 0.0),
            target: Vec3::ZERO,
            up: Vec3::NEG_Z,
            ..start()
        };
        let c = CameraController::new(down, bounds());
        assert!(c.view().is_usable() && dir(&c.view()).y > -1.0 + 1e-5);
    }

    #[test]
    fn the_wheel_changes_the_fly_speed() {
        let mut c = CameraController::new(start(), bounds());
        let s = c.speed();
        let wheel = |n| CameraInput {
            wheel: n,
            ..Default::default()
        };
        c.update(&wheel(1.0), 0.016);
        assert!((c.speed() / s - 1.2).abs() < 1e-5);
        c.update(&wheel(-3.0), 0.016);
        assert!((c.speed() / s - 1.2f32.powi(-2)).abs() < 1e-5);
        assert_eq!(c.view(), start(), "the wheel does not move a fly camera");
        c.update(&wheel(1e4), 0.016);
        assert!(c.speed().is_finite() && c.speed() <= s * 1e3 * 1.0001);
    }

    #[test]
    fn the_wheel_changes_the_orbit_distance_clamped_beyond_the_near_plane() {
        let mut c = CameraController::new(start(), bounds());
        c.toggle_mode();
        assert_eq!(c.mode(), CameraMode::Orbit);
        let pivot = start().target;
        c.update(
            &CameraInput {
                wheel: 2.0,
                ..Default::default()
            },
            0.016,
        );
        let v = c.view();
        assert!(close(v.target, pivot, EPS));
        assert!((v.position.distance(pivot) - 10.0 / 1.44).abs() < 1e-4);
        assert!(close(dir(&v), Vec3::NEG_Z, EPS));
        c.update(
            &CameraInput {
                wheel: 1000.0,
                ..Default::default()
            },
            0.016,
        );
        let d = c.view().position.distance(pivot);
        assert!(d > start().znear && d.is_finite(), "{d}");
        assert!((c.distance() - d).abs() < 1e-4);
        c.update(
            &CameraInput {
                wheel: -1000.0,
                ..Default::default()
            },
            0.016,
        );
        assert!(c.view().position.is_finite());
    }

    #[test]
    fn orbit_turns_the_eye_around_the_pivot() {
        let mut c = CameraController::new(start(), bounds());
        c.toggle_mode();
        c.update(
            &CameraInput {
                look: (200.0, -80.0),
                ..Default::default()
            },
            0.016,
        );
        let v = c.view();
        assert!(close(v.target, start().target, EPS));
        assert!((v.position.distance(v.target) - 10.0).abs() < 1e-4);
        assert!(v.position.x < -1.0, "the eye moved left: {v:?}");
        assert!(
            v.position.y < start().position.y,
            "mouse up lifts the view: eye lower"
        );
    }

    #[test]
    fn toggling_keeps_the_eye_and_the_looking_direction() {
        let mut c = CameraController::new(start(), bounds());
        // Fly somewhere first.
        c.update(
            &CameraInput {
                forward: 1.0,
                right: 0.5,
                look: (40.0, 25.0),
                ..Default::default()
            },
            0.05,
        );
        for mode in [CameraMode::Orbit, CameraMode::Fly, CameraMode::Orbit] {
            let before = c.view();
            c.toggle_mode();
            assert_eq!(c.mode(), mode);
            let after = c.view();
            assert!(close(after.position, before.position, EPS));
            assert!(close(dir(&after), dir(&before), EPS));
            // Orbit pivots around the point in front at the target distance.
            assert!(close(
                after.target,
                after.position + dir(&after) * c.distance(),
                1e-4
            ));
            c.update(
                &CameraInput {
                    look: (-30.0, 10.0),
                    ..Default::default()
                },
                0.016,
            );
        }
    }

    #[test]
    fn bad_input_is_ignored() {
        let mut c = CameraController::new(start(), bounds());
        c.update(
            &CameraInput {
                forward: f32::NAN,
                right: f32::INFINITY,
                look: (f32::NAN, f32::NEG_INFINITY),
                wheel: f32::NAN,
                ..Default::default()
            },
            0.016,
        );
        assert!(c.view().is_usable() && c.speed().is_finite());
    }

    #[test]
    fn pan_moves_eye_and_target_together_in_the_view_plane() {
        let oblique = View {
            position: Vec3::new(3.0, 4.0, -2.0),
            target: Vec3::new(-1.0, 0.5, 6.0),
            ..start()
        };
        for mode_toggles in [0, 1] {
            let mut c = CameraController::new(oblique, bounds());
            for _ in 0..mode_toggles {
                c.toggle_mode();
            }
            let before = c.view();
            c.update(
                &CameraInput {
                    pan: (30.0, -20.0),
                    viewport_height: 600.0,
                    ..Default::default()
                },
                0.016,
            );
            let after = c.view();
            let de = after.position - before.position;
            let dt = after.target - before.target;
            assert!(close(de, dt, 1e-4), "{de:?} {dt:?}");
            assert!(de.length() > 1e-3);
            assert!(de.dot(dir(&before)).abs() < 1e-4, "in the view plane");
            // One pixel is 2 d tan(yfov / 2) / height of world at the target distance.
            let pixel = 2.0 * c.distance() * (start().yfov * 0.5).tan() / 600.0;
            assert!((de.length() - pixel * 30f32.hypot(20.0)).abs() < 1e-4);
        }
        // Looking down -Z: finger right moves the camera left, finger up (-y) moves it down.
        let mut c = CameraController::new(start(), bounds());
        c.update(
            &CameraInput {
                pan: (10.0, -10.0),
                ..Default::default()
            },
            0.016,
        );
        let d = c.view().position - start().position;
        assert!(d.x < 0.0 && d.y < 0.0 && d.z.abs() < 1e-5, "{d:?}");
    }

    #[test]
    fn the_pan_scale_follows_the_distance_and_the_viewport() {
        let moved = |view: View, h: f32| {
            let mut c = CameraController::new(view, bounds());
            c.update(
                &CameraInput {
                    pan: (10.0, 0.0),
                    viewport_height: h,
                    ..Default::default()
                },
                0.016,
            );
            (c.view().position - view.position).length()
        };
        let near = View {
            position: Vec3::new(0.0, 1.0, 5.0),
            ..start()
        };
        let ratio = moved(start(), 720.0) / moved(near, 720.0);
        assert!((ratio - 2.0).abs() < 1e-4, "{ratio}");
        let ratio = moved(start(), 360.0) / moved(start(), 720.0);
        assert!((ratio - 2.0).abs() < 1e-4, "{ratio}");
        assert_eq!(moved(start(), 0.0), moved(start(), DEFAULT_VIEWPORT_HEIGHT));
        assert_eq!(moved(start(), f32::NAN), moved(start(), 720.0));
    }

    #[test]
    fn zoom_changes_the_distance_within_its_range() {
        for toggles in [0, 1] {
            let mut c = CameraController::new(start(), bounds());
            for _ in 0..toggles {
                c.toggle_mode();
            }
            let zoom = |z| CameraInput {
                zoom: z,
                ..Default::default()
            };
            c.update(&zoom(2f32.ln()), 0.016);
            let v = c.view();
            assert!((c.distance() - 5.0).abs() < 1e-4, "{}", c.distance());
            assert!(close(v.target, start().target, EPS), "the pivot stays");
            assert!(close(dir(&v), Vec3::NEG_Z, EPS));
            c.update(&zoom(1e3), 0.016);
            assert!(c.distance() > start().znear && c.distance().is_finite());
            c.update(&zoom(-1e3), 0.016);
            assert!(c.distance().is_finite() && c.view().is_usable());
            assert!(c.distance() <= 10.0 * 100.0 * 3f32.sqrt() * 1.0001);
        }
    }

    #[test]
    fn non_finite_pan_and_zoom_are_ignored() {
        let mut c = CameraController::new(start(), bounds());
        c.update(
            &CameraInput {
                pan: (f32::NAN, f32::INFINITY),
                zoom: f32::NAN,
                viewport_height: f32::INFINITY,
                ..Default::default()
            },
            0.016,
        );
        assert_eq!(c.view(), start());
        c.update(
            &CameraInput {
                zoom: f32::INFINITY,
                ..Default::default()
            },
            0.016,
        );
        assert_eq!(c.view(), start());
    }

    fn scene_with_camera() -> Scene {
        let mut s = Scene::empty("t");
        s.camera = Some(tessera_scene::Camera {
            position: Vec3::new(0.0, 2.0, 8.0),
            target: Vec3::ZERO,
            up: Vec3::Y,
            yfov: 0.7,
            znear: 0.05,
            zfar: None,
            aspect: None,
        });
        s
    }

    #[test]
    fn the_camera_section_overrides_position_and_target() {
        let scene = scene_with_camera();
        let none = start_view(&CameraSection::default(), &scene).unwrap();
        assert_eq!(none, View::of(&scene));
        let section = CameraSection {
            position: Some([1.0, 2.0, 3.0]),
            target: None,
        };
        let v = start_view(&section, &scene).unwrap();
        assert_eq!(v.position, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(v.target, Vec3::ZERO);
        assert_eq!((v.yfov, v.znear, v.up), (0.7, 0.05, Vec3::Y));
        let section = CameraSection {
            position: None,
            target: Some([0.0, 2.0, 0.0]),
        };
        let v = start_view(&section, &scene).unwrap();
        assert_eq!(
            (v.position, v.target),
            (Vec3::new(0.0, 2.0, 8.0), Vec3::new(0.0, 2.0, 0.0))
        );
        // Straight down: up becomes -Z, the view stays usable.
        let section = CameraSection {
            position: Some([0.0, 5.0, 0.0]),
            target: Some([0.0, 0.0, 0.0]),
        };
        let v = start_view(&section, &scene).unwrap();
        assert_eq!(v.up, Vec3::NEG_Z);
        assert!(v.is_usable() && v.view_proj(1.0).is_finite());
        // The eye on the point looked at.
        let section = CameraSection {
            position: Some([0.0, 0.0, 0.0]),
            target: None,
        };
        let e = start_view(&section, &scene).unwrap_err();
        assert!(e.contains("position") && e.contains("(0, 0, 0)"), "{e}");
    }
}
