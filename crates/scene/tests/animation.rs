//! glTF node animation on tiny models built here: each interpolation sampled at known times,
//! rotations slerped, the hierarchy posed, looping, and malformed animations refused with a
//! clear error.

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use serde_json::{json, Value};
use tessera_scene::animation::Interpolation;
use tessera_scene::assets::Memory;
use tessera_scene::{Scene, SceneError};

/// Little-endian bytes of floats.
fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// A model: node 0 (animated, no mesh) is the parent of node 1, which draws one triangle
/// and is moved by 1 along +Y. `keys` is the times; `channel` adds one sampler for
/// `property` of node `node` with `interpolation` and `values` (appended to the buffer).
struct Model {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    channels: Vec<Value>,
    samplers: Vec<Value>,
}

impl Model {
    fn new() -> Model {
        let mut m = Model {
            bin: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
            channels: Vec::new(),
            samplers: Vec::new(),
        };
        let pos = m.data(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        m.accessors.push(
            json!({"bufferView": pos, "componentType": 5126, "count": 3, "type": "VEC3",
            "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}),
        );
        m
    }

    /// A buffer view of `v`; its index.
    fn data(&mut self, v: &[f32]) -> usize {
        let offset = self.bin.len();
        self.bin.extend(floats(v));
        self.views
            .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": v.len() * 4}));
        self.views.len() - 1
    }

    /// An accessor of `count` elements of `ty` over new data `v`; its index.
    fn accessor(&mut self, v: &[f32], count: usize, ty: &str) -> usize {
        let view = self.data(v);
        self.accessors
            .push(json!({"bufferView": view, "componentType": 5126, "count": count, "type": ty}));
        self.accessors.len() - 1
    }

    fn channel(
        &mut self,
        node: usize,
        path: &str,
        interpolation: &str,
        times: &[f32],
        values: &[f32],
    ) {
        let input = self.accessor(times, times.len(), "SCALAR");
        let (ty, width) = if path == "rotation" {
            ("VEC4", 4)
        } else {
            ("VEC3", 3)
        };
        let output = self.accessor(values, values.len() / width, ty);
        self.samplers
            .push(json!({"input": input, "output": output, "interpolation": interpolation}));
        self.channels
            .push(json!({"sampler": self.samplers.len() - 1,
            "target": {"node": node, "path": path}}));
    }

    fn json(&self) -> Value {
        json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [
                {"children": [1]},
                {"mesh": 0, "translation": [0.0, 1.0, 0.0]}
            ],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
            "buffers": [{"uri": "anim.bin", "byteLength": self.bin.len()}],
            "bufferViews": self.views,
            "accessors": self.accessors,
            "animations": [{"channels": self.channels, "samplers": self.samplers}]
        })
    }

    fn load_json(&self, json: &Value) -> Result<Scene, SceneError> {
        let assets = Memory::new()
            .with("m/anim.gltf", serde_json::to_vec(json).unwrap())
            .with("m/anim.bin", self.bin.clone());
        tessera_scene::load_from(&assets, Path::new("m/anim.gltf"))
    }

    fn load(&self) -> Result<Scene, SceneError> {
        self.load_json(&self.json())
    }
}

/// The translation of the triangle's instance at `t` (node 1 sits 1 above node 0).
fn placed(scene: &Scene, t: f32) -> Vec3 {
    let m = scene.instance_transforms_at(t)[0];
    m.transform_point3(Vec3::ZERO) - Vec3::Y
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-5
}

const TIMES: [f32; 3] = [0.0, 1.0, 2.0];
const MOVES: [f32; 9] = [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 4.0, 0.0];

#[test]
fn step_holds_each_key_until_the_next() {
    let mut m = Model::new();
    m.channel(0, "translation", "STEP", &TIMES, &MOVES);
    let s = m.load().expect("loads");
    assert!(s.is_animated());
    assert_eq!(s.animation_duration(), 2.0);
    assert_eq!(
        s.rigs[0].animations[0].samplers[0].interpolation,
        Interpolation::Step
    );
    assert!(close(placed(&s, 0.5), Vec3::ZERO));
    assert!(close(placed(&s, 0.999), Vec3::ZERO));
    assert!(close(placed(&s, 1.0), Vec3::new(2.0, 0.0, 0.0)));
    assert!(close(placed(&s, 1.7), Vec3::new(2.0, 0.0, 0.0)));
}

#[test]
fn linear_interpolates_and_loops() {
    let mut m = Model::new();
    m.channel(0, "translation", "LINEAR", &TIMES, &MOVES);
    let s = m.load().expect("loads");
    assert!(close(placed(&s, 0.5), Vec3::new(1.0, 0.0, 0.0)));
    assert!(close(placed(&s, 1.25), Vec3::new(2.0, 1.0, 0.0)));
    // The animation loops over its 2 s.
    assert!(close(placed(&s, 2.5), placed(&s, 0.5)));
    // The rest pose is the static instance transform, not the animation's.
    assert!(close(
        s.instances[0].transform.transform_point3(Vec3::ZERO),
        Vec3::Y
    ));
}

#[test]
fn rotations_slerp_and_the_child_follows_its_parent() {
    let mut m = Model::new();
    let q0 = Quat::IDENTITY;
    let q1 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let keys: Vec<f32> = q0.to_array().into_iter().chain(q1.to_array()).collect();
    m.channel(0, "rotation", "LINEAR", &[0.0, 1.0], &keys);
    let s = m.load().expect("loads");
    let half = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
    let got = s.instance_transforms_at(0.5)[0];
    // The child (1 up) is turned about its parent's origin by 45°.
    let want = Mat4::from_quat(half) * Mat4::from_translation(Vec3::Y);
    assert!(got.abs_diff_eq(want, 1e-5), "{got:?} vs {want:?}");
    // A quarter of the way is 22.5°, not a normalised lerp's angle.
    let quarter = s.instance_transforms_at(0.25)[0].transform_point3(Vec3::ZERO);
    let angle = quarter.x.atan2(quarter.y).abs();
    assert!((angle - std::f32::consts::PI / 8.0).abs() < 1e-4, "{angle}");
}

#[test]
fn cubic_splines_follow_the_hermite_basis() {
    let mut m = Model::new();
    // Two keys, 0 → (4, 0, 0), in-tangent of key 1 zero, out-tangent of key 0 (0, 8, 0).
    #[rustfmt::skip]
    let values = [
        0.0, 0.0, 0.0,  0.0, 0.0, 0.0,  0.0, 8.0, 0.0,
        0.0, 0.0, 0.0,  4.0, 0.0, 0.0,  0.0, 0.0, 0.0,
    ];
    m.channel(0, "translation", "CUBICSPLINE", &[0.0, 2.0], &values);
    let s = m.load().expect("loads");
    // (At 2 s the 2 s animation has looped back to its start.)
    for t in [0.0f32, 0.5, 1.0, 1.5, 1.99] {
        let (u, dt) = (t / 2.0, 2.0);
        let h01 = -2.0 * u.powi(3) + 3.0 * u * u;
        let h10 = u.powi(3) - 2.0 * u * u + u;
        let want = Vec3::new(4.0 * h01, 8.0 * dt * h10, 0.0);
        assert!(
            close(placed(&s, t), want),
            "t {t}: {} vs {want}",
            placed(&s, t)
        );
    }
}

#[test]
fn a_static_model_has_no_rig() {
    let m = Model::new();
    let mut json = m.json();
    json.as_object_mut().unwrap().remove("animations");
    let s = m.load_json(&json).expect("loads");
    assert!(!s.is_animated());
    assert_eq!(
        s.instance_transforms_at(3.0),
        vec![s.instances[0].transform]
    );
}

#[test]
fn placed_copies_move_with_their_placement() {
    let mut m = Model::new();
    m.channel(0, "translation", "LINEAR", &TIMES, &MOVES);
    let model = m.load().expect("loads");
    let mut scene = Scene::empty("two");
    scene.append(model.clone(), Mat4::IDENTITY);
    scene.append(model, Mat4::from_translation(Vec3::new(0.0, 0.0, 10.0)));
    let t = scene.instance_transforms_at(0.5);
    assert_eq!(t.len(), 2);
    assert!(close(
        t[0].transform_point3(Vec3::ZERO),
        Vec3::new(1.0, 1.0, 0.0)
    ));
    assert!(close(
        t[1].transform_point3(Vec3::ZERO),
        Vec3::new(1.0, 1.0, 10.0)
    ));
}

/// The error of loading `json` built from `m`, as text.
fn error_of(m: &Model, json: &Value) -> String {
    match m.load_json(json) {
        Ok(_) => panic!("a malformed animation loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_animations_are_clear_errors() {
    let mut m = Model::new();
    m.channel(0, "translation", "LINEAR", &TIMES, &MOVES);
    let good = m.json();

    // The output has 2 keys for 3 times.
    let mut j = good.clone();
    j["accessors"][2]["count"] = json!(2);
    let e = error_of(&m, &j);
    assert!(e.contains("has 2 elements; 3 keys need 3"), "{e}");

    // Times going backwards.
    let mut bad = Model::new();
    bad.channel(0, "translation", "LINEAR", &[0.0, 2.0, 1.0], &MOVES);
    let e = error_of(&bad, &bad.json());
    assert!(e.contains("key time 2 is earlier"), "{e}");

    // A huge declared count is refused before anything is read.
    let mut j = good.clone();
    j["accessors"][1]["count"] = json!(1u64 << 30);
    j["accessors"][2]["count"] = json!(1u64 << 30);
    let e = error_of(&m, &j);
    assert!(e.contains("the limit is"), "{e}");

    // A translation sampler whose output is VEC2.
    let mut j = good.clone();
    j["accessors"][2]["type"] = json!("VEC2");
    let e = error_of(&m, &j);
    assert!(e.contains("which a Translation channel cannot use"), "{e}");

    // A cubic spline without its tangents.
    let mut j = good.clone();
    j["animations"][0]["samplers"][0]["interpolation"] = json!("CUBICSPLINE");
    let e = error_of(&m, &j);
    assert!(e.contains("of a cubic spline need 9"), "{e}");

    // Channels naming a node or a sampler that does not exist.
    let mut j = good.clone();
    j["animations"][0]["channels"][0]["target"]["node"] = json!(7);
    let e = error_of(&m, &j);
    assert!(e.contains("targets node 7, which does not exist"), "{e}");
    let mut j = good.clone();
    j["animations"][0]["channels"][0]["sampler"] = json!(5);
    let e = error_of(&m, &j);
    assert!(e.contains("sampler"), "{e}");

    // Non-finite key times.
    let mut nan = Model::new();
    nan.channel(0, "translation", "LINEAR", &[0.0, f32::NAN, 2.0], &MOVES);
    let e = error_of(&nan, &nan.json());
    assert!(e.contains("not finite"), "{e}");
}
