//! A small report for the tests: two sizes, modes `none` and `alias`, and a pass name that
//! needs escaping everywhere it is printed.

use crate::cli::bench::report::{
    fill_ratios, BenchReport, Cell, CpuFigures, GpuFigures, MemoryFigures, PassFigure, PlanFigures,
    Span, Spread,
};
use std::collections::BTreeMap;

pub(super) const ODD: &str = "a <&> \"pass\" 'x'";

fn spread(m: f64) -> Spread {
    Spread {
        median: m,
        p10: m * 0.9,
        p90: m * 1.2,
    }
}

fn cell(width: u32, height: u32, mode: &str, k: f64) -> Cell {
    let pass = |name: &str, queue: &str, us: f64| PassFigure {
        pass: name.to_string(),
        queue: queue.to_string(),
        median_us: us,
    };
    let span = |name: &str, queue: &str, a: f64, b: f64| Span {
        pass: name.to_string(),
        frame: None,
        queue: queue.to_string(),
        start_us: a,
        end_us: b,
    };
    Cell {
        width,
        height,
        mode: mode.to_string(),
        lighting: None,
        gpu: GpuFigures {
            frame_us: spread(1500.0 * k),
            graphics_busy_us: spread(1400.0 * k),
            async_busy_us: spread(100.0 * k),
            overlap_us: spread(50.0 / k),
            frame_period_us: spread(1400.0 * k),
        },
        cpu: CpuFigures {
            declare_us: 20.0,
            compile_cached_us: 5.0 * k,
            compile_uncached_us: 300.0,
            record_us: 80.0,
            submit_us: 40.0,
            replan_us: 2000.0,
        },
        memory: MemoryFigures {
            aliased_bytes: (64.0 * 1048576.0 * k) as u64,
            unaliased_bytes: 96 << 20,
            memoryless_bytes: 1536,
            allocations: 12,
            bytes_by_type: BTreeMap::new(),
        },
        plan: PlanFigures {
            passes: 3,
            render_passes: 3,
            subpasses: 3,
            barriers: 10,
            semaphores: 1,
            semaphore_candidates: 2,
            tile_bytes: 1 << 30,
            tile_bytes_naive: 2 << 30,
        },
        passes: vec![
            pass("gbuffer", "graphics", 900.0 * k),
            pass(ODD, "async_compute", 100.0 * k),
            pass("tonemap", "graphics", 500.0 * k),
        ],
        timeline: vec![
            span("gbuffer", "graphics", 0.0, 900.0 * k),
            span(ODD, "async_compute", 300.0, 300.0 + 100.0 * k),
            span("tonemap", "graphics", 900.0 * k, 1400.0 * k),
        ],
        timeline_two_frames: Vec::new(),
        ratios: BTreeMap::new(),
    }
}

pub(super) fn report() -> BenchReport {
    let mut cells = Vec::new();
    for (w, h) in [(640, 360), (1280, 720)] {
        cells.push(cell(w, h, "none", 1.0));
        cells.push(cell(w, h, "alias", 0.8));
    }
    fill_ratios(&mut cells);
    BenchReport {
        date: "2026-12-02T14:00:00Z".to_string(),
        device: "llvmpipe".to_string(),
        api_version: "1.3.255".to_string(),
        note: "a CPU rasteriser's cost model".to_string(),
        scene: "sponza".to_string(),
        frames: 10,
        warmup: 2,
        emulate_async: false,
        validation: true,
        validation_messages: 3,
        modes: vec!["none".to_string(), "alias".to_string()],
        cells,
    }
}

/// [`report`] with two consecutive frames recorded for mode `alias` at 640 × 360: frame 1's
/// graphics work starts while frame 0's async pass still runs.
pub(super) fn report_with_two_frames() -> BenchReport {
    let mut r = report();
    let span = |name: &str, frame: u32, queue: &str, a: f64, b: f64| Span {
        pass: name.to_string(),
        frame: Some(frame),
        queue: queue.to_string(),
        start_us: a,
        end_us: b,
    };
    let c = r
        .cells
        .iter_mut()
        .find(|c| c.mode == "alias" && c.width == 640)
        .expect("alias at 640 × 360");
    c.timeline_two_frames = vec![
        span("gbuffer", 0, "graphics", 0.0, 720.0),
        span("tonemap", 0, "graphics", 720.0, 1120.0),
        span(ODD, 0, "async_compute", 1120.0, 1300.0),
        span("gbuffer", 1, "graphics", 1130.0, 1850.0),
        span("tonemap", 1, "graphics", 1850.0, 2250.0),
        span(ODD, 1, "async_compute", 2250.0, 2430.0),
    ];
    r
}
