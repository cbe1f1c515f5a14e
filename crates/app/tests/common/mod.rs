//! Helpers shared by the CLI tests: the repository root, running the `tessera` binary
//! there, and a fresh scratch folder per test.

#![allow(dead_code)] // each test file uses its own subset

pub mod window;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (frames are named relative to it).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `tessera ARGS` in the repository root.
pub fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("tessera runs")
}

/// An empty folder for one test, named by the test binary, the process and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tessera-{}-{}-{name}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Bytes of an output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A quad at the origin whose node slides 2 units along +X over 1 s (linear), written as
/// `anim.gltf` with its buffer beside it in `dir`.
pub fn write_animated_quad(dir: &Path) -> PathBuf {
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
