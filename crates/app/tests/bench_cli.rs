//! `tessera bench`: a short smoke run (one small size, two modes, a few frames, validation
//! on) whose JSON has every figure for every cell, finite, with ratios against `none`, and
//! whose HTML page is written; bad flags are usage errors. The bench's numbers themselves
//! are measurements (docs/perf.md), not test assertions.

mod common;
use common::{scratch, tessera, text};

/// Every figure of `report::Cell::figures`, by the paths the JSON holds them at.
const FIGURES: &[&str] = &[
    "gpu.frame_us.median",
    "gpu.frame_us.p10",
    "gpu.frame_us.p90",
    "gpu.graphics_busy_us.median",
    "gpu.async_busy_us.median",
    "gpu.overlap_us.median",
    "cpu.declare_us",
    "cpu.compile_cached_us",
    "cpu.compile_uncached_us",
    "cpu.record_us",
    "cpu.submit_us",
    "cpu.replan_us",
    "memory.aliased_bytes",
    "memory.unaliased_bytes",
    "memory.memoryless_bytes",
    "memory.allocations",
    "plan.passes",
    "plan.render_passes",
    "plan.subpasses",
    "plan.barriers",
    "plan.semaphores",
    "plan.semaphore_candidates",
    "plan.tile_bytes",
    "plan.tile_bytes_naive",
];

fn at<'a>(v: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    path.split('.').fold(v, |v, k| &v[k])
}

/// `--lighting-paths raster,compute` runs every mode once per lighting path, side by side:
/// a cell per mode and path, each with its per-pass figures and timeline, ratios against
/// `none` of the same path, the lighting pass a raster one or a compute one as the path says,
/// and columns `MODE/PATH` in the table.
#[test]
fn lighting_paths_run_side_by_side() {
    let dir = scratch("lighting-paths");
    let json = dir.join("bench.json");
    let o = tessera(&[
        "bench",
        "--sizes",
        "96x64",
        "--modes",
        "none,all",
        "--lighting-paths",
        "raster,compute",
        "--frames",
        "2",
        "--warmup",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
    assert!(
        stdout.contains("all/raster") && stdout.contains("all/compute"),
        "{stdout}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cells = r["cells"].as_array().unwrap();
    let columns: Vec<(&str, &str)> = cells
        .iter()
        .map(|c| (c["mode"].as_str().unwrap(), c["lighting"].as_str().unwrap()))
        .collect();
    assert_eq!(
        columns,
        [
            ("none", "raster"),
            ("all", "raster"),
            ("none", "compute"),
            ("all", "compute")
        ]
    );
    for c in cells {
        let lighting = c["lighting"].as_str().unwrap();
        let span = c["timeline"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["pass"] == "lighting")
            .unwrap_or_else(|| panic!("no lighting span: {c:#}"));
        assert!(
            c["passes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["pass"] == "lighting"),
            "{lighting}: no lighting pass figure"
        );
        assert_eq!(span["queue"], "graphics", "{lighting}");
        if c["mode"] == "none" {
            assert_eq!(c["ratios"]["gpu_frame_us"], 1.0, "{lighting}");
        }
    }
    // Compute lighting is outside every render pass: one subpass fewer than raster.
    let subpasses = |i: usize| at(&cells[i], "plan.subpasses").as_u64().unwrap();
    assert_eq!(
        subpasses(2) + 1,
        subpasses(0),
        "compute lighting is no subpass"
    );
}

#[test]
fn a_smoke_run_reports_every_figure_for_every_cell() {
    let dir = scratch("smoke");
    let json = dir.join("bench.json");
    let html = dir.join("bench.html");
    let o = tessera(&[
        "bench",
        "--sizes",
        "160x96",
        "--modes",
        "none,all",
        "--frames",
        "3",
        "--warmup",
        "1",
        "--emulate-async",
        "--validation",
        // Raster lighting: a subpass that all-on merges into the G-buffer's render pass.
        "--lighting",
        "raster",
        "--json",
        json.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
    assert!(stdout.contains("160x96"), "{stdout}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["validation"], true);
    assert_eq!(
        r["validation_messages"], 0,
        "validation messages in the run"
    );
    assert!(
        r["note"].as_str().unwrap().contains("CPU rasteriser"),
        "{}",
        r["note"]
    );
    let cells = r["cells"].as_array().unwrap();
    let modes: Vec<&str> = cells.iter().map(|c| c["mode"].as_str().unwrap()).collect();
    assert_eq!(modes, ["none", "all"]);
    for c in cells {
        let mode = c["mode"].as_str().unwrap();
        assert_eq!(
            (c["width"].as_u64(), c["height"].as_u64()),
            (Some(160), Some(96))
        );
        for f in FIGURES {
            let v = at(c, f)
                .as_f64()
                .unwrap_or_else(|| panic!("{mode}: {f} missing: {c:#}"));
            assert!(v.is_finite() && v >= 0.0, "{mode}: {f} = {v}");
        }
        // Timestamps ran: the frame took time, every kept pass has one, and the timeline
        // of the median frame has a span per pass.
        assert!(
            at(c, "gpu.frame_us.median").as_f64().unwrap() > 0.0,
            "{mode}"
        );
        let passes = at(c, "plan.passes").as_u64().unwrap() as usize;
        assert_eq!(c["passes"].as_array().unwrap().len(), passes, "{mode}");
        assert_eq!(c["timeline"].as_array().unwrap().len(), passes, "{mode}");
        let ratios = c["ratios"].as_object().unwrap();
        assert!(ratios.contains_key("gpu_frame_us"), "{mode}: {ratios:?}");
        for (k, v) in ratios {
            let v = v.as_f64().unwrap();
            assert!(v.is_finite(), "{mode}: ratio {k} = {v}");
            if mode == "none" {
                assert_eq!(v, 1.0, "none against itself: {k}");
            }
        }
    }
    // All on merges and aliases: fewer render passes and bytes bound than none.
    let fig = |i: usize, f: &str| at(&cells[i], f).as_f64().unwrap();
    assert!(fig(1, "plan.render_passes") < fig(0, "plan.render_passes"));
    assert!(fig(1, "memory.aliased_bytes") < fig(0, "memory.aliased_bytes"));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<svg") && page.contains("all"),
        "{}",
        &page[..page.len().min(400)]
    );
    assert!(!page.contains("<script"), "the page runs no script");
    // A saved report gives the same table and page again, without measuring.
    let again = dir.join("again.html");
    let o = tessera(&[
        "bench",
        "--from",
        json.to_str().unwrap(),
        "--html",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), stdout, "the table of the saved report");
    assert_eq!(std::fs::read_to_string(&again).unwrap(), page);
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\n  \"cells\": [\n").unwrap();
    let o = tessera(&["bench", "--from", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("broken.json:"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    for args in [
        &["bench", "--sizes", "1920"][..],
        &["bench", "--modes", "fast"],
        &["bench", "--width", "100"],
        &["bench", "--frames", "0"],
    ] {
        let o = tessera(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(!text(&o.stderr).contains("panicked"), "{args:?}");
    }
}

#[test]
fn a_saved_report_cannot_send_control_characters_to_the_terminal() {
    let dir = scratch("controls");
    let report = dir.join("r.json");
    // Strings of a report from elsewhere: an OSC title change, a bell, a clear screen.
    std::fs::write(
        &report,
        r#"{"date": "d", "device": "evil\u001b]0;pwned\u0007\u001b[2J", "api_version": "1.3",
            "note": "red\u001b[31m", "scene": "s\r", "frames": 1, "warmup": 0,
            "emulate_async": false, "validation": false, "validation_messages": 0,
            "modes": ["none"], "cells": []}"#,
    )
    .unwrap();
    let o = tessera(&["bench", "--from", report.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let printed = text(&o.stdout);
    assert!(
        !printed.chars().any(|c| c.is_control() && c != '\n'),
        "{printed:?}"
    );
    assert!(
        printed.contains(r"evil\u{1b}]0;pwned\u{7}\u{1b}[2J"),
        "{printed}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
