//! KHR_texture_transform on the corpus's TextureTransformTest: each transformed material's
//! matrix, and the UVs of the primitives drawn with it moved by it.

use std::path::Path;

const MODEL: &str = "/usr/share/assimp/models/glTF2/textureTransform/TextureTransformTest.gltf";

#[test]
fn texture_transforms_move_the_uvs_of_their_primitives() {
    if !Path::new(MODEL).exists() {
        eprintln!("SKIPPED: assimp-testmodels is not installed");
        return;
    }
    let scene = tessera_scene::load(Path::new(MODEL)).expect("loads");
    let by_name = |n: &str| {
        scene
            .materials
            .iter()
            .position(|m| m.name == n)
            .unwrap_or_else(|| panic!("material {n}"))
    };
    // Offset U: (u + 0.5, v).
    let offset_u = by_name("Offset U");
    assert_eq!(
        scene.materials[offset_u].uv_transform,
        Some([1.0, 0.0, 0.0, 1.0, 0.5, 0.0])
    );
    assert_eq!(scene.materials[by_name("Correct")].uv_transform, None);
    let scale = scene.materials[by_name("Scale")]
        .uv_transform
        .expect("scale");
    assert_eq!([scale[0], scale[3]], [1.5, 1.5]);
    let rotation = scene.materials[by_name("Rotation")]
        .uv_transform
        .expect("rotation");
    // The file rotates by 22.5°.
    let (s, c) = std::f32::consts::FRAC_PI_8.sin_cos();
    assert!((rotation[0] - c).abs() < 1e-6 && (rotation[1] + s).abs() < 1e-6);
    // The Offset U quad's UVs (0..0.5 in the file) now start at u = 0.5.
    let prim = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .find(|p| p.material == offset_u)
        .expect("a primitive with Offset U");
    let start = prim.vertex_offset as usize;
    let uvs: Vec<[f32; 2]> = scene.vertices[start..start + prim.vertex_count as usize]
        .iter()
        .map(|v| v.uv)
        .collect();
    let min_u = uvs.iter().map(|uv| uv[0]).fold(f32::INFINITY, f32::min);
    let max_u = uvs.iter().map(|uv| uv[0]).fold(f32::NEG_INFINITY, f32::max);
    assert!(
        (min_u - 0.5).abs() < 1e-5 && (max_u - 1.0).abs() < 1e-5,
        "{uvs:?}"
    );
}
