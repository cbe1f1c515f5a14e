//! Golden plans: compile a frame file of `assets/graphs/` for a device profile and diff the
//! plan JSON against `tests/golden/<frame>.<profile>.json`.
//!
//! `TESSERA_BLESS=1 cargo test -p tessera-graph` rewrites the goldens instead of diffing;
//! review the change with `git diff` before committing it.

use std::path::PathBuf;
use tessera_graph::{check, compile, frame_file, Capabilities, CompileOptions, Graph, Plan};

/// The repository's `assets/graphs/<frame>.json`.
pub fn frame_path(frame: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/graphs")
        .join(format!("{frame}.json"))
}

/// `tests/golden/<name>.json`.
pub fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"))
}

/// True when goldens are being rewritten.
pub fn blessing() -> bool {
    std::env::var("TESSERA_BLESS").is_ok_and(|v| v == "1")
}

/// Diffs `actual` against the golden `name` (or rewrites it under `TESSERA_BLESS=1`);
/// panics with the first differing line.
pub fn assert_golden(name: &str, actual: &str) {
    let path = golden_path(name);
    if blessing() {
        std::fs::create_dir_all(path.parent().expect("golden dir")).expect("create golden dir");
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with TESSERA_BLESS=1 to create it)",
            path.display()
        )
    });
    if expected == actual {
        return;
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let line = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    panic!(
        "{} differs from the compiled plan at line {}:\n  golden:   {}\n  compiled: {}\n({} vs {} lines; TESSERA_BLESS=1 rewrites it)",
        path.display(),
        line + 1,
        e.get(line).unwrap_or(&"<end>"),
        a.get(line).unwrap_or(&"<end>"),
        e.len(),
        a.len()
    );
}

/// Loads `assets/graphs/<frame>.json`, compiles it for `profile` with every optimisation on,
/// checks the plan with the plan checker, and diffs it against the golden
/// `<frame>.<profile>`. Returns the graph, the device and the plan for further assertions.
pub fn golden_plan(frame: &str, profile: &str) -> (Graph, Capabilities, Plan) {
    let (graph, _) = frame_file::load(&frame_path(frame)).unwrap_or_else(|e| panic!("{e}"));
    let caps =
        Capabilities::profile(profile).unwrap_or_else(|| panic!("unknown profile {profile}"));
    let options = CompileOptions::ALL;
    let plan =
        compile(&graph, &caps, &options).unwrap_or_else(|e| panic!("{frame} on {profile}: {e}"));
    if let Err(v) = check::check(&graph, &caps, &options, &plan) {
        let lines: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        panic!(
            "{frame} on {profile}: the checker rejects the plan:\n{}",
            lines.join("\n")
        );
    }
    let json = serde_json::to_string_pretty(&plan).expect("plans serialize") + "\n";
    assert_golden(&format!("{frame}.{profile}"), &json);
    (graph, caps, plan)
}
