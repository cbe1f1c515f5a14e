//! What a plan (and its frame) may hold before it is checked at all.
//!
//! The checker recomputes everything with deliberately simple code, quadratic in passes and
//! in the events of one resource, so a hostile plan could make it run for hours or fill
//! memory. These limits are far above what the compiler produces for frames it accepts
//! (its benchmarks go to 10,000 passes) and are checked first, in time linear in the plan:
//! a plan over one is refused with a single `plan.too_large` violation naming the list and
//! the limit (docs/frame-format.md, "Checking a plan").

use super::Violation;
use crate::graph::Graph;
use crate::plan::Plan;

/// Most passes (and most resources) a checked frame may declare.
pub const MAX_PASSES: usize = 16_384;
/// Most resources a checked frame may declare.
pub const MAX_RESOURCES: usize = 16_384;
/// Most entries in any one list of a plan (`barriers`, `syncs`, `edges`, ...).
pub const MAX_LIST: usize = 65_536;
/// Most entries in all the plan's lists together, nested ones included.
pub const MAX_ENTRIES: usize = 1 << 20;

/// The `plan.too_large` violation when `graph` or `plan` is over a limit.
pub(super) fn over(graph: &Graph, plan: &Plan) -> Option<Violation> {
    let too_large = |what: &str, n: usize, limit: usize| Violation {
        rule: "plan.too_large",
        detail: format!(
            "{what}: {n}, over the checker's limit of {limit} (docs/frame-format.md); not checked"
        ),
    };
    if graph.passes.len() > MAX_PASSES {
        return Some(too_large(
            "passes in the frame",
            graph.passes.len(),
            MAX_PASSES,
        ));
    }
    if graph.resources.len() > MAX_RESOURCES {
        let n = graph.resources.len();
        return Some(too_large("resources in the frame", n, MAX_RESOURCES));
    }
    let rp = &plan.render_passes;
    let nested = [
        ("subpasses", rp.iter().map(|r| r.subpasses.len()).sum()),
        ("attachments", rp.iter().map(|r| r.attachments.len()).sum()),
        (
            "dependencies",
            rp.iter().map(|r| r.dependencies.len()).sum(),
        ),
        ("passes in levels", plan.levels.iter().map(<[_]>::len).sum()),
        (
            "sync resources",
            plan.syncs.iter().map(|s| s.resources.len()).sum(),
        ),
        (
            "batch passes",
            plan.batches.iter().map(|b| b.passes.len()).sum(),
        ),
        (
            "batch waits",
            plan.batches.iter().map(|b| b.waits.len()).sum(),
        ),
        (
            "placements",
            plan.memory.blocks.iter().map(|b| b.placements.len()).sum(),
        ),
    ];
    let lists = [
        ("order", plan.order.len()),
        ("culled", plan.culled.len()),
        ("levels", plan.levels.len()),
        ("graphics queue", plan.queues.graphics.len()),
        ("async_compute queue", plan.queues.async_compute.len()),
        ("render_passes", rp.len()),
        ("breaks", plan.breaks.len()),
        ("syncs", plan.syncs.len()),
        ("barriers", plan.barriers.len()),
        ("memory blocks", plan.memory.blocks.len()),
        (
            "memoryless_fallbacks",
            plan.memory.memoryless_fallbacks.len(),
        ),
        ("edges", plan.edges.len()),
        ("cull_reasons", plan.cull_reasons.len()),
        ("batches", plan.batches.len()),
        ("sharing", plan.sharing.len()),
        ("external", plan.external.len()),
    ];
    let mut total = 0usize;
    for (what, n) in lists.into_iter().chain(nested) {
        if n > MAX_LIST {
            return Some(too_large(&format!("the plan's {what}"), n, MAX_LIST));
        }
        total += n;
    }
    (total > MAX_ENTRIES).then(|| too_large("entries in the plan's lists", total, MAX_ENTRIES))
}
