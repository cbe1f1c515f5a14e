//! Every `tessera ...` command line in README.md's code blocks runs, as written, in a fresh
//! folder holding the files the examples name (`FRAME.json`, `model.glb`, `my.toml`, ...):
//! exit 0 (a `$` transcript's commands must also print what the README quotes). To keep the
//! run short on a CPU rasteriser, `render` and `run` get `--width 160 --height 90` and one or
//! two frames where the example does not set them, `bench` a 64x36 size and two frames, and
//! `run` goes under `xvfb-run -a` (a `--script` runs to its last step). Synopses
//! (`[--flag ...]`) are not examples.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{repo, scratch, text};

/// A command line found in the README, and where.
struct Example {
    line: usize,
    command: String,
}

/// A `$` transcript: commands with the output the README quotes after each.
struct Transcript {
    line: usize,
    steps: Vec<(String, Vec<String>)>,
}

/// The `tessera` lines of every fenced block, and the `$` transcripts.
fn examples(readme: &str) -> (Vec<Example>, Vec<Transcript>) {
    let mut examples = Vec::new();
    let mut transcripts = Vec::new();
    let mut in_block = false;
    let mut transcript: Option<Transcript> = None;
    for (i, line) in readme.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            if let Some(t) = transcript.take() {
                transcripts.push(t);
            }
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            let t = transcript.get_or_insert(Transcript {
                line: i + 1,
                steps: Vec::new(),
            });
            t.steps.push((command.to_string(), Vec::new()));
            continue;
        }
        if let Some(t) = &mut transcript {
            if let Some((_, expected)) = t.steps.last_mut() {
                expected.push(line.to_string());
            }
            continue;
        }
        let command = line.split(" #").next().unwrap_or_default().trim();
        let words: Vec<&str> = command.split_whitespace().collect();
        let is_tessera = matches!(
            words.as_slice(),
            ["tessera", ..] | ["xvfb-run", "-a", "tessera", ..]
        );
        if is_tessera {
            examples.push(Example {
                line: i + 1,
                command: command.to_string(),
            });
        }
    }
    (examples, transcripts)
}

/// Why an example is not run, if it is not.
fn skipped(command: &str) -> Option<&'static str> {
    if command.contains("[--") || command.contains("|DIR") {
        return Some("a synopsis, not an example");
    }
    None
}

/// The example made small: sizes and frames where it does not set them, Xvfb for `run`.
fn small(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "tessera").unwrap();
    let sub = words.get(at + 1).copied().unwrap_or("");
    let has = |flag: &str| words.contains(&flag);
    let mut out: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let help = has("--help");
    match sub {
        "render" | "run" if !help => {
            if !has("--width") && !has("--height") {
                out.extend(["--width", "160", "--height", "90"].map(String::from));
            }
            if !has("--frames") {
                let n = if sub == "run" { 2 } else { 1 };
                // A script's last step, and the frame that shows it.
                let n = words
                    .iter()
                    .position(|w| *w == "--script")
                    .and_then(|i| words.get(i + 1))
                    .map_or(n, |steps| last_step(steps) + 2);
                out.extend(["--frames".to_string(), n.to_string()]);
            }
            if sub == "run" && at == 0 {
                out.splice(0..0, ["xvfb-run", "-a"].map(String::from));
            }
        }
        "bench" if !has("--from") => {
            for (flag, value) in [("--sizes", "64x36"), ("--frames", "2")] {
                match out.iter().position(|w| w == flag) {
                    Some(i) => out[i + 1] = value.to_string(),
                    None => out.extend([flag.to_string(), value.to_string()]),
                }
            }
            if !has("--warmup") {
                out.extend(["--warmup", "0"].map(String::from));
            }
        }
        _ => {}
    }
    out.join(" ")
}

/// The largest FRAME of a `--script` value (`FRAME:STEP,...`).
fn last_step(steps: &str) -> u64 {
    steps
        .split(',')
        .filter_map(|s| s.split(':').next()?.trim().parse().ok())
        .max()
        .unwrap_or(0)
}

/// Runs `command` with `sh -c` in `dir`, `tessera` on the PATH; (exit code, stdout,
/// stderr). Killed after two minutes.
fn sh(dir: &Path, command: &str) -> (Option<i32>, String, String) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_tessera"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let o = child.wait_with_output().unwrap();
    (o.status.code(), text(&o.stdout), text(&o.stderr))
}

/// The files the examples name, in `dir`.
fn fixtures(dir: &Path) {
    let copy = |from: &Path, to: &str| {
        let to = dir.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, &to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    };
    let graphs = repo().join("assets/graphs");
    copy(&graphs.join("deferred.json"), "FRAME.json");
    copy(&graphs.join("deferred.json"), "OLD.json");
    copy(&graphs.join("tile_deferred.json"), "NEW.json");
    copy(
        &graphs.join("tile_deferred.json"),
        "assets/graphs/tile_deferred.json",
    );
    copy(&repo().join("fuzz/seeds/small.toml"), "FRAME.toml");
    copy(
        Path::new("/usr/share/assimp/models/glTF2/BoxTextured-glTF-Binary/BoxTextured.glb"),
        "model.glb",
    );
    std::fs::write(
        dir.join("my.toml"),
        "[render]\nwidth = 160\nheight = 90\nframes = 1\n\n[features]\nssao = \"off\"\n",
    )
    .unwrap();
    let (code, plan, err) = sh(dir, "tessera plan FRAME.json --json > PLAN.json");
    assert_eq!(code, Some(0), "{plan}{err}");
}

/// A transcript's comment step: the edit it describes, done to the files in `dir`.
fn edit(dir: &Path, comment: &str) {
    assert!(
        comment.contains("store_op \"store\" -> \"dont_care\""),
        "a transcript step this test cannot do: {comment}"
    );
    let path = dir.join("plan.json");
    let mut plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for rp in plan["render_passes"].as_array_mut().unwrap() {
        for a in rp["attachments"].as_array_mut().unwrap() {
            if a["resource"] == "swapchain" && a["store_op"] == "store" {
                a["store_op"] = "dont_care".into();
            }
        }
    }
    std::fs::write(&path, plan.to_string()).unwrap();
}

#[test]
fn every_readme_example_runs_as_written() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let (examples, transcripts) = examples(&readme);
    assert!(
        examples.len() > 30,
        "only {} examples found",
        examples.len()
    );
    assert!(!transcripts.is_empty(), "the check transcript is found");
    let dir = scratch("readme");
    fixtures(&dir);
    let mut failures = Vec::new();
    let mut skips = Vec::new();
    for e in &examples {
        if let Some(why) = skipped(&e.command) {
            skips.push(format!("README.md:{}: {} ({why})", e.line, e.command));
            continue;
        }
        let run = small(&e.command);
        let (code, out, err) = sh(&dir, &run);
        if code != Some(0) {
            failures.push(format!(
                "README.md:{}: `{}` (run as `{run}`) exited {code:?}:\n{out}{err}",
                e.line, e.command
            ));
        }
        // A scripted screenshot lands where the README says: in the output folder.
        for shot in e
            .command
            .split([',', ' '])
            .filter_map(|w| w.split_once("screenshot="))
        {
            if !dir.join(shot.1).is_file() {
                failures.push(format!(
                    "README.md:{}: `{}` wrote no {}",
                    e.line, e.command, shot.1
                ));
            }
        }
    }
    for t in &transcripts {
        for (command, expected) in &t.steps {
            if let Some(comment) = command.strip_prefix("# ") {
                edit(&dir, comment);
                continue;
            }
            let (code, out, err) = sh(&dir, command);
            let expected_code = if expected.iter().any(|l| l.contains(" violation")) {
                1
            } else {
                0
            };
            let printed: Vec<&str> = out.lines().collect();
            if code != Some(expected_code) || printed != *expected {
                failures.push(format!(
                    "README.md:{}: `{command}` exited {code:?} (expected {expected_code}) and \
                     printed:\n{out}{err}\ninstead of:\n{}",
                    t.line,
                    expected.join("\n")
                ));
            }
        }
    }
    eprintln!("not run:\n{}", skips.join("\n"));
    assert!(
        failures.is_empty(),
        "{} README examples failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
