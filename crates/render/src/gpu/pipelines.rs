//! The renderer's pipelines, descriptor-set layouts and pipeline layouts (device lifetime).
//!
//! A pipeline is created the first time a pass records with it in a render pass and subpass,
//! and kept under the key (kind, render pass, subpass, samples: the subpass's attachments'
//! sample count, which its rasterization must match): the executor's render-pass cache gives
//! an unchanged render pass the same handle after a rebuild (a resize, a toggle that leaves
//! the pass alone), so those pipelines are reused. Viewport and scissor are dynamic, so a
//! resize creates no pipeline.

use super::commands::destroy_modules;
use super::generic::ShaderPipelines;
use crate::shaders::{ShaderSources, Stage};
use crate::RenderError;
use ash::vk;
use std::collections::HashMap;
use tessera_scene::Vertex;
use tessera_vk::Gpu;

/// Which pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PipelineKind {
    /// Opaque and masked surfaces into the G-buffer.
    GBuffer {
        /// No back-face culling.
        double_sided: bool,
        /// Also writes the motion vectors (`MOTION`, a fifth colour target: TAA).
        motion: bool,
    },
    /// Transparent surfaces, lit forward, blended into HDR.
    Forward {
        /// No back-face culling.
        double_sided: bool,
        /// Loops over the light cluster (`CLUSTERED`), not every light.
        clustered: bool,
    },
    /// The deferred lighting's full-screen triangle.
    Lighting {
        /// Loops over the light cluster (`CLUSTERED`), not every light.
        clustered: bool,
        /// Multiplies ambient by SSAO (`SSAO`).
        ao: bool,
    },
    /// Opaque and masked surfaces of the forward path, lit as drawn (`forward.frag#OPAQUE`).
    ForwardOpaque {
        /// No back-face culling.
        double_sided: bool,
        /// Loops over the light cluster (`CLUSTERED`), not every light.
        clustered: bool,
        /// Multiplies ambient by SSAO (`SSAO`).
        ao: bool,
        /// Also writes the motion vectors (`MOTION`, a second colour target: TAA at 1×).
        motion: bool,
    },
    /// The forward path's sky: a full-screen triangle at the far plane, drawn where no
    /// surface is (`sky.frag`); keyed by the opaque variant whose set 0 it shares.
    Sky {
        /// The opaque variant's `clustered`.
        clustered: bool,
        /// The opaque variant's `ao`.
        ao: bool,
        /// Writes no motion into the motion target (`MOTION`).
        motion: bool,
    },
    /// Tone mapping's full-screen triangle.
    Tonemap,
    /// The sun's shadow cascades: depth only, slope-scaled bias.
    Shadow,
    /// The SSAO depth prepass: the camera's depth only (reversed Z), no bias.
    DepthPrepass,
}

/// Bytes of the per-draw push constants (`Draw` in `material.glsl`).
pub const DRAW_CONSTANTS: u32 = 128;
/// Bytes of the mesh shaders' push constants with the previous model matrix after `Draw`
/// (`mesh.vert#OBJECT_MOTION`), where the device allows that many.
pub const MOTION_DRAW_CONSTANTS: u32 = DRAW_CONSTANTS + 64;

/// Layouts of the renderer's descriptor sets and pipelines.
#[derive(Debug)]
pub struct Layouts {
    /// Set 0 of the G-buffer shaders: frame constants and point lights.
    pub frame: vk::DescriptorSetLayout,
    /// Set 0 of the lit shaders' variants, by [`variant_index`]: frame constants, point
    /// lights, light clusters (binding 2, `CLUSTERED`) and SSAO (binding 3, `SSAO`); a
    /// variant's layout has only the bindings it reads (every binding of a bound set must
    /// be written, and lavapipe reads them all when a set is bound).
    pub lit_frame: [vk::DescriptorSetLayout; 4],
    /// Set 1 of the mesh shaders: the material's five textures.
    pub material: vk::DescriptorSetLayout,
    /// Set 1 of the lighting shader: the G-buffer and depth as input attachments.
    pub gbuffer_inputs: vk::DescriptorSetLayout,
    /// Set 0 of the tone-mapping shader: HDR as an input attachment.
    pub hdr_input: vk::DescriptorSetLayout,
    /// Set 2 of the lit shaders: the shadow atlas with a comparison sampler.
    pub shadow_map: vk::DescriptorSetLayout,
    /// Set 3 of the lit shaders: the environment (specular cube map, irradiance, BRDF
    /// table; `environment.glsl`).
    pub environment: vk::DescriptorSetLayout,
    /// Set 0 of the shadow shader: the frame constants only.
    pub frame_constants: vk::DescriptorSetLayout,
    /// The shadow pass: frame constants, draw push constants.
    pub shadow: vk::PipelineLayout,
    /// Mesh pipelines: frame + material + shadow map, draw push constants.
    pub mesh: vk::PipelineLayout,
    /// Lighting, by [`variant_index`]: lit frame + G-buffer inputs + shadow map +
    /// environment.
    pub lighting: [vk::PipelineLayout; 4],
    /// Forward (transparents), by `clustered`: lit frame + material + shadow map +
    /// environment, draw push constants.
    pub forward: [vk::PipelineLayout; 2],
    /// Forward opaque (and its sky), by [`variant_index`]: lit frame + material + shadow
    /// map + environment, draw push constants.
    pub forward_opaque: [vk::PipelineLayout; 4],
    /// Tone mapping: HDR input, exposure push constant.
    pub tonemap: vk::PipelineLayout,
    /// Bytes of the mesh, forward and forward-opaque layouts' push constants:
    /// [`MOTION_DRAW_CONSTANTS`] when the device has them (the previous model matrix: moving
    /// objects' motion vectors), else [`DRAW_CONSTANTS`].
    pub mesh_constants: u32,
}

/// Index of a lit shader variant in [`Layouts::lit_frame`] and [`Layouts::lighting`].
pub fn variant_index(clustered: bool, ao: bool) -> usize {
    usize::from(clustered) * 2 + usize::from(ao)
}

fn set_layout(
    gpu: &Gpu,
    bindings: &[(vk::DescriptorType, vk::ShaderStageFlags)],
) -> Result<vk::DescriptorSetLayout, RenderError> {
    let numbered: Vec<_> = bindings
        .iter()
        .enumerate()
        .map(|(i, &(ty, stages))| (i as u32, ty, stages))
        .collect();
    numbered_set_layout(gpu, &numbered)
}

fn numbered_set_layout(
    gpu: &Gpu,
    bindings: &[(u32, vk::DescriptorType, vk::ShaderStageFlags)],
) -> Result<vk::DescriptorSetLayout, RenderError> {
    let b: Vec<vk::DescriptorSetLayoutBinding> = bindings
        .iter()
        .map(|&(i, ty, stages)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i)
                .descriptor_type(ty)
                .descriptor_count(1)
                .stage_flags(stages)
        })
        .collect();
    let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&b);
    // SAFETY: a complete create info; destroyed in `Layouts::destroy`.
    Ok(unsafe { gpu.device.create_descriptor_set_layout(&info, None) }?)
}

fn pipeline_layout(
    gpu: &Gpu,
    sets: &[vk::DescriptorSetLayout],
    push: Option<vk::PushConstantRange>,
) -> Result<vk::PipelineLayout, RenderError> {
    let ranges: Vec<vk::PushConstantRange> = push.into_iter().collect();
    let info = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(sets)
        .push_constant_ranges(&ranges);
    // SAFETY: a complete create info over live set layouts; destroyed in `Layouts::destroy`.
    Ok(unsafe { gpu.device.create_pipeline_layout(&info, None) }?)
}

impl Layouts {
    /// Creates every layout.
    pub fn new(gpu: &Gpu) -> Result<Layouts, RenderError> {
        use vk::DescriptorType as T;
        use vk::ShaderStageFlags as S;
        let vf = S::VERTEX | S::FRAGMENT;
        let frame = set_layout(
            gpu,
            &[(T::UNIFORM_BUFFER, vf), (T::STORAGE_BUFFER, S::FRAGMENT)],
        )?;
        let mut lit_frame = [vk::DescriptorSetLayout::null(); 4];
        for clustered in [false, true] {
            for ao in [false, true] {
                let mut b = vec![
                    (0, T::UNIFORM_BUFFER, vf),
                    (1, T::STORAGE_BUFFER, S::FRAGMENT),
                ];
                if clustered {
                    b.push((2, T::STORAGE_BUFFER, S::FRAGMENT));
                }
                if ao {
                    b.push((3, T::COMBINED_IMAGE_SAMPLER, S::FRAGMENT));
                }
                lit_frame[variant_index(clustered, ao)] = numbered_set_layout(gpu, &b)?;
            }
        }
        let material = set_layout(gpu, &[(T::COMBINED_IMAGE_SAMPLER, S::FRAGMENT); 5])?;
        let gbuffer_inputs = set_layout(gpu, &[(T::INPUT_ATTACHMENT, S::FRAGMENT); 4])?;
        let hdr_input = set_layout(gpu, &[(T::INPUT_ATTACHMENT, S::FRAGMENT)])?;
        let shadow_map = set_layout(gpu, &[(T::COMBINED_IMAGE_SAMPLER, S::FRAGMENT)])?;
        let environment = set_layout(
            gpu,
            &[
                (T::COMBINED_IMAGE_SAMPLER, S::FRAGMENT),
                (T::STORAGE_BUFFER, S::FRAGMENT),
                (T::COMBINED_IMAGE_SAMPLER, S::FRAGMENT),
            ],
        )?;
        let frame_constants = set_layout(gpu, &[(T::UNIFORM_BUFFER, S::VERTEX)])?;
        // The Vulkan minimum is 128 bytes: the previous model matrix only where it fits.
        let mesh_constants =
            if gpu.properties.limits.max_push_constants_size >= MOTION_DRAW_CONSTANTS {
                MOTION_DRAW_CONSTANTS
            } else {
                DRAW_CONSTANTS
            };
        let draw = vk::PushConstantRange {
            stage_flags: vf,
            offset: 0,
            size: mesh_constants,
        };
        let mesh = pipeline_layout(gpu, &[frame, material, shadow_map], Some(draw))?;
        let mut lighting = [vk::PipelineLayout::null(); 4];
        for (l, &f) in lighting.iter_mut().zip(&lit_frame) {
            *l = pipeline_layout(gpu, &[f, gbuffer_inputs, shadow_map, environment], None)?;
        }
        let lit = |f| [f, material, shadow_map, environment];
        let forward = [
            pipeline_layout(gpu, &lit(lit_frame[0]), Some(draw))?,
            pipeline_layout(gpu, &lit(lit_frame[2]), Some(draw))?,
        ];
        let mut forward_opaque = [vk::PipelineLayout::null(); 4];
        for (l, &f) in forward_opaque.iter_mut().zip(&lit_frame) {
            *l = pipeline_layout(gpu, &lit(f), Some(draw))?;
        }
        let shadow_draw = vk::PushConstantRange {
            stage_flags: S::VERTEX,
            offset: 0,
            size: DRAW_CONSTANTS,
        };
        let shadow = pipeline_layout(gpu, &[frame_constants], Some(shadow_draw))?;
        let exposure = vk::PushConstantRange {
            stage_flags: S::FRAGMENT,
            offset: 0,
            size: 4,
        };
        let tonemap = pipeline_layout(gpu, &[hdr_input], Some(exposure))?;
        Ok(Layouts {
            frame,
            lit_frame,
            forward,
            material,
            gbuffer_inputs,
            hdr_input,
            shadow_map,
            environment,
            frame_constants,
            shadow,
            mesh,
            lighting,
            forward_opaque,
            tonemap,
            mesh_constants,
        })
    }

    /// Destroys them (device idle).
    pub fn destroy(&self, gpu: &Gpu) {
        // SAFETY: the device is idle and nothing uses the layouts any more.
        unsafe {
            for &l in [self.mesh, self.tonemap, self.shadow]
                .iter()
                .chain(&self.lighting)
                .chain(&self.forward)
                .chain(&self.forward_opaque)
            {
                gpu.device.destroy_pipeline_layout(l, None);
            }
            for &l in &self.lit_frame {
                gpu.device.destroy_descriptor_set_layout(l, None);
            }
            for l in [
                self.frame,
                self.material,
                self.gbuffer_inputs,
                self.hdr_input,
                self.shadow_map,
                self.environment,
                self.frame_constants,
            ] {
                gpu.device.destroy_descriptor_set_layout(l, None);
            }
        }
    }
}

/// The mesh and lighting pipelines' shader modules, compiled when the pipelines are made
/// and again on a shader reload.
#[derive(Debug)]
struct Modules {
    mesh_vert: vk::ShaderModule,
    /// `mesh.vert#OBJECT_MOTION`: reads the previous model matrix.
    mesh_motion_vert: vk::ShaderModule,
    gbuffer_frag: vk::ShaderModule,
    /// Indexed by `clustered`.
    forward_frag: [vk::ShaderModule; 2],
    fullscreen_vert: vk::ShaderModule,
    /// By [`variant_index`].
    lighting_frag: [vk::ShaderModule; 4],
    depth_vert: vk::ShaderModule,
    tonemap_frag: vk::ShaderModule,
    shadow_vert: vk::ShaderModule,
    /// `gbuffer.frag#MOTION`.
    gbuffer_motion_frag: vk::ShaderModule,
    /// `forward.frag#OPAQUE` by [`variant_index`], then the same with `MOTION`.
    forward_opaque_frag: [vk::ShaderModule; 8],
    /// `sky.frag`, then `sky.frag#MOTION`.
    sky_frag: [vk::ShaderModule; 2],
}

/// Every module [`Modules`] holds, in its field order: variant name and stage.
const MODULES: [(&str, Stage); 24] = [
    ("mesh.vert", Stage::Vertex),
    ("gbuffer.frag", Stage::Fragment),
    ("forward.frag", Stage::Fragment),
    ("forward.frag#CLUSTERED", Stage::Fragment),
    ("fullscreen.vert", Stage::Vertex),
    ("lighting.frag", Stage::Fragment),
    ("lighting.frag#SSAO", Stage::Fragment),
    ("lighting.frag#CLUSTERED", Stage::Fragment),
    ("lighting.frag#CLUSTERED#SSAO", Stage::Fragment),
    ("depth.vert", Stage::Vertex),
    ("tonemap.frag", Stage::Fragment),
    ("shadow.vert", Stage::Vertex),
    ("gbuffer.frag#MOTION", Stage::Fragment),
    ("forward.frag#OPAQUE", Stage::Fragment),
    ("forward.frag#OPAQUE#SSAO", Stage::Fragment),
    ("forward.frag#CLUSTERED#OPAQUE", Stage::Fragment),
    ("forward.frag#CLUSTERED#OPAQUE#SSAO", Stage::Fragment),
    ("forward.frag#MOTION#OPAQUE", Stage::Fragment),
    ("forward.frag#MOTION#OPAQUE#SSAO", Stage::Fragment),
    ("forward.frag#CLUSTERED#MOTION#OPAQUE", Stage::Fragment),
    ("forward.frag#CLUSTERED#MOTION#OPAQUE#SSAO", Stage::Fragment),
    ("sky.frag", Stage::Fragment),
    ("sky.frag#MOTION", Stage::Fragment),
    ("mesh.vert#OBJECT_MOTION", Stage::Vertex),
];

impl Modules {
    /// Compiles every module from `sources`; on an error nothing is left behind.
    fn compile(gpu: &Gpu, sources: &ShaderSources) -> Result<Modules, RenderError> {
        let words: Vec<Vec<u32>> = MODULES
            .iter()
            .map(|&(n, stage)| sources.compile(n, stage))
            .collect::<Result<_, _>>()?;
        Modules::create(gpu, &words)
    }

    /// Creates the modules from SPIR-V in [`MODULES`] order (one entry each); on an error
    /// nothing is left behind.
    fn create(gpu: &Gpu, words: &[Vec<u32>]) -> Result<Modules, RenderError> {
        if words.len() != MODULES.len() {
            return Err(RenderError::Shader(format!(
                "{} modules for the mesh and lighting pipelines, {} expected",
                words.len(),
                MODULES.len()
            )));
        }
        let mut made = Vec::with_capacity(words.len());
        for (w, (name, _)) in words.iter().zip(MODULES) {
            match tessera_vk::shader::module(gpu, w, name) {
                Ok(m) => made.push(m),
                Err(e) => {
                    // SAFETY: modules just created, used by nothing yet.
                    unsafe {
                        for m in made {
                            gpu.device.destroy_shader_module(m, None);
                        }
                    }
                    return Err(e.into());
                }
            }
        }
        let m = |i: usize| made[i];
        Ok(Modules {
            mesh_vert: m(0),
            gbuffer_frag: m(1),
            forward_frag: [m(2), m(3)],
            fullscreen_vert: m(4),
            lighting_frag: [m(5), m(6), m(7), m(8)],
            depth_vert: m(9),
            tonemap_frag: m(10),
            shadow_vert: m(11),
            gbuffer_motion_frag: m(12),
            forward_opaque_frag: [m(13), m(14), m(15), m(16), m(17), m(18), m(19), m(20)],
            sky_frag: [m(21), m(22)],
            mesh_motion_vert: m(23),
        })
    }

    /// Destroys the modules (nothing uses them any more).
    fn destroy(&self, gpu: &Gpu) {
        let single = [
            self.mesh_vert,
            self.mesh_motion_vert,
            self.gbuffer_frag,
            self.gbuffer_motion_frag,
            self.fullscreen_vert,
            self.depth_vert,
            self.tonemap_frag,
            self.shadow_vert,
        ];
        // SAFETY: the caller guarantees no pipeline creation or recording uses them.
        unsafe {
            for &s in single
                .iter()
                .chain(&self.forward_frag)
                .chain(&self.lighting_frag)
                .chain(&self.forward_opaque_frag)
                .chain(&self.sky_frag)
            {
                gpu.device.destroy_shader_module(s, None);
            }
        }
    }
}

/// The pipelines, created on first use per (kind, render pass, subpass).
#[derive(Debug)]
pub struct Pipelines {
    /// The layouts.
    pub layouts: Layouts,
    modules: Modules,
    cache: vk::PipelineCache,
    pipelines: HashMap<(PipelineKind, vk::RenderPass, u32, u32), vk::Pipeline>,
    /// The shadow atlas's comparison sampler (`LESS_OR_EQUAL`, linear: 2×2 PCF per tap).
    pub shadow_sampler: vk::Sampler,
    /// Pipelines created so far (tests count them across rebuilds).
    pub created: u64,
    /// Compute and full-screen pipelines described by shader and bindings.
    pub shaders: ShaderPipelines,
}

impl Pipelines {
    /// Compiles the embedded shaders and creates the layouts.
    pub fn new(gpu: &Gpu) -> Result<Pipelines, RenderError> {
        let layouts = Layouts::new(gpu)?;
        let shaders = ShaderPipelines::default();
        let modules = match Modules::compile(gpu, shaders.sources()) {
            Ok(m) => m,
            Err(e) => {
                layouts.destroy(gpu);
                return Err(e);
            }
        };
        // SAFETY: an empty pipeline cache; destroyed in `destroy`.
        let cache = unsafe {
            gpu.device
                .create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
        }?;
        let sampler = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::LINEAR)
            .min_filter(vk::Filter::LINEAR)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .compare_enable(true)
            .compare_op(vk::CompareOp::LESS_OR_EQUAL);
        // SAFETY: a complete create info; destroyed in `destroy`.
        let shadow_sampler = unsafe { gpu.device.create_sampler(&sampler, None) }?;
        Ok(Pipelines {
            layouts,
            modules,
            cache,
            shadow_sampler,
            pipelines: HashMap::new(),
            created: 0,
            shaders,
        })
    }

    /// Compiles, from `sources`, every module the pipelines have now (the mesh and lighting
    /// ones, and each compute and full-screen shader used so far). Nothing changes: the
    /// result goes to [`Pipelines::install`], or is dropped with [`Reloaded::destroy`].
    /// The first shader that fails is the error (shaderc's message: file and line).
    pub fn compile_all(&self, gpu: &Gpu, sources: &ShaderSources) -> Result<Reloaded, RenderError> {
        let shaders = self.shaders.compile_all(gpu, sources)?;
        match Modules::compile(gpu, sources) {
            Ok(modules) => Ok(Reloaded {
                compiled: MODULES.len() + shaders.len(),
                modules,
                shaders,
                sources: sources.clone(),
            }),
            Err(e) => {
                destroy_modules(gpu, shaders.into_iter().map(|(_, m, _)| m));
                Err(e)
            }
        }
    }

    /// Switches to freshly compiled modules and their sources: every pipeline and old
    /// module is destroyed, so each pass's next recording creates its pipeline from the new
    /// code. The GPU must be idle (nothing in flight uses the old pipelines).
    pub fn install(&mut self, gpu: &Gpu, next: Reloaded) {
        let Reloaded {
            modules,
            shaders,
            sources,
            ..
        } = next;
        // SAFETY: the device is idle (the caller waited); nothing uses the pipelines.
        unsafe {
            for (_, p) in self.pipelines.drain() {
                gpu.device.destroy_pipeline(p, None);
            }
        }
        let old = std::mem::replace(&mut self.modules, modules);
        old.destroy(gpu);
        self.shaders.install(gpu, shaders, sources);
    }

    /// The sources the pipelines compile from.
    pub fn sources(&self) -> &ShaderSources {
        self.shaders.sources()
    }

    /// Pipelines alive.
    pub fn count(&self) -> usize {
        self.pipelines.len()
    }

    /// The pipeline of `kind` for a subpass whose attachments have `samples` per pixel
    /// (`PassContext::samples`), created on first use.
    pub fn get(
        &mut self,
        gpu: &Gpu,
        kind: PipelineKind,
        (render_pass, subpass): (vk::RenderPass, u32),
        samples: u32,
    ) -> Result<vk::Pipeline, RenderError> {
        let key = (kind, render_pass, subpass, samples);
        if let Some(&p) = self.pipelines.get(&key) {
            return Ok(p);
        }
        let p = self.create(gpu, kind, (render_pass, subpass), samples)?;
        self.pipelines.insert(key, p);
        self.created += 1;
        Ok(p)
    }

    fn create(
        &self,
        gpu: &Gpu,
        kind: PipelineKind,
        (render_pass, subpass): (vk::RenderPass, u32),
        samples: u32,
    ) -> Result<vk::Pipeline, RenderError> {
        let rasterization = tessera_vk::conv::samples(samples).ok_or_else(|| {
            RenderError::Frame(format!("{samples} samples per pixel for {kind:?}"))
        })?;
        let m = &self.modules;
        // Every mesh layout has the previous model matrix or none does.
        let mesh_vert = if self.layouts.mesh_constants >= MOTION_DRAW_CONSTANTS {
            m.mesh_motion_vert
        } else {
            m.mesh_vert
        };
        let (vert, frag, layout) = match kind {
            PipelineKind::GBuffer { motion: false, .. } => {
                (mesh_vert, m.gbuffer_frag, self.layouts.mesh)
            }
            PipelineKind::GBuffer { motion: true, .. } => {
                (mesh_vert, m.gbuffer_motion_frag, self.layouts.mesh)
            }
            PipelineKind::Forward { clustered, .. } => (
                mesh_vert,
                m.forward_frag[usize::from(clustered)],
                self.layouts.forward[usize::from(clustered)],
            ),
            PipelineKind::Lighting { clustered, ao } => (
                m.fullscreen_vert,
                m.lighting_frag[variant_index(clustered, ao)],
                self.layouts.lighting[variant_index(clustered, ao)],
            ),
            PipelineKind::ForwardOpaque {
                clustered,
                ao,
                motion,
                ..
            } => (
                mesh_vert,
                m.forward_opaque_frag[variant_index(clustered, ao) + 4 * usize::from(motion)],
                self.layouts.forward_opaque[variant_index(clustered, ao)],
            ),
            PipelineKind::Sky {
                clustered,
                ao,
                motion,
            } => (
                m.fullscreen_vert,
                m.sky_frag[usize::from(motion)],
                self.layouts.forward_opaque[variant_index(clustered, ao)],
            ),
            PipelineKind::Tonemap => (m.fullscreen_vert, m.tonemap_frag, self.layouts.tonemap),
            // Depth only: no fragment shader.
            PipelineKind::Shadow => (m.shadow_vert, vk::ShaderModule::null(), self.layouts.shadow),
            PipelineKind::DepthPrepass => {
                (m.depth_vert, vk::ShaderModule::null(), self.layouts.shadow)
            }
        };
        let depth_only = matches!(kind, PipelineKind::Shadow | PipelineKind::DepthPrepass);
        let all_stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(vert)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(frag)
                .name(c"main"),
        ];
        let stages = if depth_only {
            &all_stages[..1]
        } else {
            &all_stages[..]
        };
        let mesh = matches!(
            kind,
            PipelineKind::GBuffer { .. }
                | PipelineKind::Forward { .. }
                | PipelineKind::ForwardOpaque { .. }
        ) || depth_only;
        let bindings = [vk::VertexInputBindingDescription {
            binding: 0,
            stride: std::mem::size_of::<Vertex>() as u32,
            input_rate: vk::VertexInputRate::VERTEX,
        }];
        let attr = |location, format, offset| vk::VertexInputAttributeDescription {
            location,
            binding: 0,
            format,
            offset,
        };
        let attributes = [
            attr(0, vk::Format::R32G32B32_SFLOAT, 0),
            attr(1, vk::Format::R32G32B32_SFLOAT, 12),
            attr(2, vk::Format::R32G32B32A32_SFLOAT, 24),
            attr(3, vk::Format::R32G32_SFLOAT, 40),
        ];
        // The depth-only shaders read positions only.
        let used = if depth_only { 1 } else { attributes.len() };
        let vertex_input = if mesh {
            vk::PipelineVertexInputStateCreateInfo::default()
                .vertex_binding_descriptions(&bindings)
                .vertex_attribute_descriptions(&attributes[..used])
        } else {
            vk::PipelineVertexInputStateCreateInfo::default()
        };
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let cull = match kind {
            PipelineKind::GBuffer {
                double_sided: false,
                ..
            }
            | PipelineKind::Forward {
                double_sided: false,
                ..
            }
            | PipelineKind::ForwardOpaque {
                double_sided: false,
                ..
            } => vk::CullModeFlags::BACK,
            _ => vk::CullModeFlags::NONE,
        };
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(cull)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        // Slope-scaled bias keeps lit surfaces from shadowing themselves (acne).
        let raster = if kind == PipelineKind::Shadow {
            raster
                .depth_bias_enable(true)
                .depth_bias_constant_factor(1.5)
                .depth_bias_slope_factor(2.0)
        } else {
            raster
        };
        let multisample =
            vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(rasterization);
        // Reversed Z: near is 1, infinity 0.
        let depth = match kind {
            PipelineKind::GBuffer { .. }
            | PipelineKind::ForwardOpaque { .. }
            | PipelineKind::DepthPrepass => vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(true)
                .depth_write_enable(true)
                .depth_compare_op(vk::CompareOp::GREATER),
            PipelineKind::Forward { .. } => vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(true)
                .depth_write_enable(false)
                .depth_compare_op(vk::CompareOp::GREATER),
            // The sky's triangle lies at the far plane (0): it passes only where no surface
            // wrote depth (each sample tested on its own under MSAA).
            PipelineKind::Sky { .. } => vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(true)
                .depth_write_enable(false)
                .depth_compare_op(vk::CompareOp::GREATER_OR_EQUAL),
            // Shadow maps keep the ordinary depth convention (cleared to 1, nearest wins).
            PipelineKind::Shadow => vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(true)
                .depth_write_enable(true)
                .depth_compare_op(vk::CompareOp::LESS),
            _ => vk::PipelineDepthStencilStateCreateInfo::default(),
        };
        let all = vk::ColorComponentFlags::RGBA;
        let opaque = vk::PipelineColorBlendAttachmentState::default().color_write_mask(all);
        let additive = vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(all)
            .blend_enable(true)
            .src_color_blend_factor(vk::BlendFactor::ONE)
            .dst_color_blend_factor(vk::BlendFactor::ONE)
            .color_blend_op(vk::BlendOp::ADD)
            .src_alpha_blend_factor(vk::BlendFactor::ZERO)
            .dst_alpha_blend_factor(vk::BlendFactor::ONE)
            .alpha_blend_op(vk::BlendOp::ADD);
        let premultiplied = vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(all)
            .blend_enable(true)
            .src_color_blend_factor(vk::BlendFactor::ONE)
            .dst_color_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
            .color_blend_op(vk::BlendOp::ADD)
            .src_alpha_blend_factor(vk::BlendFactor::ZERO)
            .dst_alpha_blend_factor(vk::BlendFactor::ONE)
            .alpha_blend_op(vk::BlendOp::ADD);
        let blends: Vec<vk::PipelineColorBlendAttachmentState> = match kind {
            PipelineKind::GBuffer { motion, .. } => vec![opaque; 4 + usize::from(motion)],
            PipelineKind::Forward { .. } => vec![premultiplied],
            PipelineKind::Lighting { .. } => vec![additive],
            PipelineKind::ForwardOpaque { motion, .. } | PipelineKind::Sky { motion, .. } => {
                vec![opaque; 1 + usize::from(motion)]
            }
            PipelineKind::Tonemap => vec![opaque],
            PipelineKind::Shadow | PipelineKind::DepthPrepass => Vec::new(),
        };
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blends);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout)
            .render_pass(render_pass)
            .subpass(subpass);
        // SAFETY: every referenced state, module and layout is live; the render pass and
        // subpass come from the executor, which keeps the render pass for the device's life.
        let p = unsafe {
            gpu.device
                .create_graphics_pipelines(self.cache, &[info], None)
        }
        .map_err(|(_, e)| RenderError::from(e))?[0];
        gpu.name(p, &format!("{kind:?}"));
        Ok(p)
    }

    /// Destroys pipelines, modules and layouts (device idle).
    pub fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: the device is idle; nothing uses these objects any more.
        unsafe {
            for (_, p) in self.pipelines.drain() {
                gpu.device.destroy_pipeline(p, None);
            }
            gpu.device.destroy_pipeline_cache(self.cache, None);
            gpu.device.destroy_sampler(self.shadow_sampler, None);
        }
        self.modules.destroy(gpu);
        self.shaders.destroy(gpu);
        self.layouts.destroy(gpu);
    }
}

/// Modules compiled for a shader reload, not yet in use ([`Pipelines::compile_all`]):
/// handed to [`Pipelines::install`] or freed with [`Reloaded::destroy`].
#[derive(Debug)]
pub struct Reloaded {
    /// Modules compiled.
    pub compiled: usize,
    modules: Modules,
    shaders: Vec<(&'static str, vk::ShaderModule, Stage)>,
    sources: ShaderSources,
}

impl Reloaded {
    /// Destroys the modules (a reload abandoned: nothing uses them).
    pub fn destroy(self, gpu: &Gpu) {
        self.modules.destroy(gpu);
        destroy_modules(gpu, self.shaders.into_iter().map(|(_, m, _)| m));
    }
}
