//! Loads that follow liveness, measured on random frames: compiles the property tests'
//! random valid graphs (seeds `0..count`, default 30) for the `mali` profile with every
//! optimisation on and prints, per frame, a digest of the whole plan JSON, its attachment
//! loads and stores, its planned tile bandwidth, and how many attachments the per-pass load
//! rule would `LOAD` (the first use in the render pass keeps earlier content and earlier
//! content exists) that the plan does not (their content is dead: `DONT_CARE`). Every load
//! and store is also derived again by walking the later uses ([`common::liveness`]); a plan
//! that disagrees is reported.
//!
//! `cargo run --release -p tessera-graph --example load_liveness -- [count]`
//!
//! Run it on two trees and `diff` the outputs to count the plans that changed; the last line
//! sums the loads the per-pass rule would make and the plans hold fewer of.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hash::Hasher;
use tessera_graph::hash::FxHasher;
use tessera_graph::plan::LoadOp;
use tessera_graph::{compile, Capabilities, CompileOptions};

fn main() {
    let count = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(30u64);
    let caps = Capabilities::profile("mali").expect("named profile");
    let strategy = common::valid_graph();
    let (mut dead_total, mut frames_with_dead, mut disagree) = (0usize, 0usize, 0usize);
    for seed in 0..count {
        let graph = common::sample(&strategy, seed);
        let plan = match compile(&graph, &caps, &CompileOptions::ALL) {
            Ok(plan) => plan,
            Err(e) => {
                println!("seed {seed:2}: error: {e}");
                continue;
            }
        };
        let json = serde_json::to_string(&plan).unwrap_or_else(|e| format!("serde: {e}"));
        let mut h = FxHasher::default();
        h.write(json.as_bytes());
        let ops: Vec<String> = plan
            .render_passes
            .iter()
            .flat_map(|rp| &rp.attachments)
            .map(|a| format!("{}:{:?}/{:?}", a.resource, a.load_op, a.store_op))
            .collect();
        let walk = common::liveness::walk(&graph, &plan);
        let per_pass = walk.per_pass_loads;
        for w in &walk.wrong {
            println!("seed {seed:2}: disagrees: {w}");
        }
        disagree += walk.wrong.len();
        let loads = plan
            .render_passes
            .iter()
            .flat_map(|rp| &rp.attachments)
            .filter(|a| a.load_op == LoadOp::Load)
            .count();
        let dead = per_pass.saturating_sub(loads);
        dead_total += dead;
        frames_with_dead += usize::from(dead > 0);
        println!(
            "seed {seed:2}: plan {:016x}, {} attachments, {loads} LOAD ({per_pass} by the \
             per-pass rule, {dead} dead), bandwidth {} + {} B, ops {}",
            h.finish(),
            ops.len(),
            plan.bandwidth.load_bytes,
            plan.bandwidth.store_bytes,
            ops.join(" ")
        );
    }
    println!(
        "{count} frames: {dead_total} loads the per-pass rule makes are dead (DONT_CARE) in \
         {frames_with_dead} frames; {disagree} loads or stores disagree with the liveness walk"
    );
}
