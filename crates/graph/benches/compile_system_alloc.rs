//! The 1,000-pass compile of `benches/compile.rs` under the system allocator (glibc's
//! malloc on Linux) instead of the shipped one: the figure a library user with the default
//! allocator sees, which depends on whether glibc trims the heap between compiles
//! (docs/perf.md).
//!
//! `cargo bench -p tessera-graph --bench compile_system_alloc`

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
mod synthetic;

use synthetic::synthetic;
use tessera_graph::{Capabilities, CompileOptions};

fn system_allocator(c: &mut Criterion) {
    let caps = Capabilities::desktop();
    let graph = synthetic(1_000);
    c.bench_function("compile_system_alloc/1000", |b| {
        b.iter(|| {
            tessera_graph::compile(black_box(&graph), &caps, &CompileOptions::ALL)
                .expect("valid synthetic frame")
        })
    });
}

criterion_group!(benches, system_allocator);
criterion_main!(benches);
