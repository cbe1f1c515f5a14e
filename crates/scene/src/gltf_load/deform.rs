//! Reading what deforms vertices: a primitive's morph targets (POSITION and NORMAL deltas)
//! and skin attributes (JOINTS_0, WEIGHTS_0), and the file's skins (joints and inverse bind
//! matrices). Every count is checked before it is read; the morph deltas of a model stay
//! within [`MAX_MORPH_DELTAS`].

use glam::Mat4;
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Semantic;

use super::{check_range, invalid, Loader};
use crate::deform::{Deform, MorphTarget, Skin};
use crate::limits::MAX_MORPH_DELTAS;
use crate::SceneError;

impl Loader<'_> {
    /// The morph targets and skin attributes of a primitive of `count` vertices.
    pub(super) fn primitive_deform(
        &mut self,
        prim: &gltf::Primitive,
        object: &str,
        count: usize,
    ) -> Result<Option<Deform>, SceneError> {
        let mut deform = Deform::default();
        for (ti, target) in prim.morph_targets().enumerate() {
            self.morph_deltas = self.morph_deltas.saturating_add(count);
            if self.morph_deltas > MAX_MORPH_DELTAS {
                return Err(SceneError::TooLarge {
                    path: self.path.to_path_buf(),
                    object: object.into(),
                    message: format!(
                        "the morph targets reach {} vertex deltas, the limit is {MAX_MORPH_DELTAS}",
                        self.morph_deltas
                    ),
                });
            }
            let what = format!("{object} morph target {ti}");
            let read =
                |acc: Option<gltf::Accessor>, name: &str| -> Result<Vec<[f32; 3]>, SceneError> {
                    let Some(acc) = acc else {
                        return Ok(Vec::new());
                    };
                    let what = format!("{what} {name}");
                    if acc.dimensions() != Dimensions::Vec3 || acc.data_type() != DataType::F32 {
                        return Err(invalid(
                            self.path,
                            what,
                            format!("accessor {} is not VEC3 floats", acc.index()),
                        ));
                    }
                    if acc.count() != count {
                        return Err(invalid(
                            self.path,
                            what,
                            format!("has {} elements but POSITION has {count}", acc.count()),
                        ));
                    }
                    let v = self.read_f32(&acc, &what)?;
                    if v.iter().any(|c| !c.is_finite()) {
                        return Err(invalid(self.path, what, "has a non-finite delta"));
                    }
                    Ok(v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
                };
            let positions = read(target.positions(), "POSITION")?;
            let normals = read(target.normals(), "NORMAL")?;
            deform.targets.push(MorphTarget { positions, normals });
        }
        if let (Some(j), Some(w)) = (
            prim.get(&Semantic::Joints(0)),
            prim.get(&Semantic::Weights(0)),
        ) {
            let what = format!("{object}: JOINTS_0");
            if j.dimensions() != Dimensions::Vec4
                || !matches!(j.data_type(), DataType::U8 | DataType::U16)
                || j.count() != count
            {
                return Err(invalid(
                    self.path,
                    what,
                    format!(
                        "accessor {} must be {count} VEC4 of unsigned bytes or shorts",
                        j.index()
                    ),
                ));
            }
            let joints = self.read_u32(&j, &what)?;
            let what = format!("{object}: WEIGHTS_0");
            let float_or_normalized = w.data_type() == DataType::F32
                || (w.normalized() && matches!(w.data_type(), DataType::U8 | DataType::U16));
            if w.dimensions() != Dimensions::Vec4 || !float_or_normalized || w.count() != count {
                return Err(invalid(
                    self.path,
                    what,
                    format!(
                        "accessor {} must be {count} VEC4 of floats or normalized integers",
                        w.index()
                    ),
                ));
            }
            let weights = self.read_f32(&w, &what)?;
            if weights.iter().any(|c| !c.is_finite()) {
                return Err(invalid(self.path, what, "has a non-finite weight"));
            }
            deform.joints = joints
                .chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]].map(|x| x.min(u32::from(u16::MAX)) as u16))
                .collect();
            deform.weights = weights
                .chunks_exact(4)
                .map(|c| {
                    let sum: f32 = c.iter().map(|x| x.max(0.0)).sum();
                    // Weights should sum to 1; a vertex with none follows joint 0.
                    if sum > 0.0 {
                        [c[0], c[1], c[2], c[3]].map(|x| x.max(0.0) / sum)
                    } else {
                        [1.0, 0.0, 0.0, 0.0]
                    }
                })
                .collect();
        }
        let empty = deform.targets.is_empty() && deform.joints.is_empty();
        Ok((!empty).then_some(deform))
    }

    /// The file's skins, their joints and inverse bind matrices checked.
    pub(super) fn skins(&self) -> Result<Vec<Skin>, SceneError> {
        let json = self.doc.as_json();
        let mut out = Vec::with_capacity(json.skins.len());
        for (si, skin) in json.skins.iter().enumerate() {
            let object = format!("skin {si}");
            let joints: Vec<usize> = skin.joints.iter().map(|j| j.value()).collect();
            if let Some(j) = joints.iter().find(|&&j| j >= json.nodes.len()) {
                return Err(invalid(
                    self.path,
                    object,
                    format!("joint node {j} does not exist"),
                ));
            }
            let inverse_bind = match skin.inverse_bind_matrices {
                None => vec![Mat4::IDENTITY; joints.len()],
                Some(a) => {
                    let acc = self.doc.accessors().nth(a.value()).ok_or_else(|| {
                        invalid(
                            self.path,
                            &object,
                            format!("accessor {} does not exist", a.value()),
                        )
                    })?;
                    let m = self.read_mat4(&acc, &object)?;
                    if m.len() < joints.len() {
                        return Err(invalid(
                            self.path,
                            object,
                            format!(
                                "{} inverse bind matrices for {} joints",
                                m.len(),
                                joints.len()
                            ),
                        ));
                    }
                    m
                }
            };
            out.push(Skin {
                joints,
                inverse_bind,
            });
        }
        Ok(out)
    }

    /// A MAT4 float accessor (inverse bind matrices), range-checked; no sparse values.
    fn read_mat4(&self, acc: &gltf::Accessor, object: &str) -> Result<Vec<Mat4>, SceneError> {
        let what = format!("{object} (accessor {})", acc.index());
        if acc.dimensions() != Dimensions::Mat4
            || acc.data_type() != DataType::F32
            || acc.sparse().is_some()
        {
            return Err(invalid(
                self.path,
                what,
                "inverse bind matrices must be dense MAT4 floats",
            ));
        }
        let count = acc.count();
        // A skin has at most a node per joint: more matrices than nodes are never read.
        if count > self.doc.nodes().len().max(1) * 4 {
            return Err(SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object: what,
                message: format!(
                    "{count} matrices for a file of {} nodes",
                    self.doc.nodes().len()
                ),
            });
        }
        let Some(view) = acc.view() else {
            return Ok(vec![Mat4::ZERO; count]);
        };
        let data = self.view_bytes(&view, &what)?;
        let stride = view.stride().unwrap_or(64).max(64);
        check_range(acc.offset(), stride, count, 64, data.len())
            .map_err(|m| invalid(self.path, &what, m))?;
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let base = acc.offset() + i * stride;
            let mut m = [0f32; 16];
            for (k, c) in m.iter_mut().enumerate() {
                let o = base + 4 * k;
                *c = f32::from_le_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]]);
            }
            let m = Mat4::from_cols_array(&m);
            if !m.is_finite() {
                return Err(invalid(
                    self.path,
                    what,
                    format!("matrix {i} is not finite"),
                ));
            }
            out.push(m);
        }
        Ok(out)
    }
}
