//! `debug view`: shows one of the frame's intermediates as the output, through the graph.
//!
//! The pass samples the chosen resource and writes the output in place of the post chain,
//! so the plan of a debug view is the frame that view needs: what feeds only the lit picture
//! (lighting, tone mapping) is culled, and a G-buffer target that the view samples leaves
//! tile memory on a tiler — the plan's memoryless decisions and breaks say so. The exposure
//! view is the exception: it draws its panel over the lit frame, after the adaptation.

use super::post::PostTargets;
use super::{Rotation, Targets};
use crate::builder::{BufferRef, Filter, ImageRef};
use crate::features::DebugView;
use crate::gpu::descriptors::draw_screen;
use crate::gpu::pass::FrameBuilder;
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

/// The depths of a cascade's slice in its own clip space: from the near side of the slice's
/// bounding sphere to the far plane. Its projection is orthographic, `2r` wide and `back + r`
/// deep behind a rigid view, so the lengths of its clip matrix's x and z rows are `1/r` and
/// `1/(back + r)`, and the sphere's near side is at depth `1 - 2r/(back + r)`
/// (`crate::shadows::fit`).
pub fn cascade_slice_depths(view_proj: &[f32; 16]) -> [f32; 2] {
    let m = glam::Mat4::from_cols_array(view_proj);
    let (x, z) = (m.row(0).truncate().length(), m.row(2).truncate().length());
    if x <= 0.0 || !x.is_finite() || !z.is_finite() {
        return [0.0, 1.0];
    }
    [(1.0 - 2.0 * z / x).clamp(0.0, 0.999), 1.0]
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
/// `cascade_view_proj` are the frame's cascades (`FrameData`), whose depth a shadow view
/// spreads over its grey levels.
pub fn declare(
    fb: &mut FrameBuilder<'_>,
    t: &Targets,
    view: DebugView,
    (cascades, rotation): (u32, Rotation),
    cascade_view_proj: &[[f32; 16]],
) -> bool {
    if view == DebugView::Clusters {
        return t.clusters.is_some_and(|c| {
            declare_clusters(fb, t, c, rotation);
            true
        });
    }
    let Some((image, rect, mode)) = source(t, view, cascades) else {
        return false;
    };
    let range = match view {
        DebugView::Shadow(c) => cascade_view_proj
            .get(c.min(cascades.max(1) - 1) as usize)
            .map_or([0.0, 1.0], cascade_slice_depths),
        _ => [0.0, 1.0],
    };
    let output = t.output;
    fb.pass("debug view", PassKind::Raster, |p| {
        p.sampled_with(image, Filter::Nearest).color(output);
        move |pc| {
            // std430: vec4 rect, uint mode, (4 bytes of padding), vec2 range, then the
            // pre-rotation's vec2 logical size and float turns.
            let mut push = [0u8; 48];
            for (i, v) in rect.iter().enumerate() {
                push[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
            push[16..20].copy_from_slice(&(mode as u32).to_le_bytes());
            push[24..28].copy_from_slice(&range[0].to_le_bytes());
            push[28..32].copy_from_slice(&range[1].to_le_bytes());
            push[32..44].copy_from_slice(bytemuck::cast_slice(&rotation_push(pc, rotation)?));
            draw_screen(pc, "debug_image.frag", &push, 1)
        }
    });
    true
}

/// The cluster heat map: each pixel's surface finds its cluster from depth and shows how
/// many lights touch it (`debug_clusters.frag`).
fn declare_clusters(
    fb: &mut FrameBuilder<'_>,
    t: &Targets,
    clusters: BufferRef,
    rotation: Rotation,
) {
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
            .sampled_with(depth, Filter::Nearest)
            .color(output);
        move |pc| {
            let push = rotation_push(pc, rotation)?;
            draw_screen(pc, "debug_clusters.frag", bytemuck::cast_slice(&push), 1)
        }
    });
}

/// The exposure view: the histogram, the adapted luminance and the exposure drawn over the
/// lit frame (`debug_exposure.frag`), after the adaptation (so it shows this frame's
/// values). Nothing is declared with a fixed exposure (there is no histogram).
pub fn declare_exposure(
    fb: &mut FrameBuilder<'_>,
    t: &Targets,
    post: &PostTargets,
    rotation: Rotation,
) {
    let (Some(histogram), Some(exposure)) = (post.histogram, post.exposure) else {
        return;
    };
    let output = t.output;
    fb.pass("debug view", PassKind::Raster, |p| {
        p.storage_read(histogram)
            .storage_read(exposure)
            .blend(output);
        move |pc| {
            let push = rotation_push(pc, rotation)?;
            draw_screen(pc, "debug_exposure.frag", bytemuck::cast_slice(&push), 1)
        }
    });
}

/// The pre-rotation's push constants (`upright_uv` in the debug shaders): the logical
/// size (the render area's, sides swapped back) and the quarter turns.
fn rotation_push(
    pc: &crate::gpu::pass::PassContext<'_, '_, '_>,
    rotation: Rotation,
) -> Result<[f32; 3], crate::RenderError> {
    let (_, _, extent) = pc.subpass()?;
    let (w, h) = rotation.swap((extent.width, extent.height));
    Ok([w as f32, h as f32, rotation.turns() as f32])
}

#[cfg(test)]
mod tests {
    use super::cascade_slice_depths;
    use crate::camera::View;
    use glam::{Mat4, Vec3};

    /// The shadow views spread the slice's depths over their grey levels: every corner of
    /// each cascade's slice lies within the range, and the range is a small part of the
    /// cascade's depth (which reaches back to the scene's far side for casters).
    #[test]
    fn a_shadow_view_spans_its_slice_not_the_whole_cascade() {
        let v = View {
            position: Vec3::new(0.0, 2.0, 10.0),
            target: Vec3::ZERO,
            up: Vec3::Y,
            yfov: 1.0,
            znear: 0.1,
        };
        let aspect = 16.0 / 9.0;
        let c = crate::shadows::fit(
            &v,
            aspect,
            Vec3::new(-0.3, -1.0, -0.2),
            40.0,
            (512, 3),
            Vec3::ZERO,
            30.0,
        );
        let inv = Mat4::look_at_rh(v.position, v.target, v.up).inverse();
        let (tan_y, mut start) = ((v.yfov * 0.5).tan(), v.znear);
        for (i, &end) in c.splits.iter().enumerate().take(c.count as usize) {
            let [lo, hi] = cascade_slice_depths(&c.view_proj[i].to_cols_array());
            for z in [start, end] {
                for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                    let p = Vec3::new(sx * tan_y * aspect * z, sy * tan_y * z, -z);
                    let q = c.view_proj[i].project_point3(inv.transform_point3(p));
                    assert!(
                        q.z >= lo - 1e-4 && q.z <= hi,
                        "cascade {i}: {} in {lo}..{hi}",
                        q.z
                    );
                }
            }
            // The nearest cascade's slice is a thin layer near 1 (which showed white).
            assert!(lo > if i == 0 { 0.75 } else { 0.0 }, "cascade {i}: {lo}");
            start = end;
        }
        assert_eq!(
            cascade_slice_depths(&Mat4::IDENTITY.to_cols_array()),
            [0.0, 1.0]
        );
    }
}
