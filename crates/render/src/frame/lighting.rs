//! `lighting`: the deferred lighting pass, as a raster subpass ([`declare`]) or a compute
//! pass ([`declare_compute`]).

use super::geometry::declare_environment;
use super::sets::draw_fullscreen;
use super::Targets;
use crate::builder::Filter;
use crate::gpu::descriptors::{declared_sets, dispatch, groups};
use crate::gpu::pass::FrameBuilder;
use crate::gpu::pipelines::{variant_index, PipelineKind};
use tessera_graph::PassKind;

/// `lighting`: reads the G-buffer and depth as input attachments and adds the sun (shadowed),
/// the point lights (of the pixel's cluster when the frame clusters them) and ambient (× SSAO
/// when declared) to HDR.
pub fn declare(fb: &mut FrameBuilder<'_>, t: &Targets) {
    let t = *t;
    fb.pass("lighting", PassKind::Raster, |p| {
        // Set 0: frame constants, lights, the variant's clusters (2) and SSAO (3); set 1:
        // the G-buffer; set 2: the shadow atlas; set 3: the environment.
        // The G-buffer is read where depth is (`gbuffer`'s coverage); HDR at every pixel.
        p.in_set(1)
            .covered_by(t.depth)
            .input(t.albedo)
            .input(t.normal)
            .input(t.material)
            .everywhere()
            .input(t.depth)
            .blend(t.hdr)
            .in_set(0)
            .uniform(t.ubo)
            .storage_read(t.lights)
            .in_set(2)
            .sampled_with(t.atlas, Filter::ShadowCompare);
        declare_environment(p, &t);
        if let Some(c) = t.clusters {
            p.at_binding(2).storage_read(c);
        }
        if let Some(a) = t.ssao {
            p.at_binding(3).sampled_with(a, Filter::Nearest);
        }
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let pipelines = pc.pipelines()?;
            let kind = PipelineKind::Lighting {
                clustered: t.clusters.is_some(),
                ao: t.ssao.is_some(),
            };
            let variant = variant_index(t.clusters.is_some(), t.ssao.is_some());
            let (pipeline, layout, set_layouts) = {
                let mut p = pipelines.borrow_mut();
                (
                    p.get(pc.gpu, kind, (rp, sp), pc.samples())?,
                    p.layouts.lighting[variant],
                    [
                        p.layouts.lit_frame[variant],
                        p.layouts.gbuffer_inputs,
                        p.layouts.shadow_map,
                        p.layouts.environment,
                    ],
                )
            };
            let sets = declared_sets(pc, &set_layouts)?;
            draw_fullscreen(pc, (pipeline, layout), extent, &sets, &[]);
            Ok(())
        }
    });
}

/// Workgroup side of `lighting.comp`.
const GROUP: u32 = 8;

/// `lighting` as a compute pass (`Lighting::Compute`): samples the G-buffer, depth and
/// emission at each pixel and writes every pixel of HDR (the lit surface plus its emission,
/// or the sky), with the same `shade()` as the raster pass. Set 0 in the order
/// `lighting.comp` binds it.
pub fn declare_compute(fb: &mut FrameBuilder<'_>, t: &Targets) {
    let t = *t;
    fb.pass("lighting", PassKind::Compute, |p| {
        p.uniform(t.ubo)
            .storage_read(t.lights)
            .sampled_with(t.atlas, Filter::ShadowCompare)
            // The G-buffer and emission where depth is (`gbuffer`'s coverage).
            .covered_by(t.depth)
            .sampled_with(t.albedo, Filter::Nearest)
            .sampled_with(t.normal, Filter::Nearest)
            .sampled_with(t.material, Filter::Nearest)
            .sampled_with(t.depth, Filter::Nearest)
            .sampled_with(t.emission, Filter::Nearest)
            .everywhere()
            .image_store(t.hdr)
            .sampled(t.env.specular)
            .storage_read(t.env.irradiance)
            .sampled(t.env.brdf);
        if let Some(c) = t.clusters {
            p.storage_read(c);
        }
        if let Some(a) = t.ssao {
            p.sampled_with(a, Filter::Nearest);
        }
        move |pc| {
            let shader = match (t.clusters.is_some(), t.ssao.is_some()) {
                (false, false) => "lighting.comp",
                (true, false) => "lighting.comp#CLUSTERED",
                (false, true) => "lighting.comp#SSAO",
                (true, true) => "lighting.comp#CLUSTERED#SSAO",
            };
            let extent = pc.image(t.hdr)?.extent;
            dispatch(pc, shader, &[], groups(extent, GROUP))
        }
    });
}
