//! Writes the viewer page of a generated frame of about 1,000 passes (the random realistic
//! frames of `crates/graph/tests/frames`, two queues), for trying the page on a big graph:
//!
//!     cargo run --release -p tessera-viewer --example big_page -- /tmp/big.html [PASSES]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;
use tessera_graph::{compile, CompileOptions};
use tessera_viewer::{html, Page};

fn main() {
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "big.html".to_string());
    let passes: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let (graph, caps) = common::frame_with_passes(7, passes, true);
    let t = Instant::now();
    let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("generated frames compile");
    let compiled = t.elapsed();
    let t = Instant::now();
    let page = Page::build(&graph, &plan);
    let text = html::html(&page, None);
    let built = t.elapsed();
    std::fs::write(&out, &text).expect("write the page");
    println!(
        "{out}: {} passes ({} culled), {} render passes, {} breaks, {} syncs, {} barriers, {} resources, {} blocks; {} bytes; compile {:.1} ms, page {:.1} ms",
        plan.order.len(),
        plan.culled.len(),
        plan.render_passes.len(),
        plan.breaks.len(),
        plan.syncs.len(),
        plan.barriers.len(),
        page.resources.len(),
        page.blocks.len(),
        text.len(),
        compiled.as_secs_f64() * 1e3,
        built.as_secs_f64() * 1e3
    );
}
