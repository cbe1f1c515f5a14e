//! Vertex attribute generation shared by the glTF loader and the procedural meshes: smooth
//! normals where a file has none, and per-vertex tangents from UVs (accumulated triangle
//! tangents, Gram-Schmidt against the normal) so normal maps work on every mesh.

use glam::{Vec2, Vec3};

/// Area-weighted smooth normals of an indexed triangle list. Vertices that no non-degenerate
/// triangle touches get +Y, so every normal is unit length. Indices must be in range.
pub fn generate_normals(positions: &[[f32; 3]], indices: &[u32]) -> Vec<[f32; 3]> {
    let mut acc = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
        let (pa, pb, pc) = (
            Vec3::from(positions[a]),
            Vec3::from(positions[b]),
            Vec3::from(positions[c]),
        );
        // The cross product's length is twice the area: larger triangles weigh more.
        let n = (pb - pa).cross(pc - pa);
        if n.is_finite() {
            acc[a] += n;
            acc[b] += n;
            acc[c] += n;
        }
    }
    acc.into_iter()
        .map(|n| n.try_normalize().unwrap_or(Vec3::Y).to_array())
        .collect()
}

/// A unit vector orthogonal to unit `n`: the tangent of vertices whose UVs say nothing.
pub fn any_perpendicular(n: Vec3) -> Vec3 {
    let axis = if n.x.abs() < 0.9 { Vec3::X } else { Vec3::Y };
    (axis - n * n.dot(axis)).normalize_or(Vec3::Z)
}

/// Per-vertex tangents (xyz unit, orthogonal to the normal; w = ±1 handedness) of an indexed
/// triangle list from its UVs. Triangle tangents and bitangents are accumulated per vertex,
/// then the tangent is Gram-Schmidt orthogonalised against the normal; where UVs are degenerate
/// an arbitrary perpendicular is used. `normals` must be unit length, indices in range.
pub fn generate_tangents(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    uvs: &[[f32; 2]],
    indices: &[u32],
) -> Vec<[f32; 4]> {
    let mut tan = vec![Vec3::ZERO; positions.len()];
    let mut bit = vec![Vec3::ZERO; positions.len()];
    for t in indices.chunks_exact(3) {
        let [a, b, c] = [t[0] as usize, t[1] as usize, t[2] as usize];
        let (pa, pb, pc) = (
            Vec3::from(positions[a]),
            Vec3::from(positions[b]),
            Vec3::from(positions[c]),
        );
        let (ua, ub, uc) = (Vec2::from(uvs[a]), Vec2::from(uvs[b]), Vec2::from(uvs[c]));
        let (e1, e2) = (pb - pa, pc - pa);
        let (d1, d2) = (ub - ua, uc - ua);
        let det = d1.x * d2.y - d2.x * d1.y;
        if det.abs() < 1e-20 || !det.is_finite() {
            continue;
        }
        let r = 1.0 / det;
        let t_dir = (e1 * d2.y - e2 * d1.y) * r;
        let b_dir = (e2 * d1.x - e1 * d2.x) * r;
        if !t_dir.is_finite() || !b_dir.is_finite() {
            continue;
        }
        for v in [a, b, c] {
            tan[v] += t_dir;
            bit[v] += b_dir;
        }
    }
    (0..positions.len())
        .map(|i| {
            let n = Vec3::from(normals[i]);
            let t = (tan[i] - n * n.dot(tan[i]))
                .try_normalize()
                .unwrap_or_else(|| any_perpendicular(n));
            let w = if n.cross(t).dot(bit[i]) < 0.0 {
                -1.0
            } else {
                1.0
            };
            [t.x, t.y, t.z, w]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_tangent_follows_u() {
        let p = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        let uv = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let idx = [0, 1, 2, 0, 2, 3];
        let n = generate_normals(&p, &idx);
        for n in &n {
            assert!((Vec3::from(*n) - Vec3::Z).length() < 1e-6);
        }
        let t = generate_tangents(&p, &n, &uv, &idx);
        for t in &t {
            assert!(
                (Vec3::new(t[0], t[1], t[2]) - Vec3::X).length() < 1e-6,
                "{t:?}"
            );
            assert_eq!(t[3], 1.0);
        }
        // Mirrored V flips the handedness.
        let uv_flipped = uv.map(|[u, v]| [u, 1.0 - v]);
        let t = generate_tangents(&p, &n, &uv_flipped, &idx);
        assert!(t.iter().all(|t| t[3] == -1.0));
    }

    #[test]
    fn degenerate_input_still_gives_unit_vectors() {
        let p = [[0.0; 3], [0.0; 3], [0.0; 3]];
        let n = generate_normals(&p, &[0, 1, 2]);
        let t = generate_tangents(&p, &n, &[[0.0; 2]; 3], &[0, 1, 2]);
        for (n, t) in n.iter().zip(&t) {
            let (n, tv) = (Vec3::from(*n), Vec3::new(t[0], t[1], t[2]));
            assert!((n.length() - 1.0).abs() < 1e-6);
            assert!((tv.length() - 1.0).abs() < 1e-6);
            assert!(n.dot(tv).abs() < 1e-6);
        }
    }
}
