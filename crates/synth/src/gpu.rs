//! The synthetic pass bodies on the GPU: one pipeline and descriptor set per pass, compiled
//! from the generated GLSL with shaderc; transfer passes clear, fill or copy. At the end of
//! every frame the compared resources are copied into a host-visible readback buffer of the
//! frame slot; when the frame is done they are decoded and compared with the CPU model.

use super::desc::{copy_source, Shape, SynthPass};
use super::glsl;
use super::model::{Content, Model};
use super::values::{self, class, key, mix, Class, HEADER};
use ash::vk;
use gpu_allocator::vulkan::Allocation;
use std::collections::HashMap;
use tessera_graph::access::Access;
use tessera_graph::{PassId, PassKind, QueueKind};
use tessera_vk::device::Gpu;
use tessera_vk::executor::{FrameEnd, PassBodies, PassSetup, RecordContext};
use tessera_vk::resources::Res;
use tessera_vk::{conv, VkError};

struct Prepared {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    set: vk::DescriptorSet,
    /// (binding, type, resource, access) of each descriptor.
    bindings: Vec<Binding>,
    /// The object each binding's resource had when `set` was written.
    bound: Vec<Res>,
}

/// One descriptor of a pass: (binding, type, resource, access).
type Binding = (u32, vk::DescriptorType, usize, Access);

/// One compared resource: where it lands in the readback buffer.
#[derive(Clone, Debug)]
struct Compared {
    resource: usize,
    name: String,
    offset: u64,
    bytes: u64,
}

/// The synthetic bodies with their model and comparison state.
pub struct SynthBodies {
    passes: HashMap<PassId, SynthPass>,
    prepared: HashMap<PassId, Prepared>,
    vert: Option<vk::ShaderModule>,
    sampler: vk::Sampler,
    pool: vk::DescriptorPool,
    model: Model,
    compared: Vec<Compared>,
    readback: Vec<(vk::Buffer, Option<Allocation>)>,
    expected: HashMap<u64, Vec<Content>>,
    /// Mismatching values over every checked frame.
    pub mismatches: u64,
    /// Values compared over every checked frame.
    pub compared_values: u64,
    /// Frames checked.
    pub frames_checked: u64,
    /// First mismatches, in words.
    pub notes: Vec<String>,
    /// Compared resources of which a frame had no defined value in the model (each named
    /// once, with the first such frame): the oracle checked nothing there, a failure.
    pub empty: Vec<String>,
}

impl std::fmt::Debug for SynthBodies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SynthBodies")
            .field("passes", &self.passes.len())
            .field("mismatches", &self.mismatches)
            .finish()
    }
}

fn compile(src: &str, stage: vk::ShaderStageFlags, name: &str) -> Result<Vec<u32>, VkError> {
    tessera_vk::shader::compile_glsl(src, name, stage, &[], None)
        .map_err(|e| VkError::Shader(format!("{e}\n{src}")))
}

use tessera_vk::shader::module;

impl SynthBodies {
    /// Bodies for `passes` (execution order), checked against `model`; `compared` lists the
    /// resources read back every frame (index, name); the read-back buffers are written from
    /// the queues of both `families` (graphics, async compute).
    pub fn new(
        gpu: &Gpu,
        passes: Vec<(PassId, SynthPass)>,
        model: Model,
        compared: &[(usize, String)],
        families: [u32; 2],
    ) -> Result<SynthBodies, VkError> {
        let vsrc = include_str!("../../../shaders/synth_fullscreen.vert");
        let vwords = compile(vsrc, vk::ShaderStageFlags::VERTEX, "synth_fullscreen.vert")?;
        let sampler_info = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE);
        // SAFETY: complete create info.
        let sampler = unsafe { gpu.device.create_sampler(&sampler_info, None) }?;
        let n = passes.len().max(1) as u32;
        let sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                descriptor_count: 16 * n,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::INPUT_ATTACHMENT,
                descriptor_count: 16 * n,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_IMAGE,
                descriptor_count: 16 * n,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 16 * n,
            },
        ];
        let pool_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(n)
            .pool_sizes(&sizes);
        // SAFETY: complete create info.
        let pool = unsafe { gpu.device.create_descriptor_pool(&pool_info, None) }?;
        let mut me = SynthBodies {
            passes: passes.into_iter().collect(),
            prepared: HashMap::new(),
            vert: None,
            sampler,
            pool,
            model,
            compared: Vec::new(),
            readback: Vec::new(),
            expected: HashMap::new(),
            mismatches: 0,
            compared_values: 0,
            frames_checked: 0,
            notes: Vec::new(),
            empty: Vec::new(),
        };
        me.vert = Some(module(gpu, &vwords, "synth_fullscreen.vert")?);
        let mut offset = 0u64;
        for (r, name) in compared {
            let shape = me.model.shape(*r);
            let bytes = match shape {
                Shape::Image { format, w, h, .. } => {
                    u64::from(values::copy_bytes(format).unwrap_or(4)) * u64::from(w * h)
                }
                Shape::Buffer { words } => 4 * u64::from(words),
            };
            me.compared.push(Compared {
                resource: *r,
                name: name.clone(),
                offset,
                bytes,
            });
            offset += bytes.div_ceil(16) * 16;
        }
        for k in 0..2 {
            let (b, alloc) = tessera_vk::resources::host_buffer(
                gpu,
                offset.max(16),
                vk::BufferUsageFlags::TRANSFER_DST,
                families,
                &format!("readback slot {k}"),
            )?;
            me.readback.push((b, Some(alloc)));
        }
        Ok(me)
    }

    /// Uploads the initial content of imported resources (before frame 0) and leaves each
    /// image in the layout the frame ends in, owned by the queue of its last access in the
    /// frame (where a frame leaves it). Depth images cannot be cleared on a compute-only
    /// family: those are cleared on graphics and handed over.
    pub fn init_imported(
        &mut self,
        exec: &mut tessera_vk::executor::Executor,
        imported: &[(usize, String)],
    ) -> Result<(), VkError> {
        let end = exec.end_layouts().to_vec();
        let owner = exec.last_queues().to_vec();
        for (r, name) in imported {
            let shape = self.model.shape(*r);
            let Some(res) = exec.resources().and_then(|x| x.res.get(*r)).copied() else {
                return Err(VkError::Setup(format!("'{name}' has no object")));
            };
            let content = super::model::initial(name, &shape);
            let bytes: Vec<u8> = match shape {
                Shape::Buffer { .. } => content
                    .iter()
                    .flat_map(|v| v.unwrap_or(0).to_le_bytes())
                    .collect(),
                Shape::Image { .. } => Vec::new(),
            };
            let value = content.first().copied().flatten().unwrap_or(0);
            let at = if bytes.is_empty() {
                0
            } else {
                let Some(at) = exec.staging()?.reserve(bytes.len() as u64) else {
                    return Err(VkError::Setup(format!(
                        "'{name}' does not fit the staging ring"
                    )));
                };
                if let Some(m) = exec.staging()?.bytes_mut() {
                    m[at as usize..at as usize + bytes.len()].copy_from_slice(&bytes);
                }
                at
            };
            let end_layout = if end[*r] == vk::ImageLayout::UNDEFINED {
                vk::ImageLayout::GENERAL
            } else {
                end[*r]
            };
            let owner = owner[*r].unwrap_or(QueueKind::Graphics);
            let depth_on_compute = matches!(res, Res::Image(im) if im.format.is_depth_stencil())
                && exec.family(owner) != exec.family(QueueKind::Graphics);
            let queue = if depth_on_compute {
                QueueKind::Graphics
            } else {
                owner
            };
            exec.once_on(queue, |gpu, cmd, ring| {
                let d = &gpu.device;
                match res {
                    Res::Buffer(b) => {
                        let region = vk::BufferCopy {
                            src_offset: at,
                            dst_offset: 0,
                            size: bytes.len() as u64,
                        };
                        // SAFETY: recording a copy between live buffers inside their sizes.
                        unsafe { d.cmd_copy_buffer(cmd, ring.buffer, b.buffer, &[region]) };
                        let mb = [vk::MemoryBarrier2::default()
                            .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                            .dst_access_mask(
                                vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                            )];
                        // SAFETY: recording.
                        unsafe {
                            d.cmd_pipeline_barrier2(
                                cmd,
                                &vk::DependencyInfo::default().memory_barriers(&mb),
                            )
                        };
                    }
                    Res::Image(im) => {
                        let to_dst = [vk::ImageMemoryBarrier2::default()
                            .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                            .old_layout(vk::ImageLayout::UNDEFINED)
                            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                            .image(im.image)
                            .subresource_range(im.range())];
                        let to_end = [vk::ImageMemoryBarrier2::default()
                            .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                            .dst_access_mask(
                                vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                            )
                            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                            .new_layout(end_layout)
                            .image(im.image)
                            .subresource_range(im.range())];
                        // SAFETY: recording transitions and a copy inside the image's bounds.
                        unsafe {
                            d.cmd_pipeline_barrier2(
                                cmd,
                                &vk::DependencyInfo::default().image_memory_barriers(&to_dst),
                            );
                            if im.format.is_depth_stencil() {
                                let v = vk::ClearDepthStencilValue {
                                    depth: value as f32 / 31.0,
                                    stencil: 0,
                                };
                                d.cmd_clear_depth_stencil_image(
                                    cmd,
                                    im.image,
                                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                    &v,
                                    &[im.range()],
                                );
                            } else {
                                let v = clear_color(im.format, value);
                                d.cmd_clear_color_image(
                                    cmd,
                                    im.image,
                                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                    &v,
                                    &[im.range()],
                                );
                            }
                            d.cmd_pipeline_barrier2(
                                cmd,
                                &vk::DependencyInfo::default().image_memory_barriers(&to_end),
                            );
                        }
                    }
                }
            })?;
            if depth_on_compute {
                exec.hand_over_image(*r, end_layout, QueueKind::Graphics, owner)?;
            }
        }
        Ok(())
    }

    fn prepare_shader_pass(
        &mut self,
        gpu: &Gpu,
        setup: &PassSetup,
        p: &SynthPass,
    ) -> Result<(), VkError> {
        let d = &gpu.device;
        let stage = if p.kind == PassKind::Compute {
            vk::ShaderStageFlags::COMPUTE
        } else {
            vk::ShaderStageFlags::FRAGMENT
        };
        let mut bindings = Vec::new();
        for u in &p.uses {
            let ty = match (u.access, u.shape) {
                (Access::Sampled, _) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                (Access::InputAttachment, _) => vk::DescriptorType::INPUT_ATTACHMENT,
                (
                    Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite,
                    Shape::Image { .. },
                ) => vk::DescriptorType::STORAGE_IMAGE,
                (
                    Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite,
                    Shape::Buffer { .. },
                ) => vk::DescriptorType::STORAGE_BUFFER,
                _ => continue,
            };
            bindings.push((u.j, ty, u.resource, u.access));
        }
        let lb: Vec<vk::DescriptorSetLayoutBinding> = bindings
            .iter()
            .map(|&(j, ty, _, _)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(j)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(stage)
            })
            .collect();
        // SAFETY: complete create info pointing at locals.
        let set_layout = unsafe {
            d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&lb),
                None,
            )
        }?;
        let layouts = [set_layout];
        let push = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: 4,
        }];
        let mut pl_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
        if p.kind == PassKind::Compute {
            pl_info = pl_info.push_constant_ranges(&push);
        }
        // SAFETY: as above.
        let layout = unsafe { d.create_pipeline_layout(&pl_info, None) }?;
        // SAFETY: the pool has room for one set per pass.
        let set = unsafe {
            d.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.pool)
                    .set_layouts(&layouts),
            )
        }?[0];
        let mut bound = Vec::with_capacity(bindings.len());
        for &(_, _, r, _) in &bindings {
            let use_ = setup.uses.iter().find(|u| u.resource.index() == r);
            match use_.map(|u| u.res) {
                Some(res) => bound.push(res),
                None => return Err(VkError::Setup(format!("pass '{}' lost a resource", p.name))),
            }
        }
        write_set(gpu, set, p.kind, &bindings, &bound, self.sampler);
        let src = glsl::shader(p)
            .ok_or_else(|| VkError::Setup("no shader for a transfer pass".into()))?;
        let words = compile(&src, stage, &p.name)?;
        let m = module(gpu, &words, &p.name)?;
        let entry = c"main";
        let pipeline = if p.kind == PassKind::Compute {
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(
                    vk::PipelineShaderStageCreateInfo::default()
                        .stage(vk::ShaderStageFlags::COMPUTE)
                        .module(m)
                        .name(entry),
                )
                .layout(layout);
            // SAFETY: complete create info.
            let r = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) };
            // SAFETY: the module is no longer needed once the pipeline exists.
            unsafe { d.destroy_shader_module(m, None) };
            r.map_err(|(_, e)| e)?[0]
        } else {
            let Some((rp, subpass, extent)) = setup.subpass else {
                return Err(VkError::Setup(format!(
                    "raster pass '{}' has no subpass",
                    p.name
                )));
            };
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(self.vert.unwrap_or_default())
                    .name(entry),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(m)
                    .name(entry),
            ];
            let vi = vk::PipelineVertexInputStateCreateInfo::default();
            let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
                .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
            let viewports = [vk::Viewport {
                x: 0.0,
                y: 0.0,
                width: extent.width as f32,
                height: extent.height as f32,
                min_depth: 0.0,
                max_depth: 1.0,
            }];
            let scissors = [vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent,
            }];
            let vp = vk::PipelineViewportStateCreateInfo::default()
                .viewports(&viewports)
                .scissors(&scissors);
            let rs = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .line_width(1.0);
            let samples = p
                .uses
                .iter()
                .find_map(|u| {
                    match (
                        u.access.is_attachment()
                            && u.access != Access::Resolve
                            && u.access != Access::InputAttachment,
                        u.shape,
                    ) {
                        (true, Shape::Image { samples, .. }) => Some(samples),
                        _ => None,
                    }
                })
                .unwrap_or(1);
            let ms = vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(
                conv::samples(samples).unwrap_or(vk::SampleCountFlags::TYPE_1),
            );
            let depth_use = p
                .uses
                .iter()
                .find(|u| matches!(u.access, Access::DepthWrite | Access::DepthRead));
            let ds = vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(depth_use.is_some())
                .depth_write_enable(depth_use.is_some_and(|u| u.access == Access::DepthWrite))
                .depth_compare_op(vk::CompareOp::ALWAYS);
            // Partial colour writes blend with the shader's alpha (0 keeps the pixel).
            let blend: Vec<vk::PipelineColorBlendAttachmentState> = p
                .uses
                .iter()
                .filter(|u| {
                    matches!(
                        u.access,
                        Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite
                    )
                })
                .map(|u| {
                    let b = vk::PipelineColorBlendAttachmentState::default()
                        .color_write_mask(vk::ColorComponentFlags::RGBA);
                    if super::desc::partial(u) {
                        b.blend_enable(true)
                            .src_color_blend_factor(vk::BlendFactor::SRC_ALPHA)
                            .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
                            .color_blend_op(vk::BlendOp::ADD)
                            .src_alpha_blend_factor(vk::BlendFactor::ONE)
                            .dst_alpha_blend_factor(vk::BlendFactor::ZERO)
                            .alpha_blend_op(vk::BlendOp::ADD)
                    } else {
                        b
                    }
                })
                .collect();
            let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
            let info = vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vi)
                .input_assembly_state(&ia)
                .viewport_state(&vp)
                .rasterization_state(&rs)
                .multisample_state(&ms)
                .depth_stencil_state(&ds)
                .color_blend_state(&cb)
                .layout(layout)
                .render_pass(rp)
                .subpass(subpass);
            // SAFETY: complete create info; the render pass is live.
            let r =
                unsafe { d.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) };
            // SAFETY: as above.
            unsafe { d.destroy_shader_module(m, None) };
            r.map_err(|(_, e)| e)?[0]
        };
        gpu.name(pipeline, &p.name);
        self.prepared.insert(
            setup.id,
            Prepared {
                set_layout,
                layout,
                pipeline,
                set,
                bindings,
                bound,
            },
        );
        Ok(())
    }

    /// Records a transfer pass with this frame's objects (`objects`, indexed by resource).
    fn record_transfer(
        &self,
        gpu: &Gpu,
        setup: &PassSetup,
        p: &SynthPass,
        objects: &[Res],
        cmd: vk::CommandBuffer,
    ) {
        let d = &gpu.device;
        let res = |r: usize| {
            setup
                .uses
                .iter()
                .find(|u| u.resource.index() == r)
                .and_then(|_| objects.get(r).copied())
        };
        for dst in p.uses.iter().filter(|u| u.access == Access::TransferDst) {
            let Some(dres) = res(dst.resource) else {
                continue;
            };
            match (copy_source(p, dst), dres) {
                (Some(src), Res::Buffer(db)) => {
                    if let Some(Res::Buffer(sb)) = res(src.resource) {
                        let region = vk::BufferCopy {
                            src_offset: 0,
                            dst_offset: 0,
                            size: sb.size.min(db.size) / 4 * 4,
                        };
                        // SAFETY: recording a copy inside both buffers.
                        unsafe { d.cmd_copy_buffer(cmd, sb.buffer, db.buffer, &[region]) };
                    }
                }
                (Some(src), Res::Image(di)) => {
                    if let Some(Res::Image(si)) = res(src.resource) {
                        let aspect = if di.format.has_depth() {
                            vk::ImageAspectFlags::DEPTH
                        } else {
                            vk::ImageAspectFlags::COLOR
                        };
                        let sub = vk::ImageSubresourceLayers {
                            aspect_mask: aspect,
                            mip_level: 0,
                            base_array_layer: 0,
                            layer_count: 1,
                        };
                        let region = vk::ImageCopy {
                            src_subresource: sub,
                            dst_subresource: sub,
                            extent: vk::Extent3D {
                                width: si.extent.width.min(di.extent.width),
                                height: si.extent.height.min(di.extent.height),
                                depth: 1,
                            },
                            ..Default::default()
                        };
                        // SAFETY: recording a copy between images in the planned layouts.
                        unsafe {
                            d.cmd_copy_image(
                                cmd,
                                si.image,
                                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                                di.image,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                &[region],
                            )
                        };
                    }
                }
                (None, Res::Buffer(db)) => {
                    let v = mix(key(&p.name), dst.j);
                    let header: Vec<u8> = HEADER.iter().flat_map(|w| w.to_le_bytes()).collect();
                    // SAFETY: recording a fill of the data words and an update of the
                    // header: disjoint ranges inside the buffer.
                    unsafe {
                        if db.size > 16 {
                            d.cmd_fill_buffer(cmd, db.buffer, 16, (db.size - 16) / 4 * 4, v);
                        }
                        d.cmd_update_buffer(
                            cmd,
                            db.buffer,
                            0,
                            &header[..(db.size.min(16) as usize / 4 * 4)],
                        );
                    }
                }
                (None, Res::Image(di)) => {
                    let v = mix(key(&p.name), dst.j) & 31;
                    let mut range = di.range();
                    // SAFETY: recording clears of an image in TRANSFER_DST_OPTIMAL.
                    unsafe {
                        if di.format.is_depth_stencil() {
                            range.aspect_mask = conv::aspects(di.format);
                            let value = vk::ClearDepthStencilValue {
                                depth: v as f32 / 31.0,
                                stencil: 0,
                            };
                            d.cmd_clear_depth_stencil_image(
                                cmd,
                                di.image,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                &value,
                                &[range],
                            );
                        } else {
                            let value = clear_color(di.format, v);
                            d.cmd_clear_color_image(
                                cmd,
                                di.image,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                &value,
                                &[range],
                            );
                        }
                    }
                }
            }
        }
    }
}

impl SynthBodies {
    /// Clears the attachments of raster pass `p` that the executor marks
    /// [`tessera_vk::executor::PassUse::mid_clear`] (no load operation can clear them), with their
    /// clear values, over the render area.
    fn clear_in_subpass(
        &self,
        gpu: &Gpu,
        p: &SynthPass,
        setup: &PassSetup,
        extent: vk::Extent2D,
        cmd: vk::CommandBuffer,
    ) {
        let mut color = 0u32;
        let mut clears = Vec::new();
        for u in &p.uses {
            let slot = match u.access {
                Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite => {
                    color += 1;
                    Some(color - 1)
                }
                _ => None,
            };
            let Some(su) = setup
                .uses
                .iter()
                .find(|s| s.resource.index() == u.resource && s.mid_clear)
            else {
                continue;
            };
            let Shape::Image { format, .. } = u.shape else {
                continue;
            };
            match (u.access, slot) {
                (_, Some(slot)) => clears.push(vk::ClearAttachment {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    color_attachment: slot,
                    clear_value: su.clear_value,
                }),
                (Access::DepthWrite, None) => clears.push(vk::ClearAttachment {
                    aspect_mask: conv::aspects(format),
                    color_attachment: 0,
                    clear_value: su.clear_value,
                }),
                _ => {}
            }
        }
        if clears.is_empty() {
            return;
        }
        let rect = vk::ClearRect {
            rect: vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent,
            },
            base_array_layer: 0,
            layer_count: 1,
        };
        // SAFETY: recording inside the pass's subpass; each entry names one of its colour
        // attachments (by use order, as `render` numbers them) or its depth attachment.
        unsafe { gpu.device.cmd_clear_attachments(cmd, &clears, &[rect]) };
    }
}

/// The clear colour that stores `v` in a format.
fn clear_color(f: tessera_graph::Format, v: u32) -> vk::ClearColorValue {
    match class(f) {
        Class::Float => vk::ClearColorValue {
            float32: [v as f32 / 31.0, 0.0, 0.0, 1.0],
        },
        Class::Uint => vk::ClearColorValue {
            uint32: [v, 0, 0, 1],
        },
        Class::Sint => vk::ClearColorValue {
            int32: [v as i32, 0, 0, 1],
        },
    }
}

impl SynthBodies {
    fn prepare(&mut self, gpu: &Gpu, setup: &PassSetup) -> Result<(), VkError> {
        let p = self
            .passes
            .get(&setup.id)
            .cloned()
            .ok_or_else(|| VkError::Setup(format!("no synthetic pass '{}'", setup.name)))?;
        if p.kind != PassKind::Transfer {
            self.prepare_shader_pass(gpu, setup, &p)?;
        }
        Ok(())
    }

    /// Destroys the pipelines and frees the descriptor sets (no frame in flight).
    fn drop_prepared(&mut self, gpu: &Gpu) {
        let d = &gpu.device;
        // SAFETY: no frame in flight uses them (the executor waited before a rebuild or a
        // teardown); everything below was created by these bodies.
        unsafe {
            for (_, p) in self.prepared.drain() {
                d.destroy_pipeline(p.pipeline, None);
                d.destroy_pipeline_layout(p.layout, None);
                d.destroy_descriptor_set_layout(p.set_layout, None);
            }
            let _ = d.reset_descriptor_pool(self.pool, vk::DescriptorPoolResetFlags::empty());
        }
    }
}

impl PassBodies for SynthBodies {
    fn rebuilt(&mut self, gpu: &Gpu, passes: &[PassSetup]) -> Result<(), VkError> {
        self.drop_prepared(gpu);
        for s in passes {
            self.prepare(gpu, s)?;
        }
        Ok(())
    }

    fn record(
        &mut self,
        ctx: &mut RecordContext<'_>,
        setup: &PassSetup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        let gpu = ctx.gpu;
        let Some(p) = self.passes.get(&setup.id) else {
            return Err(VkError::Setup(format!(
                "no synthetic pass '{}'",
                setup.name
            )));
        };
        let d = &gpu.device;
        let indirect = p
            .indirect()
            .and_then(|u| setup.uses.iter().find(|s| s.resource.index() == u.resource))
            .and_then(|u| match ctx.resources()[u.resource.index()] {
                Res::Buffer(b) => Some(b.buffer),
                Res::Image(_) => None,
            });
        match p.kind {
            PassKind::Transfer => self.record_transfer(gpu, setup, p, ctx.resources(), cmd),
            PassKind::Raster | PassKind::Compute => {
                let Some(pr) = self.prepared.get(&setup.id) else {
                    return Err(VkError::Setup(format!(
                        "pass '{}' has no pipeline",
                        setup.name
                    )));
                };
                if let Some((_, _, extent)) = setup.subpass {
                    self.clear_in_subpass(gpu, p, setup, extent, cmd);
                }
                let bp = conv::bind_point(p.kind).unwrap_or(vk::PipelineBindPoint::COMPUTE);
                // A resource the plan doubles for overlapping frames is another object on
                // odd frames: a set of this frame's then.
                let now: Vec<Res> = pr.bindings.iter().map(|b| ctx.resources()[b.2]).collect();
                let set = if now.iter().zip(&pr.bound).all(|(a, b)| same_object(a, b)) {
                    pr.set
                } else {
                    let set = ctx.descriptor_set(pr.set_layout)?;
                    write_set(gpu, set, p.kind, &pr.bindings, &now, self.sampler);
                    set
                };
                // SAFETY: recording with live pipeline, layout and set; raster passes are
                // inside their subpass, compute passes outside any render pass.
                unsafe {
                    d.cmd_bind_pipeline(cmd, bp, pr.pipeline);
                    d.cmd_bind_descriptor_sets(cmd, bp, pr.layout, 0, &[set], &[]);
                    if p.kind == PassKind::Raster {
                        match indirect {
                            // The header draws the same fullscreen triangle once.
                            Some(b) => d.cmd_draw_indirect(cmd, b, 0, 1, 16),
                            None => d.cmd_draw(cmd, 3, 1, 0, 0),
                        }
                    } else {
                        d.cmd_push_constants(
                            cmd,
                            pr.layout,
                            vk::ShaderStageFlags::COMPUTE,
                            0,
                            &0u32.to_le_bytes(),
                        );
                        d.cmd_dispatch(cmd, p.domain.0.div_ceil(8), p.domain.1.div_ceil(8), 1);
                        if let Some(b) = indirect {
                            // The indirect read happens; the invocations do nothing.
                            d.cmd_push_constants(
                                cmd,
                                pr.layout,
                                vk::ShaderStageFlags::COMPUTE,
                                0,
                                &1u32.to_le_bytes(),
                            );
                            d.cmd_dispatch_indirect(cmd, b, 0);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn end_frame(
        &mut self,
        ctx: &mut RecordContext<'_>,
        exec: &FrameEnd<'_>,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        let (gpu, frame) = (ctx.gpu, ctx.frame);
        // Called once per queue with work; the model steps once per frame.
        if !self.expected.contains_key(&frame) {
            self.model.frame();
            self.expected.insert(
                frame,
                self.compared
                    .iter()
                    .map(|c| self.model.content[c.resource].clone())
                    .collect(),
            );
        }
        let d = &gpu.device;
        let rb = self.readback[(frame % 2) as usize].0;
        // Each resource is read back on the queue that last accessed it (an EXCLUSIVE image
        // is owned there), after the other queue's work of the frame.
        let mine = self
            .compared
            .iter()
            .filter(|c| exec.last_queue.get(c.resource).copied().flatten() == Some(exec.queue));
        for c in mine {
            // The frame's last accesses include attachment store operations at stages the
            // uses do not name: wait for everything, and let everything after wait for the copy.
            let last = vk::PipelineStageFlags2::ALL_COMMANDS;
            match ctx.resources()[c.resource] {
                Res::Buffer(b) => {
                    let to = [vk::MemoryBarrier2::default()
                        .src_stage_mask(last)
                        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                        .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                        .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)];
                    let back = [vk::MemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                        .dst_stage_mask(last)];
                    let region = vk::BufferCopy {
                        src_offset: 0,
                        dst_offset: c.offset,
                        size: c.bytes.min(b.size),
                    };
                    // SAFETY: recording outside render passes at the end of the frame.
                    unsafe {
                        d.cmd_pipeline_barrier2(
                            cmd,
                            &vk::DependencyInfo::default().memory_barriers(&to),
                        );
                        d.cmd_copy_buffer(cmd, b.buffer, rb, &[region]);
                        d.cmd_pipeline_barrier2(
                            cmd,
                            &vk::DependencyInfo::default().memory_barriers(&back),
                        );
                    }
                }
                Res::Image(im) => {
                    let end = exec.end_layouts[c.resource];
                    let aspect = if im.format.has_depth() {
                        vk::ImageAspectFlags::DEPTH
                    } else {
                        vk::ImageAspectFlags::COLOR
                    };
                    let to = [vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(last)
                        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                        .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                        .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
                        .old_layout(end)
                        .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                        .image(im.image)
                        .subresource_range(im.range())];
                    // The transition back is a write: make it visible to every later
                    // access (the next frame may only read the image, with no barrier).
                    let back = [vk::ImageMemoryBarrier2::default()
                        .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                        .dst_stage_mask(last)
                        .dst_access_mask(
                            vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                        )
                        .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
                        .new_layout(end)
                        .image(im.image)
                        .subresource_range(im.range())];
                    let region = vk::BufferImageCopy {
                        buffer_offset: c.offset,
                        image_subresource: vk::ImageSubresourceLayers {
                            aspect_mask: aspect,
                            mip_level: 0,
                            base_array_layer: 0,
                            layer_count: 1,
                        },
                        image_extent: vk::Extent3D {
                            width: im.extent.width,
                            height: im.extent.height,
                            depth: 1,
                        },
                        ..Default::default()
                    };
                    // SAFETY: as above; the image is in `end` at the end of the frame.
                    unsafe {
                        d.cmd_pipeline_barrier2(
                            cmd,
                            &vk::DependencyInfo::default().image_memory_barriers(&to),
                        );
                        d.cmd_copy_image_to_buffer(
                            cmd,
                            im.image,
                            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                            rb,
                            &[region],
                        );
                        d.cmd_pipeline_barrier2(
                            cmd,
                            &vk::DependencyInfo::default().image_memory_barriers(&back),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn frame_done(&mut self, _gpu: &Gpu, frame: u64) {
        let Some(expected) = self.expected.remove(&frame) else {
            return;
        };
        let Some(bytes) = self.readback[(frame % 2) as usize]
            .1
            .as_ref()
            .and_then(|a| a.mapped_slice())
        else {
            return;
        };
        self.frames_checked += 1;
        for (c, exp) in self.compared.iter().zip(expected) {
            let shape = self.model.shape(c.resource);
            let got: Vec<Option<u32>> = match shape {
                Shape::Buffer { .. } => bytes[c.offset as usize..(c.offset + c.bytes) as usize]
                    .chunks_exact(4)
                    .map(|w| Some(u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
                    .collect(),
                Shape::Image { format, .. } => {
                    let bpt = values::copy_bytes(format).unwrap_or(4) as usize;
                    bytes[c.offset as usize..(c.offset + c.bytes) as usize]
                        .chunks_exact(bpt)
                        .map(|t| values::decode(format, t))
                        .collect()
                }
            };
            let mut bad = 0u64;
            let mut defined = 0u64;
            for (i, (e, g)) in exp.iter().zip(&got).enumerate() {
                if let Some(e) = e {
                    self.compared_values += 1;
                    defined += 1;
                    if Some(*e) != *g {
                        bad += 1;
                        if self.notes.len() < 8 {
                            self.notes.push(format!(
                                "frame {frame}: '{}'[{i}] = {g:?}, model says {e}",
                                c.name
                            ));
                        }
                    }
                }
            }
            self.mismatches += bad;
            if defined == 0
                && !self
                    .empty
                    .iter()
                    .any(|n| n.starts_with(&format!("'{}':", c.name)))
            {
                self.empty.push(format!(
                    "'{}': its content survives the frame, but the model defines none of it \
                     (frame {frame})",
                    c.name
                ));
            }
        }
    }

    fn destroy(&mut self, gpu: &Gpu) {
        self.drop_prepared(gpu);
        let d = &gpu.device;
        // SAFETY: no frame in flight; everything below was created by these bodies.
        unsafe {
            if let Some(v) = self.vert.take() {
                d.destroy_shader_module(v, None);
            }
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_sampler(self.sampler, None);
            for (b, a) in self.readback.drain(..) {
                d.destroy_buffer(b, None);
                if let (Some(a), Some(al)) = (a, &gpu.allocator) {
                    if let Ok(mut al) = al.lock() {
                        let _ = al.free(a);
                    }
                }
            }
        }
    }
}

/// Whether two resource entries name the same Vulkan object.
fn same_object(a: &Res, b: &Res) -> bool {
    match (a, b) {
        (Res::Image(x), Res::Image(y)) => x.image == y.image && x.shader_view == y.shader_view,
        (Res::Buffer(x), Res::Buffer(y)) => x.buffer == y.buffer,
        _ => false,
    }
}

/// Writes `set`: each of `bindings` to its object in `objects` (same order).
fn write_set(
    gpu: &Gpu,
    set: vk::DescriptorSet,
    kind: PassKind,
    bindings: &[Binding],
    objects: &[Res],
    sampler: vk::Sampler,
) {
    let mut image_infos = Vec::new();
    let mut buffer_infos = Vec::new();
    for (&(_, ty, _, access), res) in bindings.iter().zip(objects) {
        match *res {
            Res::Image(im) => {
                let layout = access
                    .scope(kind, tessera_graph::access::Target::Image(im.format))
                    .layout
                    .map(conv::layout)
                    .unwrap_or(vk::ImageLayout::GENERAL);
                image_infos.push(vk::DescriptorImageInfo {
                    sampler: if ty == vk::DescriptorType::COMBINED_IMAGE_SAMPLER {
                        sampler
                    } else {
                        vk::Sampler::null()
                    },
                    image_view: im.shader_view,
                    image_layout: layout,
                });
            }
            Res::Buffer(b) => buffer_infos.push(vk::DescriptorBufferInfo {
                buffer: b.buffer,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }),
        }
    }
    let mut writes = Vec::new();
    let (mut ii, mut bi) = (0, 0);
    for &(j, ty, _, _) in bindings {
        let w = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(j)
            .descriptor_type(ty);
        if ty == vk::DescriptorType::STORAGE_BUFFER {
            writes.push(w.buffer_info(std::slice::from_ref(&buffer_infos[bi])));
            bi += 1;
        } else {
            writes.push(w.image_info(std::slice::from_ref(&image_infos[ii])));
            ii += 1;
        }
    }
    // SAFETY: the infos reference live views, buffers and the sampler; the set is not in
    // use by a pending command buffer (just allocated, or before the first frame).
    unsafe { gpu.device.update_descriptor_sets(&writes, &[]) };
}
