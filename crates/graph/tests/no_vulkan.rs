//! The compiler crate must stay free of Vulkan: no `ash` (or any Vulkan binding) anywhere in
//! its dependency tree.

use std::process::Command;

#[test]
fn dependency_tree_has_no_vulkan() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "tessera-graph",
            "--edges",
            "normal,build",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        tree.lines().any(|l| l.starts_with("tessera-graph ")),
        "unexpected cargo tree output:\n{tree}"
    );
    for forbidden in ["ash ", "vulkano ", "gpu-allocator ", "ash-window "] {
        assert!(
            !tree.lines().any(|l| l.starts_with(forbidden)),
            "tessera-graph depends on {forbidden}:\n{tree}"
        );
    }
}
