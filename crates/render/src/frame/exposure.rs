//! Auto exposure: a luminance histogram of the frame and an adaptation step whose result
//! persists from frame to frame in `exposure`, a history buffer of the graph (one buffer:
//! its readers, tone mapping and the last post pass, read the previous frame's value and
//! are declared before the adaptation updates it in place). While the history is new (the
//! first frame, a change of the frame that re-made it) its readers use exposure 1 and the
//! adaptation starts from [`initial`].
//!
//! Three passes on the async-compute queue, declared after every pass that reads the
//! exposure: `exposure histogram clear` (a transfer fill of the transient 64-bin histogram),
//! `luminance histogram` (half resolution, bin counts per workgroup then atomics: integers,
//! so any order gives the same counts) and `exposure adaptation` (reads the histogram,
//! reads and writes `exposure`). Tone mapping reads the value the *previous* frame's
//! adaptation wrote (one frame of latency): the histogram then depends on nothing but the
//! lit HDR colour and overlaps the graphics queue's bloom and last post pass, and the
//! adaptation waits only for the frame's last reader of `exposure` (a write-after-read
//! edge). Across frames, the next frame's first graphics submit waits for this frame's end
//! on the async queue (the executor's rule for work on the other queue), which orders the
//! adaptation's write before the next tone mapping; on one queue the plan's barrier does.
//!
//! The adaptation uses a fixed time step per frame ([`RATE`]), never the wall clock: every
//! plan of the same frames gives the same exposure, bit for bit.

use crate::builder::{BufferRef, ImageRef};
use crate::gpu::descriptors::{dispatch, groups};
use crate::gpu::pass::FrameBuilder;
use ash::vk;
use tessera_graph::PassKind;

/// Histogram bins (`BINS` in exposure.glsl).
pub const BINS: u64 = 64;
/// Bytes of the `exposure` buffer: exposure, adapted luminance, frames adapted, last mean.
pub const EXPOSURE_BYTES: u64 = 16;
/// The scene luminance that maps to exposure 1 (middle grey).
pub const KEY: f32 = 0.18;
/// The share of the gap to the frame's luminance closed per frame: `1 - exp(-dt · speed)`
/// for the fixed step dt = 1/60 s and a speed of 40 per second (quick, so a few frames
/// settle it).
pub const RATE: f32 = 0.486_58;
/// Exposure limits.
pub const RANGE: (f32, f32) = (1.0 / 64.0, 64.0);

/// The value the adaptation starts from while the history is new: exposure 1 (adapted to
/// [`KEY`]); `exposure.comp` spells it too.
pub fn initial() -> [f32; 4] {
    [1.0, KEY, 0.0, KEY]
}

/// Declares the `exposure` history buffer.
pub fn declare_history(fb: &mut FrameBuilder<'_>) -> BufferRef {
    fb.history_buffer("exposure", EXPOSURE_BYTES)
}

/// The shaders' flag for whether `exposure` holds a previous frame's value.
pub fn valid_flag(valid: bool) -> f32 {
    if valid {
        1.0
    } else {
        0.0
    }
}

/// Declares the histogram of `src` and the adaptation into `exposure`; returns the
/// histogram buffer.
pub fn declare_adaptation(
    fb: &mut FrameBuilder<'_>,
    src: ImageRef,
    exposure: BufferRef,
) -> BufferRef {
    let histogram = fb.buffer("luminance histogram", BINS * 4);
    fb.pass("exposure histogram clear", PassKind::Transfer, |p| {
        p.fill(histogram).async_compute();
        move |pc| {
            let b = pc.buffer(histogram)?;
            // SAFETY: recording outside a render pass; the plan's barriers order the fill
            // after the previous frame's reads of this (transient) buffer.
            unsafe {
                pc.gpu
                    .device
                    .cmd_fill_buffer(pc.cmd, b, 0, vk::WHOLE_SIZE, 0)
            };
            Ok(())
        }
    });
    fb.pass("luminance histogram", PassKind::Compute, |p| {
        p.sampled(src).storage_read_write(histogram).async_compute();
        move |pc| {
            let s = pc.image(src)?;
            let grid = vk::Extent2D {
                width: s.extent.width.div_ceil(2),
                height: s.extent.height.div_ceil(2),
            };
            let mut push = [0u8; 16];
            push[0..4].copy_from_slice(&grid.width.to_le_bytes());
            push[4..8].copy_from_slice(&grid.height.to_le_bytes());
            push[8..12].copy_from_slice(&(1.0 / grid.width as f32).to_le_bytes());
            push[12..16].copy_from_slice(&(1.0 / grid.height as f32).to_le_bytes());
            dispatch(pc, "histogram.comp", &push, groups(grid, 16))
        }
    });
    fb.pass("exposure adaptation", PassKind::Compute, |p| {
        p.storage_read(histogram)
            .storage_read_write(exposure)
            .async_compute();
        move |pc| {
            let valid = valid_flag(pc.buffer_history_valid(exposure));
            let push = [RATE, KEY, RANGE.0, RANGE.1, valid, 0.0, 0.0, 0.0];
            dispatch(pc, "exposure.comp", bytemuck::cast_slice(&push), [1, 1, 1])
        }
    });
    histogram
}
