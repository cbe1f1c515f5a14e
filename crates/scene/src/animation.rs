//! glTF node animation: keyframe samplers (step, linear, cubic spline; rotations slerped and
//! normalised) driving the translation, rotation and scale of nodes, and the node hierarchy
//! of an animated model kept beside its flattened instances, so the renderer can pose the
//! instances at any time ([`crate::Scene::instance_transforms_at`]).
//!
//! The loader ([`crate::gltf_load`]) checks every sampler before it is built here: finite,
//! non-decreasing key times, output counts that match, and the total number of keyframe
//! values within [`crate::limits::MAX_ANIMATION_VALUES`]; sampling therefore never fails.

use std::sync::Arc;

use glam::{Mat4, Quat, Vec3};

/// How a sampler interpolates between keyframes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The value of the key at or before `t`.
    Step,
    /// Linear (rotations: spherical linear, the shortest way).
    Linear,
    /// Cubic Hermite spline with the file's in and out tangents (rotations normalised after).
    CubicSpline,
}

/// Which node property a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Translation, 3 values.
    Translation,
    /// Rotation quaternion (x, y, z, w), 4 values.
    Rotation,
    /// Scale, 3 values.
    Scale,
    /// Morph target weights, one value per target.
    Weights,
}

impl Property {
    /// Values per keyframe element (`None` for weights: one per morph target).
    pub fn width(self) -> Option<usize> {
        match self {
            Property::Translation | Property::Scale => Some(3),
            Property::Rotation => Some(4),
            Property::Weights => None,
        }
    }
}

/// Keyframes: `times` (seconds, non-decreasing, at least one) and `values`, `width` floats per
/// key, or `3 * width` for cubic splines (in tangent, value, out tangent).
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    /// Interpolation between keys.
    pub interpolation: Interpolation,
    /// Key times in seconds.
    pub times: Vec<f32>,
    /// Key values (see the type's docs for the layout).
    pub values: Vec<f32>,
    /// Floats per value.
    pub width: usize,
}

impl Sampler {
    /// The value at `t` into `out` (`width` floats), clamped to the first and last key outside
    /// the keyed range; `rotation` slerps linear keys and normalises the result.
    pub fn sample(&self, t: f32, rotation: bool, out: &mut [f32]) {
        let w = self.width;
        let n = self.times.len();
        let cubic = self.interpolation == Interpolation::CubicSpline;
        // The value of key k (the middle third of a cubic key).
        let value = |k: usize| {
            let base = if cubic { k * 3 * w + w } else { k * w };
            &self.values[base..base + w]
        };
        if n == 0 || out.len() != w {
            return;
        }
        // Keys before `t`: the segment [k, k + 1] holds it.
        let after = self.times.partition_point(|&x| x <= t);
        if after == 0 || after >= n || self.interpolation == Interpolation::Step {
            let k = after.saturating_sub(1).min(n - 1);
            out.copy_from_slice(value(k));
            return;
        }
        let k = after - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let dt = t1 - t0;
        let s = if dt > 0.0 { (t - t0) / dt } else { 0.0 };
        match self.interpolation {
            Interpolation::Step => out.copy_from_slice(value(k)),
            Interpolation::Linear if rotation => {
                let q = quat(value(k)).slerp(quat(value(k + 1)), s);
                out.copy_from_slice(&q.to_array());
            }
            Interpolation::Linear => {
                for ((o, a), b) in out.iter_mut().zip(value(k)).zip(value(k + 1)) {
                    *o = a + (b - a) * s;
                }
            }
            Interpolation::CubicSpline => {
                let out_tangent = &self.values[k * 3 * w + 2 * w..k * 3 * w + 3 * w];
                let in_tangent = &self.values[(k + 1) * 3 * w..(k + 1) * 3 * w + w];
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = s3 - 2.0 * s2 + s;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = s3 - s2;
                for i in 0..w {
                    out[i] = h00 * value(k)[i]
                        + h10 * dt * out_tangent[i]
                        + h01 * value(k + 1)[i]
                        + h11 * dt * in_tangent[i];
                }
                if rotation {
                    let q = quat(out).normalize();
                    // A degenerate spline (zero quaternion) keeps the key's rotation.
                    let q = if q.is_finite() { q } else { quat(value(k)) };
                    out.copy_from_slice(&q.to_array());
                }
            }
        }
    }

    /// The last key time.
    pub fn end(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }
}

fn quat(v: &[f32]) -> Quat {
    Quat::from_xyzw(v[0], v[1], v[2], v[3])
}

/// One animated property of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// The node (index into [`Rig::nodes`]).
    pub node: usize,
    /// The property driven.
    pub property: Property,
    /// Index into [`Animation::samplers`].
    pub sampler: usize,
}

/// A glTF animation: channels sharing samplers. It loops over `duration`.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// Name from the file, or a generated one.
    pub name: String,
    /// The animated properties.
    pub channels: Vec<Channel>,
    /// Keyframes the channels index.
    pub samplers: Vec<Sampler>,
    /// The last key time of all samplers (seconds).
    pub duration: f32,
}

/// A node's local transform as translation, rotation and scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: Vec3,
    /// Unit rotation.
    pub rotation: Quat,
    /// Scale.
    pub scale: Vec3,
}

impl Trs {
    /// The matrix `T * R * S`.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// One visit of the hierarchy walk that placed instances: a node reached from the visit
/// `parent` (a node used twice by a file that is not a tree is two visits, as the static walk
/// makes two instances of it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    /// The node.
    pub node: usize,
    /// The visit of its parent; `None` at a root.
    pub parent: Option<usize>,
}

/// An animated glTF model inside a scene: its nodes' rest transforms, the walk that made its
/// instances, and its animations. Visits come in walk order (a parent before its children).
#[derive(Clone, Debug, PartialEq)]
pub struct Rig {
    /// Each node's local transform without animation (shared by every placed copy).
    pub nodes: Arc<[Trs]>,
    /// The hierarchy walk, parents first.
    pub visits: Vec<Visit>,
    /// `(scene instance, visit)`: which instance each mesh visit became.
    pub instances: Vec<(usize, usize)>,
    /// The animations, all played together (shared by every placed copy).
    pub animations: Arc<[Animation]>,
    /// Where the model is placed in the scene (a scene file's transform).
    pub placement: Mat4,
    /// Each node's parent (the first, in a file that is not a tree).
    pub parents: Arc<[Option<usize>]>,
    /// Each node's default morph weights (`node.weights`, else its mesh's; may be empty).
    pub weights: Arc<[Vec<f32>]>,
    /// The file's skins.
    pub skins: Arc<[crate::deform::Skin]>,
    /// Each visit's skin (`None`: not skinned), by visit.
    pub visit_skins: Vec<Option<usize>>,
}

/// A rig at one time: local transforms, morph weights per node, world transforms per visit.
#[derive(Clone, Debug, PartialEq)]
pub struct RigPose {
    /// Each node's local transform.
    pub locals: Vec<Trs>,
    /// Each node's morph weights.
    pub weights: Vec<Vec<f32>>,
    /// Each visit's world transform.
    pub visits: Vec<Mat4>,
}

impl Rig {
    /// The longest animation's duration (seconds).
    pub fn duration(&self) -> f32 {
        self.animations
            .iter()
            .map(|a| a.duration)
            .fold(0.0, f32::max)
    }

    /// Each node's local transform at `t` seconds: every animation applied, each looping
    /// over its own duration.
    pub fn locals_at(&self, t: f32) -> Vec<Trs> {
        self.animated_at(t).0
    }

    /// Local transforms and morph weights of every node at `t` seconds.
    fn animated_at(&self, t: f32) -> (Vec<Trs>, Vec<Vec<f32>>) {
        let mut locals = self.nodes.to_vec();
        let mut weights = self.weights.to_vec();
        let mut buf = [0f32; 4];
        for a in self.animations.iter() {
            let at = if a.duration > 0.0 && t.is_finite() {
                t.rem_euclid(a.duration)
            } else {
                0.0
            };
            for c in &a.channels {
                let (Some(s), Some(local)) = (a.samplers.get(c.sampler), locals.get_mut(c.node))
                else {
                    continue;
                };
                let Some(w) = c.property.width() else {
                    if let Some(out) = weights.get_mut(c.node) {
                        out.resize(s.width, 0.0);
                        s.sample(at, false, out);
                    }
                    continue;
                };
                if s.width != w {
                    continue;
                }
                s.sample(at, c.property == Property::Rotation, &mut buf[..w]);
                match c.property {
                    Property::Translation => local.translation = Vec3::from_slice(&buf[..3]),
                    Property::Rotation => local.rotation = quat(&buf).normalize(),
                    Property::Scale => local.scale = Vec3::from_slice(&buf[..3]),
                    Property::Weights => {}
                }
            }
        }
        (locals, weights)
    }

    /// The rig at `t` seconds.
    pub fn pose_at(&self, t: f32) -> RigPose {
        let (locals, weights) = self.animated_at(t);
        let visits = self.worlds(&locals);
        RigPose {
            locals,
            weights,
            visits,
        }
    }

    /// The skin of a visit.
    pub fn skin_of(&self, visit: usize) -> Option<&crate::deform::Skin> {
        self.visit_skins
            .get(visit)
            .copied()
            .flatten()
            .and_then(|s| self.skins.get(s))
    }

    /// A node's world transform in `pose` through its parents (placement included); a
    /// parent chain longer than the node count (a cycle) stops there.
    pub fn node_world(&self, pose: &RigPose, node: usize) -> Mat4 {
        let mut m = Mat4::IDENTITY;
        let mut at = Some(node);
        let mut steps = 0;
        while let Some(n) = at {
            if steps > self.nodes.len() {
                break;
            }
            m = pose.locals.get(n).map_or(Mat4::IDENTITY, Trs::matrix) * m;
            at = self.parents.get(n).copied().flatten();
            steps += 1;
        }
        self.placement * m
    }

    /// The joint matrices of the skin of `visit` in `pose`, in the skinned mesh's space
    /// (the joint's world transform times its inverse bind matrix, brought back by the
    /// inverse of the mesh node's world transform); `None` when the visit is not skinned.
    pub fn joint_matrices(&self, pose: &RigPose, visit: usize) -> Option<Vec<Mat4>> {
        let skin = self.skin_of(visit)?;
        let mesh_world = pose.visits.get(visit).copied().unwrap_or(Mat4::IDENTITY);
        let to_mesh = mesh_world.inverse();
        Some(
            skin.joints
                .iter()
                .zip(&skin.inverse_bind)
                .map(|(&j, ibm)| to_mesh * self.node_world(pose, j) * *ibm)
                .collect(),
        )
    }

    /// The world transform of every visit at `t` seconds.
    pub fn visits_at(&self, t: f32) -> Vec<Mat4> {
        self.worlds(&self.locals_at(t))
    }

    /// Every visit's world transform with `locals`.
    fn worlds(&self, locals: &[Trs]) -> Vec<Mat4> {
        let mut world: Vec<Mat4> = Vec::with_capacity(self.visits.len());
        for v in &self.visits {
            let local = locals.get(v.node).map_or(Mat4::IDENTITY, Trs::matrix);
            let parent = v
                .parent
                .and_then(|p| world.get(p).copied())
                .unwrap_or(self.placement);
            world.push(parent * local);
        }
        world
    }
}
