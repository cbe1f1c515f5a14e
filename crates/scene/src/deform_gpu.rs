//! The deformation laid out for a GPU compute pass (`shaders/render/deform.comp`): what is
//! uploaded once ([`DeformLayout`]: each deformed vertex's rest vertex and skin influences,
//! each deformed draw's offsets, the morph deltas) and what changes per frame
//! ([`Scene::deform_frame_at`]: joint matrices and morph weights, a few floats per joint
//! and target). The output is [`Scene::deformed_vertices_at`]'s, which stays the reference
//! (docs/animation.md).

use glam::Mat4;

use crate::{Scene, Vertex};

/// One deformed vertex's static input (std430 `DeformVertex`, 80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DeformVertex {
    /// The rest vertex.
    pub rest: Vertex,
    /// Its draw in [`DeformLayout::draws`].
    pub draw: u32,
    /// Joint indices into the draw's skin, two 16-bit halves per word (low first).
    pub joints: [u32; 2],
    /// Index of the vertex in its primitive (its morph deltas).
    pub local: u32,
    /// Joint weights.
    pub weights: [f32; 4],
}

/// One deformed draw's offsets (std430 `DeformDraw`, 32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DeformDraw {
    /// Joints of its skin whose matrices the frame data holds (0: not skinned).
    pub joints: u32,
    /// Where its joint matrices start in the frame data (in vec4s).
    pub joint_base: u32,
    /// Morph targets.
    pub targets: u32,
    /// Where its morph weights start in the frame data (in vec4s, four weights each).
    pub weight_base: u32,
    /// Where its first target's deltas start in [`DeformLayout::deltas`].
    pub delta_base: u32,
    /// Vertices of its primitive (the stride between targets' deltas).
    pub vertex_count: u32,
    /// Unused (std430 padding to 32 bytes).
    pub pad: [u32; 2],
}

/// One morph delta (std430 `MorphDelta`, 24 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MorphDelta {
    /// Position delta.
    pub position: [f32; 3],
    /// Normal delta (zero when the target has none).
    pub normal: [f32; 3],
}

/// The static half of the deformation, in [`Scene::deformed_draws`] order: vertex `i` of
/// the output is `vertices[i]` deformed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeformLayout {
    /// One per deformed vertex.
    pub vertices: Vec<DeformVertex>,
    /// One per deformed draw.
    pub draws: Vec<DeformDraw>,
    /// Morph deltas, target after target, once per primitive however many instances draw it.
    pub deltas: Vec<MorphDelta>,
    /// vec4s of [`Scene::deform_frame_at`]'s data.
    pub frame_vec4s: usize,
}

/// An instance whose mesh deforms, with what its frame data holds.
struct Entry {
    rig: usize,
    instance: usize,
    visit: usize,
    /// Joint matrices (0: no skin).
    joints: usize,
    /// Morph weights (the most targets of its deformed primitives).
    weights: usize,
    /// Its deformed primitives, by index in its mesh.
    primitives: Vec<usize>,
}

impl Entry {
    fn vec4s(&self) -> usize {
        self.joints * 4 + self.weights.div_ceil(4)
    }
}

impl Scene {
    /// The deforming instances, in [`Scene::deformed_draws`] order (one entry per instance,
    /// its primitives within).
    fn deform_entries(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        for (r, rig) in self.rigs.iter().enumerate() {
            for &(instance, visit) in &rig.instances {
                let Some(mesh) = self
                    .instances
                    .get(instance)
                    .and_then(|i| self.meshes.get(i.mesh))
                else {
                    continue;
                };
                let skin = rig.skin_of(visit);
                let mut e = Entry {
                    rig: r,
                    instance,
                    visit,
                    joints: skin.map_or(0, |s| s.joints.len().min(s.inverse_bind.len())),
                    weights: 0,
                    primitives: Vec::new(),
                };
                for (pi, p) in mesh.primitives.iter().enumerate() {
                    if let Some(d) = &p.deform {
                        if !d.targets.is_empty() || (skin.is_some() && !d.joints.is_empty()) {
                            e.weights = e.weights.max(d.targets.len());
                            e.primitives.push(pi);
                        }
                    }
                }
                if !e.primitives.is_empty() {
                    out.push(e);
                }
            }
        }
        out
    }

    /// The static half of the deformation of every [`Scene::deformed_draws`] entry.
    pub fn deform_layout(&self) -> DeformLayout {
        let mut out = DeformLayout::default();
        let mut deltas = std::collections::HashMap::new();
        for e in self.deform_entries() {
            let joint_base = out.frame_vec4s;
            let weight_base = joint_base + e.joints * 4;
            out.frame_vec4s += e.vec4s();
            let mesh_index = self.instances[e.instance].mesh;
            let mesh = &self.meshes[mesh_index];
            for &pi in &e.primitives {
                let p = &mesh.primitives[pi];
                let Some(d) = &p.deform else {
                    continue;
                };
                let count = p.vertex_count as usize;
                let delta_base = *deltas.entry((mesh_index, pi)).or_insert_with(|| {
                    let base = out.deltas.len();
                    for t in &d.targets {
                        out.deltas.extend((0..count).map(|i| MorphDelta {
                            position: t.positions.get(i).copied().unwrap_or_default(),
                            normal: t.normals.get(i).copied().unwrap_or_default(),
                        }));
                    }
                    base
                });
                let skinned = e.joints > 0 && d.joints.len() == count && d.weights.len() == count;
                let draw = out.draws.len() as u32;
                out.draws.push(DeformDraw {
                    joints: if skinned { e.joints as u32 } else { 0 },
                    joint_base: joint_base as u32,
                    targets: d.targets.len() as u32,
                    weight_base: weight_base as u32,
                    delta_base: delta_base as u32,
                    vertex_count: count as u32,
                    pad: [0; 2],
                });
                let start = p.vertex_offset.max(0) as usize;
                let rest = self.vertices.get(start..start + count).unwrap_or(&[]);
                for i in 0..count {
                    let (joints, weights) = match skinned {
                        true => (d.joints[i], d.weights[i]),
                        false => ([0; 4], [0.0; 4]),
                    };
                    let pack = |a: u16, b: u16| u32::from(a) | u32::from(b) << 16;
                    out.vertices.push(DeformVertex {
                        // A primitive outside the vertex buffer (never loaded) stays zero.
                        rest: rest.get(i).copied().unwrap_or(bytemuck::Zeroable::zeroed()),
                        draw,
                        joints: [pack(joints[0], joints[1]), pack(joints[2], joints[3])],
                        local: i as u32,
                        weights,
                    });
                }
            }
        }
        out
    }

    /// The per-frame half of the deformation at `t` seconds, [`DeformLayout::frame_vec4s`]
    /// vec4s: for each deforming instance its joint matrices (columns) then its morph
    /// weights (four to a vec4, zero past the node's).
    pub fn deform_frame_at(&self, t: f32) -> Vec<[f32; 4]> {
        let entries = self.deform_entries();
        let mut out = Vec::with_capacity(entries.iter().map(Entry::vec4s).sum());
        let mut poses = std::collections::HashMap::new();
        for e in &entries {
            let rig = &self.rigs[e.rig];
            let pose = poses.entry(e.rig).or_insert_with(|| rig.pose_at(t));
            let joints = rig.joint_matrices(pose, e.visit).unwrap_or_default();
            for j in 0..e.joints {
                let m = joints.get(j).copied().unwrap_or(Mat4::IDENTITY);
                out.extend(m.to_cols_array_2d());
            }
            let node = rig.visits.get(e.visit).map_or(0, |v| v.node);
            let mesh = &self.meshes[self.instances[e.instance].mesh];
            let weights = pose
                .weights
                .get(node)
                .filter(|w| !w.is_empty())
                .map_or(mesh.weights.as_slice(), Vec::as_slice);
            let mut packed = vec![0.0; e.weights.div_ceil(4) * 4];
            for (p, w) in packed.iter_mut().zip(weights) {
                *p = *w;
            }
            out.extend(packed.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]));
        }
        out
    }
}
