//! Checker invariants: queues, cross-queue syncs, ownership transfers and submission batches.
//!
//! Independent of the compiler: it rebuilds the cross-queue hazards from the graph's uses and
//! the plan's own layout transitions ([`hazards`]), the happens-before order from the plan's
//! queues and syncs ([`order`]), and verifies
//! - `queues.*`: each kept pass is on the queue its declaration and the device allow, and the
//!   queue lists are the execution order split by queue; single-queue plans have no syncs,
//!   transfers or sharing entries (`syncs.single_queue`);
//! - `syncs.*`: syncs join passes of different queues with the right values; the syncs plus
//!   queue order form no cycle and order every cross-queue hazard, transitively; with
//!   minimisation on, removing any one sync leaves some hazard unordered; a render pass never
//!   waits for a pass of the other queue that runs between its subpasses in the order
//!   (`syncs.render_pass`);
//! - `transfer.*` / `sharing.*`: every resource used on both queues has a sharing mode; an
//!   exclusive one has, at each hand-over, a release right after the last use on the old queue
//!   and an acquire before the first use on the new one, with equal layouts and ordered by
//!   syncs; concurrent ones have no transfers; the compute queue never records a barrier from
//!   or to a layout it cannot use;
//! - `batches.*` ([`batches`]): every pass is in exactly one batch of its queue, batches follow
//!   queue order, waits sit only at batch starts and signals only at batch ends, a render pass
//!   is never split, and each signal is submitted before its wait.

mod batches;
mod hazards;
mod order;
mod transfers;

use super::Violation;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{Graph, PassId, QueueKind};
use crate::plan::Plan;
use std::collections::HashMap;

/// The plan's passes as nodes: position in `order`, queue, 1-based queue index, render pass.
pub(super) struct Ctx<'a> {
    graph: &'a Graph,
    plan: &'a Plan,
    node: HashMap<&'a str, usize>,
    pass: Vec<PassId>,
    queue: Vec<QueueKind>,
    index: Vec<u32>,
    prev: Vec<Option<usize>>,
    render_pass: Vec<Option<usize>>,
}

fn slot(q: QueueKind) -> usize {
    match q {
        QueueKind::Graphics => 0,
        QueueKind::AsyncCompute => 1,
    }
}

impl<'a> Ctx<'a> {
    /// Builds the context, or reports why the plan's pass lists cannot be read.
    fn new(graph: &'a Graph, plan: &'a Plan, out: &mut Vec<Violation>) -> Option<Self> {
        let mut node = HashMap::new();
        let mut pass = Vec::with_capacity(plan.order.len());
        for (i, name) in plan.order.iter().enumerate() {
            let Some(id) = graph.find_pass(name) else {
                out.push(Violation {
                    rule: "queues.unknown_pass",
                    detail: format!("'{name}' in order is not a pass of the graph"),
                });
                return None;
            };
            if node.insert(name.as_str(), i).is_some() {
                out.push(Violation {
                    rule: "queues.unknown_pass",
                    detail: format!("'{name}' appears twice in order"),
                });
                return None;
            }
            pass.push(id);
        }
        let mut queue = vec![None; pass.len()];
        for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
            for name in plan.queues.of(q) {
                match node.get(name.as_str()) {
                    Some(&i) if queue[i].is_none() => queue[i] = Some(q),
                    _ => out.push(Violation {
                        rule: "queues.order",
                        detail: format!(
                            "'{name}' on {q} is not a pass of order, or is on a queue twice"
                        ),
                    }),
                }
            }
        }
        let mut ok = true;
        for (i, q) in queue.iter().enumerate() {
            if q.is_none() {
                out.push(Violation {
                    rule: "queues.order",
                    detail: format!("'{}' is on no queue", plan.order[i]),
                });
                ok = false;
            }
        }
        for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
            let positions: Vec<usize> = plan
                .queues
                .of(q)
                .iter()
                .filter_map(|n| node.get(n.as_str()).copied())
                .collect();
            if positions.windows(2).any(|w| w[0] >= w[1]) {
                out.push(Violation {
                    rule: "queues.order",
                    detail: format!("the {q} list is not in execution order"),
                });
                ok = false;
            }
        }
        if !ok {
            return None;
        }
        let queue: Vec<QueueKind> = queue
            .into_iter()
            .map(|q| q.unwrap_or(QueueKind::Graphics))
            .collect();
        let mut index = vec![0u32; pass.len()];
        let mut prev = vec![None; pass.len()];
        let mut last = [None, None];
        let mut count = [0u32; 2];
        for i in 0..pass.len() {
            let s = slot(queue[i]);
            count[s] += 1;
            index[i] = count[s];
            prev[i] = last[s];
            last[s] = Some(i);
        }
        let mut render_pass = vec![None; pass.len()];
        for (k, rp) in plan.render_passes.iter().enumerate() {
            for sp in &rp.subpasses {
                if let Some(&i) = node.get(sp.as_str()) {
                    render_pass[i] = Some(k);
                }
            }
        }
        Some(Ctx {
            graph,
            plan,
            node,
            pass,
            queue,
            index,
            prev,
            render_pass,
        })
    }

    fn name(&self, i: usize) -> &str {
        &self.plan.order[i]
    }
}

/// Pushes every violated queue/sync/transfer/batch invariant onto `out`.
pub(super) fn check(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    plan: &Plan,
    out: &mut Vec<Violation>,
) {
    let Some(ctx) = Ctx::new(graph, plan, out) else {
        return;
    };
    let async_available = caps.async_compute && options.async_compute;
    for (i, &p) in ctx.pass.iter().enumerate() {
        let want = if async_available && graph.pass(p).queue == QueueKind::AsyncCompute {
            QueueKind::AsyncCompute
        } else {
            QueueKind::Graphics
        };
        if ctx.queue[i] != want {
            out.push(Violation {
                rule: "queues.assignment",
                detail: format!(
                    "'{}' runs on {} but belongs on {want}",
                    ctx.name(i),
                    ctx.queue[i]
                ),
            });
        }
    }
    if plan.queues.async_compute.is_empty() {
        let transfers = plan
            .barriers
            .iter()
            .filter(|b| b.queue_transfer.is_some())
            .count();
        if !plan.syncs.is_empty() || transfers > 0 || !plan.sharing.is_empty() {
            out.push(Violation {
                rule: "syncs.single_queue",
                detail: format!("a single-queue plan has {} syncs, {transfers} queue transfers and {} sharing entries", plan.syncs.len(), plan.sharing.len()),
            });
        }
    }
    let Some(syncs) = order::sync_edges(&ctx, out) else {
        return;
    };
    let mut hazards = hazards::cross_queue(&ctx);
    hazards.extend(hazards::aliasing(&ctx));
    let Some(reach) = order::reach(&ctx, &syncs, None) else {
        out.push(Violation {
            rule: "syncs.deadlock",
            detail: "the syncs plus queue order form a cycle".to_string(),
        });
        return;
    };
    for h in &hazards {
        if !order::covered(&ctx, &reach, h.from, h.to) {
            out.push(Violation {
                rule: "syncs.uncovered",
                detail: format!(
                    "'{}' ({}) must wait for '{}' ({}) on '{}', but no sync orders them",
                    ctx.name(h.to),
                    ctx.queue[h.to],
                    ctx.name(h.from),
                    ctx.queue[h.from],
                    graph.resource(h.resource).name
                ),
            });
        }
    }
    if options.minimize_syncs {
        for (k, s) in plan.syncs.iter().enumerate() {
            let Some(without) = order::reach(&ctx, &syncs, Some(k)) else {
                continue;
            };
            if hazards
                .iter()
                .all(|h| order::covered(&ctx, &without, h.from, h.to))
            {
                out.push(Violation {
                    rule: "syncs.redundant",
                    detail: format!(
                        "sync '{}' -> '{}' is implied by the others plus queue order",
                        s.signal, s.wait
                    ),
                });
            }
        }
    }
    let st = &plan.sync_stats;
    if st.kept as usize != plan.syncs.len() || st.candidate_waits != st.kept + st.removed {
        out.push(Violation {
            rule: "syncs.stats",
            detail: format!(
                "sync_stats {st:?} do not add up for {} syncs",
                plan.syncs.len()
            ),
        });
    }
    render_pass_waits(&ctx, &reach, out);
    transfers::check(&ctx, &reach, out);
    batches::check(&ctx, out);
}

/// `syncs.render_pass`: no pass of the other queue that runs between the subpasses of a
/// render pass in `order` is ordered before the render pass. Waits sit only at batch starts,
/// so such a wait would be at the first subpass, before the pass in submission order (and a
/// deadlock when that pass depends on an earlier subpass). Cost: O(passes).
fn render_pass_waits(ctx: &Ctx<'_>, reach: &[[u32; 2]], out: &mut Vec<Violation>) {
    for (k, rp) in ctx.plan.render_passes.iter().enumerate() {
        let nodes: Vec<usize> = rp
            .subpasses
            .iter()
            .filter_map(|s| ctx.node.get(s.as_str()).copied())
            .collect();
        let (Some(&first), Some(&last)) = (nodes.first(), nodes.last()) else {
            continue;
        };
        for x in first + 1..last {
            if ctx.render_pass[x] != Some(k) && order::covered(ctx, reach, x, first) {
                out.push(Violation {
                    rule: "syncs.render_pass",
                    detail: format!(
                        "render pass #{k} ({}) waits for '{}' ({}), which runs between its subpasses",
                        rp.subpasses.join(", "),
                        ctx.name(x),
                        ctx.queue[x]
                    ),
                });
            }
        }
    }
}
