//! Pipelines described by their shader and bindings alone: the frame's compute passes and
//! its full-screen post passes (FXAA, debug views) need no hand-written layout each.
//!
//! A [`ShaderPipelines`] entry is keyed by its shader file, its bindings (descriptor types
//! of set 0, in binding order) and its push-constant size, and for full-screen pipelines by
//! the render pass and subpass as well; each is created on first use and kept for the
//! device's life (a render pass that survives a re-plan keeps its handle, so its pipelines
//! stay valid). Their set 0 is written by `super::descriptors`.

use super::commands::{destroy_modules, set_viewport};
use super::flat_pipeline::FlatPipeline;
use crate::builder::PassContext;
use crate::shaders::{ShaderSources, Stage};
use crate::RenderError;
use ash::vk;
use std::collections::HashMap;
use tessera_vk::Gpu;

/// A pipeline with its layout and the layout of its set 0.
#[derive(Clone, Copy, Debug)]
pub struct ShaderPipeline {
    /// The pipeline.
    pub pipeline: vk::Pipeline,
    /// Its layout (set 0, then push constants at offset 0 for the shader's stages).
    pub layout: vk::PipelineLayout,
    /// The layout of set 0.
    pub set_layout: vk::DescriptorSetLayout,
    stages: vk::ShaderStageFlags,
}

/// The descriptor types of a generic pipeline's set 0, binding 0 up, held inline: a
/// pipeline lookup every pass of every frame allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SetTypes {
    len: u8,
    types: [vk::DescriptorType; SetTypes::MAX],
}

impl SetTypes {
    /// The most bindings a generic pipeline's set has.
    pub const MAX: usize = 16;

    /// `types`, or `None` when there are more than [`SetTypes::MAX`].
    pub fn new(types: &[vk::DescriptorType]) -> Option<SetTypes> {
        let mut me = SetTypes {
            len: 0,
            types: [vk::DescriptorType::SAMPLER; SetTypes::MAX],
        };
        me.types.get_mut(..types.len())?.copy_from_slice(types);
        me.len = types.len() as u8;
        Some(me)
    }

    /// Appends `ty`; `false` (nothing appended) when full.
    pub fn push(&mut self, ty: vk::DescriptorType) -> bool {
        let Some(slot) = self.types.get_mut(self.len as usize) else {
            return false;
        };
        *slot = ty;
        self.len += 1;
        true
    }
}

impl Default for SetTypes {
    fn default() -> SetTypes {
        SetTypes::new(&[]).expect("empty fits")
    }
}

impl std::ops::Deref for SetTypes {
    type Target = [vk::DescriptorType];
    fn deref(&self) -> &[vk::DescriptorType] {
        &self.types[..self.len as usize]
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    shader: &'static str,
    bindings: SetTypes,
    push: u32,
    /// Render pass, subpass, colour attachments, samples.
    target: Option<(vk::RenderPass, u32, u32, u32)>,
}

/// Compute and full-screen pipelines by shader (device lifetime).
#[derive(Debug, Default)]
pub struct ShaderPipelines {
    pipelines: HashMap<Key, ShaderPipeline>,
    modules: HashMap<&'static str, (vk::ShaderModule, Stage)>,
    sources: ShaderSources,
    set_layouts: HashMap<(Vec<vk::DescriptorType>, vk::ShaderStageFlags), vk::DescriptorSetLayout>,
    layouts: Vec<vk::PipelineLayout>,
    /// Pipelines created so far.
    pub created: u64,
    /// Linear filtering, clamped (the executor's sampler cache owns it).
    pub linear: vk::Sampler,
    /// Nearest filtering, clamped (the executor's sampler cache owns it).
    pub nearest: vk::Sampler,
}

impl ShaderPipelines {
    fn module(
        &mut self,
        gpu: &Gpu,
        shader: &'static str,
        stage: Stage,
    ) -> Result<vk::ShaderModule, RenderError> {
        if let Some(&(m, _)) = self.modules.get(shader) {
            return Ok(m);
        }
        let words = self.sources.compile(shader, stage)?;
        let m = tessera_vk::shader::module(gpu, &words, shader)?;
        self.modules.insert(shader, (m, stage));
        Ok(m)
    }

    /// The sources the shaders compile from.
    pub fn sources(&self) -> &ShaderSources {
        &self.sources
    }

    /// Compiles every module made so far again, from `sources`, into new modules (the
    /// current ones stay in use). The first failure is the error, and nothing is left
    /// behind.
    pub fn compile_all(
        &self,
        gpu: &Gpu,
        sources: &ShaderSources,
    ) -> Result<Vec<(&'static str, vk::ShaderModule, Stage)>, RenderError> {
        let mut names: Vec<(&'static str, Stage)> =
            self.modules.iter().map(|(&n, &(_, s))| (n, s)).collect();
        names.sort_unstable_by_key(|&(n, _)| n);
        let words = names
            .iter()
            .map(|&(n, stage)| sources.compile(n, stage))
            .collect::<Result<Vec<_>, _>>()?;
        let mut made = Vec::with_capacity(names.len());
        for (&(name, stage), w) in names.iter().zip(&words) {
            match tessera_vk::shader::module(gpu, w, name) {
                Ok(m) => made.push((name, m, stage)),
                Err(e) => {
                    destroy_modules(gpu, made.into_iter().map(|(_, m, _)| m));
                    return Err(e.into());
                }
            }
        }
        Ok(made)
    }

    /// Destroys every pipeline (and its layout) and module, and takes `modules` (compiled
    /// from `sources`) and `sources` in their place: the next use creates its pipeline from
    /// the new code. The descriptor-set layouts stay (they do not depend on the code). The
    /// device must be idle.
    pub fn install(
        &mut self,
        gpu: &Gpu,
        modules: Vec<(&'static str, vk::ShaderModule, Stage)>,
        sources: ShaderSources,
    ) {
        // SAFETY: the device is idle (the caller waited); nothing uses these objects.
        unsafe {
            for (_, p) in self.pipelines.drain() {
                gpu.device.destroy_pipeline(p.pipeline, None);
            }
            for l in self.layouts.drain(..) {
                gpu.device.destroy_pipeline_layout(l, None);
            }
        }
        destroy_modules(gpu, self.modules.drain().map(|(_, (m, _))| m));
        self.modules = modules.into_iter().map(|(n, m, s)| (n, (m, s))).collect();
        self.sources = sources;
    }

    fn layouts(
        &mut self,
        gpu: &Gpu,
        bindings: &[vk::DescriptorType],
        stages: vk::ShaderStageFlags,
        push: u32,
    ) -> Result<(vk::DescriptorSetLayout, vk::PipelineLayout), RenderError> {
        let key = (bindings.to_vec(), stages);
        let set_layout = match self.set_layouts.get(&key) {
            Some(&l) => l,
            None => {
                let b: Vec<vk::DescriptorSetLayoutBinding> = bindings
                    .iter()
                    .enumerate()
                    .map(|(i, &ty)| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(i as u32)
                            .descriptor_type(ty)
                            .descriptor_count(1)
                            .stage_flags(stages)
                    })
                    .collect();
                let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&b);
                // SAFETY: a complete create info; destroyed in `destroy`.
                let l = unsafe { gpu.device.create_descriptor_set_layout(&info, None) }?;
                self.set_layouts.insert(key, l);
                l
            }
        };
        let ranges: Vec<vk::PushConstantRange> = (push > 0)
            .then_some(vk::PushConstantRange {
                stage_flags: stages,
                offset: 0,
                size: push,
            })
            .into_iter()
            .collect();
        let sets = [set_layout];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&sets)
            .push_constant_ranges(&ranges);
        // SAFETY: a complete create info over a live set layout; destroyed in `destroy`.
        let layout = unsafe { gpu.device.create_pipeline_layout(&info, None) }?;
        self.layouts.push(layout);
        Ok((set_layout, layout))
    }

    /// Names a new pipeline after its shader and keeps it under `key`.
    fn keep(
        &mut self,
        gpu: &Gpu,
        key: Key,
        pipeline: vk::Pipeline,
        (set_layout, layout): (vk::DescriptorSetLayout, vk::PipelineLayout),
        stages: vk::ShaderStageFlags,
    ) -> ShaderPipeline {
        gpu.name(pipeline, key.shader);
        let p = ShaderPipeline {
            pipeline,
            layout,
            set_layout,
            stages,
        };
        self.pipelines.insert(key, p);
        self.created += 1;
        p
    }

    /// The compute pipeline of `shader` (a `.comp` file of `shaders/render/`) with set 0 of
    /// `bindings` and `push` bytes of push constants.
    pub fn compute(
        &mut self,
        gpu: &Gpu,
        shader: &'static str,
        bindings: &[vk::DescriptorType],
        push: u32,
    ) -> Result<ShaderPipeline, RenderError> {
        let key = Key {
            shader,
            bindings: set_types(shader, bindings)?,
            push,
            target: None,
        };
        if let Some(&p) = self.pipelines.get(&key) {
            return Ok(p);
        }
        let module = self.module(gpu, shader, Stage::Compute)?;
        let stages = vk::ShaderStageFlags::COMPUTE;
        let (set_layout, layout) = self.layouts(gpu, bindings, stages, push)?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(stages)
            .module(module)
            .name(c"main");
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout);
        // SAFETY: a complete create info over a live module and layout; destroyed in
        // `destroy`.
        let pipeline = unsafe {
            gpu.device
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, e)| RenderError::from(e))?[0];
        Ok(self.keep(gpu, key, pipeline, (set_layout, layout), stages))
    }

    /// The full-screen pipeline of the fragment shader `shader` for the subpass `sp` of
    /// `rp`, writing `colors` attachments without blending (no depth), with set 0 of
    /// `bindings` and `push` bytes of fragment push constants, rasterizing `samples` per
    /// pixel (the subpass's attachments').
    #[allow(clippy::too_many_arguments)]
    pub fn screen(
        &mut self,
        gpu: &Gpu,
        shader: &'static str,
        bindings: &[vk::DescriptorType],
        push: u32,
        (rp, sp): (vk::RenderPass, u32),
        colors: u32,
        samples: u32,
    ) -> Result<ShaderPipeline, RenderError> {
        let rasterization = tessera_vk::conv::samples(samples).ok_or_else(|| {
            RenderError::Frame(format!("{samples} samples per pixel for {shader}"))
        })?;
        let key = Key {
            shader,
            bindings: set_types(shader, bindings)?,
            push,
            target: Some((rp, sp, colors, samples)),
        };
        if let Some(&p) = self.pipelines.get(&key) {
            return Ok(p);
        }
        let vert = self.module(gpu, "fullscreen.vert", Stage::Vertex)?;
        let frag = self.module(gpu, shader, Stage::Fragment)?;
        let stages = vk::ShaderStageFlags::FRAGMENT;
        let (set_layout, layout) = self.layouts(gpu, bindings, stages, push)?;
        let shader_stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vert)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(stages)
                .module(frag)
                .name(c"main"),
        ];
        let vertex = vk::PipelineVertexInputStateCreateInfo::default();
        let state = vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA);
        let blend = vec![state; colors as usize];
        let pipeline = FlatPipeline {
            stages: &shader_stages,
            vertex: &vertex,
            samples: rasterization,
            blend: &blend,
            layout,
            subpass: (rp, sp),
        }
        .create(gpu)?;
        Ok(self.keep(gpu, key, pipeline, (set_layout, layout), stages))
    }

    /// Destroys everything (device idle).
    pub fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: the device is idle; nothing uses these objects any more.
        unsafe {
            for (_, p) in self.pipelines.drain() {
                gpu.device.destroy_pipeline(p.pipeline, None);
            }
            for l in self.layouts.drain(..) {
                gpu.device.destroy_pipeline_layout(l, None);
            }
            for (_, l) in self.set_layouts.drain() {
                gpu.device.destroy_descriptor_set_layout(l, None);
            }
            for (_, (m, _)) in self.modules.drain() {
                gpu.device.destroy_shader_module(m, None);
            }
        }
    }
}

/// `bindings` inline, or an error naming `shader` when they are too many.
fn set_types(shader: &str, bindings: &[vk::DescriptorType]) -> Result<SetTypes, RenderError> {
    SetTypes::new(bindings).ok_or_else(|| {
        RenderError::Frame(format!(
            "{shader}: {} bindings in set 0, a generic pipeline has at most {}",
            bindings.len(),
            SetTypes::MAX
        ))
    })
}

impl ShaderPipeline {
    /// Binds the pipeline and `set` and pushes `push` (compute or graphics, by the stages).
    fn bind<S>(&self, pc: &PassContext<'_, '_, S>, set: vk::DescriptorSet, push: &[u8]) {
        let point = if self.stages == vk::ShaderStageFlags::COMPUTE {
            vk::PipelineBindPoint::COMPUTE
        } else {
            vk::PipelineBindPoint::GRAPHICS
        };
        let d = &pc.gpu.device;
        // SAFETY: recording in a pass this pipeline suits (outside a render pass for
        // compute, in its subpass otherwise); `set` has its set-0 layout; `push` fits.
        unsafe {
            d.cmd_bind_pipeline(pc.cmd, point, self.pipeline);
            d.cmd_bind_descriptor_sets(pc.cmd, point, self.layout, 0, &[set], &[]);
            if !push.is_empty() {
                d.cmd_push_constants(pc.cmd, self.layout, self.stages, 0, push);
            }
        }
    }

    /// Records a dispatch of `groups` workgroups with `set` and `push`.
    pub fn dispatch<S>(
        &self,
        pc: &PassContext<'_, '_, S>,
        set: vk::DescriptorSet,
        push: &[u8],
        groups: [u32; 3],
    ) {
        self.bind(pc, set, push);
        // SAFETY: recording outside a render pass with this compute pipeline bound.
        unsafe {
            pc.gpu
                .device
                .cmd_dispatch(pc.cmd, groups[0], groups[1], groups[2])
        };
    }

    /// Draws the full-screen triangle over `extent` with `set` and `push`.
    pub fn draw_fullscreen<S>(
        &self,
        pc: &PassContext<'_, '_, S>,
        extent: vk::Extent2D,
        set: vk::DescriptorSet,
        push: &[u8],
    ) {
        set_viewport(pc.gpu, pc.cmd, extent);
        self.bind(pc, set, push);
        // SAFETY: recording in the subpass this pipeline was made for.
        unsafe { pc.gpu.device.cmd_draw(pc.cmd, 3, 1, 0, 0) };
    }
}
