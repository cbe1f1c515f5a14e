//! The forward path (`RenderPath::Forward`): opaque surfaces are shaded as they are drawn, so
//! there is no G-buffer and MSAA costs one colour and one depth attachment.
//!
//! - `forward depth prepass` (SSAO only): the opaque depth at full resolution into `ssao
//!   depth`, which SSAO reads (it must exist before the surfaces are shaded). At `msaa` > 1
//!   it renders `ssao depth ms` (memoryless on a tiler) and resolves it on write-back in the
//!   device's mode (`Settings::depth_resolve`, `Max` by default: the nearest sample with
//!   reversed Z): depth is resolved only because a later pass reads it. A device without
//!   depth resolve gets a single-sampled prepass.
//! - `forward opaque`: HDR colour and depth at `msaa` samples, cleared; the opaque and masked
//!   draws lit with `shade()` (the sun's cascades, the clustered point lights, ambient ×
//!   SSAO), then the sky where no sample was covered. With TAA (1× only) it also writes the
//!   motion vectors, as the G-buffer does.
//! - `transparents`: blended over the same colour with the depth read; at `msaa` > 1 when
//!   HDR is resolved before tone mapping it declares the resolve of `hdr ms` into the
//!   single-sampled `hdr`, so the two passes merge into one render pass whose multisampled
//!   attachments never leave tile memory (memoryless on a tiler) and only the resolved `hdr`
//!   is stored.
//!
//! Post processing reads `hdr` as on the deferred path, unless tone mapping runs per sample
//! ([`tonemaps_per_sample`]): then `transparents` resolves `hdr ms` only into `bloom source`
//! (`Bloom::Tonemap`) and `tonemap` joins the multisampled render pass, reading `hdr ms` at
//! each sample and resolving its multisampled target, so only single-sampled results leave
//! tile memory: the bytes a 1× frame stores.

use super::geometry::{
    declare_environment, declare_transparents, draw_meshes, lit_sets, subpass_of, Shading,
};
use super::post::Hdr;
use super::sets::{bind_graphics_set, draw_fullscreen};
use super::Targets;
use crate::builder::{Filter, ImageRef, Size};
use crate::features::{Bloom, DebugView, Exposure, Features, RenderPath};
use crate::gpu::pass::FrameBuilder;
use crate::gpu::pipelines::{variant_index, PipelineKind};
use crate::gpu::scene::Draw;
use tessera_graph::{Format, PassKind, ResolveMode};

/// The forward frame's colour and depth: multisampled at `msaa` > 1 (then resolved into
/// `t.hdr`), else `t.hdr` and `t.depth` themselves.
#[derive(Clone, Copy, Debug)]
pub struct ForwardTargets {
    /// The colour the surfaces are drawn into.
    pub color: ImageRef,
    /// Their depth.
    pub depth: ImageRef,
    /// Samples per pixel of both.
    pub samples: u32,
}

/// Declares the forward path's colour and depth at `samples` per pixel.
pub fn declare_targets(fb: &mut FrameBuilder<'_>, t: &Targets, samples: u32) -> ForwardTargets {
    if samples <= 1 {
        return ForwardTargets {
            color: t.hdr,
            depth: t.depth,
            samples: 1,
        };
    }
    ForwardTargets {
        color: fb.image_ms("hdr ms", super::HDR_FORMAT, Size::FULL, samples),
        depth: fb.image_ms("depth ms", Format::D32_SFLOAT, Size::FULL, samples),
        samples,
    }
}

/// `forward depth prepass`: the depth SSAO reads, at full resolution; at `samples` > 1
/// resolved from a multisampled depth with `resolve` (`None`: single-sampled). Call before
/// `forward opaque`.
pub fn declare_prepass(
    fb: &mut FrameBuilder<'_>,
    t: &Targets,
    samples: u32,
    resolve: Option<ResolveMode>,
) -> ImageRef {
    let t = *t;
    let depth = fb.image("ssao depth", Format::D32_SFLOAT, Size::FULL);
    let ms = resolve.filter(|_| samples > 1).map(|mode| {
        let ms = fb.image_ms("ssao depth ms", Format::D32_SFLOAT, Size::FULL, samples);
        (ms, mode)
    });
    fb.pass("forward depth prepass", PassKind::Raster, |p| {
        match ms {
            Some((ms, mode)) => p.depth_cleared(ms, 0.0).resolve_depth(depth, ms, mode),
            None => p.depth_cleared(depth, 0.0),
        };
        p.uniform(t.ubo);
        super::geometry::declare_vertices(p, &t);
        move |pc| super::ssao::draw_prepass(pc, &t)
    });
    depth
}

/// `forward opaque`: the opaque and masked draws lit into `f.color`, then the sky.
pub fn declare_opaque(fb: &mut FrameBuilder<'_>, t: &Targets, f: ForwardTargets) {
    let t = *t;
    fb.pass("forward opaque", PassKind::Raster, |p| {
        // Set 0: frame constants, lights, the variant's clusters (2) and SSAO (3); set 1:
        // each draw's material (the scene's); set 2: the shadow atlas; set 3: the
        // environment (the sky draws it too).
        p.color_cleared(f.color, [0.0; 4]);
        // TAA's motion vectors (single-sampled only: `Features::check`), no motion where
        // nothing is drawn.
        if let Some(m) = t.motion {
            p.color_cleared(m, [0.0; 4]);
        }
        p.depth_cleared(f.depth, 0.0)
            .uniform(t.ubo)
            .storage_read(t.lights);
        super::geometry::declare_vertices(p, &t);
        if let Some(c) = t.clusters {
            p.at_binding(2).storage_read(c);
        }
        if let Some(a) = t.ssao {
            p.at_binding(3).sampled_with(a, Filter::Nearest);
        }
        p.in_set(2).sampled_with(t.atlas, Filter::ShadowCompare);
        declare_environment(p, &t);
        let (clustered, ao, motion) = (t.clusters.is_some(), t.ssao.is_some(), t.motion.is_some());
        move |pc| {
            let subpass = subpass_of(pc)?;
            let (scene, pipelines) = (pc.scene()?, pc.pipelines()?);
            let variant = variant_index(clustered, ao);
            let sets = lit_sets(pc, pipelines, variant)?;
            draw_meshes(
                pc.gpu,
                pc.cmd,
                pipelines,
                scene,
                &scene.opaque,
                Shading::Opaque {
                    clustered,
                    ao,
                    motion,
                },
                subpass,
                &sets,
                super::geometry::MeshBuffers::of(pc, &t)?,
            )?;
            let (rp, sp, extent, samples) = subpass;
            let sky = {
                let mut p = pipelines.borrow_mut();
                let kind = PipelineKind::Sky {
                    clustered,
                    ao,
                    motion,
                };
                (
                    p.get(pc.gpu, kind, (rp, sp), samples)?,
                    p.layouts.forward_opaque[variant],
                )
            };
            // The sky reads set 3 as well: bound here, as the opaque draws may be none.
            bind_graphics_set(pc, sky.1, 3, sets[2]);
            draw_fullscreen(pc, sky, extent, &sets[..1], &[]);
            Ok(())
        }
    });
}

/// Whether `tonemap` runs at the forward path's `msaa` samples inside its render pass, per
/// sample, in place of resolving HDR first: when `allowed` (the device shades per sample)
/// and no pass but tone mapping reads HDR. `Bloom::Hdr` samples it, and so does the exposure
/// histogram without the tile-friendly bloom's copy; a debug view of an image reads it.
pub fn tonemaps_per_sample(features: &Features, allowed: bool) -> bool {
    let auto = matches!(features.exposure, Exposure::Auto { .. });
    allowed
        && features.path == RenderPath::Forward
        && features.msaa > 1
        && match features.bloom {
            Bloom::Hdr => false,
            Bloom::Off => !auto,
            Bloom::Tonemap => true,
        }
        && matches!(features.debug_view, DebugView::None | DebugView::Exposure)
}

/// The forward path's geometry after the shadows (and SSAO): `forward opaque`, then
/// `transparents`. Returns what tone mapping reads: `t.hdr`, which `transparents` resolves
/// the multisampled colour into; or, per sample ([`tonemaps_per_sample`] with `allowed`),
/// the multisampled colour itself, which `transparents` resolves into the tile-friendly
/// bloom's `bloom source` (a copy of HDR: the average is what a linear blur wants) or not at
/// all.
pub fn declare(
    fb: &mut FrameBuilder<'_>,
    t: &Targets,
    f: ForwardTargets,
    transparent: Vec<Draw>,
    (features, allowed): (&Features, bool),
) -> Hdr {
    declare_opaque(fb, t, f);
    let drawn = Targets {
        hdr: f.color,
        depth: f.depth,
        ..*t
    };
    let per_sample = f.samples > 1 && tonemaps_per_sample(features, allowed);
    let hdr = match per_sample {
        false => Hdr {
            image: t.hdr,
            samples: 1,
            bloom_source: None,
        },
        true => Hdr {
            image: f.color,
            samples: f.samples,
            bloom_source: (features.bloom == Bloom::Tonemap)
                .then(|| fb.image("bloom source", super::HDR_FORMAT, Size::FULL)),
        },
    };
    let resolve = match per_sample {
        false => (f.samples > 1).then_some(t.hdr),
        true => hdr.bloom_source,
    };
    declare_transparents(fb, &drawn, transparent, resolve.map(|r| (r, f.color)));
    hdr
}
