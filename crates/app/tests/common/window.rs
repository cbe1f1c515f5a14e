//! The window tests' runner: `tessera run` under Xvfb (or the `DISPLAY` there is), its
//! summary checked, its screenshots read.

use super::{scratch, text};
use std::path::Path;
use std::process::{Command, Output};
use tessera_render::png_out::Picture;

/// `tessera run ARGS` under `xvfb-run -a` (or the `DISPLAY` there is); `None` with the
/// reason printed when neither exists.
pub fn run_windowed(args: &[&str]) -> Option<Output> {
    run_windowed_with(args, &[])
}

/// [`run_windowed`] with environment variables `env` set, in a folder of its own (what a
/// step writes to a relative path lands there, never in the source tree).
pub fn run_windowed_with(args: &[&str], env: &[(&str, &str)]) -> Option<Output> {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let bin = env!("CARGO_BIN_EXE_tessera");
    let xvfb = Command::new("xvfb-run")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success() || !o.stdout.is_empty());
    let mut cmd = if xvfb {
        let mut c = Command::new("xvfb-run");
        // A 24-bit screen large enough for the resize steps.
        c.args(["-a", "-s", "-screen 0 1280x800x24"]).arg(bin);
        c
    } else if std::env::var_os("DISPLAY").is_some() {
        Command::new(bin)
    } else {
        eprintln!("SKIPPED: no xvfb-run and no DISPLAY: the window test cannot open a window here");
        return None;
    };
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Some(
        cmd.arg("run")
            .args(args)
            .env_remove("WAYLAND_DISPLAY")
            .envs(env.iter().copied())
            .current_dir(scratch(&format!("cwd-{n}")))
            .output()
            .expect("tessera runs"),
    )
}

/// Asserts a clean run: exit 0, `frames` presented, zero validation messages, no panic.
pub fn assert_clean(o: &Output, frames: u64) -> String {
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("presented {frames} frames")),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains("validation messages: 0"),
        "{stdout}{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    stdout
}

pub fn picture(path: &Path) -> Picture {
    Picture::read_png(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
