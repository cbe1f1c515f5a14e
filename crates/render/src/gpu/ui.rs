//! The egui pass's device objects (device lifetime, outside the graph): egui's textures as
//! renderer-owned `R8G8B8A8_SRGB` images with one descriptor set each, and the pass's
//! pipeline (one per render pass and subpass it is recorded in, kept for the device's life
//! like the generic pipelines: the executor's render-pass cache keeps a render pass's handle
//! across re-plans).
//!
//! Textures follow egui's [`egui::TexturesDelta`]: [`UiGpu::apply`] creates or replaces an
//! image for each whole `set` and patches a partial one (`pos`) into the texture's CPU copy,
//! then uploads the whole image again through the executor's staging ring (the ring's image
//! copies start from `UNDEFINED`, so a region cannot be written alone; egui's partial
//! updates are the font atlas growing, rare and small). Uploads go with the next frame's
//! submission, ordered before it on the queue. Freed textures (and replaced ones) are
//! retired and destroyed only once every frame that could still sample them has finished
//! ([`RETIRE_FRAMES`] frames later).

use super::flat_pipeline::FlatPipeline;
use crate::frame::ui::UiVertex;
use crate::RenderError;
use ash::vk;
use egui::{ImageData, TextureFilter, TextureId, TexturesDelta};
use std::collections::HashMap;
use tessera_vk::executor::Executor;
use tessera_vk::resources::OwnedImage;
use tessera_vk::Gpu;

/// Frames after which a retired texture is no longer in use by the GPU (the executor keeps
/// two frames in flight; one more for safety).
pub const RETIRE_FRAMES: u64 = 3;
/// Descriptor sets (textures) the pool holds at once.
const MAX_TEXTURES: u32 = 256;

/// One egui texture on the GPU.
#[derive(Debug)]
struct Texture {
    image: OwnedImage,
    set: vk::DescriptorSet,
    /// The texels (premultiplied sRGBA), kept for partial updates.
    pixels: Vec<u8>,
    size: [usize; 2],
}

/// egui's textures and the pass's pipeline.
#[derive(Debug)]
pub struct UiGpu {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pool: vk::DescriptorPool,
    linear: vk::Sampler,
    nearest: vk::Sampler,
    vert: vk::ShaderModule,
    frag: vk::ShaderModule,
    pipelines: HashMap<(vk::RenderPass, u32), vk::Pipeline>,
    textures: HashMap<TextureId, Texture>,
    /// Textures to destroy once the frame count reaches the number.
    retired: Vec<(u64, Texture)>,
}

fn sampler(gpu: &Gpu, filter: vk::Filter) -> Result<vk::Sampler, RenderError> {
    let info = vk::SamplerCreateInfo::default()
        .mag_filter(filter)
        .min_filter(filter)
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .max_lod(0.0);
    // SAFETY: a complete create info; destroyed in `UiGpu::destroy`.
    Ok(unsafe { gpu.device.create_sampler(&info, None) }?)
}

fn module(gpu: &Gpu, name: &str) -> Result<vk::ShaderModule, RenderError> {
    let words = crate::shaders::precompiled(name)
        .ok_or_else(|| RenderError::Frame(format!("no precompiled shader {name}")))?;
    Ok(tessera_vk::shader::module(gpu, &words, name)?)
}

impl UiGpu {
    /// Creates the layouts, samplers, pool and shader modules (no textures yet).
    pub fn new(gpu: &Gpu) -> Result<UiGpu, RenderError> {
        let mut ui = UiGpu {
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pool: vk::DescriptorPool::null(),
            linear: vk::Sampler::null(),
            nearest: vk::Sampler::null(),
            vert: vk::ShaderModule::null(),
            frag: vk::ShaderModule::null(),
            pipelines: HashMap::new(),
            textures: HashMap::new(),
            retired: Vec::new(),
        };
        match ui.create(gpu) {
            Ok(()) => Ok(ui),
            Err(e) => {
                ui.destroy(gpu);
                Err(e)
            }
        }
    }

    fn create(&mut self, gpu: &Gpu) -> Result<(), RenderError> {
        let d = &gpu.device;
        let bindings = [vk::DescriptorSetLayoutBinding::default()
            .binding(0)
            .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .descriptor_count(1)
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: a complete create info; destroyed in `destroy`.
        self.set_layout = unsafe { d.create_descriptor_set_layout(&info, None) }?;
        let push = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::VERTEX)
            .size(16)];
        let sets = [self.set_layout];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&sets)
            .push_constant_ranges(&push);
        // SAFETY: a complete create info with a live set layout; destroyed in `destroy`.
        self.layout = unsafe { d.create_pipeline_layout(&info, None) }?;
        let sizes = [vk::DescriptorPoolSize {
            ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            descriptor_count: MAX_TEXTURES,
        }];
        let info = vk::DescriptorPoolCreateInfo::default()
            .flags(vk::DescriptorPoolCreateFlags::FREE_DESCRIPTOR_SET)
            .max_sets(MAX_TEXTURES)
            .pool_sizes(&sizes);
        // SAFETY: a complete create info; destroyed in `destroy`.
        self.pool = unsafe { d.create_descriptor_pool(&info, None) }?;
        self.linear = sampler(gpu, vk::Filter::LINEAR)?;
        self.nearest = sampler(gpu, vk::Filter::NEAREST)?;
        self.vert = module(gpu, "ui.vert")?;
        self.frag = module(gpu, "ui.frag")?;
        Ok(())
    }

    /// Textures alive now.
    pub fn texture_count(&self) -> usize {
        self.textures.len()
    }

    /// The descriptor set of `id`'s texture, if egui set it.
    pub fn set_of(&self, id: TextureId) -> Option<vk::DescriptorSet> {
        self.textures.get(&id).map(|t| t.set)
    }

    /// The pipeline layout (set 0: the texture; 16 bytes of vertex push constants).
    pub fn layout(&self) -> vk::PipelineLayout {
        self.layout
    }

    /// Applies `delta.set` (uploads queued for the next frame); `delta.free` is applied by
    /// [`UiGpu::free`] after the frame that paints with it. `frame` is the renderer's frame
    /// count (when a replaced texture may be destroyed).
    pub fn apply(
        &mut self,
        gpu: &Gpu,
        exec: &mut Executor,
        delta: &TexturesDelta,
        frame: u64,
    ) -> Result<(), RenderError> {
        for (id, d) in &delta.set {
            let ImageData::Color(image) = &d.image;
            let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
            let filter = match d.options.magnification {
                TextureFilter::Nearest => self.nearest,
                TextureFilter::Linear => self.linear,
            };
            match (d.pos, self.textures.get_mut(id)) {
                (Some([x, y]), Some(t)) => {
                    // Patch the CPU copy, upload it whole.
                    let [w, h] = image.size;
                    let [tw, th] = t.size;
                    if x + w > tw || y + h > th {
                        return Err(RenderError::Frame(format!(
                            "egui texture {id:?}: a {w}x{h} update at ({x}, {y}) outside its {tw}x{th}"
                        )));
                    }
                    for row in 0..h {
                        let dst = ((y + row) * tw + x) * 4;
                        t.pixels[dst..dst + w * 4]
                            .copy_from_slice(&bytes[row * w * 4..(row + 1) * w * 4]);
                    }
                    let (img, fmt, ext) = (t.image.image, t.image.format, t.image.extent);
                    exec.upload_image(img, fmt, ext, &[&t.pixels])?;
                }
                (Some(_), None) => {
                    return Err(RenderError::Frame(format!(
                        "egui texture {id:?}: a partial update of a texture never set"
                    )));
                }
                (None, _) => {
                    let t = self.create_texture(gpu, exec, *id, bytes, image.size, filter)?;
                    if let Some(old) = self.textures.insert(*id, t) {
                        self.retired.push((frame + RETIRE_FRAMES, old));
                    }
                }
            }
        }
        Ok(())
    }

    fn create_texture(
        &mut self,
        gpu: &Gpu,
        exec: &mut Executor,
        id: TextureId,
        pixels: Vec<u8>,
        size: [usize; 2],
        sampler: vk::Sampler,
    ) -> Result<Texture, RenderError> {
        let extent = vk::Extent2D {
            width: size[0].max(1) as u32,
            height: size[1].max(1) as u32,
        };
        let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
        let name = format!("egui texture {id:?}");
        let mut image = OwnedImage::new(gpu, vk::Format::R8G8B8A8_SRGB, extent, 1, usage, &name)?;
        let layouts = [self.set_layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.pool)
            .set_layouts(&layouts);
        // SAFETY: a live pool and layout; the set is freed with the texture.
        let set = match unsafe { gpu.device.allocate_descriptor_sets(&info) } {
            Ok(s) => s[0],
            Err(e) => {
                image.destroy(gpu);
                return Err(e.into());
            }
        };
        let texture = Texture {
            image,
            set,
            pixels,
            size,
        };
        let images = [vk::DescriptorImageInfo {
            sampler,
            image_view: texture.image.view,
            image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        }];
        let write = vk::WriteDescriptorSet::default()
            .dst_set(set)
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .image_info(&images);
        // SAFETY: a fresh set no command buffer uses yet; a live view and sampler.
        unsafe { gpu.device.update_descriptor_sets(&[write], &[]) };
        let t = &texture;
        let pixels: &[u8] = if t.pixels.is_empty() {
            &[0, 0, 0, 0]
        } else {
            &t.pixels
        };
        if let Err(e) = exec.upload_image(t.image.image, t.image.format, t.image.extent, &[pixels])
        {
            self.destroy_texture(gpu, texture);
            return Err(e.into());
        }
        Ok(texture)
    }

    /// Retires the textures of `free` (after the frame that painted with them was
    /// submitted; `frame`: the renderer's frame count now).
    pub fn free(&mut self, free: &[TextureId], frame: u64) {
        for id in free {
            if let Some(t) = self.textures.remove(id) {
                self.retired.push((frame + RETIRE_FRAMES, t));
            }
        }
    }

    /// Destroys the retired textures whose frames have passed (`frame`: the renderer's
    /// frame count now).
    pub fn collect(&mut self, gpu: &Gpu, frame: u64) {
        let (done, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.retired)
            .into_iter()
            .partition(|(at, _)| *at <= frame);
        self.retired = keep;
        for (_, t) in done {
            self.destroy_texture(gpu, t);
        }
    }

    fn destroy_texture(&self, gpu: &Gpu, mut t: Texture) {
        // SAFETY: no frame in flight uses the set (retired long enough, or never used).
        if let Err(e) = unsafe { gpu.device.free_descriptor_sets(self.pool, &[t.set]) } {
            log::warn!("freeing an egui texture's descriptor set: {e}");
        }
        t.image.destroy(gpu);
    }

    /// The pass's pipeline for subpass `sp` of `rp` (one colour attachment, single-sampled,
    /// premultiplied-alpha blending, dynamic viewport and scissor).
    pub fn pipeline(
        &mut self,
        gpu: &Gpu,
        (rp, sp): (vk::RenderPass, u32),
    ) -> Result<vk::Pipeline, RenderError> {
        if let Some(&p) = self.pipelines.get(&(rp, sp)) {
            return Ok(p);
        }
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(self.vert)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(self.frag)
                .name(c"main"),
        ];
        let vertex_bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: std::mem::size_of::<UiVertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attribute = |location, format, offset| vk::VertexInputAttributeDescription {
            location,
            binding: 0,
            format,
            offset,
        };
        let attributes = [
            attribute(0, vk::Format::R32G32_SFLOAT, 0),
            attribute(1, vk::Format::R32G32_SFLOAT, 8),
            attribute(2, vk::Format::R8G8B8A8_UNORM, 16),
        ];
        let vertex = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&vertex_bindings)
            .vertex_attribute_descriptions(&attributes);
        // Premultiplied alpha: src × 1 + dst × (1 − src alpha), in linear (the target is sRGB).
        let state = vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)
            .blend_enable(true)
            .src_color_blend_factor(vk::BlendFactor::ONE)
            .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
            .color_blend_op(vk::BlendOp::ADD)
            .src_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_DST_ALPHA)
            .dst_alpha_blend_factor(vk::BlendFactor::ONE)
            .alpha_blend_op(vk::BlendOp::ADD);
        let pipeline = FlatPipeline {
            stages: &stages,
            vertex: &vertex,
            samples: vk::SampleCountFlags::TYPE_1,
            blend: &[state],
            layout: self.layout,
            subpass: (rp, sp),
        }
        .create(gpu)?;
        self.pipelines.insert((rp, sp), pipeline);
        Ok(pipeline)
    }

    /// Destroys everything (the device is idle).
    pub fn destroy(&mut self, gpu: &Gpu) {
        let textures: Vec<Texture> = self
            .textures
            .drain()
            .map(|(_, t)| t)
            .chain(self.retired.drain(..).map(|(_, t)| t))
            .collect();
        for mut t in textures {
            // The pool goes below, and its sets with it.
            t.image.destroy(gpu);
        }
        // SAFETY: the device is idle; nothing uses these objects any more; null handles are
        // ignored.
        unsafe {
            let d = &gpu.device;
            for (_, p) in self.pipelines.drain() {
                d.destroy_pipeline(p, None);
            }
            d.destroy_shader_module(self.vert, None);
            d.destroy_shader_module(self.frag, None);
            d.destroy_sampler(self.linear, None);
            d.destroy_sampler(self.nearest, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline_layout(self.layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
        }
        self.vert = vk::ShaderModule::null();
        self.frag = vk::ShaderModule::null();
        self.linear = vk::Sampler::null();
        self.nearest = vk::Sampler::null();
        self.pool = vk::DescriptorPool::null();
        self.layout = vk::PipelineLayout::null();
        self.set_layout = vk::DescriptorSetLayout::null();
    }
}
