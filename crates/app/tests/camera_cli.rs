//! `tessera render` with a start view: `[camera]` in the configuration and the
//! `--camera-position` / `--camera-target` flags over it.

mod common;

use common::{scratch, tessera, text};
use std::path::Path;
use tessera_render::png_out::Picture;

/// Renders one small frame into `out` with `extra` flags; returns the picture.
fn render(out: &Path, extra: &[&str]) -> Picture {
    let out_s = out.display().to_string();
    let mut args = vec![
        "render",
        "--width",
        "64",
        "--height",
        "36",
        "--frames",
        "1",
        "--shadow-size",
        "256",
        "--lights",
        "8",
        "--fixed-exposure",
        "--out",
        &out_s,
    ];
    args.extend_from_slice(extra);
    let o = tessera(&args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    Picture::read_png(out).expect("the picture")
}

#[test]
fn the_config_camera_and_the_flags_move_the_view() {
    let dir = scratch("camera");
    let plain = render(&dir.join("plain.png"), &[]);
    let flags = render(
        &dir.join("flags.png"),
        &["--camera-position", "-6,3,6", "--camera-target", "0,1,0"],
    );
    let d = flags.difference(&plain).expect("same size");
    assert!(d.pixels > 64 * 36 / 4, "the flags moved the view: {d:?}");
    // The same view from [camera]: the same picture.
    let cfg = dir.join("camera.toml");
    std::fs::write(
        &cfg,
        "[camera]\nposition = [-6, 3, 6]\ntarget = [0, 1, 0]\n",
    )
    .unwrap();
    let cfg_s = cfg.display().to_string();
    let from_config = render(&dir.join("config.png"), &["--config", &cfg_s]);
    assert_eq!(from_config.rgba, flags.rgba);
    // A flag overrides the file; the file's other key stays.
    let far = dir.join("far.toml");
    std::fs::write(
        &far,
        "[camera]\nposition = [20, 20, 20]\ntarget = [0, 1, 0]\n",
    )
    .unwrap();
    let far_s = far.display().to_string();
    let over = render(
        &dir.join("over.png"),
        &["--config", &far_s, "--camera-position=-6,3,6"],
    );
    assert_eq!(over.rgba, flags.rgba);
}

#[test]
fn a_bad_camera_flag_is_one_error_naming_it() {
    for (args, names, code) in [
        (&["--camera-position", "1,2"][..], "--camera-position", 2),
        (&["--camera-target", "a,b,c"], "--camera-target", 2),
        (&["--camera-target", "1,2,inf"], "--camera-target", 2),
        (
            &["--camera-position", "0,1,0", "--camera-target", "0,1,0"],
            "--camera-position and --camera-target: the position and the target are the same point",
            2,
        ),
    ] {
        let mut all = vec!["render", "--width", "8", "--height", "8", "--frames", "1"];
        all.extend_from_slice(args);
        let o = tessera(&all);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
