//! Declaring the renderer's full frame (the built-in courtyard, default features) without a
//! device: the CPU cost the renderer pays every frame before the cached compile.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use tessera_render::{frame_graph, Settings};

fn declare(c: &mut Criterion) {
    let scene = tessera_scene::builtin();
    for (w, h) in [(1920, 1080), (3840, 2160)] {
        let settings = Settings {
            width: w,
            height: h,
            ..Settings::default()
        };
        c.bench_function(&format!("declare full frame {w}x{h}"), |b| {
            b.iter(|| black_box(frame_graph(black_box(&scene), &settings)))
        });
    }
}

criterion_group!(benches, declare);
criterion_main!(benches);
