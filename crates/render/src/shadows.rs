//! Cascaded shadow maps of the sun: the view frustum up to a shadow distance is split into
//! 1 to [`MAX_CASCADES`] slices (the practical split: a blend of logarithmic and uniform), each covered
//! by an orthographic view along the sunlight, fitted to the slice's bounding sphere (stable
//! under camera rotation) and snapped to whole texels (stable under camera movement). The
//! cascades sit side by side in one depth atlas (`D32_SFLOAT`, `size × cascades` by `size`).

use crate::camera::View;
use glam::{Mat4, Vec3, Vec4};

/// Most cascades in the atlas (`FrameData` holds this many).
pub const MAX_CASCADES: usize = 4;

/// The cascades of one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascades {
    /// World to each cascade's clip space (depth 0 near the sun, 1 far); the first `count`.
    pub view_proj: [Mat4; MAX_CASCADES],
    /// View-space distance where each cascade ends; the first `count` (0 after).
    pub splits: [f32; MAX_CASCADES],
    /// Cascades fitted.
    pub count: u32,
}

/// Fits the cascades of `view` (output aspect `aspect`) for sunlight travelling along
/// `sun_dir`, covering the view up to `distance` with `count` cascades (clamped to
/// 1..=[`MAX_CASCADES`]) of a `size`-texel square each (`(size, count)`);
/// `scene_radius` (around `scene_centre`) pulls each cascade's near plane back so that casters
/// between the slice and the sun are drawn.
pub fn fit(
    view: &View,
    aspect: f32,
    sun_dir: Vec3,
    distance: f32,
    (size, count): (u32, u32),
    scene_centre: Vec3,
    scene_radius: f32,
) -> Cascades {
    let near = view.znear.max(1e-3);
    let far = distance.max(near * 2.0);
    let n = count.clamp(1, MAX_CASCADES as u32) as usize;
    let mut splits = [0.0; MAX_CASCADES];
    for (i, s) in splits.iter_mut().enumerate().take(n) {
        let p = (i + 1) as f32 / n as f32;
        let log = near * (far / near).powf(p);
        let uniform = near + (far - near) * p;
        *s = 0.75 * log + 0.25 * uniform;
    }
    let camera = Mat4::look_at_rh(view.position, view.target, view.up);
    let inv_camera = camera.inverse();
    let dir = sun_dir.normalize_or(Vec3::NEG_Y);
    let up = if dir.y.abs() > 0.99 { Vec3::Z } else { Vec3::Y };
    let tan_y = (view.yfov * 0.5).tan();
    let tan_x = tan_y * aspect.max(1e-3);
    let mut view_proj = [Mat4::IDENTITY; MAX_CASCADES];
    let mut start = near;
    for (i, &end) in splits.iter().enumerate().take(n) {
        // The slice's eight corners in world space, and their bounding sphere.
        let mut corners = Vec::with_capacity(8);
        for z in [start, end] {
            for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                let p = Vec4::new(sx * tan_x * z, sy * tan_y * z, -z, 1.0);
                corners.push((inv_camera * p).truncate());
            }
        }
        let centre = corners.iter().copied().sum::<Vec3>() / 8.0;
        let radius = corners
            .iter()
            .map(|c| c.distance(centre))
            .fold(0.0f32, f32::max)
            .max(1e-3);
        // Snap the centre to whole texels in the light's view.
        let light = Mat4::look_at_rh(Vec3::ZERO, dir, up);
        let texel = 2.0 * radius / size.max(1) as f32;
        let mut c = light.transform_point3(centre);
        c.x = (c.x / texel).floor() * texel;
        c.y = (c.y / texel).floor() * texel;
        let centre = light.inverse().transform_point3(c);
        let back = radius + (scene_centre.distance(centre) + scene_radius);
        let eye = centre - dir * back;
        let light_view = Mat4::look_at_rh(eye, centre, up);
        let proj = Mat4::orthographic_rh(-radius, radius, -radius, radius, 0.0, back + radius);
        view_proj[i] = proj * light_view;
        start = end;
    }
    Cascades {
        view_proj,
        splits,
        count: n as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> View {
        View {
            position: Vec3::new(0.0, 2.0, 10.0),
            target: Vec3::ZERO,
            up: Vec3::Y,
            yfov: 1.0,
            znear: 0.1,
        }
    }

    #[test]
    fn splits_grow_and_end_at_the_distance() {
        let c = fit(
            &view(),
            16.0 / 9.0,
            Vec3::new(-0.3, -1.0, -0.2),
            40.0,
            (1024, 3),
            Vec3::ZERO,
            20.0,
        );
        assert!(c.splits[0] > 0.1 && c.splits[0] < c.splits[1] && c.splits[1] < c.splits[2]);
        assert!((c.splits[2] - 40.0).abs() < 1e-3);
    }

    #[test]
    fn every_point_of_a_slice_lands_inside_its_cascade() {
        let v = view();
        let c = fit(
            &v,
            1.5,
            Vec3::new(-0.3, -1.0, -0.2),
            30.0,
            (512, 3),
            Vec3::ZERO,
            20.0,
        );
        let inv = Mat4::look_at_rh(v.position, v.target, v.up).inverse();
        // A point on the view axis in the middle of each slice.
        let mut start = v.znear;
        for (i, &end) in c.splits.iter().enumerate().take(c.count as usize) {
            let z = (start + end) * 0.5;
            let p = inv.transform_point3(Vec3::new(0.0, 0.0, -z));
            let q = c.view_proj[i].project_point3(p);
            assert!(
                q.x.abs() <= 1.0 && q.y.abs() <= 1.0 && (0.0..=1.0).contains(&q.z),
                "cascade {i}: {q}"
            );
            start = end;
        }
    }

    #[test]
    fn the_cascade_count_is_clamped_and_the_last_split_reaches_the_distance() {
        for (asked, got) in [(0, 1), (1, 1), (2, 2), (4, 4), (9, 4)] {
            let c = fit(
                &view(),
                16.0 / 9.0,
                Vec3::new(-0.3, -1.0, -0.2),
                40.0,
                (1024, asked),
                Vec3::ZERO,
                20.0,
            );
            assert_eq!(c.count, got);
            let n = got as usize;
            assert!(
                (c.splits[n - 1] - 40.0).abs() < 1e-3,
                "{asked}: {:?}",
                c.splits
            );
            assert!(c.splits[..n].windows(2).all(|w| w[0] < w[1]));
            assert!(c.splits[n..].iter().all(|&s| s == 0.0));
        }
    }
}
