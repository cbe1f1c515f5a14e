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
        vec!["graph", a, "--dot", "-"],
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
    // Devices are refused before they are opened, whatever their size.
    fails_with(
        &tessera(&["plan", "/dev/zero"]),
        "/dev/zero: not a regular file",
    );
    fails_with(
        &tessera(&["check", "assets/graphs/deferred.json", "/dev/zero"]),
        "/dev/zero: not a regular file",
    );
    fails_with(
        &tessera(&["plan", "--diff", "/dev/zero", "assets/graphs/deferred.json"]),
        "/dev/zero: not a regular file",
    );
    // A regular file past the limit is refused while it is read.
    let dir = scratch("limit");
    let big = dir.join("big.json");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len((64 << 20) + 1).unwrap();
    fails_with(
        &tessera(&["plan", big.to_str().unwrap()]),
        "larger than the 64 MiB limit",
    );
    let _ = std::fs::remove_dir_all(&dir);
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
    let out = tessera(&[
        "graph",
        "assets/graphs/deferred.json",
        "--dot",
        target.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dot = std::fs::read_to_string(&target).unwrap();
    let golden =
        std::fs::read_to_string(repo().join("crates/viewer/tests/golden/deferred.dot")).unwrap();
    assert_eq!(dot, golden);
    // A symbolic link is refused (outputs are regular files), and what it names is kept.
    let link = dir.join("link.dot");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    std::fs::write(&target, "old content").unwrap();
    fails_with(
        &tessera(&[
            "graph",
            "assets/graphs/deferred.json",
            "--dot",
            link.to_str().unwrap(),
        ]),
        "link.dot: exists and is a symbolic link",
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old content");
    // No temporary file is left beside them.
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

/// Runs `tessera ARGS` with `dir` as the working directory (nothing lands in the source tree).
fn tessera_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("tessera runs")
}

/// Runs `tessera ARGS` in `dir` with standard output already closed by its reader, as
/// `tessera check ... | true` does: every write to it fails with a broken pipe.
fn with_stdout_closed(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// Runs `tessera ARGS` in `dir`, killing it after 60 s (a read that blocks on a FIFO would
/// otherwise hang the test); `None` when it had to be killed.
fn within_a_minute(dir: &Path, args: &[&str]) -> Option<Output> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Some(child.wait_with_output().unwrap())
}

/// A FIFO at `path` (made with mkfifo(1)).
fn fifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// Asserts exit `code` with one clear line containing `needle`, nothing on standard output
/// (so no work was reported) and no panic.
fn refused(out: &Output, code: i32, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

fn deferred() -> String {
    repo()
        .join("assets/graphs/deferred.json")
        .display()
        .to_string()
}

#[test]
fn every_file_read_is_bounded_and_regular() {
    let dir = scratch("bounded");
    // A configuration of /dev/zero was read until memory ran out.
    refused(
        &tessera_in(&dir, &["plan", "--frame", "--config", "/dev/zero"]),
        2,
        "/dev/zero: not a regular file (a character device)",
    );
    let big = dir.join("big.toml");
    std::fs::write(&big, vec![b'#'; (1 << 20) + 1]).unwrap();
    refused(
        &tessera_in(&dir, &["plan", "--frame", "--config", "big.toml"]),
        2,
        "big.toml: larger than the 1 MiB limit of configuration files",
    );
    refused(
        &tessera_in(&dir, &["bench", "--from", "/dev/zero"]),
        1,
        "/dev/zero: not a regular file",
    );
    // A FIFO would block the read forever: refused before it is opened.
    let pipe = dir.join("pipe");
    fifo(&pipe);
    for args in [
        &["plan", "--frame", "--config", "pipe"][..],
        &["bench", "--from", "pipe"],
    ] {
        let out = within_a_minute(&dir, args).unwrap_or_else(|| panic!("{args:?} blocked"));
        assert!(!out.status.success(), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("pipe: not a regular file (a FIFO)"),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_command_writes_over_its_inputs_or_one_output_over_another() {
    let dir = scratch("overwrite");
    let config = dir.join("c.toml");
    std::fs::write(&config, "[render]\nscene = \"s.toml\"\nframes = 1\n").unwrap();
    let courtyard = std::fs::read(repo().join("assets/scenes/courtyard.toml")).unwrap();
    std::fs::write(dir.join("s.toml"), &courtyard).unwrap();
    std::fs::write(dir.join("f.json"), std::fs::read(deferred()).unwrap()).unwrap();
    std::fs::write(dir.join("r.json"), "{}").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["render", "--config", "c.toml", "--out", "c.toml"],
            "--out c.toml: is the input --config",
        ),
        (
            &["render", "--scene", "s.toml", "--out", "./s.toml"],
            "is the input --scene",
        ),
        (
            &["render", "--config", "c.toml", "--out", "s.toml"],
            "is the input the scene of --config",
        ),
        (
            &["render", "--capture", "c.png", "--out", "c.png"],
            "--out and --capture both write",
        ),
        (
            &["render", "--capture", "x.rdc", "--out", "x.plan.json"],
            "--out and --capture's plan both write",
        ),
        (
            &["render", "--scene", "s.toml", "--capture", "s.toml"],
            "--capture s.toml: is the input --scene",
        ),
        (
            &["exec", "f.json", "--capture", "f.json"],
            "--capture f.json: is the input FILE",
        ),
        (
            &["bench", "--from", "r.json", "--html", "r.json"],
            "--html r.json: is the input --from",
        ),
        (
            &["bench", "--from", "r.json", "--json", "x", "--html", "x"],
            "--json and --html both write",
        ),
        (
            &["bench", "--config", "c.toml", "--json", "c.toml"],
            "is the input --config",
        ),
        (
            &["graph", "--frame", "--config", "c.toml", "--html", "c.toml"],
            "is the input --config",
        ),
    ];
    for (args, needle) in cases {
        refused(&tessera_in(&dir, args), 1, needle);
    }
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "[render]\nscene = \"s.toml\"\nframes = 1\n"
    );
    assert_eq!(std::fs::read(dir.join("s.toml")).unwrap(), courtyard);
    assert_eq!(std::fs::read_to_string(dir.join("r.json")).unwrap(), "{}");
    assert!(!dir.join("x").exists() && !dir.join("c.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_are_only_ever_regular_files() {
    let dir = scratch("special");
    let pipe = dir.join("pipe");
    fifo(&pipe);
    let target = dir.join("target.png");
    std::fs::write(&target, "keep").unwrap();
    std::os::unix::fs::symlink(&target, dir.join("link.png")).unwrap();
    std::os::unix::fs::symlink(&target, dir.join("link.plan.json")).unwrap();
    std::fs::create_dir(dir.join("d")).unwrap();
    std::fs::write(dir.join("f.json"), std::fs::read(deferred()).unwrap()).unwrap();
    std::fs::write(dir.join("afile"), "").unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["render", "--out", "pipe"],
            "--out pipe: exists and is a FIFO",
        ),
        (
            &["render", "--out", "link.png"],
            "--out link.png: exists and is a symbolic link",
        ),
        (&["render", "--out", "d"], "--out d: exists and is a folder"),
        (
            &["render", "--out", "d/"],
            "--out d/: names a folder; give a file name",
        ),
        (
            &["render", "--out", "afile/x.png"],
            "--out afile/x.png: afile is not a folder",
        ),
        (
            &["render", "--out", "f.png", "--capture", "pipe"],
            "--capture pipe: exists and is a FIFO",
        ),
        (
            &["render", "--out", "f.png", "--capture", "link.rdc"],
            "--capture's plan link.plan.json: exists and is a symbolic link",
        ),
        (
            &["exec", "f.json", "--capture", "pipe"],
            "--capture pipe: exists and is a FIFO",
        ),
        (
            &["graph", "f.json", "--dot", "pipe"],
            "--dot pipe: exists and is a FIFO",
        ),
        (
            &["graph", "f.json", "--html", "link.png"],
            "exists and is a symbolic link",
        ),
    ];
    for (args, needle) in cases {
        let out = within_a_minute(&dir, args).unwrap_or_else(|| panic!("{args:?} blocked"));
        refused(&out, 1, needle);
    }
    // /dev/null is refused by the check made before any work, and stays a device.
    let out = tessera_in(
        &dir,
        &["render", "--out", "f.png", "--capture", "/dev/null"],
    );
    refused(&out, 1, "--capture /dev/null: exists and is a device");
    use std::os::unix::fs::FileTypeExt as _;
    assert!(std::fs::symlink_metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    assert!(is_fifo(&pipe));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    // Nothing was left behind: no picture, no temporary or partial file.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "afile",
            "d",
            "f.json",
            "link.plan.json",
            "link.png",
            "pipe",
            "target.png"
        ],
    );
    assert_eq!(std::fs::read_dir(dir.join("d")).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_closed_pipe_never_turns_a_failing_verdict_into_success() {
    let dir = scratch("verdict");
    let plan = tessera(&["plan", &deferred(), "--json"]);
    assert!(plan.status.success());
    let mut cut: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    cut["barriers"] = serde_json::json!([]);
    std::fs::write(dir.join("cut.json"), cut.to_string()).unwrap();
    let d = deferred();
    let out = with_stdout_closed(&dir, &["check", &d, "cut.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    // A passing verdict stays a success, quietly.
    std::fs::write(dir.join("plan.json"), &plan.stdout).unwrap();
    let out = with_stdout_closed(&dir, &["check", &d, "plan.json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    // And with the verdict on standard error, as `plan --check` prints it.
    let out = with_stdout_closed(&dir, &["plan", &d, "--check"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn messages_a_newcomer_meets_say_what_is_wrong() {
    let dir = scratch("newcomer");
    std::fs::write(dir.join("afile"), "").unwrap();
    // A missing file is named once, with what is missing.
    for (args, needle) in [
        (
            &["plan", "--frame", "--config", "missing.toml"][..],
            "missing.toml: no such file",
        ),
        (
            &["bench", "--from", "missing.json"],
            "missing.json: no such file",
        ),
        (
            &["render", "--scene", "missing.glb"],
            "missing.glb: no such file",
        ),
    ] {
        let out = tessera_in(&dir, args);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.matches("no such file").count(), 1, "{args:?}: {err}");
    }
    // A scene the configuration names says which configuration named it.
    std::fs::write(dir.join("c.toml"), "[render]\nscene = \"gone.toml\"\n").unwrap();
    let out = tessera_in(&dir, &["plan", "--frame", "--config", "c.toml"]);
    let err = text(&out.stderr);
    assert!(
        err.contains("scene gone.toml named by c.toml: no such file"),
        "{err}"
    );
    // --out-dir naming a file says it is not a folder.
    refused(
        &tessera_in(&dir, &["run", "--out-dir", "afile"]),
        2,
        "--out-dir afile: is not a folder",
    );
    // A scripted capture without RenderDoc is refused up front.
    refused(
        &tessera_in(&dir, &["run", "--frames", "2", "--script", "1:capture"]),
        2,
        "a capture step needs --renderdoc",
    );
    // verify-capture speaks of the capture before its side files.
    let out = tessera_in(&dir, &["verify-capture", "missing.rdc"]);
    refused(&out, 1, "missing.rdc: no such capture file");
    assert!(!text(&out.stderr).contains("plan"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An output beyond the device's limits (lavapipe: 16384 texels a side) is one error before
/// anything is created: no validation message, with or without the layers.
#[test]
fn sizes_beyond_the_device_are_one_error_before_anything_is_created() {
    let dir = scratch("too-big");
    let out = dir.join("big.png");
    for extra in [None, Some("--no-validation")] {
        let mut args = vec![
            "render",
            "--width",
            "16384",
            "--height",
            "8",
            "--resolution-scale",
            "2",
            "--frames",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        let o = tessera(&args);
        fails_with(&o, "would be 32768x16 pixels");
        fails_with(&o, "maxImageDimension2D");
        assert!(!out.exists(), "nothing written");
    }
}
