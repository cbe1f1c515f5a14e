//! The whole frame on lavapipe: every graph optimisation, alone and together, with the
//! async-compute queue emulated (cross-queue semaphores, ownership transfers and the
//! temporal exposure buffer exercised on one queue family) and folded, renders the same
//! picture as every optimisation off at frame 10, with zero validation and
//! synchronization-validation messages; and the full frame's golden image.

mod common;

use common::*;
use tessera_graph::CompileOptions;

/// Frames per run: enough for the auto exposure to settle, and for frames in flight to wrap
/// around their slots several times.
const FRAMES: u64 = 10;

fn frame_10(
    gpu: &std::sync::Arc<tessera_vk::Gpu>,
    options: CompileOptions,
    emulate: bool,
) -> tessera_render::png_out::Picture {
    let mut s = settings_with(options, small_features());
    s.emulate_async = emulate;
    render(gpu, tessera_scene::builtin(), s, FRAMES)
}

/// The option sets compared: all on, each one off, each one alone.
fn variants() -> Vec<(String, CompileOptions)> {
    type Switch = fn(&mut CompileOptions) -> &mut bool;
    let switches: [(&str, Switch); 7] = [
        ("merge", |o| &mut o.merge),
        ("memoryless", |o| &mut o.memoryless),
        ("alias", |o| &mut o.alias),
        ("async", |o| &mut o.async_compute),
        ("reorder", |o| &mut o.reorder),
        ("minimize syncs", |o| &mut o.minimize_syncs),
        ("overlap", |o| &mut o.overlap_frames),
    ];
    let mut v = vec![("all".to_string(), CompileOptions::ALL)];
    for (name, f) in switches {
        let mut off = CompileOptions::ALL;
        *f(&mut off) = false;
        v.push((format!("all but {name}"), off));
        let mut alone = CompileOptions::NONE;
        *f(&mut alone) = true;
        v.push((format!("{name} alone"), alone));
    }
    v
}

fn same_picture_whatever_the_plan(emulate: bool) {
    let gpu = gpu();
    let reference = frame_10(&gpu, CompileOptions::NONE, emulate);
    for (name, options) in variants() {
        let p = frame_10(&gpu, options, emulate);
        assert!(
            p == reference,
            "{name} (emulated async: {emulate}) differs from every optimisation off: {:?}",
            p.difference(&reference)
        );
    }
}

#[test]
fn every_optimisation_gives_the_same_picture_with_async_emulated() {
    same_picture_whatever_the_plan(true);
}

#[test]
fn every_optimisation_gives_the_same_picture_on_one_queue() {
    same_picture_whatever_the_plan(false);
}

/// Emulating the async queue changes submissions, never the picture.
#[test]
fn golden_full_frame_and_emulated_async_agree() {
    let gpu = gpu();
    let golden = raster_post(settings_with(CompileOptions::ALL, small_features()));
    check_golden(
        "full_frame",
        &render(&gpu, tessera_scene::builtin(), golden, FRAMES),
    );
    let folded = frame_10(&gpu, CompileOptions::ALL, false);
    let emulated = frame_10(&gpu, CompileOptions::ALL, true);
    assert!(folded == emulated, "{:?}", folded.difference(&emulated));
}

/// Frames that overlap (the post chain on the async queue beside the next frame's first
/// graphics passes, resources the two frames share doubled) render at frame 10 what frames
/// in sequence render, bit for bit, TAA's history and the exposure buffer included, with
/// zero validation messages.
#[test]
fn overlapping_frames_render_what_frames_in_sequence_render() {
    let gpu = gpu();
    let taa = tessera_render::features::Features {
        aa: tessera_render::features::Aa::Taa,
        ..small_features()
    };
    let run = |overlap_frames: bool| {
        let options = CompileOptions {
            overlap_frames,
            ..CompileOptions::ALL
        };
        let mut s = settings_with(options, taa.clone());
        s.emulate_async = true;
        let before = gpu.messages.count();
        let mut r = tessera_render::Renderer::new(gpu.clone(), tessera_scene::builtin(), s)
            .expect("renderer");
        for f in 0..FRAMES {
            r.render(f as f32 / 60.0).expect("frame");
        }
        let plan = r.executor().plan().cloned().expect("a plan ran");
        let p = r.picture().expect("read back").expect("a picture");
        r.destroy();
        assert_no_messages_since(&gpu, before);
        (p, plan)
    };
    let (sequential, plan) = run(false);
    assert!(plan.frame_overlap.is_none());
    let (overlapping, plan) = run(true);
    let o = plan.frame_overlap.expect("the plan overlaps frames");
    assert!(o.tail.iter().any(|p| p == "taa"), "{:?}", o.tail);
    assert!(!o.head.is_empty() && !o.doubled.is_empty(), "{o:?}");
    assert!(
        overlapping == sequential,
        "{:?}",
        overlapping.difference(&sequential)
    );
}

/// The cascade count is a switch of the declared graph: the atlas holds that many cascades
/// side by side, and 1 to 4 all render clean (the picture changes where the cascades'
/// resolution does).
#[test]
fn one_to_four_cascades_size_the_atlas_and_render_clean() {
    let gpu = gpu();
    let mut pictures = Vec::new();
    for cascades in [1, 4] {
        let features = tessera_render::features::Features {
            cascades,
            ..small_features()
        };
        let mut r = tessera_render::Renderer::new(
            gpu.clone(),
            tessera_scene::builtin(),
            settings_with(CompileOptions::ALL, features),
        )
        .expect("renderer");
        let before = gpu.messages.count();
        r.render(0.0).expect("frame");
        let graph = r.executor().graph().expect("a plan").clone();
        let p = r.picture().expect("read back").expect("a picture");
        r.destroy();
        assert_eq!(
            gpu.messages.count() - before,
            0,
            "{:#?}",
            gpu.messages.texts()
        );
        let atlas = graph.resource(graph.find_resource("shadow atlas").expect("atlas"));
        let tessera_graph::graph::ResourceKind::Image(d) = &atlas.kind else {
            panic!("the atlas is an image");
        };
        assert_eq!(
            (d.width, d.height),
            (512 * cascades, 512),
            "{cascades} cascades"
        );
        pictures.push(p);
    }
    assert!(
        pictures[0] != pictures[1],
        "1 and 4 cascades drew the same shadows"
    );
}

/// `tessera plan --frame` compiles the graph the renderer runs: `frame_graph` (no device)
/// declares the same passes, uses and resources as the renderer's frame.
#[test]
fn the_graph_without_a_device_is_the_graph_the_renderer_runs() {
    let gpu = gpu();
    let s = settings_with(CompileOptions::ALL, small_features());
    let scene = tessera_scene::builtin();
    let offline = tessera_render::frame_graph(&scene, &s);
    let mut r = tessera_render::Renderer::new(gpu.clone(), scene, s).expect("renderer");
    r.render(0.0).expect("frame");
    let live = r.executor().graph().expect("a plan").clone();
    r.destroy();
    assert_eq!(offline.passes, live.passes);
    let shape = |g: &tessera_graph::Graph| -> Vec<(String, tessera_graph::graph::ResourceKind)> {
        g.resources
            .iter()
            .map(|r| (r.name.to_string(), r.kind))
            .collect()
    };
    assert_eq!(shape(&offline), shape(&live));
}
