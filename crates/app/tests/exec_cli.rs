//! `tessera exec` end to end on the machine's Vulkan device (lavapipe in CI): the JSON
//! summary, a RenderDoc capture (RenderDoc is installed by scripts/test.sh), and clear errors
//! for bad flags, files and a missing RenderDoc.

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

#[test]
fn capture_writes_a_renderdoc_file_and_says_where() {
    let rdc = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec_cli_capture.rdc");
    let _ = std::fs::remove_file(&rdc);
    let path = rdc.to_str().expect("UTF-8 temp dir");
    let out = tessera(&[
        "exec",
        "assets/graphs/tile_deferred.json",
        "--frames",
        "2",
        "--capture",
        path,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("RenderDoc capture of the last frame: {path}")),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("validation messages: 0, mismatches: 0\n"),
        "{stdout}"
    );
    let bytes = std::fs::read(&rdc).expect("the capture file");
    assert!(bytes.starts_with(b"RDOC"), "not a RenderDoc capture");
}

#[test]
fn capture_without_renderdoc_is_one_clear_error() {
    let rdc = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec_cli_no_renderdoc.rdc");
    let _ = std::fs::remove_file(&rdc);
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["exec", "assets/graphs/tile_deferred.json", "--capture"])
        .arg(&rdc)
        .env("TESSERA_RENDERDOC", "/no/such/librenderdoc.so")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("tessera runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("librenderdoc.so")
            && err.contains("apt-get install renderdoc")
            && !err.contains("panicked")
            && err.lines().count() == 1,
        "{err}"
    );
    assert!(!rdc.exists());
}
