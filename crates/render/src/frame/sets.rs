//! Descriptor sets and draws the frame's raster passes share.

use crate::builder::BufferRef;
use crate::gpu::commands::set_viewport;
use crate::gpu::pass::PassContext;
use crate::RenderError;
use ash::vk;

/// Set 0 of the G-buffer shaders: frame constants and point lights. Written by hand: the
/// pass declares no use of the lights (its shaders do not read them), and declaring one
/// now would change the plan.
pub(crate) fn frame_set(
    pc: &mut PassContext<'_, '_, '_>,
    layout: vk::DescriptorSetLayout,
    ubo: BufferRef,
    lights: BufferRef,
) -> Result<vk::DescriptorSet, RenderError> {
    let set = pc.frame.descriptor_set(layout)?;
    let info = |buffer| {
        [vk::DescriptorBufferInfo {
            buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }]
    };
    let infos = [info(pc.buffer(ubo)?), info(pc.buffer(lights)?)];
    let types = [
        vk::DescriptorType::UNIFORM_BUFFER,
        vk::DescriptorType::STORAGE_BUFFER,
    ];
    let writes: Vec<vk::WriteDescriptorSet> = infos
        .iter()
        .zip(types)
        .enumerate()
        .map(|(b, (info, ty))| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(b as u32)
                .descriptor_type(ty)
                .buffer_info(info)
        })
        .collect();
    // SAFETY: a set allocated for this frame slot, not yet bound; live buffers.
    unsafe { pc.gpu.device.update_descriptor_sets(&writes, &[]) };
    Ok(set)
}

/// Binds `set` as set `index` of graphics pipeline layout `layout`.
pub(crate) fn bind_graphics_set(
    pc: &PassContext<'_, '_, '_>,
    layout: vk::PipelineLayout,
    index: u32,
    set: vk::DescriptorSet,
) {
    // SAFETY: recording inside a render pass; `set` was allocated for this frame slot with
    // the layout's set `index`.
    unsafe {
        pc.gpu.device.cmd_bind_descriptor_sets(
            pc.cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            index,
            &[set],
            &[],
        );
    }
}

/// Draws the full-screen triangle with `pipeline` and its `layout`, the descriptor `sets`
/// from set 0, and `push` as fragment push constants (lighting, tone mapping).
pub(crate) fn draw_fullscreen(
    pc: &PassContext<'_, '_, '_>,
    (pipeline, layout): (vk::Pipeline, vk::PipelineLayout),
    extent: vk::Extent2D,
    sets: &[vk::DescriptorSet],
    push: &[u8],
) {
    set_viewport(pc.gpu, pc.cmd, extent);
    let d = &pc.gpu.device;
    // SAFETY: recording inside the subpass the pipeline was made for, with sets of its
    // layout; `push` fits the layout's fragment range (empty when it has none).
    unsafe {
        d.cmd_bind_pipeline(pc.cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_bind_descriptor_sets(
            pc.cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            0,
            sets,
            &[],
        );
        if !push.is_empty() {
            d.cmd_push_constants(pc.cmd, layout, vk::ShaderStageFlags::FRAGMENT, 0, push);
        }
        d.cmd_draw(pc.cmd, 3, 1, 0, 0);
    }
}
