//! Compiles a synthetic frame repeatedly, for profilers that count instructions
//! (`valgrind --tool=callgrind`) where wall-clock benchmarks are too noisy.
//!
//! `cargo run --release -p tessera-graph --example profile_compile -- [passes] [repeats] [no-alias]`

#[path = "../benches/synthetic.rs"]
mod synthetic;

use tessera_graph::{compile, Capabilities, CompileOptions};

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let passes = args.next().and_then(Result::ok).unwrap_or(1000);
    let repeats = args.next().and_then(Result::ok).unwrap_or(20);
    let graph = synthetic::synthetic(passes);
    let caps = Capabilities::desktop();
    let options = match std::env::args().nth(3).as_deref() {
        Some("no-alias") => CompileOptions {
            alias: false,
            ..CompileOptions::ALL
        },
        _ => CompileOptions::ALL,
    };
    let mut barriers = 0;
    for _ in 0..repeats {
        match compile(&graph, &caps, &options) {
            Ok(plan) => barriers += plan.barriers.len(),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    println!(
        "{repeats} compiles of {passes} passes, {} barriers each",
        barriers / repeats.max(1)
    );
}
