//! Loads that follow liveness, measured on random frames: compiles the property tests'
//! random valid graphs (seeds `0..count`, default 30) for the `mali` profile with every
//! optimisation on and prints, per frame, a digest of the whole plan JSON, its attachment
//! loads and stores, its planned tile bandwidth, and how many attachments the per-pass load
//! rule would `LOAD` (the first use in the render pass keeps earlier content and earlier
//! content exists) that the plan does not (their content is dead: `DONT_CARE`). Each load is
//! also derived again here, by walking the later uses of the attachment for every first use
//! (quadratic, independent of the compiler's sweep); a plan that disagrees is reported.
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
use tessera_graph::{compile, Capabilities, CompileOptions, Graph, Plan};

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
        let (per_pass, wrong) = per_pass_loads(&graph, &plan);
        for w in &wrong {
            println!("seed {seed:2}: disagrees: {w}");
        }
        disagree += wrong.len();
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
         {frames_with_dead} frames; {disagree} loads disagree with the liveness walk"
    );
}

/// How many attachments the per-pass rule loads (the first use in the render pass does not
/// clear and keeps earlier content: it reads it or only partly overwrites it; and the
/// resource holds content before the render pass: an earlier write in the order, or an
/// imported resource without `clear_on_first_use`), and the attachments whose load in the
/// plan is not what the liveness walk gives.
fn per_pass_loads(graph: &Graph, plan: &Plan) -> (usize, Vec<String>) {
    let position = |name: &str| plan.order.iter().position(|p| p.as_str() == name);
    let mut n = 0;
    let mut wrong = Vec::new();
    for rp in &plan.render_passes {
        let Some(start) = rp.subpasses.first().and_then(|s| position(s)) else {
            continue;
        };
        for a in rp.attachments.iter() {
            let Some(r) = graph.find_resource(&a.resource) else {
                continue;
            };
            let first = rp.subpasses.iter().find_map(|s| {
                let p = graph.find_pass(s)?;
                graph.pass(p).uses.iter().find(|u| u.resource == r)
            });
            let Some(first) = first else { continue };
            let Some(first_pos) = rp.subpasses.iter().find_map(|s| {
                let p = graph.find_pass(s)?;
                graph
                    .pass(p)
                    .uses
                    .iter()
                    .any(|u| u.resource == r)
                    .then(|| position(s))
                    .flatten()
            }) else {
                continue;
            };
            let res = graph.resource(r);
            let earlier_write = plan.order.iter().take(start).any(|p| {
                graph.find_pass(p).is_some_and(|p| {
                    graph
                        .pass(p)
                        .uses
                        .iter()
                        .any(|u| u.resource == r && u.access.writes())
                })
            });
            let content = earlier_write || (res.imported && !res.clear_on_first_use);
            if !first.clear && first.access.keeps_content(false) && content {
                n += 1;
            }
            let live = |pos: usize| live_after(graph, plan, r, pos);
            let expected = if first.clear {
                LoadOp::Clear
            } else if !content || !first.access.keeps_content(false) {
                LoadOp::DontCare
            } else if reads(graph, plan, first_pos, first) || live(first_pos) {
                LoadOp::Load
            } else {
                LoadOp::DontCare
            };
            if a.load_op != expected {
                wrong.push(format!(
                    "'{}' ({}) loads {:?}, the walk gives {expected:?}",
                    a.resource, first.access, a.load_op
                ));
            }
        }
    }
    (n, wrong)
}

/// True when the use at position `pos` of the order reads the content it finds: its access
/// reads, or it keeps the content and tests it (depth) or its pass resolves it.
fn reads(graph: &Graph, plan: &Plan, pos: usize, u: &tessera_graph::graph::Use) -> bool {
    let resolved = graph.find_pass(&plan.order[pos]).is_some_and(|p| {
        graph
            .pass(p)
            .uses
            .iter()
            .any(|v| v.from == Some(u.resource))
    });
    u.access.reads(u.clear)
        || (u.access.keeps_content(u.clear)
            && (u.access == tessera_graph::Access::DepthWrite || resolved))
}

/// True when the content of `r` after the use at position `pos` of the order is read before
/// it is replaced, or survives the frame.
fn live_after(graph: &Graph, plan: &Plan, r: tessera_graph::ResourceId, pos: usize) -> bool {
    for (at, name) in plan.order.iter().enumerate().skip(pos + 1) {
        let Some(p) = graph.find_pass(name) else {
            continue;
        };
        let Some(u) = graph.pass(p).uses.iter().find(|u| u.resource == r) else {
            continue;
        };
        if reads(graph, plan, at, u) {
            return true;
        }
        if !u.access.keeps_content(u.clear) {
            return false;
        }
    }
    let res = graph.resource(r);
    res.output || (res.imported && !res.discard_on_last_use)
}
