//! The `deform` compute pass against the CPU reference (`Scene::deformed_vertices_at`,
//! uploaded as it is with the `cpu_deform` test hook): simple_skin (a skin) and
//! AnimatedMorphCube (morph targets) drawn both ways in the same run look the same within
//! rounding, while the animation visibly deforms them; validation (synchronization
//! included) stays silent.

mod common;

use common::*;
use std::path::Path;
use std::sync::Arc;
use tessera_graph::CompileOptions;
use tessera_render::features::Exposure;
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings};
use tessera_scene::Scene;
use tessera_vk::Gpu;

const CORPUS: &str = "/usr/share/assimp/models/glTF2";

fn model(rel: &str) -> Scene {
    let path = Path::new(CORPUS).join(rel);
    assert!(
        path.exists(),
        "{} is missing: the test command installs assimp-testmodels",
        path.display()
    );
    tessera_scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn small(cpu: bool) -> Settings {
    let mut s = settings_with(CompileOptions::ALL, small_features());
    s.features.exposure = Exposure::Fixed(1.0);
    s.width = 160;
    s.height = 96;
    s.cpu_deform = cpu;
    s
}

/// Frames 0..=last at frame / 60 s; the pictures of `keep`, and whether the graph of the
/// last frame had the `deform` pass.
fn frames(gpu: &Arc<Gpu>, scene: Scene, s: Settings, keep: &[u64]) -> (Vec<Picture>, bool) {
    let before = gpu.messages.count();
    let mut r = Renderer::new(gpu.clone(), scene, s).expect("renderer");
    let mut out = Vec::new();
    let last = keep.iter().copied().max().unwrap_or(0);
    for f in 0..=last {
        let t = f as f32 / 60.0;
        r.set_animation_time(Some(t));
        r.render(t).expect("frame");
        if keep.contains(&f) {
            out.push(r.picture().expect("read back").expect("a picture"));
        }
    }
    let graph = r.executor().graph().expect("a graph");
    let deform = graph.passes.iter().any(|p| p.name.as_str() == "deform");
    r.destroy();
    assert_no_messages_since(gpu, before);
    (out, deform)
}

/// The GPU-deformed pictures of `scene` match the CPU reference's at every kept frame, and
/// the first and last differ (the deformation shows).
fn matches_the_cpu(rel: &str, keep: &[u64]) {
    let gpu = gpu();
    let (on_gpu, pass) = frames(&gpu, model(rel), small(false), keep);
    let (on_cpu, cpu_pass) = frames(&gpu, model(rel), small(true), keep);
    assert!(pass, "{rel}: no deform pass in the graph");
    assert!(
        !cpu_pass,
        "{rel}: the CPU reference declared the deform pass"
    );
    let moved = on_gpu[0]
        .difference(&on_gpu[on_gpu.len() - 1])
        .expect("same size");
    assert!(
        moved.pixels > 20,
        "{rel}: the first and last frames look alike: {moved:?}"
    );
    let pixels = u64::from(on_gpu[0].width * on_gpu[0].height);
    for (f, (g, c)) in keep.iter().zip(on_gpu.iter().zip(&on_cpu)) {
        let d = g.difference(c).expect("same size");
        eprintln!("{rel} frame {f}: GPU vs CPU {d:?}");
        // Float rounding of the sums may move an edge pixel, never a region.
        assert!(
            d.regional_max <= 4 && d.pixels * 100 <= pixels && d.mean < 0.1,
            "{rel} frame {f}: GPU and CPU deformation differ: {d:?}"
        );
    }
}

#[test]
fn the_deform_pass_skins_as_the_cpu_does() {
    matches_the_cpu("simple_skin/simple_skin.gltf", &[1, 20, 40]);
}

#[test]
fn the_deform_pass_morphs_as_the_cpu_does() {
    matches_the_cpu(
        "glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf",
        &[1, 30, 60],
    );
}
