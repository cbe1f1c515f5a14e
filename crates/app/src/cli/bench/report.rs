//! What `tessera bench` measured, as data: one [`Cell`] per size × mode with its GPU, CPU,
//! memory and plan figures, the per-pass times and one frame's queue timeline, plus each
//! figure's ratio against mode `none` at the same size. The JSON (`--json`) is this
//! structure; the text table and the HTML page are views of it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The whole run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchReport {
    /// When it ran (UTC, RFC 3339).
    pub date: String,
    /// The device name.
    pub device: String,
    /// Vulkan API version of the device.
    pub api_version: String,
    /// What the GPU numbers mean on this device (lavapipe: a CPU rasteriser's cost model).
    pub note: String,
    /// The scene rendered.
    pub scene: String,
    /// Measured frames per cell.
    pub frames: u32,
    /// Frames rendered before measuring, per cell.
    pub warmup: u32,
    /// The async-compute queue ran on the graphics queue.
    pub emulate_async: bool,
    /// Validation layers were on (timings are then not representative).
    pub validation: bool,
    /// Validation messages over the run.
    pub validation_messages: u64,
    /// Modes in the order they were interleaved.
    pub modes: Vec<String>,
    /// One per size × mode, sizes outer, modes inner.
    pub cells: Vec<Cell>,
}

/// Median and spread over the measured frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// 50th percentile.
    pub median: f64,
    /// 10th percentile.
    pub p10: f64,
    /// 90th percentile.
    pub p90: f64,
}

/// One size × mode.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    /// Output width.
    pub width: u32,
    /// Output height.
    pub height: u32,
    /// `none`, `merge`, `memoryless`, `alias`, `async` or `all`.
    pub mode: String,
    /// With `--lighting-paths`: where this cell's deferred lighting ran (`raster` or
    /// `compute`); absent otherwise and in older reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lighting: Option<String>,
    /// GPU time from timestamps.
    pub gpu: GpuFigures,
    /// Host time per frame.
    pub cpu: CpuFigures,
    /// Memory of the frame's resources.
    pub memory: MemoryFigures,
    /// The plan's own figures.
    pub plan: PlanFigures,
    /// Median GPU time of each pass, in execution order.
    pub passes: Vec<PassFigure>,
    /// One measured frame (the median one) pass by pass on each queue.
    pub timeline: Vec<Span>,
    /// Two consecutive frames submitted back to back (the throughput burst's middle
    /// pair), from the first one's start: where frames overlap across queues, frame 0's
    /// async tail and frame 1's first graphics passes share time. Empty in older reports.
    #[serde(default)]
    pub timeline_two_frames: Vec<Span>,
    /// Each figure of [`Cell::figures`] divided by mode `none`'s at the same size
    /// (absent where `none` was not run or its figure is 0).
    pub ratios: BTreeMap<String, f64>,
}

/// GPU figures, in microseconds.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct GpuFigures {
    /// First pass start to last pass end, over both queues.
    pub frame_us: Spread,
    /// Time the graphics queue is busy (union of its passes' spans).
    pub graphics_busy_us: Spread,
    /// Time the async-compute queue is busy.
    pub async_busy_us: Spread,
    /// Async-compute time that overlaps graphics time.
    pub overlap_us: Spread,
    /// Throughput: the time from one frame's end to the next's over frames submitted back
    /// to back (frames may overlap across queues), beside `frame_us`, one frame's span
    /// (latency). Absent in reports written before it existed.
    #[serde(default)]
    pub frame_period_us: Spread,
}

/// CPU figures, in microseconds (medians over the measured frames).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct CpuFigures {
    /// Declaring the frame's graph.
    pub declare_us: f64,
    /// The executor's prepare of an unchanged frame (the cached compile).
    pub compile_cached_us: f64,
    /// Compiling the declared graph from scratch (`tessera_graph::compile`).
    pub compile_uncached_us: f64,
    /// Recording and submitting, without the time blocked in `vkQueueSubmit2`.
    pub record_us: f64,
    /// Time in `vkQueueSubmit2`.
    pub submit_us: f64,
    /// A full re-plan after a resize: compile, resources, render passes (one sample).
    pub replan_us: f64,
}

/// Memory figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MemoryFigures {
    /// Transient bytes bound (the plan's aliased blocks).
    pub aliased_bytes: u64,
    /// Transient bytes if nothing were aliased.
    pub unaliased_bytes: u64,
    /// Bytes kept in tile memory (memoryless attachments).
    pub memoryless_bytes: u64,
    /// The executor's allocations for the frame's resources.
    pub allocations: u64,
    /// Bytes of those allocations per memory type (its property flags).
    pub bytes_by_type: BTreeMap<String, u64>,
}

/// Plan figures.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct PlanFigures {
    /// Kept passes.
    pub passes: u64,
    /// `VkRenderPass`es.
    pub render_passes: u64,
    /// Subpasses over all render passes.
    pub subpasses: u64,
    /// Pipeline barriers.
    pub barriers: u64,
    /// Cross-queue semaphore waits kept.
    pub semaphores: u64,
    /// Cross-queue waits before reduction.
    pub semaphore_candidates: u64,
    /// Tile-bandwidth model: attachment bytes loaded and stored per frame as planned.
    pub tile_bytes: u64,
    /// The same with no merging and every load and store.
    pub tile_bytes_naive: u64,
}

/// One pass's median GPU time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PassFigure {
    /// Pass name.
    pub pass: String,
    /// `graphics` or `async_compute`.
    pub queue: String,
    /// Median over the measured frames.
    pub median_us: f64,
}

/// A pass's span in one frame, from the frame's first timestamp.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Span {
    /// Pass name.
    pub pass: String,
    /// In [`Cell::timeline_two_frames`]: 0 for the first frame, 1 for the next (absent
    /// elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<u32>,
    /// `graphics` or `async_compute`.
    pub queue: String,
    /// Start.
    pub start_us: f64,
    /// End.
    pub end_us: f64,
}

impl Cell {
    /// The cell's column: its mode, and with `--lighting-paths` its lighting path
    /// (`all/compute`).
    pub fn column(&self) -> String {
        match &self.lighting {
            Some(l) => format!("{}/{l}", self.mode),
            None => self.mode.clone(),
        }
    }

    /// Whether this cell is `other`'s baseline: mode `none` at the same size with the same
    /// lighting path.
    pub fn is_baseline_of(&self, other: &Cell) -> bool {
        self.mode == "none"
            && (self.width, self.height) == (other.width, other.height)
            && self.lighting == other.lighting
    }

    /// Every figure the tables compare, by name, in display order.
    pub fn figures(&self) -> Vec<(&'static str, f64)> {
        let m = &self.memory;
        let p = &self.plan;
        vec![
            ("gpu_frame_us", self.gpu.frame_us.median),
            ("gpu_graphics_busy_us", self.gpu.graphics_busy_us.median),
            ("gpu_async_busy_us", self.gpu.async_busy_us.median),
            ("gpu_overlap_us", self.gpu.overlap_us.median),
            ("gpu_frame_period_us", self.gpu.frame_period_us.median),
            ("cpu_declare_us", self.cpu.declare_us),
            ("cpu_compile_cached_us", self.cpu.compile_cached_us),
            ("cpu_compile_uncached_us", self.cpu.compile_uncached_us),
            ("cpu_record_us", self.cpu.record_us),
            ("cpu_submit_us", self.cpu.submit_us),
            ("cpu_replan_us", self.cpu.replan_us),
            ("transient_aliased_bytes", m.aliased_bytes as f64),
            ("transient_unaliased_bytes", m.unaliased_bytes as f64),
            ("memoryless_bytes", m.memoryless_bytes as f64),
            ("allocations", m.allocations as f64),
            ("render_passes", p.render_passes as f64),
            ("subpasses", p.subpasses as f64),
            ("barriers", p.barriers as f64),
            ("semaphores", p.semaphores as f64),
            ("tile_planned_bytes", p.tile_bytes as f64),
            ("tile_naive_bytes", p.tile_bytes_naive as f64),
        ]
    }
}

/// Fills every cell's ratios against mode `none` of the same size.
pub fn fill_ratios(cells: &mut [Cell]) {
    let bases: Vec<Cell> = cells.iter().filter(|c| c.mode == "none").cloned().collect();
    for c in cells.iter_mut() {
        let Some(base) = bases.iter().find(|b| b.is_baseline_of(c)) else {
            continue;
        };
        c.ratios = c
            .figures()
            .iter()
            .zip(base.figures())
            .filter(|(_, (_, b))| *b != 0.0)
            .map(|((name, v), (_, b))| (name.to_string(), v / b))
            .collect();
    }
}

/// The p-th percentile (0..=100) of `values` by nearest rank; 0 for none.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    v[rank.min(v.len() - 1)]
}

/// Median, p10 and p90 of `values`.
pub fn spread(values: &[f64]) -> Spread {
    Spread {
        median: percentile(values, 50.0),
        p10: percentile(values, 10.0),
        p90: percentile(values, 90.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(mode: &str, width: u32, barriers: u64, frame_us: f64) -> Cell {
        Cell {
            width,
            height: 10,
            mode: mode.into(),
            lighting: None,
            gpu: GpuFigures {
                frame_us: Spread {
                    median: frame_us,
                    ..Spread::default()
                },
                ..GpuFigures::default()
            },
            cpu: CpuFigures::default(),
            memory: MemoryFigures::default(),
            plan: PlanFigures {
                barriers,
                ..PlanFigures::default()
            },
            passes: Vec::new(),
            timeline: Vec::new(),
            timeline_two_frames: Vec::new(),
            ratios: BTreeMap::new(),
        }
    }

    /// A saved report reads back bit for bit (`bench --from` prints the table the run
    /// printed): a figure one ulp off can round the other way at the table's precision.
    #[test]
    fn figures_read_back_from_json_bit_for_bit() {
        let mut c = cell("all", 10, 30, 6.0);
        for i in 1..20_000u32 {
            let v = f64::from(i) * 0.1 + f64::from(i).sqrt() / 3.0;
            c.cpu.replan_us = v;
            let text = serde_json::to_string(&c).unwrap();
            let back: Cell = serde_json::from_str(&text).unwrap();
            assert_eq!(back.cpu.replan_us.to_bits(), v.to_bits(), "{v} from {text}");
        }
    }

    #[test]
    fn ratios_are_against_none_of_the_same_size_and_skip_zero_bases() {
        let mut cells = vec![
            cell("none", 10, 40, 8.0),
            cell("all", 10, 30, 6.0),
            cell("all", 20, 30, 6.0), // no `none` at this size
        ];
        fill_ratios(&mut cells);
        assert_eq!(cells[0].ratios["barriers"], 1.0);
        assert_eq!(cells[1].ratios["barriers"], 0.75);
        assert_eq!(cells[1].ratios["gpu_frame_us"], 0.75);
        // none's semaphores are 0: no ratio rather than infinity.
        assert!(!cells[1].ratios.contains_key("semaphores"));
        assert!(cells[2].ratios.is_empty());
    }

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(
            spread(&v),
            Spread {
                median: 3.0,
                p10: 1.0,
                p90: 5.0
            }
        );
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
