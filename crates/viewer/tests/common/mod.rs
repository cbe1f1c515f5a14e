//! Big frames for the viewer's browser test and the `big_page` example: the random realistic
//! frames of `crates/graph/tests/frames` (shared generator), grown until they have the number
//! of passes asked for.

#![allow(dead_code)]

#[path = "../../../graph/tests/frames/mod.rs"]
pub mod frames;

use tessera_graph::{Capabilities, Graph};

/// A generated frame with at least `passes` passes (two queues when `two_queues`).
pub fn frame_with_passes(seed: u64, passes: usize, two_queues: bool) -> (Graph, Capabilities) {
    let mut resources = passes;
    loop {
        let (g, caps) = frames::frame(seed, resources, two_queues);
        if g.passes.len() >= passes || resources > passes * 8 {
            return (g, caps);
        }
        resources += (passes - g.passes.len()).max(8);
    }
}
