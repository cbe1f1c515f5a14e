//! Checks shared by the integration tests: the invariants every loaded scene must hold.

use tessera_scene::{mip_count, Scene};

/// Asserts that the scene is internally consistent and ready to upload.
pub fn assert_sane(scene: &Scene, what: &str) {
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let at = format!("{what}: mesh {mi} primitive {pi}");
            assert_eq!(p.index_count % 3, 0, "{at}: index count");
            let end = p.first_index as usize + p.index_count as usize;
            assert!(end <= scene.indices.len(), "{at}: index range");
            assert!(p.vertex_offset >= 0, "{at}");
            let vend = p.vertex_offset as usize + p.vertex_count as usize;
            assert!(vend <= scene.vertices.len(), "{at}: vertex range");
            for &i in &scene.indices[p.first_index as usize..end] {
                assert!(i < p.vertex_count, "{at}: index {i} >= {}", p.vertex_count);
            }
            assert!(
                p.material < scene.materials.len(),
                "{at}: material {}",
                p.material
            );
        }
    }
    for (i, v) in scene.vertices.iter().enumerate() {
        let all = v
            .position
            .iter()
            .chain(&v.normal)
            .chain(&v.tangent)
            .chain(&v.uv);
        assert!(
            all.clone().all(|c| c.is_finite()),
            "{what}: vertex {i} not finite: {v:?}"
        );
        let n = glam::Vec3::from(v.normal);
        let t = glam::Vec3::new(v.tangent[0], v.tangent[1], v.tangent[2]);
        assert!(
            (n.length() - 1.0).abs() < 1e-3,
            "{what}: vertex {i} normal {n}"
        );
        assert!(
            (t.length() - 1.0).abs() < 1e-3,
            "{what}: vertex {i} tangent {t}"
        );
        assert!(
            n.dot(t).abs() < 1e-3,
            "{what}: vertex {i} tangent not orthogonal"
        );
        assert!(
            v.tangent[3] == 1.0 || v.tangent[3] == -1.0,
            "{what}: vertex {i} handedness"
        );
    }
    for m in &scene.materials {
        for t in [
            m.base_color_texture,
            m.metallic_roughness_texture,
            m.normal_texture,
            m.occlusion_texture,
            m.emissive_texture,
        ]
        .into_iter()
        .flatten()
        {
            assert!(
                t < scene.textures.len(),
                "{what}: material {} texture {t}",
                m.name
            );
        }
        if let Some(t) = m.base_color_texture {
            assert!(
                scene.textures[t].srgb,
                "{what}: base colour texture must be sRGB"
            );
        }
        if let Some(t) = m.normal_texture {
            assert!(!scene.textures[t].srgb, "{what}: normal map must be linear");
        }
    }
    for t in &scene.textures {
        assert_eq!(
            t.mips.len() as u32,
            mip_count(t.width, t.height),
            "{what}: {}",
            t.name
        );
        for (i, level) in t.mips.iter().enumerate() {
            let (w, h) = ((t.width >> i).max(1), (t.height >> i).max(1));
            assert_eq!(
                level.len(),
                (w * h * 4) as usize,
                "{what}: {} level {i}",
                t.name
            );
        }
    }
    for inst in &scene.instances {
        assert!(inst.mesh < scene.meshes.len(), "{what}: instance mesh");
        assert!(inst.transform.is_finite(), "{what}: instance transform");
    }
    for l in &scene.lights {
        assert!(
            l.position.is_finite() && l.direction.is_finite(),
            "{what}: light"
        );
    }
    if scene.triangle_count() > 0 {
        assert!(
            !scene.bounds.is_empty()
                && scene.bounds.min.is_finite()
                && scene.bounds.max.is_finite(),
            "{what}: bounds"
        );
    }
}
