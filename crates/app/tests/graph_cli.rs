//! `tessera graph` and `tessera plan --diff` end to end.

use std::process::Output;

mod common;
use common::{repo, scratch, tessera};

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

#[test]
fn graph_writes_the_page_and_the_golden_dot() {
    let dir = scratch("write");
    let (html, dot) = (dir.join("deferred.html"), dir.join("deferred.dot"));
    ok(&tessera(&[
        "graph",
        "assets/graphs/deferred.json",
        "--html",
        html.to_str().unwrap(),
        "--dot",
        dot.to_str().unwrap(),
    ]));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("id=\"tessera-data\""));
    let golden =
        std::fs::read_to_string(repo().join("crates/viewer/tests/golden/deferred.dot")).unwrap();
    assert_eq!(std::fs::read_to_string(&dot).unwrap(), golden);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph_needs_an_output_and_an_html_for_a_diff() {
    let out = tessera(&["graph", "assets/graphs/deferred.json"]);
    assert!(!out.status.success());
    let dir = scratch("needs");
    let dot = dir.join("x.dot");
    let out = tessera(&[
        "graph",
        "assets/graphs/deferred.json",
        "--dot",
        dot.to_str().unwrap(),
        "--diff-against",
        "assets/graphs/golden/deferred.plan.json",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--html"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph_page_carries_the_diff() {
    let dir = scratch("diffpage");
    let old = naive_deferred_plan(&dir);
    let html = dir.join("page.html");
    ok(&tessera(&[
        "graph",
        "assets/graphs/deferred.json",
        "--html",
        html.to_str().unwrap(),
        "--diff-against",
        old.to_str().unwrap(),
    ]));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("\"against\":"), "diff embedded");
    assert!(page.contains("merged gbuffer + lighting"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_diff_of_a_plan_with_itself_is_empty() {
    let out = ok(&tessera(&[
        "plan",
        "--diff",
        "assets/graphs/golden/deferred.plan.json",
        "assets/graphs/deferred.json",
    ]));
    assert_eq!(out, "no changes\n");
}

#[test]
fn plan_diff_reports_merges_ops_and_bytes() {
    let dir = scratch("diff");
    let old = naive_deferred_plan(&dir);
    let out = ok(&tessera(&[
        "plan",
        "--diff",
        old.to_str().unwrap(),
        "assets/graphs/golden/deferred.plan.json",
    ]));
    for needle in [
        "merged depth_prepass + gbuffer",
        "break removed",
        "attachments:",
        "placements:",
        "barriers:",
        "tile store bytes",
    ] {
        assert!(out.contains(needle), "missing {needle}:\n{out}");
    }
    let bad = tessera(&["plan", "--diff", old.to_str().unwrap(), "README.md"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("neither a plan"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes the deferred example's plan with every optimisation off to `dir/old.json`: the
/// "before" side of the diff tests.
fn naive_deferred_plan(dir: &std::path::Path) -> std::path::PathBuf {
    let old = dir.join("old.json");
    let plan = ok(&tessera(&[
        "plan",
        "assets/graphs/deferred.json",
        "--json",
        "--no-optimize",
    ]));
    std::fs::write(&old, plan).unwrap();
    old
}

/// `tessera graph --frame` writes the viewer page of the renderer's own frame.
#[test]
fn the_viewer_shows_the_renderers_frame() {
    let dir = scratch("graph-frame");
    let html = dir.join("frame.html");
    ok(&tessera(&[
        "graph",
        "--frame",
        "--profile",
        "mali",
        // The deferred mobile frame (the preset's path is forward).
        "--path",
        "deferred",
        "--msaa",
        "1",
        "--html",
        html.to_str().expect("utf-8 path"),
    ]));
    let page = std::fs::read_to_string(&html).expect("page written");
    for name in [
        "light clustering",
        "ssao depth prepass",
        "bloom threshold",
        "fxaa",
    ] {
        assert!(page.contains(name), "the page names '{name}'");
    }
}
