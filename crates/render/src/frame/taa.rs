//! Temporal anti-aliasing (`Aa::Taa`): the compute pass `taa` after tone mapping, where
//! FXAA runs otherwise.
//!
//! Each frame's projection is jittered by a sub-pixel Halton(2, 3) step
//! (`crate::gpu::frame_data::jitter`, picked by the renderer's frame counter) and the
//! G-buffer writes `motion` (`R16G16_SFLOAT`: this frame's unjittered UV minus the last
//! frame's, `gbuffer.frag#MOTION`). `taa` (`taa.comp`) reads the tone-mapped `ldr`, `motion`,
//! the depth (the nearest surface's motion in 3×3) and the previous frame's content of the
//! history image `taa history` (`R16G16B16A16_SFLOAT`, render size, a history resource of the
//! graph: it keeps its content from one frame to the next), and writes this frame's content
//! of it: the current colour blended with the reprojected history clamped to the current
//! 3×3 neighbourhood (YCoCg), weight `max(1 / (n + 1), MIN_ALPHA)` for the current frame,
//! `n` the frames accumulated since the history was (re)made (a push constant; 0 on the
//! first frame, after a resize or a change of the history's description: the current colour
//! only). The last post pass (`compose`) then samples the history to the output; the UI
//! draws on the output after it, never into the history.

use crate::builder::{Filter, ImageRef, Size};
use crate::gpu::descriptors::{dispatch, groups};
use crate::gpu::pass::FrameBuilder;
use std::cell::Cell;
use tessera_graph::{Format, PassKind};

/// The history's format: half floats, a storage format every Vulkan device supports.
pub const HISTORY_FORMAT: Format = Format::R16G16B16A16_SFLOAT;
/// The motion vectors' format.
pub const MOTION_FORMAT: Format = Format::R16G16_SFLOAT;
/// The history image's name in the graph.
pub const HISTORY: &str = "taa history";
/// The current frame's least weight in the blend (an exponential average over about ten
/// frames once converged).
pub const MIN_ALPHA: f32 = 0.1;
/// Workgroup side.
const GROUP: u32 = 8;

/// What `taa` reads.
#[derive(Clone, Copy, Debug)]
pub struct TaaInputs<'a> {
    /// The frame constants (the camera for sky pixels' motion).
    pub ubo: crate::builder::BufferRef,
    /// The tone-mapped image (render size).
    pub ldr: ImageRef,
    /// The G-buffer's motion vectors.
    pub motion: ImageRef,
    /// The scene depth (reversed Z).
    pub depth: ImageRef,
    /// Frames accumulated since the history's reset, kept by the renderer across frames;
    /// `None` (a frame declared for its plan only): 0.
    pub frames: Option<&'a Cell<u64>>,
}

/// Declares `taa` and returns this frame's history image, the anti-aliased picture.
pub fn declare<'a>(fb: &mut FrameBuilder<'a>, i: TaaInputs<'a>) -> ImageRef {
    let history = fb.history_image(HISTORY, HISTORY_FORMAT, Size::FULL);
    fb.pass("taa", PassKind::Compute, |p| {
        p.uniform(i.ubo)
            .sampled_with(i.ldr, Filter::Nearest)
            // Motion only where depth has a surface (sky pixels reproject their view
            // direction): the G-buffer's coverage.
            .covered_by(i.depth)
            .sampled_with(i.motion, Filter::Nearest)
            .everywhere()
            .sampled_with(i.depth, Filter::Nearest)
            .sampled_previous(history)
            .image_store(history);
        move |pc| {
            // False after a (re)creation: no history to blend, start counting again.
            let valid = pc.image_history_valid(history);
            let n = match i.frames {
                Some(c) => {
                    let n = if valid { c.get() } else { 0 };
                    c.set(n + 1);
                    n
                }
                None => 0,
            };
            let e = pc.image(history)?.extent;
            let push = [
                1.0 / e.width as f32,
                1.0 / e.height as f32,
                n as f32,
                MIN_ALPHA,
            ];
            dispatch(
                pc,
                "taa.comp",
                bytemuck::cast_slice(&push),
                groups(e, GROUP),
            )
        }
    });
    history
}
