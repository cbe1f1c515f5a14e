//! Happens-before from queue order plus syncs: per pass and queue, the highest queue index
//! known complete before the pass starts. Cost: O(passes + syncs) per evaluation.

use super::{slot, Ctx};
use crate::check::Violation;

/// Reads the syncs as (signal node, wait node), checking queues and values.
pub(super) fn sync_edges(ctx: &Ctx<'_>, out: &mut Vec<Violation>) -> Option<Vec<(usize, usize)>> {
    let mut edges = Vec::with_capacity(ctx.plan.syncs.len());
    let mut ok = true;
    for s in &ctx.plan.syncs {
        let (Some(&a), Some(&b)) = (
            ctx.node.get(s.signal.as_str()),
            ctx.node.get(s.wait.as_str()),
        ) else {
            out.push(Violation {
                rule: "syncs.queues",
                detail: format!(
                    "sync '{}' -> '{}' names a pass not in order",
                    s.signal, s.wait
                ),
            });
            ok = false;
            continue;
        };
        if ctx.queue[a] == ctx.queue[b]
            || s.signal_queue != ctx.queue[a]
            || s.wait_queue != ctx.queue[b]
        {
            out.push(Violation {
                rule: "syncs.queues",
                detail: format!(
                    "sync '{}' -> '{}' does not join the two passes' different queues",
                    s.signal, s.wait
                ),
            });
        }
        if s.value != u64::from(ctx.index[a]) {
            out.push(Violation {
                rule: "syncs.value",
                detail: format!(
                    "sync '{}' -> '{}' has value {} but '{}' is #{} on its queue",
                    s.signal, s.wait, s.value, s.signal, ctx.index[a]
                ),
            });
        }
        edges.push((a, b));
    }
    ok.then_some(edges)
}

/// Reach of every node, leaving out sync `skip`; `None` when the order has a cycle.
pub(super) fn reach(
    ctx: &Ctx<'_>,
    syncs: &[(usize, usize)],
    skip: Option<usize>,
) -> Option<Vec<[u32; 2]>> {
    let n = ctx.pass.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (v, p) in ctx.prev.iter().enumerate() {
        if let Some(p) = *p {
            preds[v].push(p);
            succs[p].push(v);
        }
    }
    for (k, &(a, b)) in syncs.iter().enumerate() {
        if Some(k) != skip {
            preds[b].push(a);
            succs[a].push(b);
        }
    }
    let mut missing: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&v| missing[v] == 0).collect();
    let mut reach = vec![[0u32; 2]; n];
    let mut seen = 0;
    while let Some(v) = ready.pop() {
        seen += 1;
        let mut r = [0u32; 2];
        for &p in &preds[v] {
            r[0] = r[0].max(reach[p][0]);
            r[1] = r[1].max(reach[p][1]);
        }
        r[slot(ctx.queue[v])] = ctx.index[v];
        reach[v] = r;
        for &s in &succs[v] {
            missing[s] -= 1;
            if missing[s] == 0 {
                ready.push(s);
            }
        }
    }
    (seen == n).then_some(reach)
}

/// True when `from` has completed before `to` starts.
pub(super) fn covered(ctx: &Ctx<'_>, reach: &[[u32; 2]], from: usize, to: usize) -> bool {
    reach[to][slot(ctx.queue[from])] >= ctx.index[from]
}
