//! The per-frame constants (`FrameData` in `common.glsl`, std140) and point lights (std430),
//! written by the frame's first pass with `vkCmdUpdateBuffer` into transient buffers of the
//! graph, so that their writes and reads are ordered by the plan like any other resource.

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
    pub cascade_view_proj: [[f32; 16]; 3],
    /// xyz: view depth where each cascade ends, w: 1 when shadows are on.
    pub cascade_splits: [f32; 4],
    /// x: 1 / cascade size in texels.
    pub shadow: [f32; 4],
}

/// `PointLight` of `common.glsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PointLightData {
    /// xyz: position, w: range (0: unbounded).
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
            view_proj: view_proj.to_cols_array(),
            inv_view_proj: view_proj.inverse().to_cols_array(),
            camera_pos: camera.extend(1.0).to_array(),
            sun_direction: [0.0; 4],
            sun_color: [0.0; 4],
            ambient: [0.0; 4],
            counts: [0; 4],
            viewport: [w, h, 1.0 / w, 1.0 / h],
            camera_forward: [0.0, 0.0, -1.0, 0.0],
            cascade_view_proj: [Mat4::IDENTITY.to_cols_array(); 3],
            cascade_splits: [0.0; 4],
            shadow: [0.0; 4],
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
