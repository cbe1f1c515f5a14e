//! The plan's `external` list: where the world outside the frame meets each imported
//! resource that is `per_frame` (a different object every frame: its first use waits on a
//! semaphore, e.g. a swapchain image's acquire) or exits in `present` (its last use is
//! followed by a semaphore signal the presentation engine waits on).
//!
//! One walk over the kept passes in execution order records each such resource's first and
//! last user; the wait stages are the stages of the first use (a load operation of an
//! attachment runs within them: colour loads at `COLOR_ATTACHMENT_OUTPUT`, depth loads at
//! `EARLY_FRAGMENT_TESTS`). The exit layout is `PRESENT_SRC_KHR` for `present`, the last
//! use's layout for other images, none for buffers. Cost: O(uses of kept passes), nothing
//! when the frame has no such resource.

use super::Schedule;
use crate::graph::{Exit, Graph, PassId};
use crate::plan::ExternalSync;
use crate::sync::Layout;

/// The `external` entries of `graph` as scheduled, in resource declaration order.
pub fn external(graph: &Graph, schedule: &Schedule) -> Vec<ExternalSync> {
    let wanted = |i: usize| graph.resources[i].is_per_frame();
    if !(0..graph.resources.len()).any(wanted) {
        return Vec::new();
    }
    // (first user, its use index, last user, its use index) per resource.
    let mut seen: Vec<Option<(PassId, usize, PassId, usize)>> = vec![None; graph.resources.len()];
    for &p in &schedule.order {
        for (k, u) in graph.pass(p).uses.iter().enumerate() {
            let i = u.resource.index();
            if !wanted(i) {
                continue;
            }
            let entry = seen[i].get_or_insert((p, k, p, k));
            (entry.2, entry.3) = (p, k);
        }
    }
    graph
        .resource_ids()
        .filter_map(|id| {
            let (first, fk, last, lk) = seen[id.index()]?;
            let r = graph.resource(id);
            let scope = |p: PassId, k: usize| {
                let pass = graph.pass(p);
                let u = &pass.uses[k];
                pass.use_scope(u, u.access.scope(pass.kind, r.target()))
            };
            let exit_layout = match (r.exit(), r.image_desc()) {
                (_, None) => None,
                (Exit::Present, Some(_)) => Some(Layout::PRESENT_SRC_KHR),
                (Exit::Keep, Some(_)) => scope(last, lk).layout,
            };
            Some(ExternalSync {
                resource: r.name,
                queue: schedule.queue[first.index()],
                first_pass: graph.pass(first).name,
                wait_stages: scope(first, fk).stages,
                last_pass: graph.pass(last).name,
                last_queue: schedule.queue[last.index()],
                exit_layout,
            })
        })
        .collect()
}
