//! Procedural meshes for scene files: unit-sized shapes (a 1×1 plane, a unit cube, a sphere and
//! a capped cylinder of diameter 1 and height 1) with outward normals, UVs in 0..=`uv_scale`
//! and tangents from [`generate_tangents`](crate::generate_tangents), placed and sized by the
//! object's transform.

use std::f32::consts::{PI, TAU};

use glam::Vec3;

use crate::geometry::generate_tangents;
use crate::Vertex;

/// Geometry of one shape: vertices and a triangle list (counter-clockwise seen from outside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// Vertices with positions, normals, tangents and UVs.
    pub vertices: Vec<Vertex>,
    /// Triangle-list indices into `vertices`.
    pub indices: Vec<u32>,
}

impl MeshData {
    fn add(&mut self, p: Vec3, n: Vec3, uv: [f32; 2]) -> u32 {
        self.vertices.push(Vertex {
            position: p.to_array(),
            normal: n.to_array(),
            tangent: [0.0; 4],
            uv,
        });
        self.vertices.len() as u32 - 1
    }

    /// Fills in tangents once all triangles exist.
    fn finish(mut self) -> MeshData {
        let p: Vec<_> = self.vertices.iter().map(|v| v.position).collect();
        let n: Vec<_> = self.vertices.iter().map(|v| v.normal).collect();
        let uv: Vec<_> = self.vertices.iter().map(|v| v.uv).collect();
        for (v, t) in self
            .vertices
            .iter_mut()
            .zip(generate_tangents(&p, &n, &uv, &self.indices))
        {
            v.tangent = t;
        }
        self
    }

    /// A quad with corner `origin`, edges `u` and `v` (normal = u × v), subdivided `n`×`n`.
    fn quad(&mut self, origin: Vec3, u: Vec3, v: Vec3, n: u32, uv_scale: f32) {
        let normal = u.cross(v).normalize();
        let base = self.vertices.len() as u32;
        for j in 0..=n {
            for i in 0..=n {
                let (s, t) = (i as f32 / n as f32, j as f32 / n as f32);
                // V grows opposite to `v` so the image is upright on walls (glTF's UV origin
                // is top-left).
                self.add(
                    origin + u * s + v * t,
                    normal,
                    [s * uv_scale, (1.0 - t) * uv_scale],
                );
            }
        }
        for j in 0..n {
            for i in 0..n {
                let a = base + j * (n + 1) + i;
                let (b, c, d) = (a + 1, a + n + 2, a + n + 1);
                self.indices.extend_from_slice(&[a, b, c, a, c, d]);
            }
        }
    }
}

/// A 1×1 plane in XZ centred on the origin, normal +Y, split into `subdivisions`² quads (more
/// quads give per-vertex lighting and clipping something to work with).
pub fn plane(subdivisions: u32, uv_scale: f32) -> MeshData {
    let mut m = MeshData::default();
    let n = subdivisions.max(1);
    // u = +X, v = -Z: u × v = +Y.
    m.quad(Vec3::new(-0.5, 0.0, 0.5), Vec3::X, Vec3::NEG_Z, n, uv_scale);
    m.finish()
}

/// A unit cube centred on the origin: 24 vertices, each face with its own normal and UVs.
pub fn cube(uv_scale: f32) -> MeshData {
    let mut m = MeshData::default();
    // (normal, u edge, v edge): origin = 0.5 n - 0.5 u - 0.5 v, with u × v = n.
    let faces = [
        (Vec3::X, Vec3::NEG_Z, Vec3::Y),
        (Vec3::NEG_X, Vec3::Z, Vec3::Y),
        (Vec3::Y, Vec3::X, Vec3::NEG_Z),
        (Vec3::NEG_Y, Vec3::X, Vec3::Z),
        (Vec3::Z, Vec3::X, Vec3::Y),
        (Vec3::NEG_Z, Vec3::NEG_X, Vec3::Y),
    ];
    for (n, u, v) in faces {
        m.quad(0.5 * (n - u - v), u, v, 1, uv_scale);
    }
    m.finish()
}

/// A UV sphere of radius 0.5 with `segments` around and `rings` from pole to pole; the seam
/// column is duplicated so U runs 0..=1 without wrapping.
pub fn sphere(segments: u32, rings: u32, uv_scale: f32) -> MeshData {
    let (seg, rings) = (segments.max(3), rings.max(2));
    let mut m = MeshData::default();
    for r in 0..=rings {
        let theta = PI * r as f32 / rings as f32; // 0 at +Y
        for s in 0..=seg {
            let phi = TAU * s as f32 / seg as f32;
            // phi grows towards -Z from +X so U increases counter-clockwise seen from outside.
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            );
            let uv = [
                s as f32 / seg as f32 * uv_scale,
                r as f32 / rings as f32 * uv_scale,
            ];
            m.add(n * 0.5, n, uv);
        }
    }
    let row = seg + 1;
    for r in 0..rings {
        for s in 0..seg {
            let a = r * row + s;
            let (b, c, d) = (a + row, a + row + 1, a + 1);
            if r != 0 {
                m.indices.extend_from_slice(&[a, b, d]);
            }
            if r != rings - 1 {
                m.indices.extend_from_slice(&[d, b, c]);
            }
        }
    }
    m.finish()
}

/// A cylinder of radius 0.5 along Y from -0.5 to 0.5, with caps; sides and caps have separate
/// vertices so the rim stays sharp.
pub fn cylinder(segments: u32, uv_scale: f32) -> MeshData {
    let seg = segments.max(3);
    let mut m = MeshData::default();
    let dir = |s: u32| {
        let phi = TAU * s as f32 / seg as f32;
        Vec3::new(phi.cos(), 0.0, -phi.sin())
    };
    for s in 0..=seg {
        let n = dir(s);
        let u = s as f32 / seg as f32 * uv_scale;
        m.add(n * 0.5 + Vec3::Y * 0.5, n, [u, 0.0]);
        m.add(n * 0.5 - Vec3::Y * 0.5, n, [u, uv_scale]);
    }
    for s in 0..seg {
        let (top, bottom) = (2 * s, 2 * s + 1);
        let (top2, bottom2) = (top + 2, bottom + 2);
        m.indices
            .extend_from_slice(&[top, bottom, bottom2, top, bottom2, top2]);
    }
    for (y, n) in [(0.5f32, Vec3::Y), (-0.5, Vec3::NEG_Y)] {
        let centre = m.add(Vec3::Y * y, n, [0.5 * uv_scale, 0.5 * uv_scale]);
        let first = m.vertices.len() as u32;
        for s in 0..seg {
            let d = dir(s);
            let uv = [(0.5 + 0.5 * d.x) * uv_scale, (0.5 - 0.5 * d.z) * uv_scale];
            m.add(d * 0.5 + Vec3::Y * y, n, uv);
        }
        for s in 0..seg {
            let (a, b) = (first + s, first + (s + 1) % seg);
            if y > 0.0 {
                m.indices.extend_from_slice(&[centre, a, b]);
            } else {
                m.indices.extend_from_slice(&[centre, b, a]);
            }
        }
    }
    m.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes() -> Vec<(&'static str, MeshData, bool)> {
        vec![
            ("plane", plane(4, 1.0), false),
            ("cube", cube(1.0), true),
            ("sphere", sphere(24, 12, 1.0), true),
            ("cylinder", cylinder(16, 1.0), true),
        ]
    }

    #[test]
    fn attributes_are_sane() {
        for (name, m, _) in shapes() {
            assert!(!m.indices.is_empty() && m.indices.len() % 3 == 0, "{name}");
            assert!(
                m.indices.iter().all(|&i| (i as usize) < m.vertices.len()),
                "{name}"
            );
            for v in &m.vertices {
                let n = Vec3::from(v.normal);
                let t = Vec3::new(v.tangent[0], v.tangent[1], v.tangent[2]);
                assert!((n.length() - 1.0).abs() < 1e-5, "{name}: normal {n}");
                assert!((t.length() - 1.0).abs() < 1e-5, "{name}: tangent {t}");
                assert!(
                    n.dot(t).abs() < 1e-5,
                    "{name}: tangent not orthogonal: {n} {t}"
                );
                assert!(v.tangent[3] == 1.0 || v.tangent[3] == -1.0, "{name}");
                assert!(
                    v.uv.iter().all(|c| (0.0..=1.0).contains(c)),
                    "{name}: uv {:?}",
                    v.uv
                );
                assert!(v.position.iter().all(|c| c.abs() <= 0.5 + 1e-6), "{name}");
            }
        }
    }

    /// Each triangle's winding normal agrees with its vertex normals, and on closed shapes
    /// points away from the centre: outward, counter-clockwise faces.
    #[test]
    fn closed_shapes_face_outward() {
        for (name, m, closed) in shapes() {
            for t in m.indices.chunks(3) {
                let [a, b, c] = [0, 1, 2].map(|k| &m.vertices[t[k] as usize]);
                let (pa, pb, pc) = (
                    Vec3::from(a.position),
                    Vec3::from(b.position),
                    Vec3::from(c.position),
                );
                let face = (pb - pa).cross(pc - pa);
                if face.length() < 1e-9 {
                    continue;
                }
                let vn = Vec3::from(a.normal) + Vec3::from(b.normal) + Vec3::from(c.normal);
                assert!(
                    face.dot(vn) > 0.0,
                    "{name}: triangle {t:?} wound against its normals"
                );
                if closed {
                    let centroid = (pa + pb + pc) / 3.0;
                    assert!(
                        face.dot(centroid) > 0.0,
                        "{name}: triangle {t:?} faces inward"
                    );
                    assert!(
                        vn.dot(centroid) > 0.0,
                        "{name}: normals of {t:?} point inward"
                    );
                }
            }
        }
    }

    #[test]
    fn sphere_normals_are_radial() {
        let m = sphere(16, 8, 1.0);
        for v in &m.vertices {
            let p = Vec3::from(v.position);
            assert!((p * 2.0 - Vec3::from(v.normal)).length() < 1e-5);
        }
    }

    /// Tangents follow +U: moving along the tangent increases U (checked on a triangle basis).
    #[test]
    fn tangents_follow_u() {
        for (name, m, _) in shapes() {
            for t in m.indices.chunks(3) {
                let [a, b] = [0, 1].map(|k| &m.vertices[t[k] as usize]);
                let dp = Vec3::from(b.position) - Vec3::from(a.position);
                let du = b.uv[0] - a.uv[0];
                let tan = Vec3::new(a.tangent[0], a.tangent[1], a.tangent[2]);
                if du.abs() > 1e-3 && dp.dot(tan).abs() > 1e-3 * dp.length() {
                    assert!(dp.dot(tan) * du > 0.0, "{name}: tangent against U at {t:?}");
                }
            }
        }
    }
}
