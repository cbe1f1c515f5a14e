//! `tessera exec` end to end on the machine's Vulkan device (lavapipe in CI): the JSON
//! summary, and clear errors for bad flags and files.

use std::path::Path;
use std::process::{Command, Output};

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("tessera runs")
}

#[test]
fn json_summary_reports_a_clean_validated_run() {
    let out = tessera(&[
        "exec",
        "assets/graphs/gpu_culling.json",
        "--frames",
        "2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON summary");
    assert_eq!(v["frame"], "gpu_culling");
    assert_eq!(v["frames"], 2);
    assert_eq!(v["frames_checked"], 2);
    assert_eq!(v["mismatches"], 0);
    assert_eq!(v["messages"].as_array().map(Vec::len), Some(0), "{v}");
    assert_eq!(v["passes"], 3);
    assert!(v["compared_values"].as_u64().unwrap_or(0) > 0, "{v}");
}

#[test]
fn bad_flags_and_files_fail_with_one_message() {
    let zero = tessera(&["exec", "assets/graphs/gpu_culling.json", "--frames", "0"]);
    assert!(!zero.status.success());
    assert!(String::from_utf8_lossy(&zero.stderr).contains("--frames"));
    let missing = tessera(&["exec", "no/such/frame.json"]);
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("no/such/frame.json") && !err.contains("panicked"),
        "{err}"
    );
}
