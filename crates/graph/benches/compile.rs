//! Compile-time benchmarks: synthetic frames of 10 to 10,000 passes (~3 uses per pass), and
//! the cached path (an unchanged frame recompiled).

mod allocator;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
mod synthetic;

use synthetic::synthetic;
use tessera_graph::{Capabilities, CompileOptions, Compiler};

fn compile_sizes(c: &mut Criterion) {
    let caps = Capabilities::desktop();
    let mut group = c.benchmark_group("compile");
    for n in [10usize, 100, 1_000, 10_000] {
        let graph = synthetic(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &graph, |b, g| {
            b.iter(|| {
                tessera_graph::compile(black_box(g), &caps, &CompileOptions::ALL)
                    .expect("valid synthetic frame")
            })
        });
    }
    group.finish();
    // The same frames without memory aliasing, whose placement search (quadratic in the
    // transient resources, with a refinement budget) dominates large synthetic frames.
    let mut group = c.benchmark_group("compile_no_alias");
    let options = CompileOptions {
        alias: false,
        ..CompileOptions::ALL
    };
    for n in [10usize, 100, 1_000, 10_000] {
        let graph = synthetic(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &graph, |b, g| {
            b.iter(|| {
                tessera_graph::compile(black_box(g), &caps, &options)
                    .expect("valid synthetic frame")
            })
        });
    }
    group.finish();
}

fn cached(c: &mut Criterion) {
    let caps = Capabilities::desktop();
    let graph = synthetic(100);
    let mut compiler = Compiler::new();
    compiler
        .compile(&graph, &caps, &CompileOptions::ALL)
        .expect("valid synthetic frame");
    c.bench_function("compile_cached/100", |b| {
        b.iter(|| {
            compiler
                .compile(black_box(&graph), &caps, &CompileOptions::ALL)
                .expect("cached")
        })
    });
}

criterion_group!(benches, compile_sizes, cached);
criterion_main!(benches);
