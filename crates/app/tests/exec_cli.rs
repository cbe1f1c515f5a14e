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

/// Writes a frame file into the test's temporary directory.
fn frame(name: &str, json: &str) -> std::path::PathBuf {
    let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("exec_cli_{name}.json"));
    std::fs::write(&p, json).expect("temp frame written");
    p
}

/// One image written whole by one raster pass, with the given image fields.
fn image_frame(name: &str, fields: &str) -> std::path::PathBuf {
    frame(
        name,
        &format!(
            r#"{{"name": "{name}", "resources": [
                {{"name": "img", "kind": "image", "format": "R8G8B8A8_UNORM", {fields}, "output": true}}],
              "passes": [{{"name": "draw", "kind": "raster", "uses": [
                {{"resource": "img", "access": "color_write_all"}}]}}]}}"#
        ),
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn frames_plan_rejects_are_rejected_by_exec_with_the_same_message() {
    let bad = [
        image_frame("mips100", r#""width": 16, "height": 16, "mips": 100"#),
        image_frame("width0", r#""width": 0, "height": 16"#),
        image_frame("mips0", r#""width": 16, "height": 16, "mips": 0"#),
        frame(
            "size0",
            r#"{"name": "size0", "resources": [
                {"name": "buf", "kind": "buffer", "size": 0, "output": true}],
              "passes": [{"name": "fill", "kind": "compute", "uses": [
                {"resource": "buf", "access": "storage_write"}]}]}"#,
        ),
    ];
    for f in &bad {
        let path = f.to_str().expect("UTF-8 temp dir");
        let plan = tessera(&["plan", path]);
        let exec = tessera(&["exec", path]);
        assert!(!plan.status.success(), "plan accepts {path}");
        assert!(!exec.status.success(), "exec accepts {path}");
        assert_eq!(stderr(&exec), stderr(&plan), "{path}");
        assert!(
            stderr(&exec).contains(path) && !stderr(&exec).contains("unsupported"),
            "{}",
            stderr(&exec)
        );
    }
    // A valid frame still runs (and is scaled down to --max-extent).
    let ok = image_frame("valid", r#""width": 1024, "height": 512, "mips": 11"#);
    let out = tessera(&["exec", ok.to_str().unwrap(), "--frames", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// `tessera exec` with the Vulkan loader pointed at no driver at all.
fn exec_without_driver(file: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("exec")
        .arg(file)
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("tessera runs")
}

#[test]
fn no_driver_is_no_vulkan_device_and_frame_errors_come_first() {
    let out = exec_without_driver(Path::new("assets/graphs/gpu_culling.json"));
    assert!(!out.status.success());
    let err = stderr(&out);
    // The loader's own complaints may be logged first; the error is one line.
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert!(
        errors.len() == 1
            && errors[0].starts_with("error: no Vulkan device (")
            && !err.contains("gpu_culling")
            && !err.contains("panicked"),
        "{err}"
    );
    // An invalid frame reports its own error, not the missing driver.
    let bad = image_frame(
        "nodriver_mips100",
        r#""width": 16, "height": 16, "mips": 100"#,
    );
    let out = exec_without_driver(&bad);
    let err = stderr(&out);
    assert!(
        !out.status.success() && err.contains("mips") && !err.contains("Vulkan"),
        "{err}"
    );
}

#[test]
fn an_unsupported_sample_count_names_the_resource_and_what_the_device_supports() {
    let f = frame(
        "samples64",
        r#"{"name": "samples64", "resources": [
            {"name": "msaa", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 16, "height": 16, "samples": 64},
            {"name": "out", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 16, "height": 16, "output": true}],
          "passes": [{"name": "draw", "kind": "raster", "uses": [
            {"resource": "msaa", "access": "color_write_all"},
            {"resource": "out", "access": "resolve", "from": "msaa"}]}]}"#,
    );
    let plan = tessera(&["plan", f.to_str().unwrap()]);
    assert!(plan.status.success(), "{}", stderr(&plan));
    let out = tessera(&["exec", f.to_str().unwrap()]);
    let err = stderr(&out);
    assert!(
        !out.status.success()
            && err.contains("'msaa' has 64 samples; this device supports 1, ")
            && !err.contains("panicked")
            && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn capture_into_a_directory_writes_frame_rdc_and_bad_paths_fail_before_the_run() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exec_cli_capture_dir");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = tessera(&[
        "exec",
        "assets/graphs/tile_deferred.json",
        "--frames",
        "1",
        "--capture",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["tile_deferred.rdc"], "only the capture is left");
    // A path that cannot be created fails at once (no run, no summary) and leaves nothing.
    let root_before: Vec<_> = std::fs::read_dir("/")
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    for bad in ["/proc/tessera_capture.rdc", "/no/such/dir/x.rdc"] {
        let out = tessera(&["exec", "assets/graphs/tile_deferred.json", "--capture", bad]);
        let err = stderr(&out);
        assert!(
            !out.status.success()
                && out.stdout.is_empty()
                && err.contains("--capture")
                && err.contains(bad)
                && err.lines().count() == 1,
            "{err}"
        );
    }
    let root_after: Vec<_> = std::fs::read_dir("/")
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(root_before, root_after, "no file left in /");
}

#[test]
fn max_extent_zero_is_rejected() {
    let out = tessera(&[
        "exec",
        "assets/graphs/gpu_culling.json",
        "--max-extent",
        "0",
    ]);
    let err = stderr(&out);
    assert!(
        !out.status.success() && err.contains("--max-extent") && out.stdout.is_empty(),
        "{err}"
    );
}

#[test]
fn without_validation_the_summary_says_so_instead_of_zero_messages() {
    let out = tessera(&[
        "exec",
        "assets/graphs/gpu_culling.json",
        "--frames",
        "1",
        "--no-validation",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout.ends_with("validation: off, mismatches: 0\n")
            && !stdout.contains("validation messages"),
        "{stdout}"
    );
    let json = tessera(&[
        "exec",
        "assets/graphs/gpu_culling.json",
        "--frames",
        "1",
        "--no-validation",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON summary");
    assert_eq!(v["validation"], false);
    assert!(v["validation_messages"].is_null(), "{v}");
}

/// A 4× colour and depth frame whose depth is resolved on write-back (in `sample_zero`, the
/// mode every device with depth resolve has) and then sampled by a compute pass: the synthetic
/// run reads the results back and compares them, with every optimisation on, off, and with
/// the async queue emulated, under validation with synchronization validation.
#[test]
fn a_depth_resolve_on_write_back_runs_clean_in_every_mode() {
    let f = frame(
        "depth_resolve",
        r#"{"name": "depth_resolve", "resources": [
            {"name": "msaa_depth", "kind": "image", "format": "D32_SFLOAT", "width": 48, "height": 32, "samples": 4},
            {"name": "msaa_color", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 48, "height": 32, "samples": 4},
            {"name": "color", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 48, "height": 32, "output": true},
            {"name": "depth_1x", "kind": "image", "format": "D32_SFLOAT", "width": 48, "height": 32},
            {"name": "ao", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 48, "height": 32, "output": true}],
          "passes": [
            {"name": "opaque", "kind": "raster", "uses": [
              {"resource": "msaa_depth", "access": "depth_write", "clear": true},
              {"resource": "msaa_color", "access": "color_write", "clear": true}]},
            {"name": "blend", "kind": "raster", "uses": [
              {"resource": "msaa_depth", "access": "depth_read"},
              {"resource": "msaa_color", "access": "color_read_write"},
              {"resource": "color", "access": "resolve", "from": "msaa_color"},
              {"resource": "depth_1x", "access": "resolve", "from": "msaa_depth", "mode": "sample_zero"}]},
            {"name": "ssao", "kind": "compute", "uses": [
              {"resource": "depth_1x", "access": "sampled"},
              {"resource": "ao", "access": "storage_write"}]}]}"#,
    );
    let path = f.to_str().unwrap();
    for extra in [&[][..], &["--no-optimize"], &["--emulate-async"]] {
        let mut args = vec!["exec", path, "--frames", "2", "--json"];
        args.extend_from_slice(extra);
        let out = tessera(&args);
        assert!(out.status.success(), "{extra:?}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON summary");
        assert_eq!(v["mismatches"], 0, "{extra:?}: {v}");
        assert_eq!(
            v["messages"].as_array().map(Vec::len),
            Some(0),
            "{extra:?}: {v}"
        );
        assert!(v["compared_values"].as_u64().unwrap_or(0) > 0, "{v}");
    }
    let plan = tessera(&["plan", path, "--json"]);
    assert!(plan.status.success(), "{}", stderr(&plan));
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).expect("plan JSON");
    let depth = plan["render_passes"][0]["attachments"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["resource"] == "msaa_depth"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(depth["resolve_target"], "depth_1x", "{plan}");
    assert_eq!(depth["resolve_mode"], "sample_zero", "{plan}");
}
