//! Persistent resources enter the frame at rest: the previous frame may have run another
//! plan (its writer ran, or was skipped), which the same-plan model of the hazard check
//! cannot see, so the first use of a persistent resource in the frame must wait for every
//! earlier command of its queue: a barrier on the resource, recorded before that use's pass
//! (or its render pass), whose source stages include `ALL_COMMANDS` (`persistent.entry`).
//! Cost: O(resources · (passes + barriers)).

use super::Ctx;
use crate::check::Violation;
use crate::sync::StageMask;

pub(super) fn check(ctx: &Ctx, out: &mut Vec<Violation>) {
    for (r, res) in ctx.graph.resources.iter().enumerate() {
        if !res.is_kept_across_plans() {
            continue;
        }
        let Some(&first) = ctx.order.iter().find(|&&p| ctx.use_of(p, r).is_some()) else {
            continue;
        };
        let (queue, at) = (ctx.queue[first], ctx.pass_time(first));
        let waits = ctx.barriers.iter().any(|b| {
            b.resource == r
                && !b.after
                && b.queue == queue
                && b.time <= at
                && ctx
                    .plan
                    .barriers
                    .get(b.index)
                    .is_some_and(|p| p.src_stage.contains(StageMask::ALL_COMMANDS))
        });
        if !waits {
            out.push(Violation {
                rule: "persistent.entry",
                detail: format!(
                    "the first use of persistent resource '{}' (by '{}') has no barrier that waits for ALL_COMMANDS: the previous frame may have run another plan, so it waits for all earlier work on its queue",
                    ctx.rname(r),
                    ctx.pname(first)
                ),
            });
        }
    }
}
