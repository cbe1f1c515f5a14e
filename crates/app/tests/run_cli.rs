//! `tessera run`: the window presents frames through the graph under an X server (Xvfb),
//! with validation and synchronization validation, and says so plainly when there is no
//! display. The window tests print why and return when neither `xvfb-run` nor a `DISPLAY`
//! is available (they cannot run there); they are not `#[ignore]`d.

mod common;
use common::{repo, text};
use std::process::{Command, Output};

/// `tessera run ARGS` under `xvfb-run -a` (or the `DISPLAY` there is); `None` with the
/// reason printed when neither exists.
fn run_windowed(args: &[&str]) -> Option<Output> {
    let bin = env!("CARGO_BIN_EXE_tessera");
    let xvfb = Command::new("xvfb-run")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stdout.is_empty());
    let mut cmd = if xvfb {
        let mut c = Command::new("xvfb-run");
        c.arg("-a").arg(bin);
        c
    } else if std::env::var_os("DISPLAY").is_some() {
        Command::new(bin)
    } else {
        eprintln!("SKIPPED: no xvfb-run and no DISPLAY: the window test cannot open a window here");
        return None;
    };
    Some(
        cmd.arg("run")
            .args(args)
            .env_remove("WAYLAND_DISPLAY")
            .current_dir(repo())
            .output()
            .expect("tessera runs"),
    )
}

#[test]
fn the_window_presents_five_frames_with_no_validation_message() {
    let Some(o) = run_windowed(&["--frames", "5", "--width", "320", "--height", "180"]) else {
        return;
    };
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("presented 5 frames"), "{stdout}{stderr}");
    assert!(
        stdout.contains("validation messages: 0"),
        "{stdout}{stderr}"
    );
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
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("presented 2 frames"), "{stdout}{stderr}");
    assert!(
        stdout.contains("validation messages: 0"),
        "{stdout}{stderr}"
    );
}

#[test]
fn without_a_display_it_says_so_and_fails() {
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["run", "--frames", "1"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(repo())
        .output()
        .expect("tessera runs");
    let stderr = text(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(stderr.contains("no display"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_bad_present_mode_is_one_clear_error() {
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["run", "--present-mode", "vsync"])
        .current_dir(repo())
        .output()
        .expect("tessera runs");
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--present-mode"), "{stderr}");
    assert!(stderr.contains("fifo"), "{stderr}");
}

#[test]
fn a_resize_mid_run_recreates_the_swapchain_and_stays_clean() {
    let Some(o) = run_windowed(&[
        "--frames",
        "6",
        "--width",
        "160",
        "--height",
        "90",
        "--test-resize",
        "200x120",
    ]) else {
        return;
    };
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("presented 6 frames"), "{stdout}{stderr}");
    assert!(
        stdout.contains("swapchains created: 2 (last 200x120)"),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains("validation messages: 0"),
        "{stdout}{stderr}"
    );
}
