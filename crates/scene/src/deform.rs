//! Vertex deformation of glTF models: morph targets (position and normal deltas weighted per
//! node, the weights animated) and skinning (up to four joints per vertex, each joint's world
//! transform times its inverse bind matrix). [`crate::Scene::deformed_vertices_at`] gives the
//! deformed vertices of every instance whose mesh deforms, in [`crate::Scene::deformed_draws`]
//! order. This is the reference: the renderer deforms on the GPU (`deform.comp`, fed by
//! [`crate::deform_gpu`]) and its tests compare the two (docs/animation.md).

use glam::{Mat4, Vec3, Vec4};

use crate::Vertex;

/// One morph target of a primitive: a delta per vertex.
#[derive(Clone, Debug, PartialEq)]
pub struct MorphTarget {
    /// Position deltas, one per vertex.
    pub positions: Vec<[f32; 3]>,
    /// Normal deltas, one per vertex, or none.
    pub normals: Vec<[f32; 3]>,
}

/// What deforms a primitive's vertices: skin influences and morph targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Deform {
    /// Joint indices (into the instance's skin) per vertex; empty when not skinned.
    pub joints: Vec<[u16; 4]>,
    /// Joint weights per vertex (summing to 1); empty when not skinned.
    pub weights: Vec<[f32; 4]>,
    /// Morph targets.
    pub targets: Vec<MorphTarget>,
}

/// A glTF skin: joint nodes and their inverse bind matrices.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// The joints' nodes.
    pub joints: Vec<usize>,
    /// One inverse bind matrix per joint.
    pub inverse_bind: Vec<Mat4>,
}

impl Deform {
    /// `base` deformed: morph `weights` applied, then, when `joints` (one matrix per skin
    /// joint, in the mesh's space) is given and the primitive is skinned, skinned.
    pub fn apply(
        &self,
        base: &[Vertex],
        weights: &[f32],
        joints: Option<&[Mat4]>,
        out: &mut Vec<Vertex>,
    ) {
        let skinned =
            joints.filter(|_| self.joints.len() == base.len() && self.weights.len() == base.len());
        for (i, v) in base.iter().enumerate() {
            let mut p = Vec3::from(v.position);
            let mut n = Vec3::from(v.normal);
            for (t, &w) in self.targets.iter().zip(weights) {
                if w == 0.0 {
                    continue;
                }
                if let Some(d) = t.positions.get(i) {
                    p += Vec3::from(*d) * w;
                }
                if let Some(d) = t.normals.get(i) {
                    n += Vec3::from(*d) * w;
                }
            }
            let mut tangent = Vec3::new(v.tangent[0], v.tangent[1], v.tangent[2]);
            if let Some(m) = skinned {
                let mut skin = Mat4::ZERO;
                for (&j, &w) in self.joints[i].iter().zip(&self.weights[i]) {
                    if w != 0.0 {
                        // Joint indices were checked against the skin when the model loaded.
                        skin += m.get(usize::from(j)).copied().unwrap_or(Mat4::IDENTITY) * w;
                    }
                }
                p = skin.transform_point3(p);
                n = skin.transform_vector3(n);
                tangent = skin.transform_vector3(tangent);
            }
            let n = n.try_normalize().unwrap_or(Vec3::from(v.normal));
            // Orthogonal to the new normal again.
            let t = (tangent - n * n.dot(tangent))
                .try_normalize()
                .unwrap_or(crate::geometry::any_perpendicular(n));
            out.push(Vertex {
                position: p.to_array(),
                normal: n.to_array(),
                tangent: Vec4::from((t, v.tangent[3])).to_array(),
                uv: v.uv,
            });
        }
    }
}
