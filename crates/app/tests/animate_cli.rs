//! `tessera render --animate`: a glTF model's animation advances 1/60 s per frame, as the
//! lights do; `--no-animate` (and `[render] animate = false`) draw it at rest.

mod common;
use common::{scratch, tessera, text};
use std::path::Path;

/// A quad at the origin whose node slides 2 units along +X over 1 s (linear), written as
/// `anim.gltf` with its buffer beside it in `dir`.
fn write_model(dir: &Path) -> std::path::PathBuf {
    let floats: Vec<f32> = [
        // POSITION: a 1×1 quad facing +Z.
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0, // Key times.
        0.0, 1.0, // Translations.
        0.0, 0.0, 0.0, 2.0, 0.0, 0.0,
    ]
    .to_vec();
    let mut bin: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let index_offset = bin.len();
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend(i.to_le_bytes());
    }
    std::fs::write(dir.join("anim.bin"), &bin).unwrap();
    let gltf = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 3}]}],
        "buffers": [{"uri": "anim.bin", "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 8},
            {"buffer": 0, "byteOffset": 56, "byteLength": 24},
            {"buffer": 0, "byteOffset": index_offset, "byteLength": 12}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-0.5, -0.5, 0.0], "max": [0.5, 0.5, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC3"},
            {"bufferView": 3, "componentType": 5123, "count": 6, "type": "SCALAR"}
        ],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 1.0, "znear": 0.1}}],
        "animations": [{
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
            "samplers": [{"input": 1, "output": 2, "interpolation": "LINEAR"}]
        }]
    });
    let path = dir.join("anim.gltf");
    std::fs::write(&path, serde_json::to_vec(&gltf).unwrap()).unwrap();
    path
}

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
