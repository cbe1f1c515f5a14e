//! The window's egui UI, driven as a user would: scripted clicks through egui's input
//! (`--script ui=LABEL`, `tap=LABEL`, `click=X,Y`), a real click from the window system
//! (`xdotool`), dropped files. Xvfb and lavapipe with validation and synchronization
//! validation: every run asserts zero messages. Like the other window tests they print why
//! and return where no X server can be had.

mod common;
use common::scratch;
use common::window::{assert_clean, picture, run_windowed};
use std::path::Path;
use std::process::Command;
use tessera_render::png_out::Picture;

/// Flags that make every frame after the first the same picture unless a switch changes
/// it: a fixed exposure and FXAA (TAA's frames differ by design); `1:pause` stops the
/// lights.
const STILL: [&str; 4] = ["--exposure", "1", "--aa", "fxaa"];

/// The share of pixels (0–1) whose colour differs between two pictures of one size.
fn covered(a: &Picture, b: &Picture) -> f64 {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let differ = a
        .rgba
        .chunks_exact(4)
        .zip(b.rgba.chunks_exact(4))
        .filter(|(x, y)| x[..3] != y[..3])
        .count();
    differ as f64 / f64::from(a.width * a.height)
}

/// `run` with `args` plus [`STILL`], `--frames frames` and `--script script`.
fn still_run(frames: u32, size: (u32, u32), extra: &[&str], script: &str) -> Option<String> {
    let (f, w, h) = (frames.to_string(), size.0.to_string(), size.1.to_string());
    let mut args = vec!["--frames", &f, "--width", &w, "--height", &h];
    args.extend(STILL);
    args.extend(extra);
    args.extend(["--script", script]);
    let o = run_windowed(&args)?;
    Some(assert_clean(&o, u64::from(frames)))
}

/// The UI's share of a `size` window: a screenshot with the UI shown against one with it
/// hidden, of the same paused frame.
fn ui_share(dir: &Path, size: (u32, u32)) -> Option<(f64, String)> {
    let (off, on) = (dir.join("off.png"), dir.join("on.png"));
    let script = format!(
        "1:pause,2:screenshot={},3:overlay,5:screenshot={}",
        off.display(),
        on.display()
    );
    let stdout = still_run(6, size, &["--post", "raster", "--no-overlay"], &script)?;
    Some((covered(&picture(&off), &picture(&on)), stdout))
}

#[test]
fn the_ui_is_a_pass_that_joins_the_last_post_pass_and_leaves_the_frame_visible() {
    let dir = scratch("share-720p");
    let Some((share, stdout)) = ui_share(&dir, (1280, 720)) else {
        return;
    };
    // Showing it adds the `ui` pass, which the compiler merges into the last post pass's
    // render pass as a subpass.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("ui on: re-planned in"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("merged fxaa + ui"), "{line}");
    assert!(
        (0.02..=0.25).contains(&share),
        "the UI covers {:.1}% of 1280x720",
        share * 100.0
    );
    println!("the UI covers {:.1}% of 1280x720", share * 100.0);
}

#[test]
fn on_a_small_window_the_ui_starts_collapsed_to_titles() {
    let dir = scratch("share-360p");
    let Some((share, _)) = ui_share(&dir, (640, 360)) else {
        return;
    };
    assert!(
        (0.005..=0.10).contains(&share),
        "the UI covers {:.1}% of 640x360",
        share * 100.0
    );
    println!("the UI covers {:.1}% of 640x360", share * 100.0);
}

/// The widget rectangle `script: ui=LABEL at (x, y), the widget's pixels (x0, y0)-(x1, y1)`
/// says, as (x0, y0, x1, y1).
fn widget_rect(stdout: &str, step: &str) -> (u32, u32, u32, u32) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("script: {step} at")))
        .unwrap_or_else(|| panic!("no '{step}' line: {stdout}"));
    let nums: Vec<u32> = line
        .rsplit("pixels ")
        .next()
        .unwrap_or_default()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(nums.len(), 4, "{line}");
    (nums[0], nums[1], nums[2], nums[3])
}

/// Bright pixels (every channel above 150) in the square at the left end of a checkbox
/// widget's rectangle: its box, where the check mark is drawn.
fn check_mark_pixels(p: &Picture, (x0, y0, _, y1): (u32, u32, u32, u32)) -> usize {
    let side = y1 - y0;
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x0 + side {
            let i = 4 * (y * p.width + x) as usize;
            if p.rgba[i..i + 3].iter().all(|&c| c > 150) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn a_scripted_click_on_a_checkbox_switches_it_and_the_box_is_cleared() {
    let dir = scratch("click");
    let (before, after) = (dir.join("before.png"), dir.join("after.png"));
    // The raster post chain: the UI joins its render pass, which merging can undo.
    let script = format!(
        "1:pause,2:screenshot={},3:ui=merge,4:click=700,500,6:screenshot={}",
        before.display(),
        after.display()
    );
    let Some(stdout) = still_run(7, (960, 540), &["--post", "raster"], &script) else {
        return;
    };
    assert!(stdout.contains("merge off: re-planned in"), "{stdout}");
    assert!(stdout.contains("split fxaa | ui"), "{stdout}");
    let rect = widget_rect(&stdout, "ui=merge");
    let (was, is) = (
        check_mark_pixels(&picture(&before), rect),
        check_mark_pixels(&picture(&after), rect),
    );
    assert!(
        was >= 10 && is == 0,
        "check mark pixels before {was}, after {is}"
    );
}

#[test]
fn a_real_click_from_the_window_system_switches_it_too() {
    // xdotool clicks where a scripted run of the same window says the checkbox is.
    let Some(stdout) = still_run(4, (960, 540), &["--post", "raster"], "1:pause,2:ui=merge") else {
        return;
    };
    let (x0, y0, x1, y1) = widget_rect(&stdout, "ui=merge");
    real_click("xdotool", "1:pause,2", ((x0 + x1) / 2, (y0 + y1) / 2));
}

#[test]
fn a_real_click_on_a_simulated_rotated_surface_lands_on_the_widget_drawn_there() {
    // With `rotate=90` the 960×540 window shows the 540×960 upright frame pre-rotated: the
    // checkbox the scripted run finds at upright (x, y) is drawn at window (y, 540 - x),
    // and a click there must reach it.
    let script = "1:pause,1:rotate=90,3:ui=merge";
    let Some(stdout) = still_run(6, (960, 540), &["--post", "raster"], script) else {
        return;
    };
    let (x0, y0, x1, y1) = widget_rect(&stdout, "ui=merge");
    let (x, y) = ((x0 + x1) / 2, (y0 + y1) / 2);
    real_click("xdotool-rotated", "1:pause,1:rotate=90,4", (y, 540 - x));
}

/// A 960×540 window running `script` (its last piece the frame of the `ready.png`
/// screenshot), clicked by xdotool at window pixel `at` once that is written: the click
/// must switch merge off, with no validation message.
fn real_click(name: &str, script: &str, (x, y): (u32, u32)) {
    let dir = scratch(name);
    // Where the window tests run (an X server), the test command has installed xdotool too
    // (scripts/deps.sh): its absence is a failure, not a reason to pass.
    let xdotool = Command::new("xdotool").arg("--version").output();
    assert!(
        xdotool.is_ok_and(|o| o.status.success()),
        "xdotool is missing: install it (scripts/deps.sh lists it) to click through X"
    );
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        eprintln!("SKIPPED: no xvfb-run here to run xdotool in");
        return;
    }
    // The run writes `ready.png` after the script's frame; the shell waits for it (or for
    // the run's end), clicks, waits for the re-plan to be logged and presses Escape. Every
    // wait is for an event, bounded by a generous limit, never a sleep that must be long
    // enough.
    let log = dir.join("run.log");
    let ready = dir.join("ready.png");
    let shell = format!(
        r#"
        bin="$1"; log="$2"; ready="$3"
        "$bin" run --frames 100000 --width 960 --height 540 --exposure 1 --aa fxaa \
            --post raster --script "{script}:screenshot=$ready" >"$log" 2>&1 &
        pid=$!
        for i in $(seq 600); do [ -f "$ready" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.2; done
        win=$(xdotool search --sync --limit 1 --name '^tessera' 2>/dev/null)
        xdotool mousemove --window "$win" {x} {y} click 1
        for i in $(seq 1200); do grep -q "merge off: re-planned" "$log" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
        # Escape to the window, focused first (there is no window manager to focus it).
        xdotool windowfocus --sync "$win"
        xdotool key Escape
        for i in $(seq 600); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
        kill $pid 2>/dev/null
        wait $pid
        "#
    );
    let o = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            "sh",
            "-c",
            &shell,
            "sh",
        ])
        .arg(env!("CARGO_BIN_EXE_tessera"))
        .arg(&log)
        .arg(&ready)
        .current_dir(&dir)
        .output()
        .expect("xvfb-run runs");
    let out = std::fs::read_to_string(&log).unwrap_or_default();
    // The click first: it says whether the input reached the widget, whatever the exit.
    assert!(out.contains("merge off: re-planned in"), "{out}");
    assert!(o.status.success(), "{out}{}", common::text(&o.stderr));
    assert!(out.contains("validation messages: 0"), "{out}");
}

#[test]
fn a_dropped_model_loads_and_a_broken_one_leaves_the_scene_and_says_why() {
    let dir = scratch("drop");
    let good = "/usr/share/assimp/models/glTF2/BoxTextured-glTF/BoxTextured.gltf";
    let broken = "/usr/share/assimp/models/glTF2/IndexOutOfRange/IndexOutOfRange.gltf";
    if !Path::new(good).is_file() || !Path::new(broken).is_file() {
        eprintln!("SKIPPED: the assimp glTF models are not installed");
        return;
    }
    let shot = |n: &str| dir.join(format!("{n}.png"));
    let script = format!(
        "1:pause,2:screenshot={},3:drop={broken},5:screenshot={},6:drop={good},8:screenshot={}",
        shot("first").display(),
        shot("after-broken").display(),
        shot("after-good").display()
    );
    let Some(stdout) = still_run(9, (480, 270), &["--no-overlay"], &script) else {
        return;
    };
    assert!(
        stdout.contains("IndexOutOfRange.gltf did not load, the scene stays"),
        "{stdout}"
    );
    assert!(
        stdout.contains("loaded the dropped scene") && stdout.contains("BoxTextured.gltf"),
        "{stdout}"
    );
    let (first, broken, good) = (
        picture(&shot("first")),
        picture(&shot("after-broken")),
        picture(&shot("after-good")),
    );
    assert!(
        broken.rgba == first.rgba,
        "the broken file changed the picture"
    );
    assert!(
        covered(&first, &good) > 0.2,
        "the dropped model is not what the window shows"
    );
}

#[test]
fn the_error_of_a_dropped_file_shows_in_the_ui() {
    let dir = scratch("drop-error");
    let broken = dir.join("broken.glb");
    std::fs::write(&broken, b"glTF not really").unwrap();
    let (before, after) = (dir.join("before.png"), dir.join("after.png"));
    let script = format!(
        "1:pause,2:screenshot={},3:drop={},5:screenshot={}",
        before.display(),
        broken.display(),
        after.display()
    );
    let Some(stdout) = still_run(6, (960, 540), &[], &script) else {
        return;
    };
    assert!(stdout.contains("broken.glb did not load"), "{stdout}");
    // The scene stays; the Last change panel (bottom of the left column) says why in red.
    let (a, b) = (picture(&before), picture(&after));
    let red_after = (0..(b.width * b.height) as usize)
        .filter(|&i| {
            let (r, g, bl) = (b.rgba[4 * i], b.rgba[4 * i + 1], b.rgba[4 * i + 2]);
            r > 200 && g < 140 && bl < 140 && a.rgba[4 * i..4 * i + 3] != b.rgba[4 * i..4 * i + 3]
        })
        .count();
    assert!(
        red_after > 50,
        "no red error text appeared ({red_after} pixels)"
    );
}

#[test]
fn gpu_times_and_the_frame_graph_update_every_frame_while_switches_change_every_frame() {
    // A switch every frame re-plans every frame; the GPU times still come from the newest
    // completed frame each frame (the UI's Frame panel draws them).
    let steps: Vec<String> = (2..=11).map(|f| format!("{f}:merge")).collect();
    let Some(stdout) = still_run(12, (320, 180), &["--post", "raster"], &steps.join(",")) else {
        return;
    };
    let line = stdout
        .lines()
        .find(|l| l.starts_with("ui: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let from: u32 = line
        .split("GPU times new in every frame from frame ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not every frame: {line}"));
    assert!(from <= 3, "{line}");
    assert_eq!(stdout.matches(": re-planned in").count(), 10, "{stdout}");
}

#[test]
fn optimisations_switched_in_the_ui_never_change_the_picture() {
    let dir = scratch("ui-switches");
    let shot = |n: &str| dir.join(format!("{n}.png"));
    // The raster chains and the emulated async queue: merge, alias, async and reorder each
    // change the plan here. Each is clicked with the UI shown, then the UI is hidden for the
    // screenshot.
    let mut steps = vec![
        "1:pause".to_string(),
        format!("2:screenshot={}", shot("base").display()),
        "3:overlay".into(),
        // A small window's panels start collapsed: open Optimisations.
        "4:ui=Optimisations".into(),
    ];
    let switches = ["merge", "alias", "async"];
    for (i, s) in switches.iter().enumerate() {
        let f = 6 + 6 * i;
        steps.push(format!("{f}:ui={s}"));
        steps.push(format!("{}:overlay", f + 2));
        steps.push(format!("{}:screenshot={}", f + 3, shot(s).display()));
        steps.push(format!("{}:overlay", f + 4));
    }
    let frames = 6 + 6 * switches.len() as u32;
    let extra = [
        "--post",
        "raster",
        "--lighting",
        "raster",
        "--emulate-async",
        "--no-overlay",
    ];
    let Some(stdout) = still_run(frames, (320, 180), &extra, &steps.join(",")) else {
        return;
    };
    let base = picture(&shot("base"));
    for s in switches {
        assert!(
            stdout.contains(&format!("{s} off: re-planned in")),
            "{s}: {stdout}"
        );
        assert!(
            picture(&shot(s)).rgba == base.rgba,
            "{s} off (through the UI) changed the picture"
        );
    }
}

#[test]
fn a_finger_tap_on_a_panel_title_opens_it_and_a_tap_on_a_switch_switches_it() {
    // The phone's path on desktop: the profile comes from the device, and fingers go
    // through egui's touch input.
    let Some(stdout) = still_run(
        8,
        (640, 360),
        &["--profile", "auto", "--post", "raster"],
        "1:pause,2:tap=Optimisations,4:tap=merge",
    ) else {
        return;
    };
    assert!(
        stdout.contains("profile desktop chosen by the device:") && stdout.contains("not a tiler"),
        "{stdout}"
    );
    assert!(stdout.contains("merge off: re-planned in"), "{stdout}");
    // A widget the UI does not show cannot be tapped: one clear error, exit 1.
    let o = run_windowed(&[
        "--frames",
        "4",
        "--width",
        "320",
        "--height",
        "180",
        "--script",
        "2:tap=merge",
    ])
    .expect("a window");
    let stderr = common::text(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains("tap=merge: the UI shows no widget 'merge'")
            && stderr.contains("Optimisations"),
        "{stderr}"
    );
}

#[test]
fn a_simulated_rotated_surface_shows_the_upright_frame_and_taps_land_on_their_widget() {
    // The upright 180×320 frame (a phone held in portrait on a landscape panel) against the
    // 320×180 window pre-rotated for a 90° surface transform: the window's image, turned as
    // the presentation engine would, is the upright frame (a pure texel remap: exact). The
    // UI is hidden for the pictures (the rotated run's shows its re-plan as the last
    // change; `rotate_gpu.rs` compares a rotated UI), then shown for the taps.
    let dir = scratch("rotate");
    let (up, turned) = (dir.join("upright.png"), dir.join("rotated.png"));
    let flags = ["--post", "raster", "--no-overlay"];
    let upright_script = format!("1:pause,3:screenshot={}", up.display());
    if still_run(4, (180, 320), &flags, &upright_script).is_none() {
        return;
    }
    let script = format!(
        "1:pause,1:rotate=90,3:screenshot={},4:overlay,5:tap=Optimisations,7:tap=merge",
        turned.display()
    );
    let Some(stdout) = still_run(10, (320, 180), &flags, &script) else {
        return;
    };
    assert!(
        stdout.contains("simulating a surface rotated 90°")
            && stdout.contains("resize to 180x320, pre-rotated 90°"),
        "{stdout}"
    );
    let (upright, physical) = (picture(&up), picture(&turned));
    assert_eq!((physical.width, physical.height), (320, 180));
    let shown = physical.turned_cw(1);
    assert!(
        shown.rgba == upright.rgba,
        "the rotated window's picture, turned back, differs from the upright frame: {:?}",
        shown.difference(&upright)
    );
    // The scripted taps land on the widgets drawn there (egui's positions are upright).
    assert!(stdout.contains("merge off: re-planned in"), "{stdout}");
}

/// The Animation panel's "animate" box pauses a glTF model's animation where it is and plays
/// it again. The screenshots are taken with the UI hidden (its figures change every frame).
#[test]
fn the_animate_box_pauses_and_plays_the_animation() {
    let dir = scratch("animate-ui");
    let model = common::write_animated_quad(&dir);
    let shot = |n: &str| dir.join(format!("{n}.png"));
    let script = format!(
        "2:ui=animate,3:overlay,4:screenshot={},7:screenshot={},\
         8:overlay,10:ui=animate,11:overlay,12:screenshot={},15:screenshot={}",
        shot("paused").display(),
        shot("still paused").display(),
        shot("playing").display(),
        shot("moved on").display()
    );
    let scene = model.to_str().unwrap();
    let extra = [
        "--scene",
        scene,
        "--camera-position",
        "1,0,4",
        "--camera-target",
        "1,0,0",
    ];
    let Some(stdout) = still_run(16, (960, 540), &extra, &script) else {
        return;
    };
    assert!(stdout.contains("animation paused"), "{stdout}");
    assert!(stdout.contains("animation playing"), "{stdout}");
    let [paused, still, playing, moved] =
        ["paused", "still paused", "playing", "moved on"].map(|n| picture(&shot(n)));
    assert!(
        paused.rgba == still.rgba,
        "the quad moved while the animation was paused"
    );
    assert!(
        covered(&playing, &moved) > 0.001,
        "the quad did not move once the animation played again"
    );
}
