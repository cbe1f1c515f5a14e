//! Hostile input to the CLI: closed pipes, endless files, odd files, paths that collide.
//! Each case ends in exit 0 with the output, or exit 1 with one clear line: never a panic.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod common;
use common::{repo, scratch, tessera, text};

/// Asserts one clear error line containing `needle` and no panic.
fn fails_with(out: &Output, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A chain of `n` compute passes with long names: its report, plan JSON, diff and Graphviz
/// are each far larger than a pipe's buffer, so a reader that stops early closes the pipe
/// while tessera is still writing.
fn big_frame(n: usize, tag: &str) -> String {
    let name = |i: usize| format!("{tag}_pass_with_a_long_name_to_make_the_output_large_{i:05}");
    let buf = |i: usize| format!("{tag}_buffer_with_a_long_name_{i:05}");
    let resources: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name": "{}", "kind": "buffer", "size": 4096{}}}"#,
                buf(i),
                if i + 1 == n {
                    r#", "output": true"#
                } else {
                    ""
                }
            )
        })
        .collect();
    let passes: Vec<String> = (0..n)
        .map(|i| {
            let read = if i == 0 {
                String::new()
            } else {
                format!(r#"{{"resource": "{}", "access": "storage_read"}}, "#, buf(i - 1))
            };
            format!(
                r#"{{"name": "{}", "kind": "compute", "uses": [{read}{{"resource": "{}", "access": "storage_write"}}]}}"#,
                name(i),
                buf(i)
            )
        })
        .collect();
    format!(
        r#"{{"name": "big", "resources": [{}], "passes": [{}]}}"#,
        resources.join(", "),
        passes.join(", ")
    )
}

/// Runs tessera with `args`, reads one line of its output and closes the pipe, as
/// `tessera ... | head -1` does; returns what it ends with and how much a full run prints.
fn closed_after_one_line(args: &[&str]) -> (Output, usize) {
    let full = tessera(args);
    assert!(full.status.success(), "{}", text(&full.stderr));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    (child.wait_with_output().unwrap(), full.stdout.len())
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    let dir = scratch("pipe");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a, big_frame(1500, "a")).unwrap();
    std::fs::write(&b, big_frame(1500, "b")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    for args in [
        vec!["plan", a],
        vec!["plan", a, "--json"],
        vec!["plan", "--diff", a, b],
        vec!["graph", a, "--dot", "/dev/stdout"],
    ] {
        let (out, full) = closed_after_one_line(&args);
        // More than any pipe buffer: the writer must have met the closed pipe.
        assert!(full > 256 << 10, "{args:?}: only {full} bytes");
        assert!(
            out.status.success(),
            "{args:?}: {:?} {}",
            out.status,
            text(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reads_are_bounded() {
    fails_with(
        &tessera(&["plan", "/dev/zero"]),
        "/dev/zero: larger than the 64 MiB limit",
    );
    fails_with(
        &tessera(&["check", "assets/graphs/deferred.json", "/dev/zero"]),
        "64 MiB limit",
    );
    fails_with(
        &tessera(&["plan", "--diff", "/dev/zero", "assets/graphs/deferred.json"]),
        "64 MiB limit",
    );
}

#[test]
fn odd_files_get_clear_messages() {
    let dir = scratch("odd");
    let deferred = std::fs::read_to_string(repo().join("assets/graphs/deferred.json")).unwrap();
    // A byte-order mark is accepted.
    let bom = dir.join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{deferred}")).unwrap();
    let out = tessera(&["plan", bom.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let cases: &[(&str, &[u8], &str)] = &[
        ("empty.json", b"", "empty.json: the file is empty: a frame is an object"),
        ("empty.toml", b"", "empty.toml: the file is empty: a frame is an object"),
        ("comment.toml", b"# nothing\n", "`resources` and `passes` are missing"),
        ("array.json", b"[]", "array.json:1:1: found an array where the frame's object starts"),
        ("open.json", b"{\n", "open.json:2:1: EOF"),
        ("latin1.json", b"{\"name\": \"caf\xe9\"}", "latin1.json:1:14: invalid UTF-8"),
        (
            "device.json",
            br#"{"device": 7, "resources": [], "passes": []}"#,
            "device.json:1:12: invalid type: integer `7`, expected `device` to be a profile name (\"desktop\", \"mali\", \"adreno\") or an object",
        ),
        (
            "device_obj.json",
            br#"{"device": {"tiles": 1}, "resources": [], "passes": []}"#,
            "unknown field `tiles`, expected one of `profile`",
        ),
    ];
    for (file, body, needle) in cases {
        let path = dir.join(file);
        std::fs::write(&path, body).unwrap();
        fails_with(&tessera(&["plan", path.to_str().unwrap()]), needle);
    }
    // A directory is a read error naming it.
    fails_with(
        &tessera(&["plan", dir.to_str().unwrap()]),
        dir.to_str().unwrap(),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_never_overwrite_inputs_or_each_other() {
    let dir = scratch("paths");
    let frame = dir.join("f.json");
    let original = std::fs::read(repo().join("assets/graphs/deferred.json")).unwrap();
    std::fs::write(&frame, &original).unwrap();
    let f = frame.to_str().unwrap();
    fails_with(&tessera(&["graph", f, "--html", f]), "is the input FILE");
    // The same file through another spelling of its path.
    let other = format!("{}/./f.json", dir.display());
    fails_with(
        &tessera(&["graph", f, "--dot", &other]),
        "is the input FILE",
    );
    fails_with(
        &tessera(&["graph", f, "--html", "x.html", "--diff-against", "x.html"]),
        "is the input --diff-against",
    );
    assert_eq!(
        std::fs::read(&frame).unwrap(),
        original,
        "the input is untouched"
    );
    let x = dir.join("x").to_str().unwrap().to_string();
    fails_with(
        &tessera(&["graph", f, "--html", &x, "--dot", &x]),
        "--html and --dot both write",
    );
    assert!(!Path::new(&x).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_are_replaced_whole() {
    let dir = scratch("whole");
    let target = dir.join("real.dot");
    std::fs::write(&target, "old content").unwrap();
    let link = dir.join("link.dot");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = tessera(&[
        "graph",
        "assets/graphs/deferred.json",
        "--dot",
        link.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The link still names the file, whose content is the whole new graph.
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let dot = std::fs::read_to_string(&target).unwrap();
    let golden =
        std::fs::read_to_string(repo().join("crates/viewer/tests/golden/deferred.dot")).unwrap();
    assert_eq!(dot, golden);
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // A write that cannot happen leaves no partial file either.
    let missing = dir.join("no/such/dir/x.dot");
    let out = tessera(&[
        "graph",
        "assets/graphs/deferred.json",
        "--dot",
        missing.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no/such/dir/x.dot"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plan_diff_says_removed_for_a_removed_culled_pass() {
    let dir = scratch("diff");
    let deferred = std::fs::read_to_string(repo().join("assets/graphs/deferred.json")).unwrap();
    let mut frame: serde_json::Value = serde_json::from_str(&deferred).unwrap();
    let culled = "debug_overlay";
    frame["passes"]
        .as_array_mut()
        .unwrap()
        .retain(|p| p["name"] != culled);
    let new = dir.join("new.json");
    std::fs::write(&new, frame.to_string()).unwrap();
    let out = tessera(&[
        "plan",
        "--diff",
        "assets/graphs/deferred.json",
        new.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains(&format!("passes removed: {culled}")),
        "{stdout}"
    );
    assert!(!stdout.contains("no longer culled"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_diff_input_that_is_neither_says_why_once() {
    let dir = scratch("neither");
    let plan = dir.join("plan.json");
    std::fs::write(&plan, r#"{"order": 3}"#).unwrap();
    let frame = dir.join("frame.json");
    std::fs::write(&frame, r#"{"resources": [], "passes": [{"name": 1}]}"#).unwrap();
    let other = dir.join("other.json");
    std::fs::write(&other, r#"{"x": 1}"#).unwrap();
    let good = "assets/graphs/deferred.json";
    let p = plan.to_str().unwrap();
    // A broken plan gets the plan's error, a broken frame the frame's, each at its position.
    fails_with(&tessera(&["plan", "--diff", p, good]), "plan.json:1:");
    let out = tessera(&["plan", "--diff", p, good]);
    assert!(
        !text(&out.stderr).contains("frame"),
        "{}",
        text(&out.stderr)
    );
    fails_with(
        &tessera(&["plan", "--diff", good, frame.to_str().unwrap()]),
        "frame.json:1:",
    );
    let out = tessera(&["plan", "--diff", good, other.to_str().unwrap()]);
    fails_with(&out, "neither a plan");
    assert_eq!(
        text(&out.stderr).matches("other.json").count(),
        1,
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
