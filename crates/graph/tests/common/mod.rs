//! Shared random-graph generators (proptest strategies) for the integration tests and the
//! benchmarks: valid graphs ([`graphs`]), capabilities and options ([`devices`]), invalid
//! graphs ([`invalid`]), graphs with history resources ([`history`]), frame-file text,
//! valid or mangled ([`text`]), golden-file helpers
//! ([`golden`]), load/store operations derived again by the liveness rule ([`liveness`]),
//! and what a generator covers ([`coverage`]).
//!
//! Use from an integration test with `mod common;`, from a benchmark with
//! `#[path = "../tests/common/mod.rs"] mod common;`. [`sample`] draws one value from a
//! strategy with a fixed seed, for benchmarks that need reproducible graphs.

#![allow(dead_code, unused_imports)]

pub mod coverage;
pub mod devices;
pub mod golden;
pub mod graphs;
pub mod history;
pub mod invalid;
pub mod liveness;
pub mod text;

pub use devices::{capabilities, options, profile_caps};
pub use graphs::{build, raw_graph, valid_graph, valid_graph_with, GenConfig, RawGraph};
pub use invalid::invalid_graph;
pub use text::{frame_file_of, frame_text, mangled_frame_text};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// One value of `strategy`, drawn reproducibly from `seed`.
pub fn sample<S: Strategy>(strategy: &S, seed: u64) -> S::Value {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    strategy
        .new_tree(&mut runner)
        .expect("generators here never reject")
        .current()
}

/// A compact one-line-per-item description of a graph, for failure messages.
pub fn describe(graph: &tessera_graph::Graph) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for r in &graph.resources {
        let shape = match r.image_desc() {
            Some(d) => format!(
                "{} {}x{} s{} m{} l{}",
                d.format, d.width, d.height, d.samples, d.mips, d.layers
            ),
            None => format!("buffer {}", r.bytes()),
        };
        let flags: Vec<&str> = [
            (r.is_imported(), "imported"),
            (r.output, "output"),
            (r.clear_on_first_use(), "clear_on_first_use"),
            (r.discard_on_last_use(), "discard_on_last_use"),
            (r.declared_memoryless(), "memoryless"),
            (r.is_history(), "history"),
        ]
        .iter()
        .filter(|f| f.0)
        .map(|f| f.1)
        .collect();
        let _ = writeln!(s, "  resource {}: {shape} {}", r.name, flags.join(" "));
    }
    for p in &graph.passes {
        let uses: Vec<String> = p
            .uses
            .iter()
            .map(|u| {
                let name = graph
                    .resources
                    .get(u.resource.index())
                    .map_or("?", |r| r.name.as_str());
                let from = u
                    .from
                    .and_then(|f| graph.resources.get(f.index()))
                    .map(|r| format!(" from {}", r.name))
                    .unwrap_or_default();
                format!(
                    "{name}:{}{}{}{from}",
                    u.access,
                    if u.clear { "+clear" } else { "" },
                    if u.previous { "+previous" } else { "" }
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "  pass {} {:?} {:?}{}: {}",
            p.name,
            p.kind,
            p.queue,
            if p.side_effects { " side_effects" } else { "" },
            uses.join(", ")
        );
    }
    s
}
