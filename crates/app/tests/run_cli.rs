//! `tessera run`: the window presents frames through the graph under an X server (Xvfb),
//! with validation and synchronization validation (zero messages asserted); `--script`
//! drives the same actions as the keys (toggles, screenshots, plan dumps), resizes and
//! minimises it. The window tests print why and return when neither `xvfb-run` nor a
//! `DISPLAY` is available (they cannot run there); they are not `#[ignore]`d.

mod common;
use common::window::{assert_clean, picture, run_windowed, run_windowed_with};
use common::{repo, scratch, tessera, text};
use std::path::Path;
use std::process::Command;
use tessera_render::png_out::Picture;

#[test]
fn sixty_frames_in_the_window_match_tessera_render_of_the_same_camera() {
    let dir = scratch("sixty");
    let shot = dir.join("window.png");
    // Asked for after frame 59: frame 60 is read back.
    let script = format!("59:screenshot={}", shot.display());
    let Some(o) = run_windowed(&[
        "--frames",
        "60",
        "--width",
        "320",
        "--height",
        "180",
        "--no-overlay",
        "--script",
        &script,
    ]) else {
        return;
    };
    assert_clean(&o, 60);
    let window = picture(&shot);
    assert_eq!((window.width, window.height), (320, 180));
    // Not blank: the frame has light and dark parts.
    let lum: Vec<u32> = window
        .rgba
        .chunks_exact(4)
        .map(|p| u32::from(p[0]) + u32::from(p[1]) + u32::from(p[2]))
        .collect();
    let (lo, hi) = (lum.iter().min().unwrap(), lum.iter().max().unwrap());
    assert!(hi - lo > 200, "a flat picture: {lo}..{hi}");
    // `tessera render` of the same 60 frames (same camera, same light motion).
    let offscreen = dir.join("render.png");
    let r = tessera(&[
        "render",
        "--frames",
        "60",
        "--width",
        "320",
        "--height",
        "180",
        "--out",
        offscreen.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", text(&r.stderr));
    let d = window
        .difference(&picture(&offscreen))
        .expect("the same size");
    assert!(d.within_tolerance(320 * 180), "{d:?}");
}

#[test]
fn mailbox_presents_cleanly_or_falls_back_to_fifo() {
    let Some(o) = run_windowed(&[
        "--frames",
        "2",
        "--width",
        "160",
        "--height",
        "90",
        "--present-mode",
        "mailbox",
    ]) else {
        return;
    };
    assert_clean(&o, 2);
}

#[test]
fn a_resize_mid_run_recreates_the_swapchain_re_plans_and_stays_clean() {
    let Some(o) = run_windowed(&[
        "--frames",
        "6",
        "--width",
        "160",
        "--height",
        "90",
        "--script",
        "2:resize=200x120",
    ]) else {
        return;
    };
    let stdout = assert_clean(&o, 6);
    assert!(
        stdout.contains("swapchains created: 2 (last 200x120)"),
        "{stdout}"
    );
    assert!(stdout.contains("re-plan: resize to 200x120:"), "{stdout}");
}

#[test]
fn a_minimised_window_draws_nothing_and_sleeps_until_restored() {
    let Some(o) = run_windowed(&[
        "--frames",
        "6",
        "--width",
        "160",
        "--height",
        "90",
        "--script",
        "3:minimise=800",
    ]) else {
        return;
    };
    let stdout = assert_clean(&o, 6);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("minimised for "))
        .unwrap_or_else(|| panic!("no minimise line: {stdout}"));
    assert!(line.contains(" 0 frames drawn"), "{line}");
    // Asleep in the event wait: a fraction of the time on the CPU (the clock ticks at
    // 10 ms; a busy loop would use all 800 ms).
    let cpu: f64 = line
        .rsplit_once("CPU ")
        .and_then(|(_, c)| c.trim_end_matches(" ms").parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(cpu <= 100.0, "{line}");
    // Restoring recreates the swapchain.
    assert!(stdout.contains("swapchains created: 2"), "{stdout}");
}

/// `tessera run` of 13 frames at 320×180 with the lights paused after frame 1, `steps`
/// added to the script and a screenshot of frame 13; its stdout and the picture.
fn paused_run(dir: &Path, name: &str, steps: &str) -> Option<(String, Picture)> {
    let shot = dir.join(format!("{name}.png"));
    let script = format!("1:pause,{steps}12:screenshot={}", shot.display());
    let o = run_windowed(&[
        "--frames",
        "13",
        "--width",
        "320",
        "--height",
        "180",
        "--no-overlay",
        "--script",
        &script,
    ])?;
    Some((assert_clean(&o, 13), picture(&shot)))
}

#[test]
fn suspend_resume_and_rotation_drop_and_remake_the_surface_and_restore_the_picture() {
    let dir = scratch("suspend");
    // Android's lifecycle twice: the swapchain and the surface dropped, a new surface on
    // resume; then a rotation-like resize there and back. Each run is compared with the
    // same run without the suspends: a resize restarts the frame's temporal state
    // (exposure, history), so the rotation's reference has the same resizes.
    let suspends = "4:suspend=200,5:suspend=150,";
    let rotation = "6:resize=180x320,9:resize=320x180,";
    let Some((plain_out, plain)) = paused_run(&dir, "plain", "") else {
        return;
    };
    assert!(
        plain_out.contains("window surfaces created: 1;"),
        "{plain_out}"
    );
    let (out, suspended) = paused_run(&dir, "suspended", suspends).expect("a window");
    let lines = out.lines().filter(|l| l.starts_with("suspended for "));
    assert_eq!(lines.count(), 2, "{out}");
    assert!(
        out.contains("window surfaces created: 3;"),
        "one surface at open and one per resume: {out}"
    );
    let d = plain.difference(&suspended).expect("the same size");
    assert_eq!(d.max, 0, "the picture after suspend and resume: {d:?}");
    let (_, rotated) = paused_run(&dir, "rotated", rotation).expect("a window");
    let both = format!("{suspends}{rotation}");
    let (out, suspended_rotated) = paused_run(&dir, "both", &both).expect("a window");
    assert!(
        out.contains("window surfaces created: 3; swapchains created: 5 (last 320x180)"),
        "{out}"
    );
    assert!(out.contains("re-plan: resize to 180x320:"), "{out}");
    let d = rotated
        .difference(&suspended_rotated)
        .expect("the same size");
    assert_eq!(
        d.max, 0,
        "the picture after suspend, resume and rotation: {d:?}"
    );
}

#[test]
fn every_toggle_once_stays_clean_and_optimisations_never_change_the_picture() {
    let dir = scratch("toggles");
    let shot = |name: &str| dir.join(format!("{name}.png")).display().to_string();
    // Lights paused after frame 1 and a fixed exposure: every frame after is the same
    // picture unless a switch changes it.
    let mut steps = vec![
        "1:pause".to_string(),
        format!("2:screenshot={}", shot("base")),
    ];
    let optimisations = ["merge", "memoryless", "alias", "async", "reorder"];
    for (i, o) in optimisations.iter().enumerate() {
        let f = 3 + 2 * i;
        steps.push(format!("{f}:{o}"));
        steps.push(format!("{}:screenshot={}", f + 1, shot(o)));
    }
    steps.push("13:optimisations".into());
    steps.push("14:shadows".into());
    steps.push(format!("15:screenshot={}", shot("no-shadows")));
    for (i, f) in [
        "ssao",
        "bloom",
        "exposure",
        "aa",
        "clustering",
        "debug-view",
        "camera",
        "overlay",
    ]
    .iter()
    .enumerate()
    {
        steps.push(format!("{}:{f}", 16 + i));
    }
    let script = steps.join(",");
    let Some(o) = run_windowed(&[
        "--frames",
        "26",
        "--width",
        "160",
        "--height",
        "90",
        "--exposure",
        "1",
        // FXAA: TAA's frames differ from one to the next by design.
        "--aa",
        "fxaa",
        "--emulate-async",
        "--no-overlay",
        "--script",
        &script,
    ]) else {
        return;
    };
    let stdout = assert_clean(&o, 26);
    let base = picture(&dir.join("base.png"));
    for o in optimisations {
        let p = picture(&dir.join(format!("{o}.png")));
        assert!(p.rgba == base.rgba, "{o} off changed the picture");
        assert!(
            stdout.contains(&format!("{o} off: re-planned in")),
            "{o}: {stdout}"
        );
    }
    assert!(
        stdout.contains("every optimisation on: re-planned in"),
        "{stdout}"
    );
    // A feature does change it.
    assert!(
        picture(&dir.join("no-shadows.png")).rgba != base.rgba,
        "shadows off left the picture as it was"
    );
    for said in [
        "shadows off:",
        "ssao prepass:",
        "bloom tonemap:",
        "exposure auto:",
        // From FXAA (pinned above) the key steps on to TAA.
        "aa taa:",
        "clustering off:",
        "debug view albedo:",
        "ui on:",
    ] {
        assert!(stdout.contains(said), "{said}: {stdout}");
    }
}

#[test]
fn the_plan_key_writes_the_plan_json_and_the_viewer_page() {
    let dir = scratch("plan");
    let base = dir.join("now.json");
    let script = format!("2:plan={}", base.display());
    let Some(o) = run_windowed(&[
        "--frames", "3", "--width", "160", "--height", "90", "--script", &script,
    ]) else {
        return;
    };
    assert_clean(&o, 3);
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).expect("the plan was written"))
            .expect("plan JSON");
    assert!(
        plan["render_passes"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{plan}"
    );
    let html = std::fs::read_to_string(dir.join("now.html")).expect("the page was written");
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..80.min(html.len())]
    );
    assert!(html.contains("lighting"));
}

/// F9 (here its script step) captures a presented frame with RenderDoc and writes the plan
/// beside it: the capture, swapchain image and UI included, verifies against it.
#[test]
fn the_capture_key_writes_a_capture_that_verifies_against_its_plan() {
    let dir = scratch("capture");
    let rdc = dir.join("window.rdc");
    let script = format!("2:capture={}", rdc.display());
    let Some(o) = run_windowed(&[
        "--renderdoc",
        "--frames",
        "3",
        "--width",
        "160",
        "--height",
        "96",
        "--script",
        &script,
    ]) else {
        return;
    };
    let stdout = assert_clean(&o, 3);
    assert!(stdout.contains("wrote the RenderDoc capture"), "{stdout}");
    for side in ["plan", "frame", "device"] {
        assert!(
            dir.join(format!("window.{side}.json")).is_file(),
            "no {side} file"
        );
    }
    let v = tessera(&["verify-capture", rdc.to_str().unwrap()]);
    let out = text(&v.stdout) + &text(&v.stderr);
    assert_eq!(v.status.code(), Some(0), "{out}");
    assert!(
        out.lines()
            // The desktop post chain is compute: the UI is the presented render pass.
            .any(|l| {
                l.split_whitespace().nth(1) == Some("ui")
                    && l.contains("output")
                    && l.ends_with("ok")
            }),
        "the presented render pass is not verified: {out}"
    );
}

#[test]
fn without_a_display_it_says_so_and_renders_headless() {
    let dir = scratch("headless");
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["run", "--frames", "2", "--width", "160", "--height", "90"])
        .arg("--out-dir")
        .arg(&dir)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(repo())
        .output()
        .expect("tessera runs");
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("no display"), "{stdout}");
    assert!(stdout.contains("frame.png"), "{stdout}");
    assert!(stdout.contains("render passes"), "{stdout}");
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    let p = picture(&dir.join("frame.png"));
    assert_eq!((p.width, p.height), (160, 90));
}

#[test]
fn config_and_flag_errors_exit_2_with_one_message() {
    let dir = scratch("errors");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[window]\npresent_mode = \"vsync\"\n").unwrap();
    let bad_feature = dir.join("feature.toml");
    std::fs::write(&bad_feature, "[features]\nssao = 3\n").unwrap();
    let missing = dir.join("nope");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--config".into(), bad.display().to_string()],
            "bad.toml:2:",
        ),
        (
            vec!["--config".into(), bad_feature.display().to_string()],
            "feature.toml:2:",
        ),
        (
            vec!["--present-mode".into(), "vsync".into()],
            "--present-mode",
        ),
        (vec!["--width".into(), "0".into()], "--width"),
        (vec!["--frames".into(), "0".into()], "--frames"),
        (
            vec!["--script".into(), "3:merg".into()],
            "unknown step 'merg'",
        ),
        (
            vec!["--out-dir".into(), missing.display().to_string()],
            "--out-dir",
        ),
        (
            vec![
                "--debug-view".into(),
                "shadow3".into(),
                "--cascades".into(),
                "2".into(),
            ],
            "--debug-view shadow3",
        ),
    ];
    for (args, needle) in cases {
        let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("run")
            .args(&args)
            .current_dir(repo())
            .output()
            .expect("tessera runs");
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn help_documents_every_key_and_flag() {
    let o = tessera(&["run", "--help"]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}");
    for needle in [
        "--frames",
        "--present-mode",
        "--script",
        "--renderdoc",
        "--no-overlay",
        "--config",
        "--scene",
        "--width",
        "subpass merging on/off (merge)",
        "screenshot of the window to PNG (screenshot)",
        "RenderDoc capture of the next frame",
        "reload shaders",
        "W/S forward/back",
        "Esc",
        "F12",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}

#[test]
fn tessera_alone_is_tessera_run() {
    // `cargo run --release` runs the binary without arguments: the demo, here without a
    // display (so headless, into the working directory).
    let dir = scratch("alone");
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(&dir)
        .output()
        .expect("tessera runs");
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("no display"), "{stdout}");
    let p = picture(&dir.join("frame.png"));
    // [window]'s size of the embedded config/default.toml.
    assert_eq!((p.width, p.height), (1280, 720));
}

#[test]
fn a_shader_that_fails_to_reload_keeps_the_old_pipelines_and_says_why() {
    let dir = scratch("reload");
    let shaders = dir.join("shaders");
    std::fs::create_dir_all(&shaders).unwrap();
    for e in std::fs::read_dir(repo().join("shaders/render")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), shaders.join(e.file_name())).unwrap();
    }
    let post = shaders.join("post.frag");
    let text_of = std::fs::read_to_string(&post).unwrap();
    std::fs::write(
        &post,
        text_of.replacen("void main()", "void main() { oops; }\nvoid unused()", 1),
    )
    .unwrap();
    let (a, b) = (dir.join("before.png"), dir.join("after.png"));
    let script = format!(
        "1:pause,2:screenshot={},3:reload,4:screenshot={}",
        a.display(),
        b.display()
    );
    let Some(o) = run_windowed(&[
        "--frames",
        "6",
        "--width",
        "160",
        "--height",
        "90",
        "--exposure",
        "1",
        // FXAA: TAA's frames differ from one to the next by design.
        "--aa",
        "fxaa",
        // The raster chain, whose last pass is post.frag's.
        "--post",
        "raster",
        "--no-overlay",
        "--shader-dir",
        shaders.to_str().unwrap(),
        "--script",
        &script,
    ]) else {
        return;
    };
    assert_clean(&o, 6);
    let stderr = text(&o.stderr);
    assert!(stderr.contains("shader reload failed"), "{stderr}");
    assert!(stderr.contains("post.frag:"), "{stderr}");
    // The old pipelines drew the same picture.
    assert!(picture(&a).rgba == picture(&b).rgba);
}

#[test]
fn a_scripted_screenshot_at_a_relative_path_goes_into_the_out_dir() {
    let dir = scratch("relative-shot");
    let Some(o) = run_windowed(&[
        "--frames",
        "3",
        "--width",
        "160",
        "--height",
        "90",
        "--out-dir",
        dir.to_str().unwrap(),
        "--script",
        "1:screenshot=rel.png",
    ]) else {
        return;
    };
    assert_clean(&o, 3);
    let p = picture(&dir.join("rel.png"));
    assert_eq!((p.width, p.height), (160, 90));
}

#[test]
fn an_unreachable_display_and_a_missing_driver_are_named() {
    // No X server answers on display 987: the error names it, not a line of winit's source.
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["run", "--frames", "2", "--width", "160", "--height", "90"])
        .env("DISPLAY", ":987")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(scratch("no-display"))
        .output()
        .expect("tessera runs");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot open the X display DISPLAY=:987"),
        "{err}"
    );
    assert!(
        !err.contains(".cargo") && !err.contains("panicked"),
        "{err}"
    );
    // A display but no Vulkan driver: the same words as `tessera render`.
    let Some(o) = run_windowed_with(
        &["--frames", "2", "--width", "160", "--height", "90"],
        &[("VK_ICD_FILENAMES", "/nonexistent/icd.json")],
    ) else {
        return;
    };
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("no Vulkan device"), "{err}");
}
