//! Descriptor sets and draws the frame's raster passes share.

use crate::builder::{BufferRef, ImageRef, PassContext};
use crate::gpu::pipelines::set_viewport;
use crate::RenderError;
use ash::vk;

/// Set 0 of the scene and lighting shaders: frame constants and point lights.
pub(crate) fn frame_set(
    pc: &mut PassContext<'_, '_>,
    layout: vk::DescriptorSetLayout,
    ubo: BufferRef,
    lights: BufferRef,
) -> Result<vk::DescriptorSet, RenderError> {
    let set = pc.frame.descriptor_set(layout)?;
    let ubo_info = [vk::DescriptorBufferInfo {
        buffer: pc.buffer(ubo)?,
        offset: 0,
        range: vk::WHOLE_SIZE,
    }];
    let light_info = [vk::DescriptorBufferInfo {
        buffer: pc.buffer(lights)?,
        offset: 0,
        range: vk::WHOLE_SIZE,
    }];
    let writes = [
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
            .buffer_info(&ubo_info),
        vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(1)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .buffer_info(&light_info),
    ];
    // SAFETY: a set allocated for this frame slot, not yet bound; live buffers.
    unsafe { pc.gpu.device.update_descriptor_sets(&writes, &[]) };
    Ok(set)
}

/// A set of `images` as input attachments (binding i is `images[i]`), in the layouts of
/// this subpass.
pub(crate) fn input_set(
    pc: &mut PassContext<'_, '_>,
    layout: vk::DescriptorSetLayout,
    images: &[ImageRef],
) -> Result<vk::DescriptorSet, RenderError> {
    let set = pc.frame.descriptor_set(layout)?;
    let mut infos = Vec::with_capacity(images.len());
    for &im in images {
        let r = pc.image(im)?;
        let layout = if r.format.is_depth_stencil() {
            vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
        } else {
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
        };
        infos.push([vk::DescriptorImageInfo {
            sampler: vk::Sampler::null(),
            image_view: r.attachment_view,
            image_layout: layout,
        }]);
    }
    let writes: Vec<vk::WriteDescriptorSet> = infos
        .iter()
        .enumerate()
        .map(|(b, info)| {
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(b as u32)
                .descriptor_type(vk::DescriptorType::INPUT_ATTACHMENT)
                .image_info(info)
        })
        .collect();
    // SAFETY: a set allocated for this frame slot, not yet bound; the views are the
    // framebuffer's attachment views, in the layouts of this subpass.
    unsafe { pc.gpu.device.update_descriptor_sets(&writes, &[]) };
    Ok(set)
}

/// Draws the full-screen triangle with `pipeline` and its `layout`, the descriptor `sets`
/// from set 0, and `push` as fragment push constants (lighting, tone mapping).
pub(crate) fn draw_fullscreen(
    pc: &PassContext<'_, '_>,
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

/// A set of the shadow atlas with the comparison sampler.
pub(crate) fn shadow_set(
    pc: &mut PassContext<'_, '_>,
    layout: vk::DescriptorSetLayout,
    sampler: vk::Sampler,
    atlas: ImageRef,
) -> Result<vk::DescriptorSet, RenderError> {
    let set = pc.frame.descriptor_set(layout)?;
    let info = [vk::DescriptorImageInfo {
        sampler,
        image_view: pc.image(atlas)?.shader_view,
        image_layout: vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL,
    }];
    let write = vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(0)
        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .image_info(&info);
    // SAFETY: a set allocated for this frame slot, not yet bound; the plan puts the atlas in
    // the read-only depth layout for the passes that sample it.
    unsafe { pc.gpu.device.update_descriptor_sets(&[write], &[]) };
    Ok(set)
}
