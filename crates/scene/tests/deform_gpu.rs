//! The compute pass's inputs (`Scene::deform_layout`, `Scene::deform_frame_at`) hold what
//! the CPU reference (`Scene::deformed_vertices_at`) deforms: the shader's arithmetic done
//! here over them gives the reference's vertices, for a skin and for morph targets.

use std::path::Path;

use glam::{Mat4, Vec3, Vec4};
use tessera_scene::deform_gpu::DeformLayout;
use tessera_scene::{Scene, Vertex};

const SIMPLE_SKIN: &str = "/usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf";
const MORPH_CUBE: &str = "/usr/share/assimp/models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf";

/// `deform.comp`'s `main` for output vertex `i`.
fn deform(layout: &DeformLayout, frame: &[[f32; 4]], i: usize) -> Vertex {
    let v = layout.vertices[i];
    let d = layout.draws[v.draw as usize];
    let mut p = Vec3::from(v.rest.position);
    let mut n = Vec3::from(v.rest.normal);
    for k in 0..d.targets as usize {
        let w = frame[d.weight_base as usize + k / 4][k % 4];
        let delta =
            layout.deltas[d.delta_base as usize + k * d.vertex_count as usize + v.local as usize];
        p += Vec3::from(delta.position) * w;
        n += Vec3::from(delta.normal) * w;
    }
    let mut t = Vec4::from(v.rest.tangent).truncate();
    if d.joints > 0 {
        let mut skin = Mat4::ZERO;
        for k in 0..4 {
            let j = (v.joints[k / 2] >> (16 * (k % 2))) & 0xffff;
            let m = if j < d.joints {
                let b = d.joint_base as usize + 4 * j as usize;
                Mat4::from_cols_array_2d(&[frame[b], frame[b + 1], frame[b + 2], frame[b + 3]])
            } else {
                Mat4::IDENTITY
            };
            skin += m * v.weights[k];
        }
        p = skin.transform_point3(p);
        n = skin.transform_vector3(n);
        t = skin.transform_vector3(t);
    }
    let n = n.try_normalize().unwrap_or(Vec3::from(v.rest.normal));
    let t = (t - n * n.dot(t)).try_normalize().unwrap_or(Vec3::X);
    Vertex {
        position: p.to_array(),
        normal: n.to_array(),
        tangent: [t.x, t.y, t.z, v.rest.tangent[3]],
        uv: v.rest.uv,
    }
}

fn check(scene: &Scene, times: &[f32]) {
    let layout = scene.deform_layout();
    let count: u32 = scene.deformed_draws().iter().map(|d| d.2).sum();
    assert_eq!(layout.vertices.len(), count as usize);
    for &t in times {
        let frame = scene.deform_frame_at(t);
        assert_eq!(frame.len(), layout.frame_vec4s);
        let want = scene.deformed_vertices_at(t);
        assert_eq!(want.len(), layout.vertices.len());
        for (i, w) in want.iter().enumerate() {
            let got = deform(&layout, &frame, i);
            let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-4);
            assert!(
                close(&got.position, &w.position) && close(&got.normal, &w.normal),
                "t {t} vertex {i}: {got:?} vs {w:?}"
            );
        }
    }
}

#[test]
fn the_layout_deforms_simple_skin_as_the_cpu_does() {
    if !Path::new(SIMPLE_SKIN).exists() {
        eprintln!("SKIPPED: assimp-testmodels is not installed");
        return;
    }
    let scene = tessera_scene::load(Path::new(SIMPLE_SKIN)).expect("loads");
    let layout = scene.deform_layout();
    assert_eq!(layout.draws.len(), 1);
    assert!(layout.draws[0].joints > 0, "skinned");
    assert!(layout.deltas.is_empty(), "no morph targets");
    check(&scene, &[0.0, 0.7, 1.0, 2.3]);
}

#[test]
fn the_layout_deforms_the_morph_cube_as_the_cpu_does() {
    if !Path::new(MORPH_CUBE).exists() {
        eprintln!("SKIPPED: assimp-testmodels is not installed");
        return;
    }
    let scene = tessera_scene::load(Path::new(MORPH_CUBE)).expect("loads");
    let layout = scene.deform_layout();
    assert!(!layout.draws.is_empty());
    assert!(layout.draws.iter().all(|d| d.targets > 0 && d.joints == 0));
    assert!(!layout.deltas.is_empty());
    check(&scene, &[0.0, 0.4, 1.1, 3.0]);
}
