//! Writes the plan JSON (or the compile error) of a fixed corpus of frames, one file each, so
//! that a change meant to be invisible (a speed-up, a refactor) can be shown to leave every
//! plan byte-identical: run it before and after, then `diff -r`.
//!
//! `cargo run --release -p tessera-graph --example plan_corpus -- OUT_DIR [random_count]`
//!
//! The corpus: every example frame under `assets/graphs/` for every named profile with all
//! optimisations on and off; the synthetic benchmark frames (10, 100, 1,000 passes, one and
//! two queues); and `random_count` (default 2,000) random valid graphs with random
//! capabilities and options, drawn from the property tests' generators by seed. Each plan is
//! also held against the independent checker; a rejection is printed and written with it.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../benches/synthetic.rs"]
mod synthetic;

use std::path::{Path, PathBuf};
use tessera_graph::{compile, Capabilities, CompileOptions, Graph, QueueKind};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        eprintln!("usage: plan_corpus OUT_DIR [random_count]");
        std::process::exit(2);
    };
    let random = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000u64);
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("error: cannot create {}: {e}", out.display());
        std::process::exit(1);
    }
    let mut written = 0usize;
    let frames = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs");
    let mut files: Vec<_> = std::fs::read_dir(&frames)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
    {
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        let (graph, _) = match tessera_graph::frame_file::load(file) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                std::process::exit(1);
            }
        };
        for profile in Capabilities::PROFILES {
            let caps = Capabilities::profile(profile).expect("named profile");
            for (tag, options) in [("all", CompileOptions::ALL), ("none", CompileOptions::NONE)] {
                write(
                    &out,
                    &format!("frame_{stem}_{profile}_{tag}"),
                    &graph,
                    &caps,
                    &options,
                );
                written += 1;
            }
        }
    }
    for passes in [10, 100, 1000] {
        let one = synthetic::synthetic(passes);
        let mut two = one.clone();
        for p in &mut two.passes {
            if p.kind == tessera_graph::PassKind::Compute {
                p.queue = QueueKind::AsyncCompute;
            }
        }
        let caps = Capabilities::desktop();
        for (tag, g) in [("one", &one), ("two", &two)] {
            write(
                &out,
                &format!("synthetic_{passes}_{tag}"),
                g,
                &caps,
                &CompileOptions::ALL,
            );
            written += 1;
        }
    }
    let config = common::GenConfig {
        resources: (3, 24),
        passes: (2, 60),
        max_uses: 5,
    };
    let strategy = (
        common::valid_graph_with(config),
        common::capabilities(),
        common::options(),
    );
    for seed in 0..random {
        let (graph, caps, options) = common::sample(&strategy, seed);
        write(&out, &format!("random_{seed:05}"), &graph, &caps, &options);
        written += 1;
    }
    println!("{written} plans written to {}", out.display());
}

/// Writes the plan JSON of one compile, or its error, to `OUT_DIR/name.json`.
fn write(out: &Path, name: &str, graph: &Graph, caps: &Capabilities, options: &CompileOptions) {
    let text = match compile(graph, caps, options) {
        Ok(plan) => {
            let mut text =
                serde_json::to_string_pretty(&plan).unwrap_or_else(|e| format!("serde: {e}"));
            if let Err(violations) = tessera_graph::check::check(graph, caps, options, &plan) {
                eprintln!("{name}: the checker rejects the plan: {violations:?}");
                text.push_str(&format!("\nchecker: {violations:?}"));
            }
            text
        }
        Err(e) => format!("error: {e}"),
    };
    if let Err(e) = std::fs::write(out.join(format!("{name}.json")), text) {
        eprintln!("error: cannot write {name}: {e}");
        std::process::exit(1);
    }
}
