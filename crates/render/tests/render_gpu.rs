//! The renderer on lavapipe with validation and synchronization validation: golden images,
//! optimisations that never change the picture, re-planning mid-run, the glTF corpus, and
//! the executor's lifetimes. Every test asserts zero validation messages.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tessera_graph::CompileOptions;
use tessera_render::features::Ssao;
use tessera_render::picture_diff::Difference;
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings};
use tessera_scene::Scene;
use tessera_vk::Gpu;

const CORPUS: &str = "/usr/share/assimp/models/glTF2";

fn settings(options: CompileOptions) -> Settings {
    settings_with(options, small_features())
}

/// [`settings`] with `ssao` and `clustering`.
fn with_features(options: CompileOptions, ssao: Ssao, clustering: bool) -> Settings {
    let mut s = settings(options);
    s.features.ssao = ssao;
    s.features.clustering = clustering;
    s
}

/// The graph the renderer declares with `s` (one frame rendered).
fn frame_graph(gpu: &Arc<Gpu>, s: Settings) -> tessera_graph::Graph {
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    r.render(0.0).expect("frame");
    let graph = r.executor().graph().expect("a plan ran").clone();
    r.destroy();
    graph
}

/// The plan's render passes as lists of subpass names.
fn render_passes(plan: &tessera_graph::Plan) -> Vec<Vec<String>> {
    plan.render_passes
        .iter()
        .map(|rp| rp.subpasses.iter().map(|s| s.to_string()).collect())
        .collect()
}

fn model(rel: &str) -> Scene {
    let path = Path::new(CORPUS).join(rel);
    assert!(
        path.exists(),
        "{} is missing: the test command installs assimp-testmodels",
        path.display()
    );
    tessera_scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn golden_courtyard() {
    let gpu = gpu();
    let p = render(
        &gpu,
        tessera_scene::builtin(),
        raster_post(settings(CompileOptions::ALL)),
        2,
    );
    check_golden("courtyard", &p);
}

#[test]
fn golden_box_textured() {
    let gpu = gpu();
    let p = render(
        &gpu,
        model("BoxTextured-glTF-Binary/BoxTextured.glb"),
        raster_post(settings(CompileOptions::ALL)),
        1,
    );
    check_golden("box_textured", &p);
}

#[test]
fn golden_two_cylinder_engine() {
    let gpu = gpu();
    let p = render(
        &gpu,
        model("2CylinderEngine-glTF-Binary/2CylinderEngine.glb"),
        raster_post(settings(CompileOptions::ALL)),
        1,
    );
    check_golden("2cylinder_engine", &p);
}

/// The tolerance is tight enough to see one light go missing or one pass skipped, and loose
/// enough for another CPU's rounding: the frame rendered here, perturbed as another CPU's
/// lavapipe rounds, still matches the golden image.
#[test]
fn the_golden_comparison_sees_a_missing_light_and_a_skipped_pass() {
    let gpu = gpu();
    let golden = Picture::read_png(&golden_path("courtyard")).expect("golden courtyard");
    let here = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
        2,
    );
    let d = here
        .with_another_cpus_rounding()
        .difference(&golden)
        .expect("same size");
    assert!(
        d.within_tolerance(u64::from(W * H)) && d.max >= 25,
        "another CPU's rounding: {d:?}"
    );
    let mut scene = tessera_scene::builtin();
    let point = scene
        .lights
        .iter()
        .position(|l| matches!(l.kind, tessera_scene::LightKind::Point))
        .expect("a point light");
    scene.lights.remove(point);
    let p = render(&gpu, scene, settings(CompileOptions::ALL), 2);
    let d = p.difference(&golden).expect("same size");
    assert!(
        !d.within_tolerance(u64::from(W * H)),
        "one light fewer still matched: {d:?}"
    );
    for pass in ["transparents", "lighting", "shadows"] {
        let mut s = settings(CompileOptions::ALL);
        s.skip_pass = Some(pass.to_string());
        let p = render(&gpu, tessera_scene::builtin(), s, 2);
        let d = p.difference(&golden).expect("same size");
        assert!(
            !d.within_tolerance(u64::from(W * H)),
            "'{pass}' skipped still matched: {d:?}"
        );
    }
}

/// Optimisations never change the picture: every switch off alone, and all off, give the
/// image all on gives, bit for bit; and with SSAO from a prepass, and with neither SSAO nor
/// clustering, all off and the emulated async queue (with all on and all off) give the
/// image all on gives.
#[test]
fn optimisations_never_change_the_picture() {
    let gpu = gpu();
    let all = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
        2,
    );
    let mut variants = vec![("none", CompileOptions::NONE)];
    for (name, f) in [
        (
            "no merge",
            (|o: &mut CompileOptions| o.merge = false) as fn(&mut CompileOptions),
        ),
        ("no memoryless", |o| o.memoryless = false),
        ("no alias", |o| o.alias = false),
        ("no async", |o| o.async_compute = false),
        ("no reorder", |o| o.reorder = false),
    ] {
        let mut o = CompileOptions::ALL;
        f(&mut o);
        variants.push((name, o));
    }
    for (name, o) in variants {
        let p = render(&gpu, tessera_scene::builtin(), settings(o), 2);
        assert!(p == all, "{name}: {:?}", p.difference(&all));
    }
    let mut s = settings(CompileOptions::ALL);
    s.emulate_async = true;
    let p = render(&gpu, tessera_scene::builtin(), s, 2);
    assert!(p == all, "emulated async: {:?}", p.difference(&all));
    let mut s = settings(CompileOptions::NONE);
    s.emulate_async = true;
    let p = render(&gpu, tessera_scene::builtin(), s, 2);
    assert!(
        p == all,
        "emulated async, all off: {:?}",
        p.difference(&all)
    );
    for (ssao, clustering) in [(Ssao::Prepass, true), (Ssao::Off, false)] {
        let on = render(
            &gpu,
            tessera_scene::builtin(),
            with_features(CompileOptions::ALL, ssao, clustering),
            2,
        );
        for (name, options, emulate) in [
            ("none", CompileOptions::NONE, false),
            ("emulated async", CompileOptions::ALL, true),
            ("emulated async, none", CompileOptions::NONE, true),
        ] {
            let mut s = with_features(options, ssao, clustering);
            s.emulate_async = emulate;
            let p = render(&gpu, tessera_scene::builtin(), s, 2);
            assert!(
                p == on,
                "{ssao:?}, clustering {clustering}, {name}: {:?}",
                p.difference(&on)
            );
        }
    }
}

/// Clustering changes which lights each pixel loops over, not the picture: every light that
/// reaches a pixel is in its cluster, in the same order. The tolerance (one step of 255 in
/// at most 0.1% of the channels) allows only for the compiler evaluating the two loops with
/// other instructions; on lavapipe they agree bit for bit. Without the clustering pass
/// (the buffer never written) the point lights would vanish, which the test would see.
#[test]
fn clustered_lighting_matches_the_loop_over_every_light() {
    let gpu = gpu();
    for ssao in [Ssao::Off, Ssao::GBuffer] {
        let on = with_features(CompileOptions::ALL, ssao, true);
        let graph = frame_graph(&gpu, on.clone());
        let pass = graph
            .passes
            .iter()
            .find(|p| p.name == "light clustering")
            .expect("a 'light clustering' pass");
        assert_eq!(pass.queue, tessera_graph::QueueKind::AsyncCompute);
        let on = render(&gpu, tessera_scene::builtin(), on, 2);
        let off = with_features(CompileOptions::ALL, ssao, false);
        let graph = frame_graph(&gpu, off.clone());
        assert!(
            graph.passes.iter().all(|p| p.name != "light clustering"),
            "clustering off declares no clustering pass"
        );
        let off = render(&gpu, tessera_scene::builtin(), off, 2);
        let d = on.difference(&off).expect("same size");
        let channels_off = on
            .rgba
            .iter()
            .zip(&off.rgba)
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            d.max <= 1 && channels_off * 1000 <= on.rgba.len(),
            "{ssao:?}: clustering changed the picture: {d:?}, {channels_off} channels"
        );
    }
    // The lights drawn are the scene's first `features.lights`: fewer, and the picture
    // darkens (so the 256 of the default scene are all drawn and all binned).
    let all = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
        1,
    );
    let mut s = settings(CompileOptions::ALL);
    s.features.lights = 64;
    let few = render(&gpu, tessera_scene::builtin(), s, 1);
    let sum = |p: &Picture| p.rgba.iter().map(|&b| u64::from(b)).sum::<u64>();
    assert!(sum(&few) < sum(&all), "64 lights lit as much as 256");
    let lights = tessera_scene::builtin()
        .lights
        .iter()
        .filter(|l| !matches!(l.kind, tessera_scene::LightKind::Directional))
        .count();
    assert!(lights >= 256, "the default scene has {lights} point lights");
}

/// SSAO darkens ambient where geometry occludes it, in both variants, and never brightens a
/// pixel (beyond rounding): the pictures differ measurably from SSAO off.
#[test]
fn ssao_darkens_occluded_ambient() {
    let gpu = gpu();
    // A brighter ambient, so the occlusion shows above the lights.
    let with = |ssao| {
        let mut s = with_features(CompileOptions::ALL, ssao, true);
        s.ambient = [0.4, 0.42, 0.45];
        s
    };
    let off = render(&gpu, tessera_scene::builtin(), with(Ssao::Off), 1);
    for ssao in [Ssao::GBuffer, Ssao::Prepass] {
        let on = render(&gpu, tessera_scene::builtin(), with(ssao), 1);
        let (mut darker, mut brighter) = (0u64, 0u64);
        for (a, b) in on.rgba.chunks(4).zip(off.rgba.chunks(4)) {
            let luma = |p: &[u8]| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]);
            let (a, b) = (luma(a), luma(b));
            if a + 3 * u32::from(Difference::NOISE) < b {
                darker += 1;
            }
            if a > b + 3 * u32::from(Difference::NOISE) {
                brighter += 1;
            }
        }
        assert!(
            darker > u64::from(W * H) / 100,
            "{ssao:?}: only {darker} pixels darkened"
        );
        assert!(
            brighter * 20 < darker,
            "{ssao:?}: {brighter} pixels brightened ({darker} darkened)"
        );
    }
}

/// On desktop the async work overlaps graphics work: clustering and SSAO run on the
/// async-compute queue; SSAO from the G-buffer depth waits only for `gbuffer` and runs while
/// `shadows` draws; from the prepass it waits only for the prepass and runs while the
/// shadows and the G-buffer draw. (Frames in sequence: with overlapping frames the shadow
/// pass goes first, `overlapping_frames_start_with_the_shadows`.)
#[test]
fn on_desktop_the_async_passes_overlap_the_shadows() {
    let gpu = gpu();
    let caps = tessera_graph::Capabilities::profile("desktop").expect("desktop");
    let sequential = CompileOptions {
        overlap_frames: false,
        ..CompileOptions::ALL
    };
    for (ssao, producer, overlapped) in [
        (Ssao::GBuffer, "gbuffer", &["shadows"][..]),
        (Ssao::Prepass, "ssao depth prepass", &["shadows", "gbuffer"]),
    ] {
        let graph = frame_graph(&gpu, with_features(sequential, ssao, true));
        let plan = tessera_graph::compile(&graph, &caps, &sequential).expect("compiles");
        let names = |l: &[tessera_graph::Name]| -> Vec<String> {
            l.iter().map(|n| n.to_string()).collect()
        };
        let async_queue = names(&plan.queues.async_compute);
        let lit: Vec<&String> = async_queue
            .iter()
            .filter(|n| ["light clustering", "ssao", "ssao blur"].contains(&n.as_str()))
            .collect();
        // The exposure's passes run on the async queue too (after the frame's readers).
        assert_eq!(
            lit,
            ["light clustering", "ssao", "ssao blur"],
            "{ssao:?}: {async_queue:?}"
        );
        let graphics = names(&plan.queues.graphics);
        let at = |n: &str| graphics.iter().position(|g| g == n).expect(n);
        for o in overlapped {
            assert!(
                at(producer) < at(o) && at(o) < at("lighting"),
                "{ssao:?}: '{o}' is not between '{producer}' and lighting: {graphics:?}"
            );
        }
        for sync in &plan.syncs {
            if sync.wait.as_str() == "ssao" {
                assert_eq!(sync.signal.as_str(), producer, "{ssao:?}");
            }
            assert!(
                !overlapped.contains(&sync.signal.as_str())
                    && !overlapped.contains(&sync.wait.as_str()),
                "{ssao:?}: {} waits for {}",
                sync.wait,
                sync.signal
            );
        }
    }
}

/// SSAO from the G-buffer depth on a tiler: the depth must leave tile memory and the
/// G-buffer render pass ends before lighting; the plan's break after `gbuffer` names SSAO.
#[test]
fn on_tilers_ssao_from_gbuffer_depth_ends_the_gbuffer_render_pass() {
    let gpu = gpu();
    let graph = frame_graph(
        &gpu,
        with_features(CompileOptions::ALL, Ssao::GBuffer, true),
    );
    for profile in ["mali", "adreno"] {
        let caps = tessera_graph::Capabilities::profile(profile).expect("profile");
        let plan = tessera_graph::compile(&graph, &caps, &CompileOptions::ALL).expect("compiles");
        let rps = render_passes(&plan);
        let of = |n: &str| rps.iter().position(|rp| rp.iter().any(|s| s == n));
        assert_ne!(of("gbuffer"), of("lighting"), "{profile}: {rps:?}");
        let depth = graph.find_resource("depth").expect("depth");
        let memoryless = tessera_vk::resources::memoryless_set(&graph, &plan);
        assert!(
            !memoryless[depth.index()],
            "{profile}: the depth SSAO samples is memoryless"
        );
        let reason = plan
            .breaks
            .iter()
            .find(|b| b.after.as_str() == "gbuffer")
            .map(|b| b.reason.as_str().to_string())
            .unwrap_or_default();
        assert!(
            reason.contains("'ssao'"),
            "{profile}: the break after gbuffer does not name SSAO: {reason:?}"
        );
    }
}

/// A run that changes the resolution and the scene mid-way re-plans, keeps its pipelines
/// through the resize, never waits for the device to idle, and stays clean.
#[test]
fn resize_and_scene_change_replan_and_stay_clean() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let idle_before = gpu.wait_idle_count();
    let mut r = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
    )
    .expect("renderer");
    let first = r.render(0.0).expect("frame");
    assert!(first.rebuilt, "the first frame plans");
    // The second frame plans once more: the environment the first wrote is valid, its
    // writers are skipped from now on (`environment_gpu.rs`).
    assert!(r.render(1.0 / 60.0).expect("frame").rebuilt);
    let third = r.render(1.0 / 60.0).expect("frame");
    assert!(!third.rebuilt, "an unchanged frame does not re-plan");
    let pipelines = r.pipelines_created();
    assert!(pipelines > 0);
    r.reconfigure(200, 120, CompileOptions::ALL)
        .expect("resize");
    assert!(
        r.render(2.0 / 60.0).expect("frame").rebuilt,
        "a resize re-plans"
    );
    assert_eq!(
        r.pipelines_created(),
        pipelines,
        "a resize keeps every pipeline"
    );
    let small = r.picture().expect("read back").expect("picture");
    assert_eq!((small.width, small.height), (200, 120));
    let mut o = CompileOptions::ALL;
    o.merge = false;
    r.reconfigure(200, 120, o).expect("toggle");
    let reused = r.executor().stats().allocations_reused;
    assert!(
        r.render(3.0 / 60.0).expect("frame").rebuilt,
        "a toggle re-plans"
    );
    assert!(
        r.executor().stats().allocations_reused > reused,
        "a toggle's plan binds to the memory of the plan it replaced"
    );
    let toggled = r.picture().expect("read back").expect("picture");
    assert_eq!((toggled.width, toggled.height), (200, 120));
    r.set_scene(model("BoxTextured-glTF-Binary/BoxTextured.glb"))
        .expect("scene change");
    r.reconfigure(W, H, CompileOptions::ALL)
        .expect("resize back");
    for f in 4..7 {
        r.render(f as f32 / 60.0).expect("frame");
    }
    let p = r.picture().expect("read back").expect("picture");
    assert_eq!((p.width, p.height), (W, H));
    assert!(r.rebuilds() >= 4, "rebuilds: {}", r.rebuilds());
    r.destroy();
    assert_eq!(
        gpu.wait_idle_count(),
        idle_before,
        "the renderer waited for the device to idle"
    );
    assert_eq!(
        gpu.messages.count() - before,
        0,
        "validation: {:#?}",
        gpu.messages.texts()
    );
}

/// A switch flipped every frame re-plans every frame: the plan's own times start over each
/// time, but the newest GPU frame keeps advancing, marked stale while an older plan ran it.
#[test]
fn gpu_times_keep_coming_while_every_frame_replans() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let mut r = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
    )
    .expect("renderer");
    let mut last = None;
    for f in 0..6u32 {
        let mut o = CompileOptions::ALL;
        o.merge = f % 2 == 0;
        r.reconfigure(W, H, o).expect("toggle");
        assert!(
            r.render(f as f32 / 60.0).expect("frame").rebuilt,
            "frame {f}"
        );
        let Some(n) = r.newest_gpu_frame() else {
            assert_eq!(f, 0, "no GPU times after frame {f}");
            continue;
        };
        assert!(
            last < Some(n.frame),
            "after frame {f}: {} after {last:?}",
            n.frame
        );
        last = Some(n.frame);
        // The running plan was built for the frame just submitted.
        let current_from = r.executor().frames() - 1;
        assert_eq!(
            n.plan == r.plan_generation(),
            n.frame >= current_from,
            "after frame {f}: frame {} of plan {}, plan {} since frame {current_from}",
            n.frame,
            n.plan,
            r.plan_generation()
        );
        assert!(n.times.span_ms() > 0.0, "{:?}", n.times);
        assert!(
            n.times.passes.iter().any(|s| s.pass == "lighting"),
            "{:?}",
            n.times
        );
    }
    assert!(last.is_some());
    r.destroy();
    assert_no_messages_since(&gpu, before);
}

/// Every valid model of the corpus renders cleanly at a small size.
#[test]
fn the_gltf_corpus_renders() {
    let gpu = gpu();
    let mut rendered = 0;
    let mut stack = vec![PathBuf::from(CORPUS)];
    assert!(
        stack[0].is_dir(),
        "{CORPUS} is missing: the test command installs assimp-testmodels"
    );
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read corpus dir").flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if ext != "gltf" && ext != "glb" {
                continue;
            }
            // Broken files are the scene crate's corpus test; here, what loads must render.
            let Ok(scene) = tessera_scene::load(&path) else {
                continue;
            };
            let mut s = settings(CompileOptions::ALL);
            s.width = 96;
            s.height = 64;
            let p = render(&gpu, scene, s, 1);
            assert_eq!(p.rgba.len(), 96 * 64 * 4, "{}", path.display());
            rendered += 1;
        }
    }
    assert!(rendered >= 15, "only {rendered} models rendered");
}

/// The frame the renderer declares, compiled for a tiler, merges its four deferred raster
/// passes into one render pass with the G-buffer and depth memoryless (the shadow pass stays
/// apart: its atlas is sampled at any pixel); on lavapipe's capabilities the
/// plan is the compiler's choice and still runs clean (above).
#[test]
fn on_tilers_the_four_raster_passes_merge_with_a_memoryless_gbuffer() {
    let gpu = gpu();
    // The mobile preset's features: SSAO from a prepass (and off), and the tile-friendly
    // bloom that keeps hdr in tile memory.
    for ssao in [Ssao::Prepass, Ssao::Off] {
        tilers_merge(&gpu, ssao);
    }
}

fn tilers_merge(gpu: &Arc<Gpu>, ssao: Ssao) {
    let mut s = with_features(CompileOptions::ALL, ssao, true);
    s.features = s.features.tile_friendly();
    // The deferred mobile frame (the preset's own path is forward).
    s.features.path = tessera_render::features::RenderPath::Deferred;
    s.features.msaa = 1;
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    r.render(0.0).expect("frame");
    let graph = r.executor().graph().expect("a plan ran").clone();
    // The renderer owns its imports: the executor made no copy of them.
    let res = r.executor().resources().expect("a plan ran");
    for name in ["output", "scene vertices", "scene indices", "readback"] {
        let id = graph.find_resource(name).expect(name);
        assert!(graph.resource(id).is_imported(), "'{name}' is imported");
        assert!(
            res.res[id.index()].is_null(),
            "the executor created its own '{name}'"
        );
    }
    r.destroy();
    for profile in ["mali", "adreno"] {
        let caps = tessera_graph::Capabilities::profile(profile).expect("profile");
        let plan = tessera_graph::compile(&graph, &caps, &CompileOptions::ALL).expect("compiles");
        let merged: Vec<Vec<String>> = plan
            .render_passes
            .iter()
            .map(|rp| rp.subpasses.iter().map(|s| s.to_string()).collect())
            .collect();
        // The shadow atlas (and the prepass depth) is sampled at any pixel later: their
        // passes cannot merge; the last post pass (FXAA) samples the tone-mapped image, so
        // it is a render pass of its own.
        let mut expected = vec![
            vec!["shadows"],
            vec!["gbuffer", "lighting", "transparents", "tonemap"],
            vec!["fxaa"],
        ];
        if ssao == Ssao::Prepass {
            expected.insert(0, vec!["ssao depth prepass"]);
        }
        assert_eq!(merged, expected, "{profile} {ssao:?}");
        let atlas = graph.find_resource("shadow atlas").expect("atlas");
        let memoryless = tessera_vk::resources::memoryless_set(&graph, &plan);
        for name in [
            "gbuffer albedo",
            "gbuffer normal",
            "gbuffer material",
            "hdr",
            "depth",
        ] {
            let id = graph.find_resource(name).expect(name);
            assert!(
                memoryless[id.index()],
                "{profile}: '{name}' is not memoryless"
            );
        }
        assert!(
            !memoryless[atlas.index()],
            "{profile}: the sampled atlas is memoryless"
        );
        let output = graph.find_resource("output").expect("output");
        assert!(
            !memoryless[output.index()],
            "{profile}: the output left tile memory"
        );
    }
}

/// Shadows are a switch: off, the frame still declares the atlas (1 texel per cascade) and its
/// pass, the picture is brighter where the sun was blocked, and it stays clean.
#[test]
fn the_shadow_switch_changes_the_picture() {
    let gpu = gpu();
    let on = render(
        &gpu,
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
        1,
    );
    let mut s = settings(CompileOptions::ALL);
    s.features.shadows = false;
    let off = render(&gpu, tessera_scene::builtin(), s, 1);
    let sum = |p: &Picture| p.rgba.iter().map(|&b| u64::from(b)).sum::<u64>();
    assert!(sum(&off) > sum(&on), "no shadow darkened the picture");
    let d = off.difference(&on).expect("same size");
    assert!(
        d.pixels > u64::from(W * H) / 50,
        "shadows touched only {} pixels",
        d.pixels
    );
}

/// With overlapping frames the post chain runs on the async queue and the frame starts with
/// the shadow pass, which the previous frame's post chain runs beside (the G-buffer would need
/// its depth and motion twice).
#[test]
fn overlapping_frames_start_with_the_shadows() {
    let gpu = gpu();
    let caps = tessera_graph::Capabilities::profile("desktop").expect("desktop");
    let graph = frame_graph(
        &gpu,
        with_features(CompileOptions::ALL, Ssao::GBuffer, true),
    );
    let plan = tessera_graph::compile(&graph, &caps, &CompileOptions::ALL).expect("compiles");
    let graphics: Vec<&str> = plan.queues.graphics.iter().map(|n| n.as_str()).collect();
    let at = |n: &str| graphics.iter().position(|g| *g == n).expect(n);
    assert!(at("shadows") < at("gbuffer"), "{graphics:?}");
    assert!(plan.queues.async_compute.iter().any(|n| n == "tonemap"));
    let o = plan.frame_overlap.expect("frames overlap");
    assert!(o.head.iter().any(|n| n == "shadows"), "{o:?}");
    assert!(o.tail.iter().any(|n| n == "tonemap"), "{o:?}");
}
