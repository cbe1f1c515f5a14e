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
    lit_frame_set(pc, layout, ubo, lights, None, None)
}

/// Set 0 of the lit shaders: frame constants, point lights and, for the shader variants
/// that read them, the light clusters (binding 2) and the SSAO image with its sampler
/// (binding 3); `layout` is the variant's (`Layouts::lit_frame`), which has exactly the
/// bindings given.
pub(crate) fn lit_frame_set(
    pc: &mut PassContext<'_, '_>,
    layout: vk::DescriptorSetLayout,
    ubo: BufferRef,
    lights: BufferRef,
    clusters: Option<BufferRef>,
    ssao: Option<(ImageRef, vk::Sampler)>,
) -> Result<vk::DescriptorSet, RenderError> {
    let set = pc.frame.descriptor_set(layout)?;
    let info = |buffer| {
        [vk::DescriptorBufferInfo {
            buffer,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }]
    };
    let ubo_info = info(pc.buffer(ubo)?);
    let light_info = info(pc.buffer(lights)?);
    let cluster_info = match clusters {
        Some(c) => Some(info(pc.buffer(c)?)),
        None => None,
    };
    let ssao_info = match ssao {
        Some((image, sampler)) => Some([vk::DescriptorImageInfo {
            sampler,
            image_view: pc.image(image)?.shader_view,
            image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        }]),
        None => None,
    };
    let mut writes = vec![
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
    if let Some(c) = &cluster_info {
        writes.push(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(2)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(c),
        );
    }
    if let Some(a) = &ssao_info {
        writes.push(
            vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(3)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .image_info(a),
        );
    }
    // SAFETY: a set allocated for this frame slot, not yet bound; live buffers; the plan
    // puts the SSAO image (colour, sampled) in SHADER_READ_ONLY_OPTIMAL for this pass.
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
