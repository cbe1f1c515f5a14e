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
