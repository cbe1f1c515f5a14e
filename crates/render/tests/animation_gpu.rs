//! Animation on lavapipe with validation: an animated model moves between frames (and its
//! shadow with it), a static one does not, every optimisation off gives the picture all on
//! gives while the animation plays, and TAA's motion vectors take the object's motion.
//! Small frames (96×64): the pictures are compared with each other, rendered in the same run.

mod common;

use common::*;
use glam::{Mat4, Quat, Vec3};
use std::path::Path;
use std::sync::Arc;
use tessera_graph::CompileOptions;
use tessera_render::features::{Aa, DebugView, Exposure, RenderPath, Ssao};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings};
use tessera_scene::animation::{
    Animation, Channel, Interpolation, Property, Rig, Sampler, Trs, Visit,
};
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

/// BoxTextured with a 2 s animation of its (only) instance: a half turn about Y and a slide
/// along X, linear.
fn animated_box() -> Scene {
    let mut scene = model("BoxTextured-glTF-Binary/BoxTextured.glb");
    let rest = scene.instances[0].transform;
    let (scale, rotation, translation) = rest.to_scale_rotation_translation();
    let turn = Quat::from_rotation_y(std::f32::consts::PI * 0.5) * rotation;
    let rotation_keys: Vec<f32> = [rotation, turn].iter().flat_map(|q| q.to_array()).collect();
    let slide: Vec<f32> = [translation, translation + Vec3::new(0.6, 0.0, 0.0)]
        .iter()
        .flat_map(|v| v.to_array())
        .collect();
    let sampler = |values: Vec<f32>, width| Sampler {
        interpolation: Interpolation::Linear,
        times: vec![0.0, 2.0],
        values,
        width,
    };
    scene.rigs.push(Rig {
        nodes: vec![Trs {
            translation,
            rotation,
            scale,
        }]
        .into(),
        visits: vec![Visit {
            node: 0,
            parent: None,
        }],
        instances: vec![(0, 0)],
        animations: vec![Animation {
            name: "turn".into(),
            channels: vec![
                Channel {
                    node: 0,
                    property: Property::Rotation,
                    sampler: 0,
                },
                Channel {
                    node: 0,
                    property: Property::Translation,
                    sampler: 1,
                },
            ],
            samplers: vec![sampler(rotation_keys, 4), sampler(slide, 3)],
            duration: 2.0,
        }]
        .into(),
        placement: Mat4::IDENTITY,
        parents: vec![None].into(),
        weights: vec![Vec::new()].into(),
        skins: Vec::new().into(),
        visit_skins: vec![None],
    });
    assert!(scene.is_animated());
    scene
}

/// 96×64 with a fixed exposure: auto exposure adapts over frames, which would change a
/// static picture too.
fn small(options: CompileOptions) -> Settings {
    let mut s = settings_with(options, small_features());
    s.features.exposure = Exposure::Fixed(1.0);
    s.width = 96;
    s.height = 64;
    s
}

/// Renders frames 0..`frames` with the animation at frame / 60 s (as `tessera render
/// --frames N --animate` does) and returns the picture of each frame in `keep`.
fn frames(gpu: &Arc<Gpu>, scene: Scene, s: Settings, frames: u64, keep: &[u64]) -> Vec<Picture> {
    let before = gpu.messages.count();
    let mut r = Renderer::new(gpu.clone(), scene, s).expect("renderer");
    let mut out = Vec::new();
    for f in 0..frames {
        let t = f as f32 / 60.0;
        r.set_animation_time(Some(t));
        r.render(t).expect("frame");
        if keep.contains(&f) {
            out.push(r.picture().expect("read back").expect("a picture"));
        }
    }
    r.destroy();
    assert_no_messages_since(gpu, before);
    out
}

#[test]
fn an_animated_model_moves_and_a_static_one_does_not() {
    let gpu = gpu();
    let p = frames(
        &gpu,
        animated_box(),
        small(CompileOptions::ALL),
        41,
        &[1, 40],
    );
    let d = p[0].difference(&p[1]).expect("same size");
    assert!(d.pixels > 50, "frame 1 and frame 40 look alike: {d:?}");
    let s = frames(
        &gpu,
        model("BoxTextured-glTF-Binary/BoxTextured.glb"),
        small(CompileOptions::ALL),
        41,
        &[1, 40],
    );
    assert!(
        s[0] == s[1],
        "a static model moved: {:?}",
        s[0].difference(&s[1])
    );
    // Without an animation time the animated model is drawn at rest, as the static one.
    let before = gpu.messages.count();
    let mut r =
        Renderer::new(gpu.clone(), animated_box(), small(CompileOptions::ALL)).expect("renderer");
    r.render(0.0).expect("frame");
    let rest = r.picture().expect("read back").expect("a picture");
    r.destroy();
    assert_no_messages_since(&gpu, before);
    let one = frames(
        &gpu,
        model("BoxTextured-glTF-Binary/BoxTextured.glb"),
        small(CompileOptions::ALL),
        1,
        &[0],
    );
    assert!(rest == one[0], "{:?}", rest.difference(&one[0]));
}

#[test]
fn the_shadow_pass_draws_the_animated_pose() {
    let gpu = gpu();
    let mut s = small(CompileOptions::ALL);
    s.features.debug_view = DebugView::Shadow(0);
    let p = frames(&gpu, animated_box(), s, 41, &[1, 40]);
    let d = p[0].difference(&p[1]).expect("same size");
    assert!(d.pixels > 10, "the shadow cascade did not change: {d:?}");
}

#[test]
fn optimisations_never_change_an_animated_picture() {
    let gpu = gpu();
    let keep = [3];
    let all = frames(&gpu, animated_box(), small(CompileOptions::ALL), 4, &keep);
    let none = frames(&gpu, animated_box(), small(CompileOptions::NONE), 4, &keep);
    assert!(all == none, "{:?}", all[0].difference(&none[0]));
    let mut s = small(CompileOptions::NONE);
    s.emulate_async = true;
    let emulated = frames(&gpu, animated_box(), s, 4, &keep);
    assert!(all == emulated, "{:?}", all[0].difference(&emulated[0]));
    // With TAA (motion vectors from the previous model matrix) as well.
    let taa = |options| {
        let mut s = small(options);
        s.features.aa = Aa::Taa;
        s
    };
    let all = frames(&gpu, animated_box(), taa(CompileOptions::ALL), 4, &keep);
    let none = frames(&gpu, animated_box(), taa(CompileOptions::NONE), 4, &keep);
    assert!(all == none, "TAA: {:?}", all[0].difference(&none[0]));
}

/// Skinning: simple_skin's upper joint turns, bending the strip; at rest it is straight.
#[test]
fn a_skinned_model_bends_between_frames() {
    let gpu = gpu();
    let scene = model("simple_skin/simple_skin.gltf");
    assert!(scene.is_animated());
    assert!(!scene.deformed_draws().is_empty(), "simple_skin deforms");
    let p = frames(
        &gpu,
        scene.clone(),
        small(CompileOptions::ALL),
        41,
        &[1, 40],
    );
    let d = p[0].difference(&p[1]).expect("same size");
    assert!(d.pixels > 20, "frame 1 and frame 40 look alike: {d:?}");
    let none = frames(&gpu, scene, small(CompileOptions::NONE), 41, &[40]);
    assert!(none[0] == p[1], "{:?}", none[0].difference(&p[1]));
}

/// The forward path (its depth prepass for SSAO and its opaque pass) and the deferred SSAO
/// prepass draw the deformed vertices too: frame 40 differs from frame 1, validation clean.
#[test]
fn every_geometry_pass_draws_the_deformed_vertices() {
    let gpu = gpu();
    let mut forward = small(CompileOptions::ALL);
    forward.features.path = RenderPath::Forward;
    forward.features.ssao = Ssao::Prepass;
    let mut prepass = small(CompileOptions::ALL);
    prepass.features.ssao = Ssao::Prepass;
    for (name, s) in [("forward", forward), ("ssao prepass", prepass)] {
        let p = frames(&gpu, model("simple_skin/simple_skin.gltf"), s, 41, &[1, 40]);
        let d = p[0].difference(&p[1]).expect("same size");
        assert!(
            d.pixels > 20,
            "{name}: frame 1 and frame 40 look alike: {d:?}"
        );
    }
}

/// A quad whose one morph target moves it 1 along +X and tilts it, the weight animated
/// 0 → 1 over 1 s (built here: the corpus has no morph target model).
fn morph_quad() -> Scene {
    let floats: Vec<f32> = vec![
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0, // POSITION
        1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.6, 1.0, 0.0, 0.6, // deltas
        0.0, 1.0, // times
        0.0, 1.0, // weights
    ];
    let mut bin: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend(i.to_le_bytes());
    }
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 4,
                                    "targets": [{"POSITION": 1}]}], "weights": [0.0]}],
        "buffers": [{"uri": "q.bin", "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 48},
            {"buffer": 0, "byteOffset": 96, "byteLength": 8},
            {"buffer": 0, "byteOffset": 104, "byteLength": 8},
            {"buffer": 0, "byteOffset": 112, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-0.5, -0.5, 0.0], "max": [0.5, 0.5, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 4, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ],
        "animations": [{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
            "samplers": [{"input": 2, "output": 3, "interpolation": "LINEAR"}]
        }]
    });
    let assets = tessera_scene::assets::Memory::new()
        .with("q/q.gltf", serde_json::to_vec(&json).unwrap())
        .with("q/q.bin", bin);
    tessera_scene::load_from(&assets, Path::new("q/q.gltf")).expect("the morph quad loads")
}

/// Morph targets: the quad slides as its weight rises; all optimisations off agree.
#[test]
fn a_morphing_model_changes_between_frames() {
    let gpu = gpu();
    let scene = morph_quad();
    assert_eq!(scene.deformed_draws(), vec![(0, 0, 4)]);
    let p = frames(
        &gpu,
        scene.clone(),
        small(CompileOptions::ALL),
        41,
        &[1, 40],
    );
    let d = p[0].difference(&p[1]).expect("same size");
    assert!(d.pixels > 20, "frame 1 and frame 40 look alike: {d:?}");
    let none = frames(&gpu, scene, small(CompileOptions::NONE), 41, &[40]);
    assert!(none[0] == p[1], "{:?}", none[0].difference(&p[1]));
}
