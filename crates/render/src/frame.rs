//! The deferred frame, declared through the graph every frame:
//!
//! 1. `frame constants` (transfer): the camera, lights and shadow cascades into two
//!    transient buffers.
//! 2. `shadows` (raster, depth only, slope-scaled bias): the sun's three cascades side by
//!    side in one `D32_SFLOAT` atlas (`crate::shadows`), sampled with 3×3 PCF and blended
//!    across cascades by lighting and transparents. With shadows off the atlas is one texel
//!    per cascade and the pass only clears it: the switch changes sizes, not the graph.
//! 3. `gbuffer` (raster): albedo `R8G8B8A8_SRGB`, normal `A2B10G10R10_UNORM_PACK32`, material
//!    (metallic, roughness, occlusion) `R8G8B8A8_UNORM`, emission into HDR, depth
//!    `D32_SFLOAT` (reversed Z: cleared to 0, tested `GREATER`).
//! 4. `lighting` (raster): the G-buffer and depth as input attachments, the sun and point
//!    lights (Cook-Torrance GGX), the sun shadowed, added to HDR `B10G11R11_UFLOAT_PACK32`.
//! 5. `transparents` (raster, forward): blended over HDR with a read-only depth test.
//! 6. `tonemap` (raster): HDR as an input attachment, ACES fit, into the sRGB output.
//! 7. `readback` (transfer, when asked): the output into a host-visible buffer.
//!
//! On a tiler the four deferred raster passes merge into one render pass with the G-buffer
//! and depth memoryless (the shadow pass stays apart: its atlas is sampled at any pixel); elsewhere the plan is what the compiler decides (the same shaders: an input
//! attachment is read from a loaded attachment when passes do not merge).

use crate::builder::{BufferRef, FrameBuilder, ImageRef, ImportFlags, Size};
use crate::gpu::frame_data::{update_buffer, FrameData, PointLightData};
use crate::gpu::pipelines::{set_viewport, PipelineKind, Pipelines, DRAW_CONSTANTS};
use crate::gpu::scene::{Draw, SceneGpu};
use crate::RenderError;
use ash::vk;
use std::cell::RefCell;
use tessera_graph::{Format, PassKind};
use tessera_vk::Gpu;

/// The output image's format (sRGB: the hardware encodes).
pub const OUTPUT_FORMAT: Format = Format::R8G8B8A8_SRGB;
/// The HDR target's format.
pub const HDR_FORMAT: Format = Format::B10G11R11_UFLOAT_PACK32;

/// What the frame's passes draw with.
#[derive(Debug)]
pub struct FrameInputs<'a> {
    /// The uploaded scene.
    pub scene: &'a SceneGpu,
    /// Pipelines (created on first use in a subpass).
    pub pipelines: &'a RefCell<Pipelines>,
    /// Camera and sun.
    pub data: FrameData,
    /// Point lights this frame.
    pub lights: Vec<PointLightData>,
    /// Transparent draws, back to front.
    pub transparent: Vec<Draw>,
    /// Exposure before tone mapping.
    pub exposure: f32,
    /// Texels per side of each shadow cascade; 0: no shadows (the atlas is 1 texel, cleared).
    pub shadow_size: u32,
    /// The output's name in the graph.
    pub output_name: &'a str,
    /// Copy the output into the read-back buffer, declared as the imported buffer
    /// `readback` of this size.
    pub readback: Option<u64>,
}

/// The graph handles of the frame's imported resources, which the renderer hands to the
/// executor.
#[derive(Clone, Copy, Debug)]
pub struct Imports {
    /// The output image.
    pub output: ImageRef,
    /// The scene's vertex buffer.
    pub vertices: BufferRef,
    /// The scene's index buffer.
    pub indices: BufferRef,
    /// The read-back buffer, if declared.
    pub readback: Option<BufferRef>,
}

fn frame_set(
    pc: &mut crate::builder::PassContext<'_, '_>,
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

fn input_set(
    pc: &mut crate::builder::PassContext<'_, '_>,
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
fn draw_fullscreen(
    pc: &crate::builder::PassContext<'_, '_>,
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
fn shadow_set(
    pc: &mut crate::builder::PassContext<'_, '_>,
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

/// Records the opaque draws into each cascade of the shadow atlas (one viewport each).
fn draw_shadows(
    pc: &mut crate::builder::PassContext<'_, '_>,
    pipelines: &RefCell<Pipelines>,
    scene: &SceneGpu,
    ubo: BufferRef,
    buffers: (vk::Buffer, vk::Buffer),
    size: u32,
) -> Result<(), RenderError> {
    let (rp, sp, _) = pc.subpass()?;
    let (pipeline, layout, set_layout) = {
        let mut p = pipelines.borrow_mut();
        (
            p.get(pc.gpu, PipelineKind::Shadow, rp, sp)?,
            p.layouts.shadow,
            p.layouts.frame_constants,
        )
    };
    if scene.opaque.is_empty() {
        return Ok(());
    }
    let set = pc.frame.descriptor_set(set_layout)?;
    let info = [vk::DescriptorBufferInfo {
        buffer: pc.buffer(ubo)?,
        offset: 0,
        range: vk::WHOLE_SIZE,
    }];
    let write = vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(0)
        .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
        .buffer_info(&info);
    let d = &pc.gpu.device;
    // SAFETY: a fresh set of this frame slot; recording inside the shadow subpass with the
    // pipeline made for it; live buffers.
    unsafe {
        d.update_descriptor_sets(&[write], &[]);
        d.cmd_bind_pipeline(pc.cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_bind_descriptor_sets(
            pc.cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            0,
            &[set],
            &[],
        );
        d.cmd_bind_vertex_buffers(pc.cmd, 0, &[buffers.0], &[0]);
        d.cmd_bind_index_buffer(pc.cmd, buffers.1, 0, vk::IndexType::UINT32);
    }
    for cascade in 0..crate::shadows::CASCADES as u32 {
        let viewport = vk::Viewport {
            x: (cascade * size) as f32,
            y: size as f32,
            width: size as f32,
            height: -(size as f32),
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let scissor = vk::Rect2D {
            offset: vk::Offset2D {
                x: (cascade * size) as i32,
                y: 0,
            },
            extent: vk::Extent2D {
                width: size,
                height: size,
            },
        };
        // SAFETY: recording in the shadow subpass; the viewport lies inside the atlas.
        unsafe {
            d.cmd_set_viewport(pc.cmd, 0, &[viewport]);
            d.cmd_set_scissor(pc.cmd, 0, &[scissor]);
        }
        for draw in &scene.opaque {
            let mut push = [0f32; DRAW_CONSTANTS as usize / 4];
            push[..16].copy_from_slice(&draw.transform.to_cols_array());
            push[29] = cascade as f32;
            // SAFETY: the push range matches the shadow layout; indices lie in the buffer.
            unsafe {
                d.cmd_push_constants(
                    pc.cmd,
                    layout,
                    vk::ShaderStageFlags::VERTEX,
                    0,
                    bytemuck::cast_slice(&push),
                );
                d.cmd_draw_indexed(
                    pc.cmd,
                    draw.index_count,
                    1,
                    draw.first_index,
                    draw.vertex_offset,
                    0,
                );
            }
        }
    }
    Ok(())
}

/// Records `draws` with the mesh pipeline of each material (G-buffer or forward); `sets`
/// are the frame set and, for lit draws, the shadow set.
#[allow(clippy::too_many_arguments)]
fn draw_meshes(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    pipelines: &RefCell<Pipelines>,
    scene: &SceneGpu,
    draws: &[Draw],
    forward: bool,
    subpass: (vk::RenderPass, u32, vk::Extent2D),
    sets: &[vk::DescriptorSet],
    vertices: vk::Buffer,
    indices: vk::Buffer,
) -> Result<(), RenderError> {
    if draws.is_empty() {
        return Ok(());
    }
    let (rp, sp, extent) = subpass;
    let mut pipelines = pipelines.borrow_mut();
    let layout = pipelines.layouts.mesh;
    set_viewport(gpu, cmd, extent);
    // SAFETY: recording inside the subpass the pipelines were created for; live buffers.
    unsafe {
        gpu.device
            .cmd_bind_vertex_buffers(cmd, 0, &[vertices], &[0]);
        gpu.device
            .cmd_bind_index_buffer(cmd, indices, 0, vk::IndexType::UINT32);
        gpu.device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            0,
            &sets[..1],
            &[],
        );
        if let Some(&shadow) = sets.get(1) {
            gpu.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                2,
                &[shadow],
                &[],
            );
        }
    }
    let mut bound = None;
    for d in draws {
        let m = &scene.materials[d.material];
        let kind = if forward {
            PipelineKind::Forward {
                double_sided: m.double_sided,
            }
        } else {
            PipelineKind::GBuffer {
                double_sided: m.double_sided,
            }
        };
        let pipeline = pipelines.get(gpu, kind, rp, sp)?;
        let mut push = [0f32; DRAW_CONSTANTS as usize / 4];
        push[..16].copy_from_slice(&d.transform.to_cols_array());
        push[16..20].copy_from_slice(&m.base_color);
        push[20..24].copy_from_slice(&m.emissive);
        push[24..28].copy_from_slice(&m.params);
        push[28..32].copy_from_slice(&m.alpha);
        // SAFETY: recording in the pipeline's subpass; the material set is live for the
        // scene's life; the push range matches the layout.
        unsafe {
            if bound != Some(pipeline) {
                gpu.device
                    .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
                bound = Some(pipeline);
            }
            gpu.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                1,
                &[scene.material_sets[d.material]],
                &[],
            );
            gpu.device.cmd_push_constants(
                cmd,
                layout,
                vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                0,
                bytemuck::cast_slice(&push),
            );
            gpu.device
                .cmd_draw_indexed(cmd, d.index_count, 1, d.first_index, d.vertex_offset, 0);
        }
    }
    Ok(())
}

/// Declares the frame into `fb`.
pub fn declare<'a>(fb: &mut FrameBuilder<'a>, inputs: FrameInputs<'a>) -> Imports {
    let scene = inputs.scene;
    let pipelines = inputs.pipelines;
    let vertex_bytes = scene.vertices.size.max(16);
    let index_bytes = scene.indices.size.max(16);
    let vertices = fb.import_buffer("scene vertices", vertex_bytes, ImportFlags::default());
    let indices = fb.import_buffer("scene indices", index_bytes, ImportFlags::default());
    let output = fb.import_image(
        inputs.output_name,
        OUTPUT_FORMAT,
        Size::FULL,
        ImportFlags {
            clear_on_first_use: true,
            ..Default::default()
        },
    );
    let mut lights = inputs.lights;
    if lights.is_empty() {
        // A storage buffer may not be empty: one dark light the shader never reads.
        lights.push(PointLightData::point([0.0; 3], 0.0, [0.0; 3]));
    }
    let light_bytes = std::mem::size_of_val(lights.as_slice()) as u64;
    let ubo = fb.buffer("frame constants", std::mem::size_of::<FrameData>() as u64);
    let light_buffer = fb.buffer("point lights", light_bytes);
    let data = inputs.data;
    fb.pass("frame constants", PassKind::Transfer, |p| {
        p.copy_to(ubo).copy_to(light_buffer);
        move |pc| {
            update_buffer(pc.gpu, pc.cmd, pc.buffer(ubo)?, bytemuck::bytes_of(&data));
            update_buffer(
                pc.gpu,
                pc.cmd,
                pc.buffer(light_buffer)?,
                bytemuck::cast_slice(&lights),
            );
            Ok(())
        }
    });

    let cascade = inputs.shadow_size.max(1);
    let cascades = crate::shadows::CASCADES as u32;
    let atlas = fb.image(
        "shadow atlas",
        Format::D32_SFLOAT,
        Size::Fixed(cascade * cascades, cascade),
    );
    let draw_shadows_at = inputs.shadow_size;
    fb.pass("shadows", PassKind::Raster, |p| {
        p.depth_cleared(atlas, 1.0)
            .uniform(ubo)
            .vertices(vertices)
            .indices(indices);
        move |pc| {
            if draw_shadows_at == 0 {
                return Ok(());
            }
            let buffers = (pc.buffer(vertices)?, pc.buffer(indices)?);
            draw_shadows(pc, pipelines, scene, ubo, buffers, draw_shadows_at)
        }
    });
    let (shadow_layout, shadow_sampler) = {
        let p = pipelines.borrow();
        (p.layouts.shadow_map, p.shadow_sampler)
    };

    let albedo = fb.image("gbuffer albedo", Format::R8G8B8A8_SRGB, Size::FULL);
    let normal = fb.image(
        "gbuffer normal",
        Format::A2B10G10R10_UNORM_PACK32,
        Size::FULL,
    );
    let material = fb.image("gbuffer material", Format::R8G8B8A8_UNORM, Size::FULL);
    let hdr = fb.image("hdr", HDR_FORMAT, Size::FULL);
    let depth = fb.image("depth", Format::D32_SFLOAT, Size::FULL);
    let frame_layout = pipelines.borrow().layouts.frame;
    fb.pass("gbuffer", PassKind::Raster, |p| {
        p.color_cleared(albedo, [0.0; 4])
            .color_cleared(normal, [0.0; 4])
            .color_cleared(material, [0.0; 4])
            .color_cleared(hdr, [0.0; 4])
            .depth_cleared(depth, 0.0)
            .uniform(ubo)
            .vertices(vertices)
            .indices(indices);
        move |pc| {
            let subpass = pc.subpass()?;
            let set = frame_set(pc, frame_layout, ubo, light_buffer)?;
            draw_meshes(
                pc.gpu,
                pc.cmd,
                pipelines,
                scene,
                &scene.opaque,
                false,
                subpass,
                &[set],
                pc.buffer(vertices)?,
                pc.buffer(indices)?,
            )
        }
    });

    fb.pass("lighting", PassKind::Raster, |p| {
        p.input(albedo)
            .input(normal)
            .input(material)
            .input(depth)
            .blend(hdr)
            .uniform(ubo)
            .storage_read(light_buffer)
            .sampled(atlas);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let frame = frame_set(pc, frame_layout, ubo, light_buffer)?;
            let (pipeline, layout, inputs_layout) = {
                let mut p = pipelines.borrow_mut();
                (
                    p.get(pc.gpu, PipelineKind::Lighting, rp, sp)?,
                    p.layouts.lighting,
                    p.layouts.gbuffer_inputs,
                )
            };
            let inputs = input_set(pc, inputs_layout, &[albedo, normal, material, depth])?;
            let shadow = shadow_set(pc, shadow_layout, shadow_sampler, atlas)?;
            draw_fullscreen(
                pc,
                (pipeline, layout),
                extent,
                &[frame, inputs, shadow],
                &[],
            );
            Ok(())
        }
    });

    let transparent = inputs.transparent;
    fb.pass("transparents", PassKind::Raster, |p| {
        p.blend(hdr)
            .depth_read(depth)
            .uniform(ubo)
            .storage_read(light_buffer)
            .sampled(atlas)
            .vertices(vertices)
            .indices(indices);
        move |pc| {
            let subpass = pc.subpass()?;
            let set = frame_set(pc, frame_layout, ubo, light_buffer)?;
            let shadow = shadow_set(pc, shadow_layout, shadow_sampler, atlas)?;
            draw_meshes(
                pc.gpu,
                pc.cmd,
                pipelines,
                scene,
                &transparent,
                true,
                subpass,
                &[set, shadow],
                pc.buffer(vertices)?,
                pc.buffer(indices)?,
            )
        }
    });

    let exposure = inputs.exposure;
    fb.pass("tonemap", PassKind::Raster, |p| {
        p.input(hdr).color(output);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let (pipeline, layout, input_layout) = {
                let mut p = pipelines.borrow_mut();
                (
                    p.get(pc.gpu, PipelineKind::Tonemap, rp, sp)?,
                    p.layouts.tonemap,
                    p.layouts.hdr_input,
                )
            };
            let set = input_set(pc, input_layout, &[hdr])?;
            draw_fullscreen(
                pc,
                (pipeline, layout),
                extent,
                &[set],
                &exposure.to_le_bytes(),
            );
            Ok(())
        }
    });

    let readback = inputs.readback.map(|bytes| {
        let buffer = fb.import_buffer("readback", bytes, ImportFlags::default());
        fb.pass("readback", PassKind::Transfer, |p| {
            p.copy_from(output).copy_to(buffer);
            move |pc| {
                let im = pc.image(output)?;
                let dst = pc.buffer(buffer)?;
                let region = vk::BufferImageCopy {
                    buffer_offset: 0,
                    buffer_row_length: 0,
                    buffer_image_height: 0,
                    image_subresource: vk::ImageSubresourceLayers {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        mip_level: 0,
                        base_array_layer: 0,
                        layer_count: 1,
                    },
                    image_offset: vk::Offset3D::default(),
                    image_extent: vk::Extent3D {
                        width: im.extent.width,
                        height: im.extent.height,
                        depth: 1,
                    },
                };
                // The host reads the buffer after the frame's fence: make the copy visible
                // to it (host access is outside the graph's model).
                let to_host = [vk::BufferMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::COPY)
                    .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::HOST)
                    .dst_access_mask(vk::AccessFlags2::HOST_READ)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .buffer(dst)
                    .offset(0)
                    .size(vk::WHOLE_SIZE)];
                // SAFETY: recording outside a render pass; the plan put the image in
                // TRANSFER_SRC_OPTIMAL and ordered the copy after the tone mapping.
                unsafe {
                    pc.gpu.device.cmd_copy_image_to_buffer(
                        pc.cmd,
                        im.image,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        dst,
                        &[region],
                    );
                    pc.gpu.device.cmd_pipeline_barrier2(
                        pc.cmd,
                        &vk::DependencyInfo::default().buffer_memory_barriers(&to_host),
                    );
                }
                Ok(())
            }
        });
        buffer
    });
    Imports {
        output,
        vertices,
        indices,
        readback,
    }
}
