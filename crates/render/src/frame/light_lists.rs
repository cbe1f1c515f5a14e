//! Per-draw light lists for the transparents: for each transparent draw, the point lights
//! whose range reaches its bounding sphere, in ascending order.
//!
//! The froxel clusters serve lighting, which shades every pixel; a transparent draw is small
//! and its fragments all lie in its bounding sphere, so the lights that can reach any of them
//! are found once per draw on the CPU, usually far fewer than a froxel holds. The shader
//! (`forward.frag`, transparents with `CLUSTERED`) loops over its draw's list instead of its
//! fragment's cluster. Both lists hold every light that reaches the fragment, in ascending
//! order, and the others add exactly 0 (the falloff is 0 from the range on), so the picture
//! is the same. On the H200 the loop dominated the transparents' fragment cost.
//!
//! Layout (a storage buffer of `u32`): per draw, its count, then that many light indices;
//! [`Draw::light_list`] is the offset of its count.

use crate::gpu::frame_data::PointLightData;
use crate::gpu::scene::Draw;

/// Relative slack on the reach test, so float rounding never drops a light that touches the
/// sphere (a light too many adds 0).
const SLACK: f32 = 1.0e-3;

/// Whether `light` may reach a point within `radius` of `centre`: unbounded lights always,
/// others when their sphere of influence meets the draw's.
fn reaches(light: &PointLightData, centre: glam::Vec3, radius: f32) -> bool {
    let [x, y, z, range] = light.position_range;
    if range <= 0.0 {
        return true;
    }
    let reach = (range + radius) * (1.0 + SLACK) + SLACK;
    glam::Vec3::new(x, y, z).distance_squared(centre) <= reach * reach
}

/// The lists of `draws` against `lights`, each draw's [`Draw::light_list`] set to its offset.
pub fn build(lights: &[PointLightData], draws: &mut [Draw]) -> Vec<u32> {
    let mut data = Vec::new();
    for d in draws.iter_mut() {
        d.light_list = data.len() as u32;
        data.push(0);
        for (i, l) in lights.iter().enumerate() {
            if reaches(l, d.centre, d.radius) {
                data.push(i as u32);
            }
        }
        let count = data.len() as u32 - d.light_list - 1;
        data[d.light_list as usize] = count;
    }
    if data.is_empty() {
        // A storage buffer may not be empty.
        data.push(0);
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Mat4, Vec3};

    fn draw(centre: Vec3, radius: f32) -> Draw {
        Draw {
            first_index: 0,
            index_count: 3,
            vertex_offset: 0,
            material: 0,
            transform: Mat4::IDENTITY,
            centre,
            radius,
            light_list: 0,
        }
    }

    fn light(at: Vec3, range: f32) -> PointLightData {
        PointLightData::point(at.to_array(), range, [1.0; 3])
    }

    #[test]
    fn each_draw_lists_the_lights_that_reach_its_sphere_in_order() {
        let lights = [
            light(Vec3::new(10.0, 0.0, 0.0), 2.0),  // far from both
            light(Vec3::new(2.5, 0.0, 0.0), 2.0),   // reaches the first draw's sphere
            light(Vec3::new(100.0, 0.0, 0.0), 0.0), // unbounded: everywhere
            light(Vec3::new(0.0, 0.0, 20.0), 1.0),  // reaches the second only
        ];
        let mut draws = [draw(Vec3::ZERO, 1.0), draw(Vec3::new(0.0, 0.0, 18.5), 1.0)];
        let data = build(&lights, &mut draws);
        assert_eq!(draws[0].light_list, 0);
        assert_eq!(&data[..3], &[2, 1, 2]);
        assert_eq!(draws[1].light_list, 3);
        assert_eq!(&data[3..], &[2, 2, 3]);
    }

    /// Every light that reaches some point of a draw's sphere is in its list (random
    /// spheres, lights and points on the sphere).
    #[test]
    fn no_light_that_reaches_the_sphere_is_dropped() {
        let mut seed = 0x2545_f491_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32
        };
        for _ in 0..2000 {
            let centre = Vec3::new(next(), next(), next()) * 20.0 - 10.0;
            let radius = next() * 3.0;
            let at = Vec3::new(next(), next(), next()) * 20.0 - 10.0;
            let range = next() * 6.0;
            let dir = (Vec3::new(next(), next(), next()) - 0.5).normalize_or(Vec3::X);
            let point = centre + dir * radius * next();
            let mut draws = [draw(centre, radius)];
            let data = build(&[light(at, range)], &mut draws);
            if at.distance(point) < range {
                assert_eq!(data, [1, 0], "{centre} {radius} {at} {range}");
            }
        }
    }

    #[test]
    fn no_draws_give_a_non_empty_buffer() {
        assert_eq!(build(&[light(Vec3::ZERO, 1.0)], &mut []), [0]);
    }
}
