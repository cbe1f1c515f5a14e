//! Compiles the synthetic frame repeatedly on one queue or with its compute passes on the
//! async queue, for instruction-counting profilers (`valgrind --tool=callgrind`), whose
//! figures do not depend on how busy the machine is.
//!
//! `cargo run --release -p tessera-graph --example profile_async -- [one|two] [passes] [repeats]`

#[path = "../benches/synthetic.rs"]
mod synthetic;

use tessera_graph::{compile, Capabilities, CompileOptions, PassKind, QueueKind};

fn main() {
    let mut args = std::env::args().skip(1);
    let two = args.next().as_deref() == Some("two");
    let passes = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000usize);
    let repeats = args.next().and_then(|a| a.parse().ok()).unwrap_or(10usize);
    let mut graph = synthetic::synthetic(passes);
    if two {
        for p in &mut graph.passes {
            if p.kind == PassKind::Compute {
                p.queue = QueueKind::AsyncCompute;
            }
        }
    }
    let caps = Capabilities::desktop();
    let mut syncs = 0;
    for _ in 0..repeats {
        match compile(&graph, &caps, &CompileOptions::ALL) {
            Ok(plan) => syncs += plan.syncs.len(),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
    println!(
        "{repeats} compiles of {passes} passes ({}), {} syncs each",
        if two { "two queues" } else { "one queue" },
        syncs / repeats.max(1)
    );
}
