//! SSAO on the async-compute queue: `ssao` (12 samples per half-resolution texel from depth,
//! `ssao.comp`) into `ssao raw`, then `ssao blur` (a 5×5 depth-aware blur,
//! `ssao_blur.comp`) into `ssao`; both `R32_SFLOAT` storage images at half resolution (the
//! one single-channel float format every device can store to without the extended-formats
//! feature). Lighting multiplies its ambient term by `ssao`, upsampled bilinearly.
//!
//! Where depth comes from is [`crate::features::Ssao`]:
//! - `Ssao::GBuffer`: the G-buffer's full-resolution depth, sampled after `gbuffer`. The
//!   frame declares the shadow cascades after the G-buffer then, so the async SSAO overlaps
//!   them. On a tiler the depth leaves tile memory and the G-buffer render pass ends before
//!   lighting (the plan's break says so).
//! - `Ssao::Prepass`: `ssao depth prepass`, a half-resolution depth-only raster pass of
//!   the opaque geometry into `ssao depth` (`D32_SFLOAT`); the G-buffer depth stays in tile
//!   memory and G-buffer → lighting → transparents → tone map stay one render pass. It costs
//!   a second, quarter-size geometry pass; SSAO overlaps the shadow and G-buffer passes.

use super::geometry::draw_opaque_depth;
use super::Targets;
use crate::builder::{Filter, ImageRef, Size};
use crate::gpu::commands::set_viewport;
use crate::gpu::descriptors::{declared_sets, dispatch, groups};
use crate::gpu::pass::{FrameBuilder, PassContext};
use crate::gpu::pipelines::PipelineKind;
use crate::RenderError;
use ash::vk;
use tessera_graph::{Format, PassKind};

/// Radius of the SSAO samples (m) in a scene without bounds.
pub const RADIUS: f32 = 0.8;
/// The SSAO radius as a fraction of the scene's bounding-box diagonal (0.9 m in the
/// courtyard; glTF models come in any unit).
pub const RADIUS_OF_SCENE: f32 = 0.03;
/// How strongly occlusion darkens ambient.
pub const STRENGTH: f32 = 5.0;

/// The SSAO images' format.
pub const FORMAT: Format = Format::R32_SFLOAT;
/// Workgroup side of the SSAO shaders.
const GROUP: u32 = 8;

/// What [`declare`] adds to the frame.
#[derive(Clone, Copy, Debug)]
pub struct SsaoTargets {
    /// The blurred ambient occlusion (half resolution, 1: unoccluded).
    pub ssao: ImageRef,
    /// The depth it was computed from (the G-buffer's or the prepass's).
    pub depth: ImageRef,
}

/// Declares the prepass (for `Ssao::Prepass`); call before `gbuffer`.
pub fn declare_prepass(fb: &mut FrameBuilder<'_>, t: &Targets) -> ImageRef {
    let t = *t;
    let depth = fb.image("ssao depth", Format::D32_SFLOAT, Size::HALF);
    fb.pass("ssao depth prepass", PassKind::Raster, |p| {
        p.depth_cleared(depth, 0.0).uniform(t.ubo);
        super::geometry::declare_vertices(p, &t);
        move |pc| draw_prepass(pc, &t)
    });
    depth
}

/// Declares `ssao` and `ssao blur` reading `depth` (the G-buffer's after `gbuffer`, or the
/// prepass's).
pub fn declare(fb: &mut FrameBuilder<'_>, t: &Targets, depth: ImageRef) -> SsaoTargets {
    let ubo = t.async_ubo.unwrap_or(t.ubo);
    let raw = fb.image("ssao raw", FORMAT, Size::HALF);
    let ssao = fb.image("ssao", FORMAT, Size::HALF);
    fb.pass("ssao", PassKind::Compute, |p| {
        p.uniform(ubo)
            .sampled_with(depth, Filter::Nearest)
            .image_store(raw)
            .async_compute();
        move |pc| {
            let e = pc.image(raw)?.extent;
            dispatch(pc, "ssao.comp", &[], groups(e, GROUP))
        }
    });
    fb.pass("ssao blur", PassKind::Compute, |p| {
        p.uniform(ubo)
            .sampled_with(depth, Filter::Nearest)
            .image_load(raw)
            .image_store(ssao)
            .async_compute();
        move |pc| {
            let e = pc.image(ssao)?.extent;
            dispatch(pc, "ssao_blur.comp", &[], groups(e, GROUP))
        }
    });
    SsaoTargets { ssao, depth }
}

/// Records the opaque draws, depth only, through the camera.
pub(crate) fn draw_prepass(
    pc: &mut PassContext<'_, '_, '_>,
    t: &Targets,
) -> Result<(), RenderError> {
    let (rp, sp, extent) = pc.subpass()?;
    let (scene, pipelines) = (pc.scene()?, pc.pipelines()?);
    let (pipeline, layout, set_layout) = {
        let mut p = pipelines.borrow_mut();
        (
            p.get(pc.gpu, PipelineKind::DepthPrepass, (rp, sp), pc.samples())?,
            p.layouts.shadow,
            p.layouts.frame_constants,
        )
    };
    if scene.opaque.is_empty() {
        return Ok(());
    }
    let set = declared_sets(pc, &[set_layout])?[0];
    let buffers = super::geometry::MeshBuffers::of(pc, t)?;
    set_viewport(pc.gpu, pc.cmd, extent);
    let d = &pc.gpu.device;
    // SAFETY: recording inside the prepass subpass with the pipeline made for it; a fresh
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
    draw_opaque_depth(pc, layout, scene, &buffers, 0.0);
    Ok(())
}
