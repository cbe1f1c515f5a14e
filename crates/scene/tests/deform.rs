//! Vertex deformation: skin joint matrices and skinned positions (the corpus's simple_skin),
//! morph targets weighted by animated weights (a model built here), and malformed skins and
//! targets refused.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};

const SIMPLE_SKIN: &str = "/usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf";

#[test]
fn simple_skin_bends_with_its_joint() {
    if !Path::new(SIMPLE_SKIN).exists() {
        eprintln!("SKIPPED: assimp-testmodels is not installed");
        return;
    }
    let scene = tessera_scene::load(Path::new(SIMPLE_SKIN)).expect("loads");
    let rig = &scene.rigs[0];
    assert_eq!(rig.skins.len(), 1);
    assert_eq!(scene.deformed_draws(), vec![(0, 0, 10)]);
    // At t = 1 s the upper joint (node 2, 1 m up) has turned 90° about Z.
    let pose = rig.pose_at(1.0);
    let visit = rig.instances[0].1;
    let joints = rig.joint_matrices(&pose, visit).expect("skinned");
    let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    // simple_skin's inverse bind matrices also move x by -0.5: compare where a point goes.
    let ibm = rig.skins[0].inverse_bind[1];
    let got = joints[1] * ibm.inverse();
    let bind = Mat4::from_translation(Vec3::Y);
    let expected = bind * Mat4::from_quat(turn);
    assert!(got.abs_diff_eq(expected, 1e-4), "{got:?} vs {expected:?}");
    // The top vertices (y = 2, weight 1 on joint 1) swing to the left of the joint.
    let v = scene.deformed_vertices_at(1.0);
    assert_eq!(v.len(), 10);
    let top = v[8].position;
    let rest = scene.vertices[8].position;
    assert!((rest[1] - 2.0).abs() < 1e-6, "{rest:?}");
    assert!(top[1] < 1.9, "the top did not bend: {top:?}");
    // At t = 0 both joints are where their inverse bind matrices put them, less the
    // half-unit x offset those matrices carry: the strip moves by -0.5 in x, unbent.
    let v0 = scene.deformed_vertices_at(0.0);
    for (a, b) in v0.iter().zip(&scene.vertices) {
        let moved = Vec3::from(b.position) - Vec3::new(0.5, 0.0, 0.0);
        assert!(
            Vec3::from(a.position).abs_diff_eq(moved, 1e-5),
            "{a:?} vs {b:?}"
        );
    }
}

/// A triangle with one morph target (+1 in z everywhere, normals tilted) whose weight goes
/// 0 → 1 over 1 s; `edit` changes the JSON before loading.
fn morph_model(
    edit: impl FnOnce(&mut serde_json::Value),
) -> Result<tessera_scene::Scene, tessera_scene::SceneError> {
    let floats: Vec<f32> = vec![
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, // POSITION
        0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, // position deltas
        0.0, 1.0, 0.0, // times 0, 1 (and a spare)
        0.0, 1.0, // weights
    ];
    let bin: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut json = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "targets": [{"POSITION": 1}]}],
                    "weights": [0.0]}],
        "buffers": [{"uri": "m.bin", "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36},
            {"buffer": 0, "byteOffset": 72, "byteLength": 8},
            {"buffer": 0, "byteOffset": 84, "byteLength": 8}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR"}
        ],
        "animations": [{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "weights"}}],
            "samplers": [{"input": 2, "output": 3, "interpolation": "LINEAR"}]
        }]
    });
    edit(&mut json);
    let assets = tessera_scene::assets::Memory::new()
        .with("m/m.gltf", serde_json::to_vec(&json).unwrap())
        .with("m/m.bin", bin);
    tessera_scene::load_from(&assets, Path::new("m/m.gltf"))
}

#[test]
fn morph_weights_animate_the_targets() {
    let scene = morph_model(|_| {}).expect("loads");
    assert_eq!(scene.deformed_draws(), vec![(0, 0, 3)]);
    for (t, z) in [(0.0f32, 0.0f32), (0.25, 0.25), (0.5, 0.5), (0.9, 0.9)] {
        let v = scene.deformed_vertices_at(t);
        assert_eq!(v.len(), 3);
        for (a, b) in v.iter().zip(&scene.vertices) {
            let want = Vec3::from(b.position) + Vec3::new(0.0, 0.0, z);
            assert!(
                Vec3::from(a.position).abs_diff_eq(want, 1e-5),
                "t {t}: {a:?}"
            );
        }
    }
}

#[test]
fn malformed_deformations_are_clear_errors() {
    let e = morph_model(|j| j["accessors"][1]["count"] = serde_json::json!(2)).unwrap_err();
    assert!(
        e.to_string().contains("has 2 elements but POSITION has 3"),
        "{e}"
    );
    let e = morph_model(|j| j["accessors"][1]["type"] = serde_json::json!("VEC2")).unwrap_err();
    assert!(e.to_string().contains("not VEC3 floats"), "{e}");
    // Weight keys that do not divide into the targets: 3 values for 2 keys.
    let e = morph_model(|j| j["accessors"][3]["count"] = serde_json::json!(3)).unwrap_err();
    assert!(e.to_string().contains("cannot use"), "{e}");
    if !Path::new(SIMPLE_SKIN).exists() {
        return;
    }
    // simple_skin with one joint fewer than its JOINTS_0 names, and with a joint node that
    // does not exist.
    let text = std::fs::read_to_string(SIMPLE_SKIN).unwrap();
    for (joints, says) in [("[ 1 ]", "names joint 1; skin 0 has 1"), ("[ 1, 9 ]", "")] {
        let edited = text.replacen(
            "\"joints\" : [ 1, 2 ]",
            &format!("\"joints\" : {joints}"),
            1,
        );
        assert_ne!(edited, text);
        let assets = tessera_scene::assets::Memory::new().with("s/s.gltf", edited);
        let e = tessera_scene::load_from(&assets, Path::new("s/s.gltf")).unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
    }
}
