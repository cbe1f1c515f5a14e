//! `light clustering`: the point lights binned into a view-space froxel grid on the
//! async-compute queue.
//!
//! The grid is [`TILES`] screen tiles (in NDC, so independent of the resolution) ×
//! [`SLICES`] exponential depth slices between the near plane and `FrameData::proj.w` (the
//! first slice reaches back to the eye, the last is unbounded). One invocation per cluster
//! tests every light's sphere (its range, padded) against the cluster's view-space AABB and
//! writes how many touch it and the first [`MAX_LIGHTS`] of their indices, ascending, into
//! `light clusters` (`(1 + MAX_LIGHTS)` u32 per cluster; a count above the cap is an
//! overflow, which the shaders clamp and a heat map can show). Lighting and transparents find their pixel's
//! cluster with the same rule and loop over its lights in index order: the lights left out
//! add exactly 0 there, so the picture matches the unclustered loop up to the compiler's
//! choice of instructions. Cost: clusters × lights sphere–box tests (18,432 × 256 ≈ 4.7 M:
//! 31 µs on the H200's async queue, as 3456 clusters took), 9.5 MB of storage. The grid was
//! 16 × 9 × 24 until the H200 showed the transparents' fragment cost to be their cluster's
//! light loop (4.8 ms at 4K with 256 lights, 0.6 ms with none): 32 × 18 × 32 froxels hold
//! fewer lights each and cut it to 3.8 ms (docs/perf.md), the picture unchanged. It reads only the frame constants and lights, so it overlaps the
//! shadow and G-buffer passes.

use super::Targets;
use crate::builder::BufferRef;
use crate::gpu::descriptors::dispatch;
use crate::gpu::pass::FrameBuilder;
use tessera_graph::PassKind;

/// Screen tiles across and down.
pub const TILES: (u32, u32) = (32, 18);
/// Exponential depth slices.
pub const SLICES: u32 = 32;
/// Light indices kept per cluster (more lights than this in one cluster are dropped; in the
/// courtyard's default view no cluster comes near it: a few dozen at most).
pub const MAX_LIGHTS: u32 = 128;
/// Workgroup size of `light_clustering.comp`.
const GROUP: u32 = 64;

/// Clusters in the grid.
pub const fn clusters() -> u32 {
    TILES.0 * TILES.1 * SLICES
}

/// Bytes of the `light clusters` buffer.
pub const fn buffer_bytes() -> u64 {
    clusters() as u64 * (1 + MAX_LIGHTS) as u64 * 4
}

/// `FrameData::cluster_grid`.
pub const fn grid() -> [u32; 4] {
    [TILES.0, TILES.1, SLICES, MAX_LIGHTS]
}

/// Declares `light clustering` and returns the cluster buffer it writes.
pub fn declare(fb: &mut FrameBuilder<'_>, t: &Targets) -> BufferRef {
    let (ubo, lights) = (t.async_ubo.unwrap_or(t.ubo), t.lights);
    let clusters = fb.buffer("light clusters", buffer_bytes());
    fb.pass("light clustering", PassKind::Compute, |p| {
        p.uniform(ubo)
            .storage_read(lights)
            .storage_write(clusters)
            .async_compute();
        move |pc| dispatch(pc, "light_clustering.comp", &[], [clusters_groups(), 1, 1])
    });
    clusters
}

fn clusters_groups() -> u32 {
    clusters().div_ceil(GROUP)
}
