//! Posing an animated scene for a frame: the instances' transforms at the animation time
//! (`Scene::instance_transforms_at`) go into the draws, whose transforms of the frame before
//! become their previous ones (TAA's motion vectors), and into the scene's instances and
//! bounds, which fit the shadow cascades and the SSAO radius. Static scenes skip all of it,
//! so their frames are unchanged bit for bit.

use crate::frame::deform::{Deformation, GpuDeform};
use crate::gpu::scene::SceneGpu;
use glam::Mat4;
use tessera_scene::Scene;

/// The animation state the renderer keeps across frames.
#[derive(Debug, Default)]
pub(crate) struct Pose {
    /// The instances' transforms as loaded (the rest pose), when the scene is animated.
    rest: Vec<Mat4>,
    /// The animation time drawn; `None`: the rest pose.
    time: Option<f32>,
}

impl Pose {
    /// The pose state of `scene`, drawn at rest until [`Pose::set_time`].
    pub(crate) fn of(scene: &Scene) -> Pose {
        Pose {
            rest: if scene.is_animated() {
                scene.instances.iter().map(|i| i.transform).collect()
            } else {
                Vec::new()
            },
            time: None,
        }
    }

    /// Draws the animations at `time` seconds from the next frame on (`None`: at rest).
    pub(crate) fn set_time(&mut self, time: Option<f32>) {
        self.time = time.filter(|t| t.is_finite());
    }

    /// The animation time drawn.
    pub(crate) fn time(&self) -> Option<f32> {
        self.time
    }

    /// Poses `scene` and `gpu`'s draws for the next frame; `moving`: the draws' current
    /// transforms were drawn last frame (else the previous transforms are the new ones).
    /// Gives the frame's deformation (none at rest and when nothing deforms): the `deform`
    /// pass's per-frame data, or with `cpu` the CPU reference's vertices.
    pub(crate) fn apply(
        &self,
        scene: &mut Scene,
        gpu: &mut SceneGpu,
        moving: bool,
        cpu: bool,
    ) -> Deformation {
        if self.rest.is_empty() {
            return Deformation::None;
        }
        let transforms = match self.time {
            Some(t) => scene.instance_transforms_at(t),
            None => self.rest.clone(),
        };
        for (i, t) in scene.instances.iter_mut().zip(&transforms) {
            i.transform = *t;
        }
        scene.update_bounds();
        gpu.pose(&transforms, moving);
        match (self.time, &gpu.deform) {
            (Some(t), Some(_)) if cpu => Deformation::Cpu(scene.deformed_vertices_at(t)),
            (Some(t), Some(d)) => Deformation::Gpu(GpuDeform {
                vertices: d.count,
                static_bytes: d.bytes(),
                frame: scene.deform_frame_at(t),
            }),
            _ => Deformation::None,
        }
    }
}
