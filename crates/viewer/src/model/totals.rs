//! Frame totals: tile bandwidth (planned against naive, per frame and per second at 60 fps),
//! memory (unaliased, aliased, lower bound, memoryless), cross-queue waits before and after
//! minimisation, and counts.
//!
//! Bandwidth and memory figures are the plan's own (`plan.bandwidth`, `plan.memory`,
//! `plan.sync_stats`); rates are bytes / 2^20 per frame, times 60 per second, as in the text
//! report. The attachments' and breaks' sums are carried alongside so the page (and the
//! tests) can show that the per-attachment numbers add up to the plan's. Cost: O(render
//! passes + breaks).

use super::render_passes::{BreakView, RenderPassView};
use serde::Serialize;
use tessera_graph::Plan;

/// Bytes in a MiB.
pub const MIB: f64 = 1024.0 * 1024.0;

/// Frames per second the rates are given at.
pub const FPS: f64 = 60.0;

/// MiB per frame of `bytes`.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB
}

/// MiB per second at [`FPS`] of `bytes` per frame.
pub fn mib_per_second(bytes: u64) -> f64 {
    mib(bytes) * FPS
}

/// Frame totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Totals {
    /// Kept passes.
    pub passes: u32,
    /// Culled passes.
    pub culled: u32,
    /// Passes on the async compute queue.
    pub async_passes: u32,
    /// Render passes.
    pub render_passes: u32,
    /// Raster passes (subpasses of all render passes).
    pub subpasses: u32,
    /// Breaks.
    pub breaks: u32,
    /// Barriers.
    pub barriers: u32,
    /// Planned tile bytes loaded per frame.
    pub load_bytes: u64,
    /// Planned tile bytes stored per frame.
    pub store_bytes: u64,
    /// Planned load + store per frame.
    pub planned_bytes: u64,
    /// Naive load + store per frame (no merging, everything loaded and stored).
    pub naive_bytes: u64,
    /// Planned MiB per frame.
    pub planned_mib_per_frame: f64,
    /// Planned MiB/s at 60 fps.
    pub planned_mib_per_second: f64,
    /// Naive MiB per frame.
    pub naive_mib_per_frame: f64,
    /// Naive MiB/s at 60 fps.
    pub naive_mib_per_second: f64,
    /// Share of the naive bandwidth the plan saves, in percent (0 when naive is 0).
    pub bandwidth_saved_percent: f64,
    /// Sum of the attachments' DRAM bytes (equals `planned_bytes`).
    pub attachment_bytes: u64,
    /// Sum of the breaks' costs.
    pub break_bytes: u64,
    /// Memory with no aliasing.
    pub unaliased_bytes: u64,
    /// Memory of the blocks.
    pub aliased_bytes: u64,
    /// Largest sum of sizes alive at once.
    pub lower_bound_bytes: u64,
    /// Bytes kept in tile memory only.
    pub memoryless_bytes: u64,
    /// What the aliasing article's algorithm needs.
    pub article_bytes: u64,
    /// Share of the unaliased memory aliasing saves, in percent.
    pub memory_saved_percent: f64,
    /// Cross-queue waits the hazards asked for (before minimisation).
    pub waits_before: u32,
    /// Waits removed as implied.
    pub waits_removed: u32,
    /// Waits kept (after minimisation).
    pub waits_after: u32,
}

fn saved(before: u64, after: u64) -> f64 {
    if before == 0 {
        0.0
    } else {
        100.0 * before.saturating_sub(after) as f64 / before as f64
    }
}

impl Totals {
    /// Totals of `plan`, with the page's render passes and breaks.
    pub fn new(plan: &Plan, rps: &[RenderPassView], breaks: &[BreakView]) -> Totals {
        let bw = &plan.bandwidth;
        let m = &plan.memory;
        let planned = bw.load_bytes.saturating_add(bw.store_bytes);
        let naive = bw.naive_load_bytes.saturating_add(bw.naive_store_bytes);
        Totals {
            passes: plan.order.len() as u32,
            culled: plan.culled.len() as u32,
            async_passes: plan.queues.async_compute.len() as u32,
            render_passes: plan.render_passes.len() as u32,
            subpasses: plan
                .render_passes
                .iter()
                .map(|r| r.subpasses.len() as u32)
                .sum(),
            breaks: plan.breaks.len() as u32,
            barriers: plan.barriers.len() as u32,
            load_bytes: bw.load_bytes,
            store_bytes: bw.store_bytes,
            planned_bytes: planned,
            naive_bytes: naive,
            planned_mib_per_frame: mib(planned),
            planned_mib_per_second: mib_per_second(planned),
            naive_mib_per_frame: mib(naive),
            naive_mib_per_second: mib_per_second(naive),
            bandwidth_saved_percent: saved(naive, planned),
            attachment_bytes: rps
                .iter()
                .map(|r| r.dram_bytes)
                .fold(0, u64::saturating_add),
            break_bytes: breaks
                .iter()
                .map(|b| b.cost_bytes)
                .fold(0, u64::saturating_add),
            unaliased_bytes: m.unaliased_bytes,
            aliased_bytes: m.aliased_bytes,
            lower_bound_bytes: m.lower_bound_bytes,
            memoryless_bytes: m.memoryless_bytes,
            article_bytes: m.article_bytes,
            memory_saved_percent: saved(m.unaliased_bytes, m.aliased_bytes),
            waits_before: plan.sync_stats.candidate_waits,
            waits_removed: plan.sync_stats.removed,
            waits_after: plan.sync_stats.kept,
        }
    }
}
