//! The plan checker (hazard oracle): replays a plan against its graph and verifies every
//! invariant, sharing no logic with the compiler beyond the data types.
//!
//! Each area has its own module; [`check`] runs them all and returns every violation found.
//! The plan is treated as untrusted input (it may come from JSON): a malformed plan gives
//! violations, never a panic.
//!
//! What each access does (stages, accesses, layout, content rules) comes from the checker's
//! own table (`check/table.rs`, written from the Vulkan specification and tested against the
//! compiler's `Access::scope`, so that a wrong entry on either side is a failure). Render-pass
//! load and store operations are accesses (`check/ops.rs`): the load at the start of an
//! attachment's first subpass (`LOAD` reads, `CLEAR`/`DONT_CARE` write; colour at
//! `COLOR_ATTACHMENT_OUTPUT`, depth/stencil at `EARLY_FRAGMENT_TESTS`), the store at the end
//! of its last (`STORE`/`DONT_CARE` write; colour at `COLOR_ATTACHMENT_OUTPUT`, depth/stencil
//! at `LATE_FRAGMENT_TESTS`), a resolve at the end of its subpass (a depth/stencil resolve
//! also reads its source there, at `COLOR_ATTACHMENT_OUTPUT` with `COLOR_ATTACHMENT_READ`).
//! Every hazard rule below (`hazard.*`, `rp.dependency`, `memory.alias_*`,
//! `syncs.uncovered`) treats them like uses;
//! accesses of one subpass are ordered by the render pass itself.
//!
//! Size: a frame or plan over one of the [`limits`] (passes, resources, entries of a list,
//! entries in all) gets the one violation `plan.too_large` and is not checked further.
//!
//! Rule ids of the core module (short and stable; tests match on them):
//! - `order.unknown`, `order.duplicate`, `order.missing`: `order` ∪ `culled` is not every
//!   pass exactly once; `order.edge`: two kept passes that use one resource, one of them
//!   writing, run against declaration order; `edge.unreal`: a listed edge is not a
//!   dependency of the declared graph.
//! - `cull.kept_useless`, `cull.culled_needed`, `cull.reasons`: culling is wrong (observable
//!   = side effects or a write that survives the frame; needed = feeds a kept pass).
//!   Persistent resources: a write of a valid one is not observable and feeding through one
//!   keeps nothing; `cull.skipped`: the plan's `skipped` is not the culled passes that write a
//!   valid persistent resource; `cull.skipped_stale`: a culled pass writes an invalid one
//!   (its content is for later frames); `cull.kept_valid`: a kept pass whose only reason to
//!   run would be a valid persistent resource's content. A read of a persistent resource
//!   with no writer in the frame reads an earlier frame's content (no violation).
//! - `level.wrong`, `level.order`: levels are not the longest dependency paths, or not in
//!   execution order; `queue.wrong`, `queue.order`: a pass is on the wrong queue.
//! - `hazard.uncovered` (same queue: no barrier chain), `hazard.subpass` (same render pass:
//!   no subpass dependency chain), `hazard.unsynced` (two queues: no semaphore path),
//!   `hazard.cross_frame` (the previous frame's last accesses vs this frame's first ones).
//! - `barrier.unknown`, `barrier.duplicate`, `barrier.unjustified`: a barrier before a pass
//!   that is not kept or on an unknown resource, two for one (pass, resource), or one with
//!   neither a layout transition nor a hazard it can serve.
//! - `layout.mismatch`, `layout.malformed`: a use, transition or render pass sees the wrong
//!   layout; a barrier with only one of old/new layout, or a layout on a buffer;
//!   `layout.present`: an image that exits in `present` does not end in `PRESENT_SRC_KHR`;
//!   `layout.persistent_rest`: a persistent image used by a kept pass does not end the frame
//!   in `SHADER_READ_ONLY_OPTIMAL` (its resting state, whatever plan the next frame runs).
//!   `persistent.entry`: the first use of a persistent resource in the frame has no barrier
//!   before it that waits for `ALL_COMMANDS` on its queue (the previous frame's plan is
//!   unknown). Barriers on persistent resources are not held to `barrier.unjustified`: the first use's
//!   barrier serves the previous frame's accesses under whatever plan it ran, which the
//!   same-plan model of the previous frame cannot see.
//! - `external.missing`, `external.unexpected`, `external.duplicate`, `external.wrong`: the
//!   plan's `external` list is not one correct entry per imported `per_frame` or presented
//!   resource used by a kept pass; `external.chain`: a `per_frame` image's first transition
//!   (from `UNDEFINED`) is not a barrier before its first use that chains after the external
//!   semaphore wait (its source stages include `wait_stages`). A `per_frame` resource has no
//!   `hazard.cross_frame` pairs (a different object every frame).
//!
//! Rule ids of the other modules (each module's docs say more):
//! - render passes (`renderpass`): `rp.subpass`, `rp.order`, `rp.cross_queue`, `rp.break`,
//!   `rp.merge`, `rp.attachment`, `rp.layout`, `rp.dependency` (every hazard between subpasses,
//!   load/store operations included, has its dependency), `rp.load` / `rp.store` (the
//!   operations follow liveness both ways: `DONT_CARE` where content is needed loses it,
//!   `LOAD`/`STORE` where it is dead is waste), `rp.memoryless`, `rp.bandwidth`,
//!   `rp.clear_value` (a `clear` load records the first use's clear value or the default,
//!   colour 0 / depth 1.0 stencil 0; other loads none);
//! - memory (`memory`): `memory.*`, aliasing order `memory.alias_barrier` /
//!   `memory.alias_sync` (the successor waits for the predecessor's last use, its store
//!   included);
//! - queues and syncs (`syncs`): `queues.*`, `syncs.*`, `transfer.*`, `sharing.*`,
//!   `batches.*`;
//! - resolves (`resolve`): `resolve.mismatch`, `resolve.subpass`, `resolve.missing`,
//!   `resolve.mode_unsupported` (depth/stencil resolve modes), and `msaa.separate_resolve`
//!   (multisampled samples stored, or copied by a transfer pass, where resolve on write-back
//!   makes that traffic unneeded);
//! - history resources (`history`): `history.missing`, `history.unexpected`,
//!   `history.wrong`, `history.order`. A half of a double-buffered history pair enters the
//!   frame in the state its twin left (`hazard.cross_frame`, `layout.mismatch` follow it);
//! - coverage (`coverage`): `coverage.uncovered_read` (content a covered write left is
//!   read without the same coverage), `coverage.stale_depth`, `coverage.survives`;
//! - overlapping frames (`overlap`): `overlap.tail`, `overlap.wait`, `overlap.doubled`,
//!   `overlap.hazard`, `overlap.alias` (frame N's async tail against frame N+1's first
//!   graphics passes).

mod core;
mod coverage;
mod history;
pub mod limits;
mod memory;
mod ops;
mod overlap;
mod renderpass;
mod resolve;
mod syncs;
mod table;

use crate::caps::{Capabilities, CompileOptions};
use crate::graph::Graph;
use crate::plan::Plan;
use std::fmt;

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Which invariant (short id, e.g. `order.edge`, `hazard.uncovered`).
    pub rule: &'static str,
    /// What exactly is wrong, naming passes and resources.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.rule, self.detail)
    }
}

/// Checks `plan` against `graph`; `Ok` when every invariant holds. A frame or plan over one of
/// the [`limits`] is not checked: its one violation, `plan.too_large`, says which.
pub fn check(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    plan: &Plan,
) -> Result<(), Vec<Violation>> {
    if let Some(too_large) = limits::over(graph, plan) {
        return Err(vec![too_large]);
    }
    let mut v = Vec::new();
    core::check(graph, caps, options, plan, &mut v);
    renderpass::check(graph, caps, options, plan, &mut v);
    memory::check(graph, caps, options, plan, &mut v);
    syncs::check(graph, caps, options, plan, &mut v);
    history::check(graph, plan, &mut v);
    coverage::check(graph, plan, &mut v);
    overlap::check(graph, plan, &mut v);
    resolve::check(graph, caps, plan, &mut v);
    if v.is_empty() {
        Ok(())
    } else {
        Err(v)
    }
}
