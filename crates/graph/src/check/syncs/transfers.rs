//! Sharing modes and queue-family ownership transfers. Cost: O(uses + barriers).

use super::{order, slot, Ctx};
use crate::check::Violation;
use crate::plan::{BarrierPosition, SharingMode, TransferHalf};
use crate::sync::Layout;
use std::collections::HashMap;

/// Layouts only a graphics queue can be asked to leave or enter.
fn graphics_only(layout: Layout) -> bool {
    matches!(
        layout,
        Layout::COLOR_ATTACHMENT_OPTIMAL
            | Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
            | Layout::PRESENT_SRC_KHR
    )
}

/// Checks sharing entries, transfer pairs and compute-queue layouts.
pub(super) fn check(ctx: &Ctx<'_>, reach: &[[u32; 2]], out: &mut Vec<Violation>) {
    let g = ctx.graph;
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); g.resources.len()];
    for (i, &p) in ctx.pass.iter().enumerate() {
        for u in &g.pass(p).uses {
            if let Some(l) = uses.get_mut(u.resource.index()) {
                l.push(i);
            }
        }
    }
    let mode: HashMap<&str, SharingMode> = ctx
        .plan
        .sharing
        .iter()
        .map(|s| (s.resource.as_str(), s.mode))
        .collect();
    let mut transfers: Vec<Vec<usize>> = vec![Vec::new(); g.resources.len()];
    for (k, b) in ctx.plan.barriers.iter().enumerate() {
        let Some(&node) = ctx.node.get(b.before.as_str()) else {
            continue;
        };
        if ctx.queue[node] == crate::graph::QueueKind::AsyncCompute {
            if let Some((o, n)) = b
                .old_layout
                .zip(b.new_layout)
                .filter(|(o, n)| graphics_only(*o) || graphics_only(*n))
            {
                out.push(Violation {
                    rule: "transfer.compute_layout",
                    detail: format!(
                        "compute queue records {o} -> {n} for '{}' at '{}'",
                        b.resource, b.before
                    ),
                });
            }
        }
        let Some(t) = &b.queue_transfer else { continue };
        let Some(r) = g.find_resource(&b.resource) else {
            continue;
        };
        let (queue_ok, position_ok) = match t.half {
            TransferHalf::Release => (
                ctx.queue[node] == t.src_queue,
                b.position == BarrierPosition::After,
            ),
            TransferHalf::Acquire => (
                ctx.queue[node] == t.dst_queue,
                b.position == BarrierPosition::Before,
            ),
        };
        if !queue_ok || t.src_queue == t.dst_queue {
            out.push(Violation {
                rule: "transfer.queue",
                detail: format!(
                    "{:?} of '{}' at '{}' is on the wrong queue",
                    t.half, b.resource, b.before
                ),
            });
        }
        if !position_ok {
            out.push(Violation {
                rule: "transfer.placement",
                detail: format!(
                    "{:?} of '{}' at '{}' is recorded {:?} the pass",
                    t.half, b.resource, b.before, b.position
                ),
            });
        }
        transfers[r.index()].push(k);
    }
    let same_rp = |a: usize, b: usize| {
        a == b || (ctx.render_pass[a].is_some() && ctx.render_pass[a] == ctx.render_pass[b])
    };
    let on_queue = |list: &[usize], q: usize| list.iter().any(|&i| slot(ctx.queue[i]) == q);
    for (r, list) in g.resource_ids().zip(&uses) {
        let name = g.resource(r).name.as_str();
        let mut both = on_queue(list, 0) && on_queue(list, 1);
        // One physical resource of a double-buffered history pair is used by both halves'
        // passes, a frame apart: across queues, with no transfer at the frame boundary, it
        // is shared concurrently.
        if let Some(twin) = g.resource(r).history_twin() {
            let theirs = &uses[twin.index()];
            let pair = (on_queue(list, 0) || on_queue(theirs, 0))
                && (on_queue(list, 1) || on_queue(theirs, 1));
            if pair && mode.get(name) != Some(&SharingMode::Concurrent) {
                out.push(Violation {
                    rule: "sharing.history_pair",
                    detail: format!("'{name}' is half of a history pair whose halves are used on both queues but is not shared concurrently"),
                });
            }
            both |= pair;
        }
        if both
            && g.resource(r).is_kept_across_plans()
            && mode.get(name) == Some(&SharingMode::Exclusive)
        {
            out.push(Violation {
                rule: "sharing.persistent",
                detail: format!("persistent resource '{name}' is used on both queues but is exclusive: its writer and readers change queues between frames whose plans differ, so it is shared concurrently"),
            });
        }
        match (both, mode.get(name)) {
            (true, None) => out.push(Violation {
                rule: "sharing.missing",
                detail: format!("'{name}' is used on both queues but has no sharing mode"),
            }),
            (false, Some(_)) => out.push(Violation {
                rule: "sharing.spurious",
                detail: format!("'{name}' is used on one queue but has a sharing mode"),
            }),
            _ => {}
        }
        let mine = &transfers[r.index()];
        if mode.get(name) != Some(&SharingMode::Exclusive) {
            if !mine.is_empty() {
                out.push(Violation {
                    rule: "transfer.sharing",
                    detail: format!(
                        "'{name}' is not exclusive but has {} transfer barriers",
                        mine.len()
                    ),
                });
            }
            continue;
        }
        let mut matched = vec![false; mine.len()];
        for w in list
            .windows(2)
            .filter(|w| ctx.queue[w[0]] != ctx.queue[w[1]])
        {
            let (l, f) = (w[0], w[1]);
            let find = |half: TransferHalf, at: usize| {
                mine.iter().enumerate().filter(move |&(_, &k)| {
                    let b = &ctx.plan.barriers[k];
                    let t = b.queue_transfer.as_ref();
                    t.is_some_and(|t| {
                        t.half == half && t.src_queue == ctx.queue[l] && t.dst_queue == ctx.queue[f]
                    }) && ctx
                        .node
                        .get(b.before.as_str())
                        .is_some_and(|&n| same_rp(n, at))
                })
            };
            let rel: Vec<(usize, &usize)> = find(TransferHalf::Release, l).collect();
            let acq: Vec<(usize, &usize)> = find(TransferHalf::Acquire, f).collect();
            if rel.len() != 1 || acq.len() != 1 {
                out.push(Violation {
                    rule: "transfer.unpaired",
                    detail: format!("'{name}' moves from '{}' ({}) to '{}' ({}) with {} release(s) and {} acquire(s)", ctx.name(l), ctx.queue[l], ctx.name(f), ctx.queue[f], rel.len(), acq.len()),
                });
            }
            if let (Some(&(ri, &rk)), Some(&(ai, &ak))) = (rel.first(), acq.first()) {
                matched[ri] = true;
                matched[ai] = true;
                let (rb, ab) = (&ctx.plan.barriers[rk], &ctx.plan.barriers[ak]);
                if rb.old_layout != ab.old_layout
                    || rb.new_layout != ab.new_layout
                    || (rb.old_layout.is_none() && g.resource(r).image_desc().is_some())
                {
                    out.push(Violation {
                        rule: "transfer.layouts",
                        detail: format!(
                            "release and acquire of '{name}' at '{}' / '{}' disagree on layouts",
                            rb.before, ab.before
                        ),
                    });
                }
            }
            if !order::covered(ctx, reach, l, f) {
                out.push(Violation { rule: "transfer.unordered", detail: format!("acquire of '{name}' before '{}' is not ordered after its release after '{}'", ctx.name(f), ctx.name(l)) });
            }
        }
        for (j, &k) in mine.iter().enumerate() {
            if !matched[j] {
                let b = &ctx.plan.barriers[k];
                out.push(Violation {
                    rule: "transfer.unpaired",
                    detail: format!(
                        "transfer barrier of '{name}' at '{}' matches no hand-over",
                        b.before
                    ),
                });
            }
        }
    }
}
