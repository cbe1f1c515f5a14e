//! Small recording and clean-up helpers every pipeline kind shares.

use ash::vk;
use tessera_vk::Gpu;

/// Destroys shader modules nothing uses.
pub(crate) fn destroy_modules(gpu: &Gpu, modules: impl Iterator<Item = vk::ShaderModule>) {
    for m in modules {
        // SAFETY: the caller guarantees no pipeline creation or recording uses `m`.
        unsafe { gpu.device.destroy_shader_module(m, None) };
    }
}

/// Sets a viewport covering `extent` with Y up (negative height: clip space as in the
/// scene's right-handed, Y-up convention) and a matching scissor.
pub fn set_viewport(gpu: &Gpu, cmd: vk::CommandBuffer, extent: vk::Extent2D) {
    let viewport = vk::Viewport {
        x: 0.0,
        y: extent.height as f32,
        width: extent.width as f32,
        height: -(extent.height as f32),
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let scissor = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent,
    };
    // SAFETY: recording, with a pipeline whose viewport and scissor are dynamic.
    unsafe {
        gpu.device.cmd_set_viewport(cmd, 0, &[viewport]);
        gpu.device.cmd_set_scissor(cmd, 0, &[scissor]);
    }
}
