//! `debug view`: shows one of the frame's intermediates as the output, through the graph.
//!
//! The pass samples the chosen resource and writes the output in place of the post chain,
//! so the plan of a debug view is the frame that view needs: what feeds only the lit picture
//! (lighting, tone mapping) is culled, and a G-buffer target that the view samples leaves
//! tile memory on a tiler — the plan's memoryless decisions and breaks say so. The exposure
//! view is the exception: it draws its panel over the lit frame, after the adaptation.

use super::post::PostTargets;
use super::Targets;
use crate::builder::{BufferRef, FrameBuilder, ImageRef};
use crate::features::DebugView;
use crate::gpu::generic::{types, write_set, Bind};
use ash::vk;
use tessera_graph::PassKind;

/// How `debug_image.frag` shows its source.
#[derive(Clone, Copy, Debug)]
enum Mode {
    Colour = 0,
    AsStored = 1,
    Depth = 2,
    Channel = 3,
    ShadowDepth = 4,
}

/// The image a view shows, with its uv rectangle and mode; `None` for views of buffers,
/// which other modules draw.
fn source(t: &Targets, view: DebugView, cascades: u32) -> Option<(ImageRef, [f32; 4], Mode)> {
    let whole = [0.0, 0.0, 1.0, 1.0];
    Some(match view {
        DebugView::Albedo => (t.albedo, whole, Mode::Colour),
        DebugView::Normal => (t.normal, whole, Mode::AsStored),
        DebugView::Material => (t.material, whole, Mode::AsStored),
        DebugView::Depth => (t.depth, whole, Mode::Depth),
        DebugView::Shadow(c) => {
            let n = cascades.max(1);
            let c = c.min(n - 1) as f32;
            (
                t.atlas,
                [c / n as f32, 0.0, 1.0 / n as f32, 1.0],
                Mode::ShadowDepth,
            )
        }
        DebugView::Ssao => (t.ssao?, whole, Mode::Channel),
        _ => return None,
    })
}

/// Declares the `debug view` pass writing `view` into the output, if this frame has what
/// `view` shows (SSAO and clustering may be off); returns whether it did.
pub fn declare(fb: &mut FrameBuilder<'_>, t: &Targets, view: DebugView, cascades: u32) -> bool {
    if view == DebugView::Clusters {
        return t.clusters.is_some_and(|c| {
            declare_clusters(fb, t, c);
            true
        });
    }
    let Some((image, rect, mode)) = source(t, view, cascades) else {
        return false;
    };
    let output = t.output;
    fb.pass("debug view", PassKind::Raster, |p| {
        p.sampled(image).color(output);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let src = pc.image(image)?;
            let layout = if src.format.is_depth_stencil() {
                vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
            } else {
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
            };
            let mut p = pc.pipelines()?.borrow_mut();
            let binds = [Bind::Sampled(src.shader_view, p.shaders.nearest, layout)];
            let pipeline =
                p.shaders
                    .screen(pc.gpu, "debug_image.frag", &types(&binds), 20, (rp, sp), 1)?;
            drop(p);
            let set = write_set(pc, pipeline.set_layout, &binds)?;
            let mut push = [0u8; 20];
            for (i, v) in rect.iter().enumerate() {
                push[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
            push[16..].copy_from_slice(&(mode as u32).to_le_bytes());
            pipeline.draw_fullscreen(pc, extent, set, &push);
            Ok(())
        }
    });
    true
}

/// The cluster heat map: each pixel's surface finds its cluster from depth and shows how
/// many lights touch it (`debug_clusters.frag`).
fn declare_clusters(fb: &mut FrameBuilder<'_>, t: &Targets, clusters: BufferRef) {
    let Targets {
        ubo,
        lights,
        depth,
        output,
        ..
    } = *t;
    fb.pass("debug view", PassKind::Raster, |p| {
        p.uniform(ubo)
            .storage_read(lights)
            .storage_read(clusters)
            .sampled(depth)
            .color(output);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let depth = pc.image(depth)?;
            let mut p = pc.pipelines()?.borrow_mut();
            let binds = [
                Bind::Uniform(pc.buffer(ubo)?),
                Bind::Storage(pc.buffer(lights)?),
                Bind::Storage(pc.buffer(clusters)?),
                Bind::Sampled(
                    depth.shader_view,
                    p.shaders.nearest,
                    vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL,
                ),
            ];
            let pipeline = p.shaders.screen(
                pc.gpu,
                "debug_clusters.frag",
                &types(&binds),
                0,
                (rp, sp),
                1,
            )?;
            drop(p);
            let set = write_set(pc, pipeline.set_layout, &binds)?;
            pipeline.draw_fullscreen(pc, extent, set, &[]);
            Ok(())
        }
    });
}

/// The exposure view: the histogram, the adapted luminance and the exposure drawn over the
/// lit frame (`debug_exposure.frag`), after the adaptation (so it shows this frame's
/// values). Nothing is declared with a fixed exposure (there is no histogram).
pub fn declare_exposure(fb: &mut FrameBuilder<'_>, t: &Targets, post: &PostTargets) {
    let (Some(histogram), Some(exposure)) = (post.histogram, post.exposure) else {
        return;
    };
    let output = t.output;
    fb.pass("debug view", PassKind::Raster, |p| {
        p.storage_read(histogram)
            .storage_read(exposure)
            .blend(output);
        move |pc| {
            let (rp, sp, extent) = pc.subpass()?;
            let binds = [
                Bind::Storage(pc.buffer(histogram)?),
                Bind::Storage(pc.buffer(exposure)?),
            ];
            let pipeline = pc.pipelines()?.borrow_mut().shaders.screen(
                pc.gpu,
                "debug_exposure.frag",
                &types(&binds),
                0,
                (rp, sp),
                1,
            )?;
            let set = write_set(pc, pipeline.set_layout, &binds)?;
            pipeline.draw_fullscreen(pc, extent, set, &[]);
            Ok(())
        }
    });
}
