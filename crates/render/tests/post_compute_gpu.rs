//! The compute post chain (`post = "compute"`, the desktop default) on lavapipe with
//! validation and synchronization validation (zero messages in every test): its pictures
//! match the raster chain's within a rounding step, every optimisation off gives the same
//! picture bit for bit, and the plans put `tonemap` and `fxaa` in compute on desktop and tone
//! mapping in a subpass on a tiler (`[mobile]`: `post = "raster"`).
//!
//! Why not bit-exact with raster: the raster chain's sRGB attachments encode in the driver
//! (lavapipe: a polynomial approximation, 1 step off the exact curve for some values) and its
//! `ldr` is 8-bit sRGB, where the compute chain encodes exactly in the shader and keeps `ldr`
//! in half floats. Tone mapping alone therefore differs by at most 1 (of 255); TAA's
//! feedback may add a step; FXAA's thresholds may flip on a 1-step difference at a few edge
//! pixels, which the golden tolerance allows.

mod common;

use common::*;
use std::sync::Arc;
use tessera_graph::{CompileOptions, Graph, PassKind, Plan};
use tessera_render::config::Config;
use tessera_render::features::{Aa, Bloom, Features, PostPath, RenderPath};
use tessera_render::png_out::Picture;
use tessera_vk::Gpu;

fn with(post: PostPath, frames: u64, f: &Features, gpu: &Arc<Gpu>) -> Picture {
    let mut s = settings_with(CompileOptions::ALL, f.clone());
    s.features.post = post;
    render(gpu, tessera_scene::builtin(), s, frames)
}

/// Largest channel difference, and the share of channels off by more than 1.
fn compare(a: &Picture, b: &Picture) -> (u8, f64) {
    let d = a.difference(b).expect("same size");
    let over_1 = a
        .rgba
        .iter()
        .zip(&b.rgba)
        .filter(|(x, y)| x.abs_diff(**y) > 1)
        .count();
    (d.max, over_1 as f64 / a.rgba.len() as f64)
}

#[test]
fn compute_post_matches_raster_post_within_a_rounding_step() {
    let gpu = gpu();
    let base = small_features();
    // (name, features, frames, largest difference allowed (None: the golden tolerance))
    let cases: [(&str, Features, u64, Option<u8>); 4] = [
        (
            "tonemap into the output (aa off)",
            Features {
                aa: Aa::Off,
                ..base.clone()
            },
            2,
            Some(1),
        ),
        (
            "compose at 0.75 scale with the tile-friendly bloom",
            Features {
                aa: Aa::Off,
                bloom: Bloom::Tonemap,
                resolution_scale: 0.75,
                ..base.clone()
            },
            2,
            Some(1),
        ),
        (
            "taa",
            Features {
                aa: Aa::Taa,
                ..base.clone()
            },
            3,
            Some(2),
        ),
        ("fxaa", base.clone(), 2, None),
    ];
    for (name, f, frames, max) in cases {
        let raster = with(PostPath::Raster, frames, &f, &gpu);
        let compute = with(PostPath::Compute, frames, &f, &gpu);
        let (d, over_1) = compare(&raster, &compute);
        eprintln!(
            "{name}: max {d}, {:.3}% of channels off by more than 1",
            over_1 * 100.0
        );
        match max {
            Some(m) => assert!(d <= m, "{name}: off by {d} (allowed {m})"),
            None => {
                let diff = raster.difference(&compute).unwrap();
                assert!(
                    diff.within_tolerance(u64::from(W * H)) && over_1 < 0.005,
                    "{name}: {diff:?}, {:.3}% of channels off by more than 1",
                    over_1 * 100.0
                );
            }
        }
    }
}

/// Every optimisation off renders the compute chain's picture bit for bit, with TAA's
/// history and auto exposure across frames, and with FXAA and the tile-friendly bloom at a
/// resolution scale.
#[test]
fn optimisations_never_change_the_compute_post_chain() {
    let gpu = gpu();
    let variants = [
        Features {
            shadow_size: 512,
            ..Features::default()
        },
        Features {
            bloom: Bloom::Tonemap,
            resolution_scale: 0.75,
            ..small_features()
        },
    ];
    for f in variants {
        assert_eq!(f.post, PostPath::Compute, "compute is the desktop default");
        let all = render(
            &gpu,
            tessera_scene::builtin(),
            settings_with(CompileOptions::ALL, f.clone()),
            4,
        );
        let none = render(
            &gpu,
            tessera_scene::builtin(),
            settings_with(CompileOptions::NONE, f.clone()),
            4,
        );
        assert!(all == none, "{f:?}: {:?}", all.difference(&none));
    }
}

fn graph_and_plan(features: Features, profile: &str) -> (Graph, Plan) {
    frame_plan((W, H), profile, features)
}

fn kind(graph: &Graph, pass: &str) -> PassKind {
    graph
        .passes
        .iter()
        .find(|p| p.name.as_str() == pass)
        .unwrap_or_else(|| panic!("no pass '{pass}'"))
        .kind
}

fn in_a_render_pass(plan: &Plan, pass: &str) -> bool {
    plan.render_passes
        .iter()
        .any(|rp| rp.subpasses.iter().any(|s| s.as_str() == pass))
}

/// On desktop `tonemap` and `fxaa` are compute passes outside every render pass and `post
/// copy` puts their result into the output; on a tiler (`[mobile]`, forward at 4× or
/// deferred at 1×) tone mapping is a subpass of the render pass that drew HDR.
#[test]
fn desktop_post_is_compute_and_tilers_tone_map_in_a_subpass() {
    let desktop = Config::builtin().features_for("desktop");
    assert_eq!(desktop.post, PostPath::Compute);
    for aa in [Aa::Fxaa, Aa::Taa] {
        let (graph, plan) = graph_and_plan(
            Features {
                aa,
                ..desktop.clone()
            },
            "desktop",
        );
        let last = if aa == Aa::Fxaa { "fxaa" } else { "compose" };
        for pass in ["tonemap", last] {
            assert_eq!(kind(&graph, pass), PassKind::Compute, "{aa:?}: {pass}");
            assert!(
                !in_a_render_pass(&plan, pass),
                "{aa:?}: {pass} in a render pass"
            );
        }
        assert_eq!(kind(&graph, "post copy"), PassKind::Transfer);
    }
    let mali = Config::builtin().features_for("mali");
    assert_eq!(mali.post, PostPath::Raster);
    let deferred = Features {
        path: RenderPath::Deferred,
        msaa: 1,
        ..mali.clone()
    };
    for f in [mali, deferred] {
        let (graph, plan) = graph_and_plan(f.clone(), "mali");
        assert_eq!(kind(&graph, "tonemap"), PassKind::Raster);
        let rp = plan
            .render_passes
            .iter()
            .find(|rp| rp.subpasses.iter().any(|s| s.as_str() == "tonemap"))
            .unwrap_or_else(|| panic!("{:?}: tonemap in no render pass", f.path));
        assert!(
            rp.subpasses.len() > 1,
            "{:?}: tonemap alone: {:?}",
            f.path,
            rp.subpasses
        );
        assert!(graph.passes.iter().all(|p| p.name.as_str() != "post copy"));
    }
}
