//! `tessera plan` end to end: the example frames against their committed golden plans, the
//! text report, and clear errors for bad input.
//!
//! Set `TESSERA_BLESS=1` to rewrite the goldens after an intended change, then review the diff.

mod common;
use common::{repo, tessera};

const EXAMPLES: &[&str] = &["deferred", "postprocess", "gpu_culling", "present"];

#[test]
fn example_plans_match_goldens() {
    let mut failures = Vec::new();
    for name in EXAMPLES {
        let frame = format!("assets/graphs/{name}.json");
        let out = tessera(&["plan", &frame, "--json"]);
        assert!(
            out.status.success(),
            "{frame}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let actual = String::from_utf8(out.stdout).expect("utf-8 JSON");
        let golden = repo().join(format!("assets/graphs/golden/{name}.plan.json"));
        if std::env::var_os("TESSERA_BLESS").is_some() {
            std::fs::write(&golden, &actual).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != actual {
            failures.push(format!(
                "{name}: plan differs from {} (TESSERA_BLESS=1 to accept):\n{}",
                golden.display(),
                first_difference(&expected, &actual)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<_>, Vec<_>) = (expected.lines().collect(), actual.lines().collect());
    let i = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let show = |l: &[&str]| {
        l.iter()
            .skip(i.saturating_sub(3))
            .take(8)
            .map(|s| format!("  {s}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "first difference at line {}\nexpected:\n{}\nactual:\n{}",
        i + 1,
        show(&e),
        show(&a)
    )
}

#[test]
fn json_plan_parses_back_into_a_plan() {
    let out = tessera(&["plan", "assets/graphs/deferred.json", "--json"]);
    let plan: tessera_graph::Plan =
        serde_json::from_slice(&out.stdout).expect("plan JSON deserializes");
    assert!(plan.order.iter().any(|p| p == "lighting"));
    assert_eq!(plan.culled, ["debug_overlay"]);
}

#[test]
fn report_lists_passes_levels_queues_barriers_and_culls() {
    let out = tessera(&["plan", "assets/graphs/postprocess.json"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("passes in execution order"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("luminance_histogram") && l.contains("async_compute")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("bloom_down_half") && l.contains("level 1")),
        "{text}"
    );
    assert!(text.contains("barrier bright:"), "{text}");
    assert!(
        text.contains("debug_histogram_view: nothing kept reads"),
        "{text}"
    );
}

#[test]
fn bad_input_gives_one_clear_error() {
    let dir = std::env::temp_dir().join(format!("tessera-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "syntax.json",
            "{\n  \"passes\": [\n    {\"name\": }\n  ]\n}",
            "syntax.json:3:",
        ),
        (
            "unknown.json",
            r#"{"resources": [], "passes": [{"name": "p", "kind": "compute", "uses": [{"resource": "ghost", "access": "storage_read"}]}]}"#,
            "pass 'p' uses unknown resource 'ghost'",
        ),
        (
            "rbw.json",
            r#"{"resources": [{"name": "a", "kind": "buffer", "size": 16}], "passes": [{"name": "p", "kind": "compute", "uses": [{"resource": "a", "access": "storage_read"}]}]}"#,
            "pass 'p' reads 'a' (storage_read) but no earlier pass writes it",
        ),
        (
            "huge.json",
            r#"{"resources": [{"name": "a", "kind": "buffer", "size": 9223372036854775808}, {"name": "o", "kind": "buffer", "size": 4, "output": true}], "passes": [{"name": "p", "kind": "compute", "uses": [{"resource": "a", "access": "storage_write"}]}, {"name": "q", "kind": "compute", "uses": [{"resource": "a", "access": "storage_read"}, {"resource": "o", "access": "storage_write"}]}]}"#,
            "resource 'a' (buffer) needs 9223372036854775808 bytes (8 EiB): a transient resource needs at most 281474976710656 bytes (256 TiB)",
        ),
        (
            "profile.json",
            r#"{"device": "voodoo2", "resources": [], "passes": []}"#,
            "unknown profile 'voodoo2'",
        ),
        (
            "bad.toml",
            "name = \"x\"\n[[passes]]\nname = 1\n",
            "bad.toml:3:",
        ),
    ];
    for (file, text, needle) in cases {
        let path = dir.join(file);
        std::fs::write(&path, text).unwrap();
        let out = tessera(&["plan", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{file} should fail");
        assert!(
            err.contains(needle),
            "{file}: expected '{needle}' in: {err}"
        );
        assert_eq!(
            err.trim().lines().count(),
            1,
            "{file}: one line of error, got: {err}"
        );
        assert!(!err.contains("panicked"), "{file}: {err}");
        assert_eq!(
            err.matches(needle).count(),
            1,
            "{file}: the cause is said once: {err}"
        );
    }
    let missing = tessera(&["plan", "no/such/frame.json"]);
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("no/such/frame.json"), "{err}");
    assert_eq!(
        err.trim(),
        "error: no/such/frame.json: no such file",
        "the cause is said once, in words: {err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `tessera plan --frame` compiles the renderer's own frame without a device: the desktop
/// and mali plans differ as the mobile preset says (one merged deferred render pass with a
/// memoryless G-buffer on mali; the async passes on their queue on desktop).
#[test]
fn the_renderers_frame_compiles_for_desktop_and_mali() {
    let plan = |profile: &str| {
        let out = tessera(&[
            "plan",
            "--frame",
            "--width",
            "320",
            "--height",
            "180",
            "--profile",
            profile,
            // The deferred frame on every profile (the mobile preset's path is forward).
            "--path",
            "deferred",
            "--msaa",
            "1",
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{profile}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("plan JSON")
    };
    let subpasses = |p: &serde_json::Value| -> Vec<Vec<String>> {
        p["render_passes"]
            .as_array()
            .expect("render passes")
            .iter()
            .map(|rp| {
                rp["subpasses"]
                    .as_array()
                    .expect("subpasses")
                    .iter()
                    .map(|s| s.as_str().expect("name").to_string())
                    .collect()
            })
            .collect()
    };
    let mali = plan("mali");
    let deferred: Vec<String> = ["gbuffer", "lighting", "transparents", "tonemap"]
        .map(String::from)
        .to_vec();
    assert!(
        subpasses(&mali).contains(&deferred),
        "{:?}",
        subpasses(&mali)
    );
    let order = |p: &serde_json::Value| -> Vec<String> {
        p["order"]
            .as_array()
            .expect("order")
            .iter()
            .map(|s| s.as_str().expect("name").to_string())
            .collect()
    };
    assert!(order(&mali).contains(&"ssao depth prepass".to_string()));
    let desktop = plan("desktop");
    assert!(!subpasses(&desktop).contains(&deferred));
    let async_queue: Vec<&str> = desktop["queues"]["async_compute"]
        .as_array()
        .expect("async queue")
        .iter()
        .map(|s| s.as_str().expect("name"))
        .collect();
    for pass in ["light clustering", "ssao", "luminance histogram"] {
        assert!(async_queue.contains(&pass), "{async_queue:?}");
    }
}

/// The frame flags choose the renderer's frame: with a frame file they are an error, and a
/// feature switch changes the declared graph.
#[test]
fn frame_flags_need_frame_and_change_the_graph() {
    let out = tessera(&["plan", "assets/graphs/deferred.json", "--no-shadows"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--frame"), "{err}");
    let passes = |extra: &[&str]| {
        let mut args = vec![
            "plan", "--frame", "--width", "320", "--height", "180", "--json",
        ];
        args.extend_from_slice(extra);
        let out = tessera(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("plan JSON");
        v["order"].as_array().expect("order").len()
    };
    assert!(
        passes(&["--bloom", "off"]) < passes(&[]),
        "bloom off removes passes"
    );
}
