//! Speed of transient memory placement: 1,000 resources of a random realistic frame placed
//! by Tessera's planner (goal: under 5 ms) and by the article's algorithm, on one queue and
//! on two queues (lifetimes in levels).
//!
//! `cargo bench -p tessera-graph --bench alias`

#[path = "../tests/frames/mod.rs"]
mod frames;

mod allocator;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tessera_graph::compile::memory::{article, planner, Problem, Timeline};
use tessera_graph::{compile, CompileOptions};

fn problem(resources: usize, two_queues: bool) -> Problem {
    let (graph, caps) = frames::frame(42, resources, two_queues);
    let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("generated frames compile");
    let p = Problem::new(&graph, &Timeline::of_plan(&graph, &plan), &caps, &[]);
    assert_eq!(p.items.len(), resources);
    p
}

fn placement(c: &mut Criterion) {
    for (label, two_queues) in [("one_queue", false), ("two_queues", true)] {
        let p = problem(1000, two_queues);
        c.bench_function(&format!("alias/planner/1000/{label}"), |b| {
            b.iter(|| black_box(planner::pack(black_box(&p))))
        });
        c.bench_function(&format!("alias/article/1000/{label}"), |b| {
            b.iter(|| black_box(article::pack(black_box(&p))))
        });
    }
    let p = problem(200, false);
    c.bench_function("alias/planner/200/one_queue", |b| {
        b.iter(|| black_box(planner::pack(black_box(&p))))
    });
}

criterion_group!(benches, placement);
criterion_main!(benches);
