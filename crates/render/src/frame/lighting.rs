//! `lighting`: the deferred lighting pass.

use super::sets::{draw_fullscreen, input_set, lit_frame_set, shadow_set};
use super::Targets;
use crate::builder::FrameBuilder;
use crate::gpu::pipelines::{variant_index, PipelineKind};
use tessera_graph::PassKind;

/// `lighting`: reads the G-buffer and depth as input attachments and adds the sun (shadowed),
/// the point lights (of the pixel's cluster when the frame clusters them) and ambient (× SSAO
/// when declared) to HDR.
pub fn declare(fb: &mut FrameBuilder<'_>, t: &Targets) {
    let t = *t;
    fb.pass("lighting", PassKind::Raster, |p| {
        p.input(t.albedo)
            .input(t.normal)
            .input(t.material)
            .input(t.depth)
            .blend(t.hdr)
            .uniform(t.ubo)
            .storage_read(t.lights)
            .sampled(t.atlas);
        if let Some(c) = t.clusters {
            p.storage_read(c);
        }
        if let Some(a) = t.ssao {
            p.sampled(a);
        }
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let pipelines = pc.pipelines()?;
            let kind = PipelineKind::Lighting {
                clustered: t.clusters.is_some(),
                ao: t.ssao.is_some(),
            };
            let (pipeline, layout, frame_layout, inputs_layout, shadow_layout, sampler, point) = {
                let mut p = pipelines.borrow_mut();
                (
                    p.get(pc.gpu, kind, rp, sp)?,
                    p.layouts.lighting[variant_index(t.clusters.is_some(), t.ssao.is_some())],
                    p.layouts.lit_frame[variant_index(t.clusters.is_some(), t.ssao.is_some())],
                    p.layouts.gbuffer_inputs,
                    p.layouts.shadow_map,
                    p.shadow_sampler,
                    p.shaders.nearest,
                )
            };
            let ao = t.ssao.map(|a| (a, point));
            let frame = lit_frame_set(pc, frame_layout, t.ubo, t.lights, t.clusters, ao)?;
            let inputs = input_set(
                pc,
                inputs_layout,
                &[t.albedo, t.normal, t.material, t.depth],
            )?;
            let shadow = shadow_set(pc, shadow_layout, sampler, t.atlas)?;
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
}
