//! `tessera render --animate`: a glTF model's animation advances 1/60 s per frame, as the
//! lights do; `--no-animate` (and `[render] animate = false`) draw it at rest.

mod common;
use common::{scratch, tessera, text, write_animated_quad as write_model};
use std::path::Path;

/// Renders `frames` frames of `model` with `extra` flags; the picture's RGBA.
fn render(dir: &Path, model: &Path, frames: &str, extra: &[&str], name: &str) -> Vec<u8> {
    let out = dir.join(name);
    let mut args = vec![
        "render",
        "--scene",
        model.to_str().unwrap(),
        "--width",
        "96",
        "--height",
        "64",
        "--frames",
        frames,
        "--exposure",
        "1",
        // TAA's jitter and history change a static picture over frames; FXAA does not.
        "--aa",
        "fxaa",
        "--camera-position",
        "1,0,4",
        "--camera-target",
        "1,0,0",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = tessera(&args);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", text(&o.stderr));
    assert!(stdout.contains("validation messages: 0"), "{stdout}");
    tessera_render::png_out::Picture::read_png(&out)
        .expect("the picture")
        .rgba
}

#[test]
fn animate_moves_the_model_and_no_animate_keeps_it_at_rest() {
    let dir = scratch("animate");
    let model = write_model(&dir);
    let first = render(&dir, &model, "1", &["--animate"], "a1.png");
    let later = render(&dir, &model, "40", &["--animate"], "a40.png");
    assert!(first != later, "the animation did not move the quad");
    // Animate is the default.
    let default = render(&dir, &model, "40", &[], "d40.png");
    assert!(default == later, "animate is not the default");
    let still = render(&dir, &model, "40", &["--no-animate"], "s40.png");
    assert!(still == first, "--no-animate moved the quad");
    let o = tessera(&["render", "--animate", "--no-animate", "--frames", "1"]);
    assert!(!o.status.success());
}
