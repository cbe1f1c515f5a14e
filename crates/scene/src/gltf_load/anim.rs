//! Reading glTF animations into [`Animation`]s, with every count checked before anything is
//! read: a sampler's input must be finite, non-decreasing scalar floats; its output must have
//! one element per key (three for cubic splines) of the width its channel's property needs;
//! and a model's keyframe values together stay within [`MAX_ANIMATION_VALUES`].

use gltf::accessor::{DataType, Dimensions};
use gltf::animation::{Interpolation as GltfInterpolation, Property as GltfProperty};

use super::{invalid, Loader};
use crate::animation::{Animation, Channel, Interpolation, Property, Sampler};
use crate::limits::MAX_ANIMATION_VALUES;
use crate::SceneError;

impl Loader<'_> {
    /// Every animation of the file; morph-weight channels are skipped (not drawn).
    pub(super) fn animations(&self) -> Result<Vec<Animation>, SceneError> {
        let mut total = 0usize;
        let mut out = Vec::new();
        for anim in self.doc.animations() {
            let object = format!("animation {}", anim.index());
            // Indices checked on the JSON first: the `gltf` crate's validation leaves a
            // channel's node unchecked, and its accessors unwrap it.
            let json = &self.doc.as_json().animations[anim.index()];
            for (ci, c) in json.channels.iter().enumerate() {
                let (node, sampler) = (c.target.node.value(), c.sampler.value());
                if node >= self.doc.nodes().len() {
                    return Err(invalid(
                        self.path,
                        &object,
                        format!("channel {ci} targets node {node}, which does not exist"),
                    ));
                }
                if sampler >= json.samplers.len() {
                    return Err(invalid(
                        self.path,
                        &object,
                        format!("channel {ci} uses sampler {sampler}, which does not exist"),
                    ));
                }
            }
            let mut samplers: Vec<Option<Sampler>> = vec![None; anim.samplers().count()];
            let mut channels = Vec::new();
            for channel in anim.channels() {
                let target = channel.target();
                let property = match target.property() {
                    GltfProperty::Translation => Property::Translation,
                    GltfProperty::Rotation => Property::Rotation,
                    GltfProperty::Scale => Property::Scale,
                    GltfProperty::MorphTargetWeights => Property::Weights,
                };
                let node = target.node().index();
                let index = channel.sampler().index();
                let what = format!("{object} sampler {index}");
                let Some(slot) = samplers.get_mut(index) else {
                    return Err(invalid(self.path, what, "does not exist"));
                };
                match slot {
                    Some(s) if property.width().is_some_and(|w| s.width != w) => {
                        return Err(invalid(
                            self.path,
                            what,
                            "drives properties of different widths",
                        ))
                    }
                    Some(_) => {}
                    None => {
                        let s = self.sampler(&channel.sampler(), property, &what, &mut total)?;
                        *slot = Some(s);
                    }
                }
                channels.push(Channel {
                    node,
                    property,
                    sampler: index,
                });
            }
            if channels.is_empty() {
                continue;
            }
            // Unused samplers stay empty (never sampled: no channel names them).
            let samplers: Vec<Sampler> = samplers
                .into_iter()
                .map(|s| {
                    s.unwrap_or(Sampler {
                        interpolation: Interpolation::Step,
                        times: Vec::new(),
                        values: Vec::new(),
                        width: 0,
                    })
                })
                .collect();
            let duration = samplers.iter().map(Sampler::end).fold(0.0, f32::max);
            out.push(Animation {
                name: anim
                    .name()
                    .map_or_else(|| object.clone(), super::short_name),
                channels,
                samplers,
                duration,
            });
        }
        Ok(out)
    }

    fn sampler(
        &self,
        sampler: &gltf::animation::Sampler,
        property: Property,
        object: &str,
        total: &mut usize,
    ) -> Result<Sampler, SceneError> {
        let interpolation = match sampler.interpolation() {
            GltfInterpolation::Step => Interpolation::Step,
            GltfInterpolation::Linear => Interpolation::Linear,
            GltfInterpolation::CubicSpline => Interpolation::CubicSpline,
        };
        let (input, output) = (sampler.input(), sampler.output());
        let keys = input.count();
        if keys == 0 {
            return Err(invalid(self.path, object, "has no keyframes"));
        }
        if input.dimensions() != Dimensions::Scalar || input.data_type() != DataType::F32 {
            return Err(invalid(
                self.path,
                object,
                format!(
                    "input accessor {} is {:?} of {:?}, not scalar floats (seconds)",
                    input.index(),
                    input.dimensions(),
                    input.data_type()
                ),
            ));
        }
        let per_key = if interpolation == Interpolation::CubicSpline {
            3
        } else {
            1
        };
        // Weights: one scalar per morph target and key.
        let width = property.width().unwrap_or_else(|| {
            let elements = keys.saturating_mul(per_key);
            if output.count() % elements == 0 {
                output.count() / elements
            } else {
                0
            }
        });
        let float_or_normalized = output.data_type() == DataType::F32
            || (property != Property::Translation
                && property != Property::Scale
                && output.normalized());
        let dims_ok = match property {
            Property::Weights => output.dimensions() == Dimensions::Scalar && width > 0,
            _ => {
                output.dimensions().multiplicity() == width
                    && !matches!(output.dimensions(), Dimensions::Mat2)
            }
        };
        if !dims_ok || !float_or_normalized {
            return Err(invalid(
                self.path,
                object,
                format!(
                    "output accessor {} is {:?} of {:?}, which a {property:?} channel cannot use",
                    output.index(),
                    output.dimensions(),
                    output.data_type()
                ),
            ));
        }
        let elements = if property == Property::Weights {
            width
        } else {
            1
        };
        if Some(output.count()) != keys.checked_mul(per_key * elements) {
            return Err(invalid(
                self.path,
                object,
                format!(
                    "output accessor {} has {} elements; {keys} keys{} need {}",
                    output.index(),
                    output.count(),
                    if per_key == 3 {
                        " of a cubic spline"
                    } else {
                        ""
                    },
                    keys.saturating_mul(per_key * elements)
                ),
            ));
        }
        // Counted before reading: a small file may declare millions of keys.
        *total = total
            .saturating_add(keys)
            .saturating_add(output.count().saturating_mul(width / elements));
        if *total > MAX_ANIMATION_VALUES {
            return Err(SceneError::TooLarge {
                path: self.path.to_path_buf(),
                object: object.into(),
                message: format!(
                    "the animations reach {total} keyframe values, the limit is {MAX_ANIMATION_VALUES}"
                ),
            });
        }
        let times = self.read_f32(&input, object)?;
        if let Some(i) = times.iter().position(|t| !t.is_finite()) {
            return Err(invalid(
                self.path,
                object,
                format!("key time {i} is not finite"),
            ));
        }
        if let Some(i) = times.windows(2).position(|w| w[1] < w[0]) {
            return Err(invalid(
                self.path,
                object,
                format!("key time {} is earlier than the one before it", i + 1),
            ));
        }
        let values = self.read_f32(&output, object)?;
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(invalid(
                self.path,
                object,
                format!("output value {} is not finite", i / width.max(1)),
            ));
        }
        Ok(Sampler {
            interpolation,
            times,
            values,
            width,
        })
    }
}
