//! The per-frame constants (`FrameData` in `common.glsl`, std140) and point lights (std430),
//! written by the frame's first pass with `vkCmdUpdateBuffer` into transient buffers of the
//! graph, so that their writes and reads are ordered by the plan like any other resource.

use crate::shadows::MAX_CASCADES;
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

/// `FrameData` of `common.glsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FrameData {
    /// World to clip.
    pub view_proj: [f32; 16],
    /// Clip to world.
    pub inv_view_proj: [f32; 16],
    /// xyz: camera position.
    pub camera_pos: [f32; 4],
    /// xyz: direction the sunlight travels, w: 1 when there is a sun.
    pub sun_direction: [f32; 4],
    /// rgb: colour × illuminance.
    pub sun_color: [f32; 4],
    /// rgb: sky ambient, a: ground factor.
    pub ambient: [f32; 4],
    /// x: point lights.
    pub counts: [u32; 4],
    /// xy: size in pixels, zw: reciprocals.
    pub viewport: [f32; 4],
    /// xyz: the view direction.
    pub camera_forward: [f32; 4],
    /// World to each shadow cascade's clip space.
    pub cascade_view_proj: [[f32; 16]; MAX_CASCADES],
    /// View depth where each cascade ends.
    pub cascade_splits: [f32; 4],
    /// x: 1 / cascade size in texels, y: 1 when shadows are on, z: cascades.
    pub shadow: [f32; 4],
    /// World to view (right-handed, the camera looks down -Z).
    pub view: [f32; 16],
    /// x, y: view-space x / depth and y / depth at NDC ±1 (1 / P00, 1 / P11), z: near plane,
    /// w: view depth where the last cluster slice begins its unbounded tail.
    pub proj: [f32; 4],
    /// x, y: cluster tiles across and down, z: depth slices, w: light indices per cluster.
    pub cluster_grid: [u32; 4],
    /// x: 1 when the lit shaders read light clusters, y: 1 when lighting reads SSAO.
    pub flags: [u32; 4],
    /// x: SSAO radius (m), y: strength, z: bias (cosine), w: unused.
    pub ssao: [f32; 4],
    /// World to clip without the TAA jitter, this frame (motion vectors).
    pub unjittered_view_proj: [f32; 16],
    /// World to clip without the TAA jitter, the previous frame (this frame's on the first).
    pub prev_view_proj: [f32; 16],
    /// xy: the TAA jitter in pixels (0 without TAA), zw: the same in NDC units.
    pub jitter: [f32; 4],
}

/// `PointLight` of `common.glsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PointLightData {
    /// xyz: position, w: range (0: unbounded; the renderer gives every scene light a
    /// finite range, [`light_range`], so clustering can bound it).
    pub position_range: [f32; 4],
    /// rgb: colour × intensity.
    pub color: [f32; 4],
    /// xyz: the direction a spot light points, w: cos of its outer cone (-2: a point light).
    pub spot: [f32; 4],
    /// x: cos of a spot light's inner cone.
    pub spot_inner: [f32; 4],
}

impl PointLightData {
    /// A point light (no cone).
    pub fn point(position: [f32; 3], range: f32, color: [f32; 3]) -> PointLightData {
        PointLightData {
            position_range: [position[0], position[1], position[2], range],
            color: [color[0], color[1], color[2], 0.0],
            spot: [0.0, 0.0, 0.0, -2.0],
            spot_inner: [0.0; 4],
        }
    }
}

impl FrameData {
    /// The constants of a frame seen through `view_proj` from `camera`.
    pub fn new(view_proj: Mat4, camera: Vec3, size: (u32, u32)) -> FrameData {
        let (w, h) = (size.0.max(1) as f32, size.1.max(1) as f32);
        FrameData {
            unjittered_view_proj: view_proj.to_cols_array(),
            prev_view_proj: view_proj.to_cols_array(),
            jitter: [0.0; 4],
            view_proj: view_proj.to_cols_array(),
            inv_view_proj: view_proj.inverse().to_cols_array(),
            camera_pos: camera.extend(1.0).to_array(),
            sun_direction: [0.0; 4],
            sun_color: [0.0; 4],
            ambient: [0.0; 4],
            counts: [0; 4],
            viewport: [w, h, 1.0 / w, 1.0 / h],
            camera_forward: [0.0, 0.0, -1.0, 0.0],
            cascade_view_proj: [Mat4::IDENTITY.to_cols_array(); MAX_CASCADES],
            cascade_splits: [0.0; 4],
            shadow: [0.0; 4],
            view: Mat4::IDENTITY.to_cols_array(),
            proj: [1.0, 1.0, 0.1, 100.0],
            cluster_grid: [0; 4],
            flags: [0; 4],
            ssao: [0.0; 4],
        }
    }
}

impl FrameData {
    /// Offsets the projection by `jitter` pixels (TAA): `view_proj` and its inverse become
    /// the jittered ones, `unjittered_view_proj` keeps the plain one and `prev_view_proj` is
    /// set to `previous` (the last frame's unjittered view-projection; this frame's when
    /// there was none).
    pub fn jittered(mut self, jitter: [f32; 2], previous: Option<Mat4>) -> FrameData {
        let plain = Mat4::from_cols_array(&self.unjittered_view_proj);
        let ndc = [
            2.0 * jitter[0] * self.viewport[2],
            2.0 * jitter[1] * self.viewport[3],
        ];
        // A clip-space translation moves every NDC position by the same offset.
        let shifted = Mat4::from_translation(Vec3::new(ndc[0], ndc[1], 0.0)) * plain;
        self.view_proj = shifted.to_cols_array();
        self.inv_view_proj = shifted.inverse().to_cols_array();
        self.prev_view_proj = previous.unwrap_or(plain).to_cols_array();
        self.jitter = [jitter[0], jitter[1], ndc[0], ndc[1]];
        self
    }
}

/// Entries of the TAA jitter sequence before it repeats.
pub const JITTER_PHASES: u64 = 8;

/// The radical inverse of `i` in `base` (the Halton sequence's `i`-th term).
fn halton(mut i: u64, base: u64) -> f32 {
    let (mut f, mut r) = (1.0f64, 0.0f64);
    while i > 0 {
        f /= base as f64;
        r += f * (i % base) as f64;
        i /= base;
    }
    r as f32
}

/// The TAA jitter of frame `frame` in pixels, each in [-0.5, 0.5): Halton(2, 3) terms 1 to
/// [`JITTER_PHASES`] (term 0 is the pixel's corner), centred on the pixel.
pub fn jitter(frame: u64) -> [f32; 2] {
    let i = frame % JITTER_PHASES + 1;
    [halton(i, 2) - 0.5, halton(i, 3) - 0.5]
}

/// Below this (W/m²-ish radiance scale: colour × intensity / d²) a light without a range no
/// longer lights anything visibly; [`light_range`] cuts it there.
pub const LIGHT_CUTOFF: f32 = 0.005;

/// The range of a light of `color` (colour × intensity) that has `range` or none: the
/// given range, or where its inverse-square falloff drops below [`LIGHT_CUTOFF`]. Both the
/// clustered and the unclustered shading use it, so they light the same pixels.
pub fn light_range(range: Option<f32>, color: [f32; 3]) -> f32 {
    match range {
        Some(r) if r > 0.0 => r,
        _ => {
            let peak = color[0].max(color[1]).max(color[2]).max(0.0);
            (peak / LIGHT_CUTOFF).sqrt().max(1e-3)
        }
    }
}

/// `vkCmdUpdateBuffer` moves at most this many bytes per call.
pub const UPDATE_CHUNK: usize = 65536;

/// Records `data` into `buffer` with `vkCmdUpdateBuffer`, in chunks the command allows.
pub fn update_buffer(
    gpu: &tessera_vk::Gpu,
    cmd: ash::vk::CommandBuffer,
    buffer: ash::vk::Buffer,
    data: &[u8],
) {
    for (i, chunk) in data.chunks(UPDATE_CHUNK).enumerate() {
        // SAFETY: recording outside a render pass (a transfer pass); the chunk's size is a
        // multiple of 4 (every field is 4 bytes) and within the buffer, which the graph sized
        // for `data`.
        unsafe {
            gpu.device
                .cmd_update_buffer(cmd, buffer, (i * UPDATE_CHUNK) as u64, chunk)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_jitter_is_halton_2_3_centred_and_repeats() {
        assert_eq!(jitter(0), [0.0, 1.0 / 3.0 - 0.5]);
        assert_eq!(jitter(1), [-0.25, 2.0 / 3.0 - 0.5]);
        assert_eq!(jitter(JITTER_PHASES), jitter(0));
        let mean = (0..JITTER_PHASES).fold([0.0f32; 2], |m, f| {
            let j = jitter(f);
            assert!(j.iter().all(|v| (-0.5..0.5).contains(v)), "{j:?}");
            [m[0] + j[0], m[1] + j[1]]
        });
        assert!(mean[0].abs() < 0.6 && mean[1].abs() < 0.6, "{mean:?}");
    }

    #[test]
    fn jitter_moves_every_ndc_position_by_the_same_offset() {
        let vp = Mat4::perspective_infinite_reverse_rh(1.0, 16.0 / 9.0, 0.1)
            * Mat4::look_at_rh(Vec3::new(1.0, 2.0, 5.0), Vec3::ZERO, Vec3::Y);
        let plain = FrameData::new(vp, Vec3::ZERO, (320, 180));
        let d = plain.jittered([0.25, -0.5], None);
        assert_eq!(d.unjittered_view_proj, plain.view_proj);
        assert_eq!(d.prev_view_proj, plain.view_proj);
        let m = Mat4::from_cols_array(&d.view_proj);
        for p in [
            Vec3::ZERO,
            Vec3::new(0.3, -0.2, 1.0),
            Vec3::new(-1.0, 0.5, -2.0),
        ] {
            let a = vp.project_point3(p);
            let b = m.project_point3(p);
            let px = (b - a).truncate() * glam::Vec2::new(160.0, 90.0);
            assert!((px - glam::Vec2::new(0.25, -0.5)).length() < 1e-3, "{px}");
        }
    }
}
