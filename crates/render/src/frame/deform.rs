//! Vertex deformation (morph targets, skins) in a compute pre-pass: `deform` writes the
//! transient `animated vertices` buffer, which every geometry pass reads as its vertex
//! buffer (the graph orders them: storage write → vertex input), from what the scene upload
//! left on the device (each deformed vertex's rest vertex and skin influences, the draws'
//! offsets, the morph deltas: `deform vertices`, `deform draws`, `morph deltas`, imported)
//! and the frame's joint matrices and morph weights (`deform frame`, a few floats per joint
//! and target, written by `frame constants`). docs/animation.md says why a compute pass.
//!
//! [`Deformation::Cpu`] keeps the first version's route, the CPU reference
//! (`Scene::deformed_vertices_at`) uploaded into `animated vertices` by `frame constants`,
//! for the tests that compare the two.

use crate::builder::{BufferRef, ImportFlags};
use crate::gpu::descriptors::dispatch;
use crate::gpu::pass::FrameBuilder;
use tessera_graph::PassKind;

/// Workgroup size of `deform.comp`.
const GROUP: u32 = 64;

/// The frame's deformation.
#[derive(Clone, Debug, Default)]
pub enum Deformation {
    /// Nothing deforms this frame (a static scene, the rest pose): nothing is declared.
    #[default]
    None,
    /// The deformed vertices, computed on the CPU (the reference), uploaded as they are.
    Cpu(Vec<tessera_scene::Vertex>),
    /// Deformed by the `deform` pass.
    Gpu(GpuDeform),
}

/// What the `deform` pass needs of a frame.
#[derive(Clone, Debug)]
pub struct GpuDeform {
    /// Deformed vertices (invocations).
    pub vertices: u32,
    /// Bytes of the device-resident `deform vertices`, `deform draws` and `morph deltas`.
    pub static_bytes: [u64; 3],
    /// This frame's joint matrices and morph weights (`Scene::deform_frame_at`).
    pub frame: Vec<[f32; 4]>,
}

/// The deformation's graph buffers of a frame.
#[derive(Clone, Debug)]
pub struct DeformBuffers {
    /// `animated vertices`, which the geometry passes read.
    pub animated: BufferRef,
    /// What `frame constants` writes (`animated vertices` itself, or `deform frame`).
    pub upload: BufferRef,
    /// The bytes it writes there.
    pub bytes: Vec<u8>,
    /// The imported `deform vertices`, `deform draws`, `morph deltas` (GPU route only).
    pub statics: Option<[BufferRef; 3]>,
    /// Deformed vertices.
    pub vertices: u32,
}

/// Declares the deformation's buffers (nothing when nothing deforms).
pub fn declare_buffers(fb: &mut FrameBuilder<'_>, d: Deformation) -> Option<DeformBuffers> {
    let vertex = std::mem::size_of::<tessera_scene::Vertex>() as u64;
    match d {
        Deformation::None => None,
        Deformation::Cpu(v) if v.is_empty() => None,
        Deformation::Cpu(v) => {
            let animated = fb.buffer("animated vertices", v.len() as u64 * vertex);
            Some(DeformBuffers {
                animated,
                upload: animated,
                bytes: bytemuck::cast_slice(&v).to_vec(),
                statics: None,
                vertices: v.len() as u32,
            })
        }
        Deformation::Gpu(g) if g.vertices == 0 => None,
        Deformation::Gpu(mut g) => {
            let names = ["deform vertices", "deform draws", "morph deltas"];
            // A storage buffer may not be empty (a skin without morph targets has no deltas).
            let statics = [0, 1, 2].map(|i| {
                fb.import_buffer(names[i], g.static_bytes[i].max(16), ImportFlags::default())
            });
            if g.frame.is_empty() {
                g.frame.push([0.0; 4]);
            }
            let frame = fb.buffer(
                "deform frame",
                std::mem::size_of_val(g.frame.as_slice()) as u64,
            );
            let animated = fb.buffer("animated vertices", u64::from(g.vertices) * vertex);
            Some(DeformBuffers {
                animated,
                upload: frame,
                bytes: bytemuck::cast_slice(&g.frame).to_vec(),
                statics: Some(statics),
                vertices: g.vertices,
            })
        }
    }
}

/// Declares the `deform` pass (GPU route), after `frame constants`.
pub fn declare(fb: &mut FrameBuilder<'_>, d: &DeformBuffers) {
    let Some([vertices, draws, deltas]) = d.statics else {
        return;
    };
    let (frame, animated, count) = (d.upload, d.animated, d.vertices);
    fb.pass("deform", PassKind::Compute, |p| {
        p.storage_read(vertices)
            .storage_read(draws)
            .storage_read(deltas)
            .storage_read(frame)
            .storage_write(animated);
        move |pc| {
            let groups = [count.div_ceil(GROUP), 1, 1];
            dispatch(pc, "deform.comp", bytemuck::bytes_of(&count), groups)
        }
    });
}
