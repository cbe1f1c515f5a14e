//! External synchronization: the plan's `external` list and the barriers that meet it.
//!
//! Recomputed from the graph and the plan's order: every imported resource that is
//! `per_frame` or exits in `present` and is used by a kept pass has exactly one entry, with
//! its first and last kept users, their queues, the stages of the first use (the checker's
//! own table) and the exit layout (`PRESENT_SRC_KHR` for `present`, the last use's layout for
//! other images, none for buffers). Rules: `external.missing`, `external.unexpected`,
//! `external.duplicate`, `external.wrong` (a field differs).
//!
//! `external.chain`: a `per_frame` image enters every frame in `UNDEFINED` and its first use
//! is ordered only by the semaphore the executor waits on at `wait_stages`, so its first
//! layout transition is a pipeline barrier recorded before that use (a render pass's own
//! transition from `UNDEFINED` would chain after nothing) whose source stages include the
//! wait stages, so that it chains after the wait. Cost: O(passes · uses + barriers) per
//! resource.

use super::Ctx;
use crate::check::Violation;
use crate::graph::Exit;
use crate::plan::ExternalSync;
use crate::sync::Layout;

/// Checks `plan.external` and the first barriers of `per_frame` images.
pub(super) fn check(ctx: &Ctx, out: &mut Vec<Violation>) {
    let mut push = |rule, detail| out.push(Violation { rule, detail });
    let mut listed = vec![0usize; ctx.graph.resources.len()];
    for e in &ctx.plan.external {
        match ctx.resource_index.get(e.resource.as_str()) {
            Some(&r) => listed[r] += 1,
            None => push(
                "external.unexpected",
                format!("external entry names unknown resource '{}'", e.resource),
            ),
        }
    }
    for (r, res) in ctx.graph.resources.iter().enumerate() {
        let users: Vec<usize> = ctx
            .order
            .iter()
            .copied()
            .filter(|&p| ctx.use_of(p, r).is_some())
            .collect();
        let wanted = res.is_per_frame();
        let (Some(&first), Some(&last), true) = (users.first(), users.last(), wanted) else {
            if listed[r] > 0 {
                push(
                    "external.unexpected",
                    format!(
                        "external entry for '{}', which is not an imported per_frame or presented resource used by a kept pass",
                        res.name
                    ),
                );
            }
            continue;
        };
        let scope = |p: usize| ctx.use_of(p, r).map(|u| ctx.scope(p, u));
        let expected = ExternalSync {
            resource: res.name,
            queue: ctx.queue[first],
            first_pass: ctx.graph.passes[first].name,
            wait_stages: scope(first).map(|s| s.stages).unwrap_or_default(),
            last_pass: ctx.graph.passes[last].name,
            last_queue: ctx.queue[last],
            exit_layout: match (res.exit(), res.image_desc()) {
                (_, None) => None,
                (Exit::Present, Some(_)) => Some(Layout::PRESENT_SRC_KHR),
                (Exit::Keep, Some(_)) => scope(last).and_then(|s| s.layout),
            },
        };
        match listed[r] {
            0 => push(
                "external.missing",
                format!(
                    "no external entry for '{}' (first used by '{}', last by '{}')",
                    res.name, expected.first_pass, expected.last_pass
                ),
            ),
            1 => {
                let got = ctx.plan.external.iter().find(|e| e.resource == res.name);
                if let Some(got) = got.filter(|&g| *g != expected) {
                    push(
                        "external.wrong",
                        format!(
                            "external entry for '{}' is {got:?}, the graph and order give {expected:?}",
                            res.name
                        ),
                    );
                }
            }
            n => push(
                "external.duplicate",
                format!("{n} external entries for '{}'", res.name),
            ),
        }
        if res.is_per_frame() && res.image_desc().is_some() {
            first_transition(ctx, r, first, expected.wait_stages, &mut push);
        }
    }
}

/// `external.chain` for per_frame image `r` first used by pass `first`.
fn first_transition(
    ctx: &Ctx,
    r: usize,
    first: usize,
    wait: crate::sync::StageMask,
    push: &mut impl FnMut(&'static str, String),
) {
    // The first barrier on `r` in execution order that changes its layout.
    let at = |b: &super::BarrierRef| (ctx.pos[b.before], b.after);
    let barrier = ctx
        .barriers
        .iter()
        .filter(|b| b.resource == r && b.transition.is_some())
        .min_by_key(|b| at(b));
    let name = ctx.rname(r);
    // Before the first use: recorded before a pass at or before the first user (the first
    // subpass of its render pass, for one).
    match barrier {
        Some(b)
            if !b.after
                && ctx.pos[b.before] <= ctx.pos[first]
                && b.transition.is_some_and(|(old, _)| old == Layout::UNDEFINED) =>
        {
            let src = ctx.plan.barriers[b.index].src_stage;
            if !src.contains(wait) {
                push(
                    "external.chain",
                    format!(
                        "the first barrier on per_frame '{name}' (before '{}') waits on {src}, not on {wait} where the frame waits on its external semaphore: the transition from UNDEFINED does not chain after the wait",
                        ctx.pname(b.before)
                    ),
                );
            }
        }
        _ => push(
            "external.chain",
            format!(
                "per_frame '{name}' has no barrier from UNDEFINED before its first use in '{}': its first layout transition must be a barrier that chains after the external semaphore wait",
                ctx.pname(first)
            ),
        ),
    }
}
