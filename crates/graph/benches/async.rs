//! Async-compute compile cost: the synthetic frame with its compute passes on the async
//! queue (queue scheduling, sync minimisation, ownership transfers, batches) against the same
//! frame on one queue. Target: within 1.5x.

mod allocator;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
mod synthetic;

use synthetic::synthetic;
use tessera_graph::{Capabilities, CompileOptions, PassKind, QueueKind};

fn async_vs_one_queue(c: &mut Criterion) {
    let caps = Capabilities::desktop();
    let mut group = c.benchmark_group("async");
    for n in [100usize, 1_000] {
        let one_queue = synthetic(n);
        let mut two_queues = one_queue.clone();
        for p in &mut two_queues.passes {
            if p.kind == PassKind::Compute {
                p.queue = QueueKind::AsyncCompute;
            }
        }
        let plan = tessera_graph::compile(&two_queues, &caps, &CompileOptions::ALL)
            .expect("valid synthetic frame");
        assert!(
            !plan.syncs.is_empty(),
            "the two-queue frame really crosses queues"
        );
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("one_queue", n), &one_queue, |b, g| {
            b.iter(|| {
                tessera_graph::compile(black_box(g), &caps, &CompileOptions::ALL).expect("valid")
            })
        });
        group.bench_with_input(BenchmarkId::new("two_queues", n), &two_queues, |b, g| {
            b.iter(|| {
                tessera_graph::compile(black_box(g), &caps, &CompileOptions::ALL).expect("valid")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, async_vs_one_queue);
criterion_main!(benches);
