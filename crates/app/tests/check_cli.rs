//! `tessera check FRAME PLAN.json` and `tessera plan --check` end to end: saved plans pass,
//! mutated ones fail naming the rule, malformed plans are one clear error.

use std::path::Path;

mod common;
use common::{scratch, tessera, text};

/// The plan JSON of `frame` (`tessera plan FRAME --json` with `extra` flags).
fn plan_json(frame: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["plan", frame, "--json"];
    args.extend(extra);
    let out = tessera(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("plan JSON")
}

fn save(dir: &Path, name: &str, plan: &serde_json::Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(plan).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

const FRAME: &str = "assets/graphs/tile_deferred.json";

#[test]
fn the_plan_records_its_device_and_options() {
    let plan = plan_json(FRAME, &["--profile", "mali", "--no-optimize"]);
    assert_eq!(plan["device"]["profile"], "mali");
    assert_eq!(plan["device"]["tile_bits_per_pixel"], 256);
    assert_eq!(plan["options"]["merge"], false);
    let plan = plan_json(FRAME, &[]);
    assert_eq!(plan["options"]["merge"], true);
    // And a plan without them still parses (older plans).
    let mut old = plan.clone();
    old.as_object_mut().unwrap().remove("device");
    old.as_object_mut().unwrap().remove("options");
    let parsed: tessera_graph::Plan = serde_json::from_value(old).unwrap();
    assert!(parsed.device.is_none() && parsed.options.is_none());
}

#[test]
fn a_saved_plan_checks_on_its_own() {
    let dir = scratch("saved");
    for flags in [&["--profile", "mali"][..], &["--no-optimize"], &[]] {
        let plan = save(&dir, "p.json", &plan_json(FRAME, flags));
        let out = tessera(&["check", FRAME, &plan]);
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "{flags:?}: {stdout}{}",
            text(&out.stderr)
        );
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        assert!(stdout.starts_with("ok: "), "{stdout}");
        assert!(stdout.contains("from the plan"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_mutated_plan_fails_naming_the_rule() {
    let dir = scratch("mutated");
    let plan = plan_json(FRAME, &["--profile", "mali"]);
    // Flip the store op of the attachment the frame keeps (the swapchain).
    let mut flipped = plan.clone();
    let stored = flipped["render_passes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .flat_map(|rp| rp["attachments"].as_array_mut().unwrap().iter_mut())
        .find(|a| a["store_op"] == "store")
        .expect("an attachment is stored");
    stored["store_op"] = "dont_care".into();
    let name = stored["resource"].as_str().unwrap().to_string();
    let out = tessera(&["check", FRAME, &save(&dir, "flipped.json", &flipped)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("[rp.store]") && l.contains(&format!("'{name}'"))),
        "{stdout}"
    );
    assert!(
        stdout.lines().last().unwrap().contains("violation"),
        "{stdout}"
    );
    // Remove a barrier that makes a layout transition.
    let mut cut = plan.clone();
    let barriers = cut["barriers"].as_array_mut().unwrap();
    let i = barriers
        .iter()
        .position(|b| !b["new_layout"].is_null())
        .expect("a transition");
    let gone = barriers.remove(i);
    let out = tessera(&["check", FRAME, &save(&dir, "cut.json", &cut)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let resource = format!("'{}'", gone["resource"].as_str().unwrap());
    assert!(
        stdout
            .lines()
            .any(|l| (l.starts_with("[layout.") || l.starts_with("[hazard."))
                && l.contains(&resource)),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_older_plan_checks_against_the_frame_or_the_profile() {
    let dir = scratch("older");
    let mut plan = plan_json(FRAME, &["--profile", "desktop"]);
    plan.as_object_mut().unwrap().remove("device");
    plan.as_object_mut().unwrap().remove("options");
    let path = save(&dir, "old.json", &plan);
    // The frame asks for mali: a desktop plan breaks mali's rules (attachments that never
    // leave the render pass are not memoryless) ...
    let out = tessera(&["check", FRAME, &path]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("[rp.memoryless]"), "{stdout}");
    assert!(stdout.contains("device mali, from the frame"), "{stdout}");
    // ... and passes with the profile it was compiled for.
    let out = tessera(&["check", FRAME, &path, "--profile", "desktop"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("device desktop, from --profile"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_plans_are_one_clear_error() {
    let dir = scratch("malformed");
    let cases: &[(&str, &str, &str)] = &[
        ("trunc.json", "{\n  \"order\": [", "trunc.json:2:"),
        ("type.json", "{\"order\": 3}", "type.json:1:"),
        ("empty.json", "", "empty.json: the file is empty"),
    ];
    for (file, body, needle) in cases {
        let path = dir.join(file);
        std::fs::write(&path, body).unwrap();
        let out = tessera(&["check", FRAME, path.to_str().unwrap()]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}");
        assert!(err.contains(needle), "{file}: expected {needle} in {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // The arguments the other way round say so.
    let plan = save(&dir, "p.json", &plan_json(FRAME, &[]));
    let out = tessera(&["check", &plan, FRAME]);
    assert!(
        text(&out.stderr).contains("is a plan, not a frame"),
        "{}",
        text(&out.stderr)
    );
    let out = tessera(&["check", FRAME, FRAME]);
    assert!(
        text(&out.stderr).contains("is a frame file, not a plan"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_check_compiles_and_checks() {
    let out = tessera(&["plan", FRAME, "--profile", "mali", "--json", "--check"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Standard output stays the plan; the verdict goes to standard error.
    let _: tessera_graph::Plan = serde_json::from_slice(&out.stdout).expect("plan JSON");
    let err = text(&out.stderr);
    assert!(
        err.starts_with("ok: the plan of") && err.contains("device mali"),
        "{err}"
    );
    let out = tessera(&["plan", "--check", "--diff", FRAME, FRAME]);
    assert!(!out.status.success(), "--check conflicts with --diff");
}
