//! Bloom: a threshold and a chain of downsamples, then upsamples back, all compute passes on
//! the graphics queue, each level its own transient `R16G16B16A16_SFLOAT` image (the graph
//! has one resource per mip level, docs/renderer.md), so the compiler aliases the chain:
//! a level dies once the upsample of its size has read it.
//!
//! `bloom threshold` samples the source (full render size) into level 1 (half size) with a
//! soft threshold; `bloom down 1..5` halve it five more times (levels 2..6, 1/64 of the
//! render size); `bloom up 5..1` add each smaller level (tent-filtered) to the downsampled
//! level of the next size up. The result is `bloom up 1` at half the render size; tone
//! mapping (or the last post pass, in the tile-friendly variant) adds it scaled by
//! [`INTENSITY`]. Cost: about 1.4 × a quarter of the render size in texel writes.

use crate::builder::{ImageRef, Size};
use crate::gpu::descriptors::{dispatch, groups};
use crate::gpu::pass::FrameBuilder;
use tessera_graph::{Format, PassKind};

/// The chain's format: half floats, a storage format every Vulkan device supports.
pub const BLOOM_FORMAT: Format = Format::R16G16B16A16_SFLOAT;
/// Downsampled levels (the threshold's included); the chain has as many minus one upsamples
/// after `LEVELS - 1` downsamples.
pub const LEVELS: u32 = 6;
/// Scene-referred brightness where bloom starts.
pub const THRESHOLD: f32 = 1.0;
/// Width of the soft knee below the threshold.
pub const KNEE: f32 = 0.5;
/// How much of the chain's sum is added to the picture.
pub const INTENSITY: f32 = 0.08;

/// Declares the chain from `src` (sampled) and returns its result (half the render size).
pub fn declare(fb: &mut FrameBuilder<'_>, src: ImageRef) -> ImageRef {
    let down: Vec<ImageRef> = (1..=LEVELS)
        .map(|l| fb.image(&format!("bloom down {l}"), BLOOM_FORMAT, Size::mip(l)))
        .collect();
    for l in 0..LEVELS as usize {
        let (from, to) = (if l == 0 { src } else { down[l - 1] }, down[l]);
        let (name, shader) = if l == 0 {
            ("bloom threshold".to_string(), "bloom_down.comp#THRESHOLD")
        } else {
            (format!("bloom down {l}"), "bloom_down.comp")
        };
        fb.pass(&name, PassKind::Compute, |p| {
            p.sampled(from).image_store(to);
            move |pc| {
                let (s, d) = (pc.image(from)?, pc.image(to)?);
                let texel = [1.0 / s.extent.width as f32, 1.0 / s.extent.height as f32];
                let push = [texel[0], texel[1], THRESHOLD, KNEE];
                dispatch(pc, shader, bytemuck::cast_slice(&push), groups(d.extent, 8))
            }
        });
    }
    // Upsamples: level l+1's result (the smallest level itself first) onto level l.
    let mut low = down[LEVELS as usize - 1];
    for l in (1..LEVELS).rev() {
        let level = down[l as usize - 1];
        let out = fb.image(&format!("bloom up {l}"), BLOOM_FORMAT, Size::mip(l));
        let from = low;
        fb.pass(&format!("bloom up {l}"), PassKind::Compute, |p| {
            p.sampled(from).sampled(level).image_store(out);
            move |pc| {
                let (lo, d) = (pc.image(from)?, pc.image(out)?);
                let push = [
                    1.0 / lo.extent.width as f32,
                    1.0 / lo.extent.height as f32,
                    1.0,
                    0.0,
                ];
                let push = bytemuck::cast_slice(&push);
                dispatch(pc, "bloom_up.comp", push, groups(d.extent, 8))
            }
        });
        low = out;
    }
    low
}
