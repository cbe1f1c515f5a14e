//! The geometry passes: the sun's shadow cascades, the G-buffer and the forward-lit
//! transparents.

use super::sets::frame_set;
use super::Targets;
use crate::builder::{Filter, ImageRef, PassDecl};
use crate::gpu::commands::set_viewport;
use crate::gpu::descriptors::declared_sets;
use crate::gpu::pass::{FrameBuilder, PassContext};
use crate::gpu::pipelines::{
    variant_index, Layouts, PipelineKind, Pipelines, DRAW_CONSTANTS, MOTION_DRAW_CONSTANTS,
};
use crate::gpu::scene::{Draw, SceneGpu};
use crate::RenderError;
use ash::vk;
use std::cell::RefCell;
use tessera_graph::PassKind;
use tessera_vk::Gpu;

/// The buffers a geometry pass draws from: the scene's vertices and indices, and this
/// frame's deformed vertices (morph targets, skins) when the animations deform any.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MeshBuffers {
    /// The scene's vertex buffer.
    pub vertices: vk::Buffer,
    /// The scene's index buffer.
    pub indices: vk::Buffer,
    /// `animated vertices`, written by `frame constants` this frame.
    pub animated: Option<vk::Buffer>,
}

impl MeshBuffers {
    /// The buffers of `t` in the pass recording.
    pub(crate) fn of(
        pc: &PassContext<'_, '_, '_>,
        t: &Targets,
    ) -> Result<MeshBuffers, RenderError> {
        Ok(MeshBuffers {
            vertices: pc.buffer(t.vertices)?,
            indices: pc.buffer(t.indices)?,
            animated: t.animated.map(|a| pc.buffer(a)).transpose()?,
        })
    }

    /// Binds the vertex buffer `draw` reads (when `bound` is another) and gives its vertex
    /// offset there.
    fn bind_for(
        &self,
        gpu: &Gpu,
        cmd: vk::CommandBuffer,
        draw: &Draw,
        bound: &mut Option<vk::Buffer>,
    ) -> i32 {
        let (buffer, offset) = match (self.animated, draw.deformed) {
            (Some(a), Some(at)) => (a, at),
            _ => (self.vertices, draw.vertex_offset),
        };
        if *bound != Some(buffer) {
            // SAFETY: recording in a raster pass that declared both vertex buffers; live.
            unsafe { gpu.device.cmd_bind_vertex_buffers(cmd, 0, &[buffer], &[0]) };
            *bound = Some(buffer);
        }
        offset
    }
}

/// Declares the vertex buffers a geometry pass reads: the scene's, and this frame's
/// deformed vertices when there are any.
pub(crate) fn declare_vertices(p: &mut crate::builder::PassDecl, t: &Targets) {
    p.vertices(t.vertices).indices(t.indices);
    if let Some(a) = t.animated {
        p.vertices(a);
    }
}

/// Records the opaque draws into each cascade of the shadow atlas (one viewport each).
fn draw_shadows(
    pc: &mut PassContext<'_, '_, '_>,
    buffers: MeshBuffers,
    (size, cascades): (u32, u32),
) -> Result<(), RenderError> {
    let (rp, sp, _) = pc.subpass()?;
    let (scene, pipelines) = (pc.scene()?, pc.pipelines()?);
    let (pipeline, layout, set_layout) = {
        let mut p = pipelines.borrow_mut();
        (
            p.get(pc.gpu, PipelineKind::Shadow, (rp, sp), pc.samples())?,
            p.layouts.shadow,
            p.layouts.frame_constants,
        )
    };
    if scene.opaque.is_empty() {
        return Ok(());
    }
    let set = declared_sets(pc, &[set_layout])?[0];
    let d = &pc.gpu.device;
    // SAFETY: recording inside the shadow subpass with the pipeline made for it; a fresh
    // set of this frame slot; live buffers.
    unsafe {
        d.cmd_bind_pipeline(pc.cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
        d.cmd_bind_descriptor_sets(
            pc.cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            0,
            &[set],
            &[],
        );
        d.cmd_bind_index_buffer(pc.cmd, buffers.indices, 0, vk::IndexType::UINT32);
    }
    for cascade in 0..cascades {
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
        draw_opaque_depth(pc, layout, scene, &buffers, cascade as f32);
    }
    Ok(())
}

/// Records every opaque draw of `scene` for a depth-only pipeline of `layout` (the shadow
/// cascades, the SSAO prepass): the model matrix and `cascade` (the shadow shader's, in
/// `alpha.y`) as vertex push constants. The pipeline, its set and the index buffer are
/// bound; each draw binds the vertex buffer it reads from `buffers`.
pub(crate) fn draw_opaque_depth(
    pc: &PassContext<'_, '_, '_>,
    layout: vk::PipelineLayout,
    scene: &SceneGpu,
    buffers: &MeshBuffers,
    cascade: f32,
) {
    let d = &pc.gpu.device;
    let mut bound = None;
    for draw in &scene.opaque {
        let vertex_offset = buffers.bind_for(pc.gpu, pc.cmd, draw, &mut bound);
        let mut push = [0f32; DRAW_CONSTANTS as usize / 4];
        push[..16].copy_from_slice(&draw.transform.to_cols_array());
        push[29] = cascade;
        // SAFETY: the push range matches the depth-only layouts; indices lie in the bound
        // index buffer.
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
                vertex_offset,
                0,
            );
        }
    }
}

/// Which mesh shader a draw list records with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shading {
    /// Into the G-buffer; `motion`: also the motion vectors (TAA).
    GBuffer {
        /// Writes motion vectors.
        motion: bool,
    },
    /// Lit forward and blended (transparents).
    Transparent {
        /// Loops over the light cluster.
        clustered: bool,
    },
    /// Lit forward, opaque and masked (the forward path).
    Opaque {
        /// Loops over the light cluster.
        clustered: bool,
        /// Ambient × SSAO.
        ao: bool,
        /// Writes motion vectors.
        motion: bool,
    },
}

impl Shading {
    /// The pipeline of a material drawn this way.
    fn kind(self, double_sided: bool) -> PipelineKind {
        match self {
            Shading::GBuffer { motion } => PipelineKind::GBuffer {
                double_sided,
                motion,
            },
            Shading::Transparent { clustered } => PipelineKind::Forward {
                double_sided,
                clustered,
            },
            Shading::Opaque {
                clustered,
                ao,
                motion,
            } => PipelineKind::ForwardOpaque {
                double_sided,
                clustered,
                ao,
                motion,
            },
        }
    }

    /// The pipeline layout every pipeline of this shading shares.
    pub(crate) fn layout(self, layouts: &Layouts) -> vk::PipelineLayout {
        match self {
            Shading::GBuffer { .. } => layouts.mesh,
            Shading::Transparent { clustered } => layouts.forward[usize::from(clustered)],
            Shading::Opaque { clustered, ao, .. } => {
                layouts.forward_opaque[variant_index(clustered, ao)]
            }
        }
    }
}

/// The render pass, subpass, render area and samples per pixel a body records in.
pub(crate) type Subpass = (vk::RenderPass, u32, vk::Extent2D, u32);

/// The subpass of `pc` with its sample count.
pub(crate) fn subpass_of(pc: &PassContext<'_, '_, '_>) -> Result<Subpass, RenderError> {
    let (rp, sp, extent) = pc.subpass()?;
    Ok((rp, sp, extent, pc.samples()))
}

/// The sets a lit forward draw binds, written from its pass's declaration: set 0 (frame
/// constants, lights, and the clusters and SSAO of layout `variant`), set 2 (the shadow
/// atlas) and set 3 (the environment); set 1 is each draw's material, which the scene owns.
pub(crate) fn lit_sets(
    pc: &mut PassContext<'_, '_, '_>,
    pipelines: &RefCell<Pipelines>,
    variant: usize,
) -> Result<[vk::DescriptorSet; 3], RenderError> {
    let set_layouts = {
        let p = pipelines.borrow();
        [
            p.layouts.lit_frame[variant],
            vk::DescriptorSetLayout::null(),
            p.layouts.shadow_map,
            p.layouts.environment,
        ]
    };
    let sets = declared_sets(pc, &set_layouts)?;
    Ok([sets[0], sets[2], sets[3]])
}

/// Declares the environment (set 3 of the lit shaders) on a pass being set up; leaves the
/// declaration in set 0.
pub(crate) fn declare_environment(p: &mut PassDecl, t: &Targets) {
    p.in_set(3)
        .sampled(t.env.specular)
        .storage_read(t.env.irradiance)
        .sampled(t.env.brdf)
        .in_set(0);
}

/// Records `draws` with the mesh pipeline of each material drawn as `shading`; `sets` are
/// the frame set and, for lit draws, the shadow and environment sets.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_meshes(
    gpu: &Gpu,
    cmd: vk::CommandBuffer,
    pipelines: &RefCell<Pipelines>,
    scene: &SceneGpu,
    draws: &[Draw],
    shading: Shading,
    subpass: Subpass,
    sets: &[vk::DescriptorSet],
    buffers: MeshBuffers,
) -> Result<(), RenderError> {
    if draws.is_empty() {
        return Ok(());
    }
    let (rp, sp, extent, samples) = subpass;
    let mut pipelines = pipelines.borrow_mut();
    let layout = shading.layout(&pipelines.layouts);
    // With the previous model matrix when the layouts have room for it.
    let constants = pipelines.layouts.mesh_constants as usize / 4;
    set_viewport(gpu, cmd, extent);
    // SAFETY: recording inside the subpass the pipelines were created for; live buffers.
    unsafe {
        gpu.device
            .cmd_bind_index_buffer(cmd, buffers.indices, 0, vk::IndexType::UINT32);
        gpu.device.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::GRAPHICS,
            layout,
            0,
            &sets[..1],
            &[],
        );
        if sets.len() > 1 {
            gpu.device.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                layout,
                2,
                &sets[1..],
                &[],
            );
        }
    }
    let mut bound = None;
    let mut bound_vertices = None;
    let mut bound_material = None;
    // The pipeline of each facing (single, double sided): looked up once per pass, not
    // once per draw.
    let mut by_facing: [Option<vk::Pipeline>; 2] = [None; 2];
    for d in draws {
        let m = &scene.materials[d.material];
        let pipeline = match by_facing[usize::from(m.double_sided)] {
            Some(p) => p,
            None => {
                let kind = shading.kind(m.double_sided);
                let p = pipelines.get(gpu, kind, (rp, sp), samples)?;
                by_facing[usize::from(m.double_sided)] = Some(p);
                p
            }
        };
        let vertex_offset = buffers.bind_for(gpu, cmd, d, &mut bound_vertices);
        let mut push = [0f32; MOTION_DRAW_CONSTANTS as usize / 4];
        push[..16].copy_from_slice(&d.transform.to_cols_array());
        push[32..48].copy_from_slice(&d.prev_transform.to_cols_array());
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
            // Draws of one material in a row share its set (the pipelines of both facings
            // have the one layout, so a pipeline change keeps it bound).
            if bound_material != Some(d.material) {
                gpu.device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    layout,
                    1,
                    &[scene.material_sets[d.material]],
                    &[],
                );
                bound_material = Some(d.material);
            }
            gpu.device.cmd_push_constants(
                cmd,
                layout,
                vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
                0,
                bytemuck::cast_slice(&push[..constants]),
            );
            gpu.device
                .cmd_draw_indexed(cmd, d.index_count, 1, d.first_index, vertex_offset, 0);
        }
    }
    Ok(())
}

/// `shadows`: the opaque draws into each of the `cascades` of the atlas. When `shadow_size`
/// is 0 the frame casts no shadows and the pass is `shadow atlas clear`: lighting still
/// samples the atlas, so its one texel is cleared to "lit", and the plan's summary says so
/// instead of listing a shadow pass.
pub fn declare_shadows(fb: &mut FrameBuilder<'_>, t: &Targets, shadow_size: u32, cascades: u32) {
    let t = *t;
    let (atlas, ubo) = (t.atlas, t.ubo);
    let name = if shadow_size == 0 {
        "shadow atlas clear"
    } else {
        "shadows"
    };
    fb.pass(name, PassKind::Raster, |p| {
        p.depth_cleared(atlas, 1.0).uniform(ubo);
        declare_vertices(p, &t);
        move |pc| {
            if shadow_size == 0 {
                return Ok(());
            }
            let buffers = MeshBuffers::of(pc, &t)?;
            draw_shadows(pc, buffers, (shadow_size, cascades))
        }
    });
}

/// `gbuffer`: the opaque and masked draws into the G-buffer, emission into `t.emission`,
/// and with TAA the motion vectors (`t.motion`).
///
/// Only depth is cleared (to the far plane, 0): with `covered`, every colour target is
/// written where depth is and read only there (lighting and TAA read depth and treat far
/// pixels as sky), so they are declared covered by depth and the graph neither clears nor
/// loads them — a clear of five 4K targets is milliseconds on a GPU that clears at raster
/// rate. Emission into `hdr` (raster lighting adds to it at every pixel) stays cleared, and
/// so does every target when a debug view shows the G-buffer at every pixel (`covered`
/// false).
pub fn declare_gbuffer(fb: &mut FrameBuilder<'_>, t: &Targets, covered: bool) {
    let t = *t;
    let clear = [0.0; 4];
    fb.pass("gbuffer", PassKind::Raster, |p| {
        // The colour targets in the shader's location order: albedo, normal, material,
        // emission, motion.
        let mut targets = vec![t.albedo, t.normal, t.material, t.emission];
        targets.extend(t.motion);
        for image in targets {
            if covered && image != t.hdr {
                p.covered_by(t.depth).color_partial(image).everywhere();
            } else {
                p.color_cleared(image, clear);
            }
        }
        p.depth_cleared(t.depth, 0.0).uniform(t.ubo);
        declare_vertices(p, &t);
        move |pc| {
            let subpass = subpass_of(pc)?;
            let (scene, pipelines) = (pc.scene()?, pc.pipelines()?);
            let frame_layout = pipelines.borrow().layouts.frame;
            let set = frame_set(pc, frame_layout, t.ubo, t.lights)?;
            draw_meshes(
                pc.gpu,
                pc.cmd,
                pipelines,
                scene,
                &scene.opaque,
                Shading::GBuffer {
                    motion: t.motion.is_some(),
                },
                subpass,
                &[set],
                MeshBuffers::of(pc, &t)?,
            )
        }
    });
}

/// `transparents`: `transparent` (back to front), lit forward and blended over HDR with a
/// read-only depth test. `resolve`: `(target, from)`, the multisampled colour `t.hdr` resolved
/// into `target` as the pass's subpass ends (the forward path with MSAA).
pub fn declare_transparents(
    fb: &mut FrameBuilder<'_>,
    t: &Targets,
    transparent: Vec<Draw>,
    resolve: Option<(ImageRef, ImageRef)>,
) {
    let t = *t;
    fb.pass("transparents", PassKind::Raster, |p| {
        if let Some((target, from)) = resolve {
            p.resolve(target, from);
        }
        // Set 0: frame constants, lights and the variant's clusters; set 1: each draw's
        // material (the scene's, not the graph's); set 2: the shadow atlas; set 3: the
        // environment.
        p.blend(t.hdr)
            .depth_read(t.depth)
            .uniform(t.ubo)
            .storage_read(t.lights)
            .in_set(2)
            .sampled_with(t.atlas, Filter::ShadowCompare);
        declare_vertices(p, &t);
        p.in_set(0);
        if let Some(c) = t.clusters {
            p.storage_read(c);
        }
        declare_environment(p, &t);
        move |pc| {
            let subpass = subpass_of(pc)?;
            let (scene, pipelines) = (pc.scene()?, pc.pipelines()?);
            let sets = lit_sets(pc, pipelines, variant_index(t.clusters.is_some(), false))?;
            draw_meshes(
                pc.gpu,
                pc.cmd,
                pipelines,
                scene,
                &transparent,
                Shading::Transparent {
                    clustered: t.clusters.is_some(),
                },
                subpass,
                &sets,
                MeshBuffers::of(pc, &t)?,
            )
        }
    });
}
