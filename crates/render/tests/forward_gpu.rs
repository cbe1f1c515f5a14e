//! The forward path on lavapipe (validated, zero messages): MSAA changes only geometry
//! edges, the forward picture at 1× is the deferred one within the G-buffer's quantisation,
//! and the graph's optimisations change nothing at 4×.

mod common;

use common::{gpu, render};
use tessera_graph::{CompileOptions, ResolveMode};
use tessera_render::features::{Aa, Bloom, Exposure, Features, RenderPath, Ssao};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings};
use tessera_scene::{AlphaMode, Scene};

const W: u32 = 160;
const H: u32 = 90;

fn settings(options: CompileOptions, features: Features) -> Settings {
    Settings {
        width: W,
        height: H,
        options,
        features,
        ..Settings::default()
    }
}

/// The forward path at `msaa` with 512-texel cascades and FXAA.
fn forward(msaa: u32) -> Features {
    Features {
        path: RenderPath::Forward,
        msaa,
        shadow_size: 512,
        aa: Aa::Fxaa,
        ssao: Ssao::Prepass,
        ..Features::default()
    }
}

/// The courtyard with its blended surfaces drawn opaque: their silhouettes then are depth
/// edges too (blended surfaces write no depth).
fn opaque_courtyard() -> Scene {
    let mut s = tessera_scene::builtin();
    for m in &mut s.materials {
        if m.alpha_mode == AlphaMode::Blend {
            m.alpha_mode = AlphaMode::Opaque;
        }
    }
    s
}

/// Largest channel difference between pixel `i` of `a` and pixel `j` of `b`.
fn px(a: &Picture, i: usize, b: &Picture, j: usize) -> u8 {
    (0..3)
        .map(|c| a.rgba[i * 4 + c].abs_diff(b.rgba[j * 4 + c]))
        .max()
        .unwrap_or(0)
}

/// Largest channel difference of pixel `i` between two pictures.
fn diff(a: &Picture, b: &Picture, i: usize) -> u8 {
    px(a, i, b, i)
}

/// Pixels within `r` pixels (Chebyshev) of a pixel of `mask`.
fn dilate(mask: &[bool], r: i64) -> Vec<bool> {
    let (w, h) = (i64::from(W), i64::from(H));
    (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            (-r..=r).any(|dy| {
                (-r..=r).any(|dx| {
                    let (u, v) = (x + dx, y + dy);
                    u >= 0 && v >= 0 && u < w && v < h && mask[(v * w + u) as usize]
                })
            })
        })
        .collect()
}

/// Pixels where `p` steps by more than `threshold` (largest channel) to a right or lower
/// neighbour, both pixels of the step marked.
fn steps(p: &Picture, threshold: u8) -> Vec<bool> {
    let (w, h) = (W as usize, H as usize);
    let mut m = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            for j in [(x + 1 < w).then_some(i + 1), (y + 1 < h).then_some(i + w)]
                .into_iter()
                .flatten()
            {
                if px(p, i, p, j) > threshold {
                    m[i] = true;
                    m[j] = true;
                }
            }
        }
    }
    m
}

/// MSAA resolves the coverage of pixels that geometry edges cross and nothing else: with
/// the post effects that spread a change over the picture off (FXAA, bloom, auto exposure)
/// and SSAO off, every pixel where 4× and 1× differ by more than 2/255 lies within 1 pixel
/// of a depth discontinuity of the 1× frame (its `depth` debug view stepping by more than
/// 2/255) or of a crease the 1× colour steps across (by more than 2/255: where two surfaces
/// meet at the same depth). With SSAO the resolved depth at an edge pixel is its nearest
/// sample, not its centre's, and the 5×5 half-resolution blur carries that up to 6 pixels
/// away. At 4× tone mapping runs per sample (each sample mapped, then averaged). Measured on
/// lavapipe at 160×90 without SSAO: 1750 of 14400 pixels (12.2%) differ by more than 2/255
/// (up to 181/255 where a bright edge meets the sky), 220 of them at creases off the depth
/// discontinuities, none away from every edge; with SSAO 1776 (12.3%), all within 6 pixels of
/// a depth discontinuity.
#[test]
fn msaa_changes_only_pixels_at_geometry_edges() {
    let gpu = gpu();
    for (ssao, reach) in [(Ssao::Off, 1), (Ssao::Prepass, 6)] {
        edges_only(&gpu, ssao, reach);
    }
}

fn edges_only(gpu: &std::sync::Arc<tessera_vk::Gpu>, ssao: Ssao, reach: i64) {
    let plain = |msaa| Features {
        aa: Aa::Off,
        bloom: Bloom::Off,
        exposure: Exposure::Fixed(1.0),
        ssao,
        ..forward(msaa)
    };
    let scene = opaque_courtyard;
    let s = |f| settings(CompileOptions::ALL, f);
    let one = render(gpu, scene(), s(plain(1)), 1);
    let four = render(gpu, scene(), s(plain(4)), 1);
    let depth = render(
        gpu,
        scene(),
        s(Features {
            debug_view: tessera_render::features::DebugView::Depth,
            ..plain(1)
        }),
        1,
    );
    let n = (W * H) as usize;
    let changed: Vec<bool> = (0..n).map(|i| diff(&one, &four, i) > 2).collect();
    let depth_edges = dilate(&steps(&depth, 2), reach);
    let colour_edges = dilate(&steps(&one, 2), reach);
    let count = |m: &[bool]| m.iter().filter(|&&b| b).count();
    let off_depth_edges: Vec<usize> = (0..n).filter(|&i| changed[i] && !depth_edges[i]).collect();
    let off_edges: Vec<usize> = off_depth_edges
        .iter()
        .copied()
        .filter(|&i| !colour_edges[i])
        .collect();
    eprintln!(
        "SSAO {ssao:?}: 4x vs 1x: {} of {n} pixels differ by > 2/255 ({:.1}%); {} of them \
         more than {reach} px from the depth edges, {} from every edge; max difference {}",
        count(&changed),
        100.0 * count(&changed) as f64 / n as f64,
        off_depth_edges.len(),
        off_edges.len(),
        (0..n).map(|i| diff(&one, &four, i)).max().unwrap_or(0)
    );
    assert!(count(&changed) > 0, "4x resolves some edge");
    assert!(
        off_edges.is_empty(),
        "SSAO {ssao:?}: pixels changed more than {reach} px from every edge: {:?}",
        off_edges
            .iter()
            .map(|&i| (i % W as usize, i / W as usize, diff(&one, &four, i)))
            .collect::<Vec<_>>()
    );
    // Edges only: a small part of the picture.
    assert!(count(&changed) * 5 < n, "{} of {n}", count(&changed));
}

/// The forward picture at 1× is the deferred one but for the G-buffer's quantisation
/// (base colour in 8-bit sRGB, normals in 10 bits, metallic/roughness/occlusion in 8 bits,
/// which the forward path keeps in float): within the golden tolerance that absorbs another
/// CPU's rounding (no region off by more than 24/255, at most 0.5% of pixels off by more than
/// 2/255, a mean below 0.25/255). Measured on lavapipe at 160×90: 61 pixels off by more
/// than 2/255, the largest regional difference 2/255, one outlier (30/255, a specular
/// highlight on a quantised roughness), mean 0.13/255.
#[test]
fn forward_at_1x_matches_deferred_within_gbuffer_quantisation() {
    let gpu = gpu();
    let f = forward(1);
    let fwd = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, f.clone()),
        2,
    );
    let deferred = Features {
        path: RenderPath::Deferred,
        ssao: Ssao::GBuffer,
        ..f
    };
    let def = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, deferred),
        2,
    );
    let d = fwd.difference(&def).expect("same size");
    eprintln!("forward 1x vs deferred 1x: {d:?}");
    assert!(d.within_tolerance(u64::from(W * H)), "{d:?}");
}

/// At 4× every graph optimisation off and all on give the same picture, bit for bit; 8×,
/// which lavapipe does not support, is clamped to 4× and gives it too; the prepass's depth
/// resolve takes a mode the device has.
#[test]
fn optimisations_change_nothing_at_4x_and_8x_clamps_to_4x() {
    let gpu = gpu();
    let on = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, forward(4)),
        2,
    );
    let off = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::NONE, forward(4)),
        2,
    );
    assert!(on == off, "all off: {:?}", on.difference(&off));
    let before = gpu.messages.count();
    let r = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, forward(8)),
    )
    .expect("renderer");
    assert_eq!(
        r.settings().features.msaa,
        4,
        "lavapipe renders 1 or 4 samples"
    );
    // The prepass resolves depth with `max` where the device has it; lavapipe has
    // `sample_zero` and `average` only, so `sample_zero`.
    let modes = gpu.capabilities().depth_resolve_modes;
    let expected = if modes.contains(ResolveMode::Max) {
        ResolveMode::Max
    } else {
        ResolveMode::SampleZero
    };
    assert_eq!(r.settings().depth_resolve, Some(expected), "{modes:?}");
    r.destroy();
    common::assert_no_messages_since(&gpu, before);
    let eight = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, forward(8)),
        2,
    );
    assert!(eight == on, "8x clamped: {:?}", eight.difference(&on));
}

/// The renderer refuses what it cannot render with the reason, before any device work.
#[test]
fn the_renderer_refuses_deferred_msaa_and_taa_with_msaa() {
    let gpu = gpu();
    let deferred = Features {
        path: RenderPath::Deferred,
        ..forward(4)
    };
    let e = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, deferred),
    )
    .expect_err("deferred at 4x");
    assert!(e.to_string().contains("needs path = \"forward\""), "{e}");
    let taa = Features {
        aa: Aa::Taa,
        ..forward(4)
    };
    let e = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, taa),
    )
    .expect_err("forward 4x with TAA");
    assert!(e.to_string().contains("aa = \"taa\" needs msaa = 1"), "{e}");
}

/// TAA on the forward path at 1×: `forward opaque` writes the motion vectors (the G-buffer's
/// code, `surface_motion` in `material.glsl`) and the picture after 4 jittered frames is the
/// deferred TAA picture within the golden tolerance. Measured at 160×90: largest channel
/// difference 3/255, one pixel off by more than 2/255, mean 0.12/255.
#[test]
fn taa_at_1x_on_forward_matches_deferred_taa() {
    let gpu = gpu();
    let taa = Features {
        aa: Aa::Taa,
        ..forward(1)
    };
    let graph = tessera_render::frame_graph(
        &tessera_scene::builtin(),
        &settings(CompileOptions::ALL, taa.clone()),
    );
    let motion = graph.find_resource("motion").expect("a motion target");
    let writers: Vec<&str> = graph
        .passes
        .iter()
        .filter(|p| {
            p.uses
                .iter()
                .any(|u| u.resource == motion && u.access.writes())
        })
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(writers, ["forward opaque"]);
    let fwd = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, taa.clone()),
        4,
    );
    let deferred = Features {
        path: RenderPath::Deferred,
        ssao: Ssao::GBuffer,
        ..taa
    };
    let def = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, deferred),
        4,
    );
    let d = fwd.difference(&def).expect("same size");
    eprintln!("forward TAA vs deferred TAA, 4 frames: {d:?}");
    assert!(d.within_tolerance(u64::from(W * H)), "{d:?}");
}

/// The mobile preset's post chain at 4× (`Bloom::Tonemap`, auto exposure, FXAA): tone
/// mapping runs per sample in the multisampled render pass (lavapipe has
/// `sampleRateShading`), without a validation message, and every graph optimisation off
/// gives the same picture bit for bit.
#[test]
fn tone_mapping_per_sample_runs_clean_and_matches_with_optimisations_off() {
    let gpu = gpu();
    assert!(gpu.sample_rate_shading, "lavapipe shades per sample");
    let mobile = Features {
        bloom: Bloom::Tonemap,
        exposure: Exposure::Auto { compensation: 1.0 },
        ..forward(4)
    };
    let r = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, mobile.clone()),
    )
    .expect("renderer");
    assert!(r.settings().tonemap_per_sample);
    r.destroy();
    let on = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL, mobile.clone()),
        2,
    );
    let off = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::NONE, mobile),
        2,
    );
    assert!(on == off, "all off: {:?}", on.difference(&off));
}

/// Mapping each sample then averaging differs from resolving HDR then mapping (the
/// fallback) only where a pixel's samples differ, at geometry edges: within 1 pixel of a
/// depth step or colour crease of the 1× frame (post effects that spread a change off, as
/// in `msaa_changes_only_pixels_at_geometry_edges`). Where the samples agree both orders
/// give the same value. Measured on lavapipe at 160×90: 1127 of 14400 pixels differ by more
/// than 2/255 (up to 98/255), none off every edge.
#[test]
fn per_sample_tone_mapping_differs_from_resolve_first_only_at_edges() {
    let gpu = gpu();
    let plain = |msaa| Features {
        aa: Aa::Off,
        bloom: Bloom::Off,
        exposure: Exposure::Fixed(1.0),
        ssao: Ssao::Off,
        ..forward(msaa)
    };
    let scene = opaque_courtyard;
    let s = |f| settings(CompileOptions::ALL, f);
    let per_sample = render(&gpu, scene(), s(plain(4)), 1);
    let resolved_first = render(
        &gpu,
        scene(),
        Settings {
            tonemap_per_sample: false,
            ..s(plain(4))
        },
        1,
    );
    let one = render(&gpu, scene(), s(plain(1)), 1);
    let depth = render(
        &gpu,
        scene(),
        s(Features {
            debug_view: tessera_render::features::DebugView::Depth,
            ..plain(1)
        }),
        1,
    );
    let n = (W * H) as usize;
    let changed: Vec<usize> = (0..n)
        .filter(|&i| diff(&per_sample, &resolved_first, i) > 2)
        .collect();
    let (depth_edges, colour_edges) = (dilate(&steps(&depth, 2), 1), dilate(&steps(&one, 2), 1));
    let off_edges: Vec<(usize, usize, u8)> = changed
        .iter()
        .copied()
        .filter(|&i| !depth_edges[i] && !colour_edges[i])
        .map(|i| {
            (
                i % W as usize,
                i / W as usize,
                diff(&per_sample, &resolved_first, i),
            )
        })
        .collect();
    eprintln!(
        "per sample vs resolve then map: {} of {n} pixels differ by > 2/255, {} off every \
         edge; max difference {}",
        changed.len(),
        off_edges.len(),
        (0..n)
            .map(|i| diff(&per_sample, &resolved_first, i))
            .max()
            .unwrap_or(0)
    );
    assert!(!changed.is_empty(), "the order matters at bright edges");
    assert!(off_edges.is_empty(), "{off_edges:?}");
}
