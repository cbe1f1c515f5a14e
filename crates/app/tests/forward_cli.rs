//! `--path` and `--msaa`: the forward frame chosen from the command line on `render` and
//! `plan --frame`, and each bad value or impossible combination refused with one clear
//! error before a device is opened.

mod common;
use common::{tessera, text};

/// The error of a failed run: its stderr, which must be one line.
fn one_error(args: &[&str]) -> String {
    let o = tessera(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    let e = text(&o.stderr);
    assert!(!e.contains("panicked"), "{e}");
    e
}

#[test]
fn bad_path_and_msaa_values_are_refused() {
    let e = one_error(&["render", "--path", "forwards"]);
    assert!(e.contains("--path") && e.contains("forward"), "{e}");
    let e = one_error(&["render", "--path", "forward", "--msaa", "3"]);
    assert!(e.contains("expected one of 1, 2, 4, 8"), "{e}");
}

#[test]
fn deferred_msaa_and_forward_taa_are_refused_with_the_reason() {
    let e = one_error(&["render", "--msaa", "4"]);
    assert!(e.contains("msaa = 4 needs path = \"forward\""), "{e}");
    assert!(e.contains("G-buffer"), "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    let e = one_error(&[
        "plan", "--frame", "--path", "forward", "--msaa", "4", "--aa", "taa",
    ]);
    assert!(e.contains("aa = \"taa\" needs msaa = 1"), "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    let e = one_error(&[
        "render",
        "--path",
        "forward",
        "--aa",
        "fxaa",
        "--debug-view",
        "normal",
    ]);
    assert!(e.contains("G-buffer"), "{e}");
}

#[test]
fn plan_frame_shows_the_forward_frame_on_mali() {
    let o = tessera(&[
        "plan",
        "--frame",
        "--profile",
        "mali",
        "--width",
        "320",
        "--height",
        "180",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    // Tone mapping runs per sample in the multisampled render pass: only the resolves of
    // `hdr ms` (the bloom source) and `ldr ms` leave tile memory.
    assert!(
        out.contains("forward opaque -> transparents -> tonemap"),
        "{out}"
    );
    assert!(
        out.contains("4x")
            && out.contains("memoryless, resolve -> bloom source")
            && out.contains("memoryless, resolve -> ldr"),
        "{out}"
    );
    // Back to the deferred frame at 1x on the same profile.
    let o = tessera(&[
        "plan",
        "--frame",
        "--profile",
        "mali",
        "--path",
        "deferred",
        "--msaa",
        "1",
    ]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    assert!(out.contains("gbuffer -> lighting"), "{out}");
}

#[test]
fn render_forward_4x_runs_clean() {
    let dir = common::scratch("forward");
    let out = dir.join("f.png");
    let o = tessera(&[
        "render",
        "--width",
        "160",
        "--height",
        "90",
        "--frames",
        "1",
        "--path",
        "forward",
        "--msaa",
        "4",
        "--aa",
        "fxaa",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
    assert!(stdout.contains("path=forward msaa=4"), "{stdout}");
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    assert!(out.exists());
}

/// lavapipe renders 1 or 4 samples: `--msaa 8` runs at 4 with one warning, and the summary
/// says what ran.
#[test]
fn msaa_above_the_device_is_lowered_with_one_warning() {
    let dir = common::scratch("forward-8x");
    let out = dir.join("f.png");
    let o = tessera(&[
        "render",
        "--width",
        "64",
        "--height",
        "36",
        "--frames",
        "1",
        "--path",
        "forward",
        "--msaa",
        "8",
        "--aa",
        "fxaa",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("path=forward msaa=4"), "{stdout}");
    assert_eq!(stderr.matches("msaa = 8").count(), 1, "{stderr}");
    assert!(stderr.contains("using 4"), "{stderr}");
}

/// The mobile preset's forward frame at 4× as a Mali would plan it passes the plan checker,
/// and its RenderDoc capture matches the plan: the multisampled colour and depth (and the
/// prepass's depth, the per-sample tone mapping's `ldr ms`) created memoryless, their
/// load/store ops keeping them in tile memory.
#[test]
fn the_tiler_forward_frame_passes_the_checker_and_its_capture_matches_the_plan() {
    let o = tessera(&[
        "plan",
        "--frame",
        "--profile",
        "mali",
        "--width",
        "1920",
        "--height",
        "1080",
        "--check",
    ]);
    let out = text(&o.stdout) + &text(&o.stderr);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("passes every check"), "{out}");
    let dir = common::scratch("forward-capture");
    let (png, rdc) = (dir.join("f.png"), dir.join("f.rdc"));
    let o = tessera(&[
        "render",
        "--width",
        "320",
        "--height",
        "180",
        "--frames",
        "2",
        "--profile",
        "mali",
        "--tile-rules",
        "mali",
        "--out",
        png.to_str().unwrap(),
        "--capture",
        rdc.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    let o = tessera(&["verify-capture", rdc.to_str().unwrap()]);
    let out = text(&o.stdout) + &text(&o.stderr);
    assert!(o.status.success(), "{out}");
    assert!(
        out.contains("result: the capture matches the plan"),
        "{out}"
    );
    for m in [
        "hdr ms (memoryless)",
        "depth ms (memoryless)",
        "ldr ms (memoryless)",
    ] {
        assert!(out.contains(m), "{m}: {out}");
    }
}
