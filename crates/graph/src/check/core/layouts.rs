//! Layouts: replays each image's layout through the frame and requires every use to see
//! the layout its access needs.
//!
//! Barriers with a transition must start from the current layout, or from `UNDEFINED` when
//! the content is not needed (before the first use of the frame, for transient images and
//! imported ones that are cleared on first use or whose content is dead at the start of the
//! frame: replaced before anything looks at it, or never looked at and discarded). A render
//! pass starts each attachment from its `initial_layout` (same rule), moves it to each
//! subpass use's layout, and leaves it in its `final_layout`. The frame starts in the layout
//! the previous frame (the same plan) ended in, except a `per_frame` image (a new one every
//! frame), which starts in `UNDEFINED`; an image that exits in `present` and is used by a kept
//! pass must end the frame in `PRESENT_SRC_KHR` (`layout.present`). Cost: O(passes · (uses + barriers)) per image.

use super::Ctx;
use crate::check::table;
use crate::check::Violation;
use crate::graph::PassId;
use crate::plan::Attachment;
use crate::sync::Layout;

/// Replays every image.
pub(super) fn check(ctx: &Ctx, out: &mut Vec<Violation>) {
    for r in 0..ctx.graph.resources.len() {
        if ctx.graph.resources[r].image_desc().is_none() {
            continue;
        }
        // Nothing in the plan sets the layout of an image that is never transitioned: the
        // previous frame left it in the layout its uses need (the only steady state).
        let first_need = ctx
            .order
            .iter()
            .find_map(|&p| ctx.use_of(p, r).and_then(|u| ctx.scope(p, u).layout));
        let res = &ctx.graph.resources[r];
        // A per_frame image is a new one each frame: it enters in UNDEFINED.
        // A half of a double-buffered history pair enters in the layout its twin (this
        // physical image last frame) leaves.
        let start = if res.is_per_frame() {
            Some(Layout::UNDEFINED)
        } else {
            let before = res.history_twin().map_or(r, |t| t.index());
            replay(ctx, before, None, &mut None).or(first_need)
        };
        let end = replay(ctx, r, start, &mut Some(out));
        // (An image no kept pass uses has no transition in the plan and no external entry.)
        let used = ctx.order.iter().any(|&p| ctx.use_of(p, r).is_some());
        let rest = crate::graph::PERSISTENT_REST_LAYOUT;
        if res.is_kept_across_plans() && used && end != Some(rest) {
            out.push(Violation {
                rule: "layout.persistent_rest",
                detail: format!(
                    "persistent image '{}' ends the frame in {}: a persistent image rests in {rest} between frames",
                    ctx.rname(r),
                    shown(end)
                ),
            });
        }
        if res.is_presented() && used && end != Some(Layout::PRESENT_SRC_KHR) {
            out.push(Violation {
                rule: "layout.present",
                detail: format!(
                    "'{}' exits in present but the frame leaves it in {}: a presented image ends the frame in PRESENT_SRC_KHR",
                    ctx.rname(r),
                    shown(end)
                ),
            });
        }
    }
}

/// True when the frame needs the content the image entered it with: an imported image not
/// cleared on first use whose content is live at the start of the frame (walking the uses in
/// execution order, one looks at it before any replaces it, or none replaces it and the image
/// survives the frame).
fn content_needed(ctx: &Ctx, r: usize) -> bool {
    let res = &ctx.graph.resources[r];
    if !res.content_at_entry() {
        return false;
    }
    for (p, u) in ctx
        .order
        .iter()
        .filter_map(|&p| ctx.use_of(p, r).map(|u| (p, u)))
    {
        if table::looks_at(ctx.graph, PassId(p as u32), u) {
            return true;
        }
        if table::replaces(u.access, u.clear) {
            return false;
        }
    }
    !res.discard_on_last_use()
}

fn attachment<'p>(ctx: &'p Ctx, p: usize, r: usize) -> Option<(&'p Attachment, usize, usize)> {
    let (rp, sub) = ctx.subpass[p]?;
    let pass = ctx.plan.render_passes.get(rp)?;
    let a = pass
        .attachments
        .iter()
        .find(|a| a.resource == ctx.rname(r))?;
    Some((a, sub, pass.subpasses.len()))
}

/// Replays image `r` from `start`; returns the layout it ends the frame in. Violations are
/// pushed when `out` is given.
fn replay(
    ctx: &Ctx,
    r: usize,
    start: Option<Layout>,
    out: &mut Option<&mut Vec<Violation>>,
) -> Option<Layout> {
    let discardable = !content_needed(ctx, r);
    let mut current = start;
    let mut used = false;
    let mut report = |detail: String| {
        if let Some(out) = out.as_deref_mut() {
            out.push(Violation {
                rule: "layout.mismatch",
                detail,
            });
        }
    };
    let may_start = |from: Layout, current: Option<Layout>, used: bool| {
        Some(from) == current || (from == Layout::UNDEFINED && !used && discardable)
    };
    for &p in &ctx.order {
        let before = ctx.before[p]
            .iter()
            .map(|&b| &ctx.barriers[b])
            .filter(|b| b.resource == r);
        for b in before {
            let x = &ctx.plan.barriers[b.index];
            if let (Some(old), Some(new)) = (x.old_layout, x.new_layout) {
                if b.acquire_twin && current == Some(new) {
                    continue; // the release half of the pair performed the transition
                }
                if !may_start(old, current, used) {
                    report(format!(
                        "barrier on '{}' before '{}' transitions from {old} but the image is in {}",
                        ctx.rname(r),
                        ctx.pname(p),
                        shown(current)
                    ));
                }
                current = Some(new);
            }
        }
        let att = attachment(ctx, p, r);
        if let Some((a, 0, _)) = att {
            if !may_start(a.initial_layout, current, used) {
                report(format!(
                    "render pass of '{}' starts '{}' from {} but the image is in {}",
                    ctx.pname(p),
                    ctx.rname(r),
                    a.initial_layout,
                    shown(current)
                ));
            }
            current = Some(a.initial_layout);
        }
        if let Some(u) = ctx.use_of(p, r) {
            let need = ctx.scope(p, u).layout;
            if att.is_some() && table::is_attachment(u.access) {
                current = need;
            } else if need.is_some() && need != current {
                report(format!(
                    "'{}' uses '{}' as {} in {} but the image is in {}",
                    ctx.pname(p),
                    ctx.rname(r),
                    u.access,
                    shown(need),
                    shown(current)
                ));
            }
            used = true;
        }
        if let Some((a, sub, n)) = att {
            if sub + 1 == n {
                current = Some(a.final_layout);
            }
        }
        let after = ctx.after[p]
            .iter()
            .map(|&b| &ctx.barriers[b])
            .filter(|b| b.resource == r);
        for b in after {
            let x = &ctx.plan.barriers[b.index];
            if let (Some(old), Some(new)) = (x.old_layout, x.new_layout) {
                if !may_start(old, current, used) {
                    report(format!(
                        "barrier on '{}' after '{}' transitions from {old} but the image is in {}",
                        ctx.rname(r),
                        ctx.pname(b.before),
                        shown(current)
                    ));
                }
                current = Some(new);
            }
        }
    }
    current
}

fn shown(l: Option<Layout>) -> String {
    l.map_or_else(|| "an unknown layout".to_string(), |l| l.to_string())
}
