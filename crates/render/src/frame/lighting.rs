//! `lighting`: the deferred lighting pass.

use super::sets::{draw_fullscreen, frame_set, input_set, shadow_set};
use super::Targets;
use crate::builder::FrameBuilder;
use crate::gpu::pipelines::PipelineKind;
use tessera_graph::PassKind;

/// `lighting`: reads the G-buffer and depth as input attachments and adds the sun (shadowed)
/// and the point lights to HDR.
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
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let pipelines = pc.pipelines()?;
            let (pipeline, layout, frame_layout, inputs_layout, shadow_layout, sampler) = {
                let mut p = pipelines.borrow_mut();
                (
                    p.get(pc.gpu, PipelineKind::Lighting, rp, sp)?,
                    p.layouts.lighting,
                    p.layouts.frame,
                    p.layouts.gbuffer_inputs,
                    p.layouts.shadow_map,
                    p.shadow_sampler,
                )
            };
            let frame = frame_set(pc, frame_layout, t.ubo, t.lights)?;
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
