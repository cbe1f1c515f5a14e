//! Aliasing order: two placements of one block that share bytes, one whose lifetime ends
//! before the other's begins (the earlier occupant `x`, the later `y`): every use of `x`
//! must happen before the first use of `y`.
//!
//! Happens-before is the plan's own, and transitive, as on the GPU: for each queue on which
//! `x` is used (last use `a`, stages `S` of all its uses there, the load and store operations
//! of its render passes included: the successor waits for the store) and the first use `b` of
//! `y` (its load operation included),
//! - same queue: a chain of barriers and subpass dependencies ([`Chains`]) from a barrier
//!   recorded after `a` and at or before `b` whose source stages cover `S`, to a barrier of
//!   `y` at or before `b` whose destination stages cover `b`'s use (one barrier can be both
//!   ends), or a path of semaphores and queue order from `a` to `b` (`memory.alias_barrier`);
//! - other queue: a path of semaphores and queue order from `a` to `b`
//!   (`memory.alias_sync`).
//!
//! No direct barrier per pair is asked for: when `C` reuses bytes of `A` and `B` those of
//! `C`, a barrier of `C` waiting on `A` and one of `B` waiting on `C` (the second's source
//! stages meeting the first's destination) order `A` before `B`. The starting-from-UNDEFINED
//! rule of reused images is a memory invariant (`check/memory.rs`). Cost: O(pairs sharing
//! bytes · chain nodes²) at worst, plus one pass over the uses.

use super::chains::{Chains, Node};
use super::masks::stages_cover;
use super::{qi, Ctx};
use crate::check::Violation;
use crate::sync::StageMask;

/// Per resource: its first kept use, and per queue its last use and the union of stages.
#[derive(Clone, Copy, Debug, Default)]
struct Uses {
    first: Option<(usize, StageMask)>,
    last: [Option<usize>; 2],
    stages: [StageMask; 2],
}

/// Pushes a violation for every earlier occupant not ordered before a later one.
pub(super) fn check(
    ctx: &Ctx,
    chains: &[Chains; 2],
    sync_reach: &[Vec<bool>],
    out: &mut Vec<Violation>,
) {
    let mut uses = vec![Uses::default(); ctx.graph.resources.len()];
    for &p in &ctx.order {
        for u in &ctx.graph.passes[p].uses {
            let Some(r) = uses.get_mut(u.resource.index()) else {
                continue;
            };
            // The subpass's load and store operations access the image too: the successor
            // waits for the store, and its own load operation waits for the predecessor.
            let ops = ctx.ops.at(p, u.resource.index());
            let mut stages = ctx.scope(p, u).stages;
            if let Some((_, a)) = ops.load {
                stages |= a.stages;
            }
            if let Some((_, a)) = ops.store {
                stages |= a.stages;
            }
            r.first.get_or_insert((p, stages));
            let q = qi(ctx.queue[p]);
            r.last[q] = Some(p);
            r.stages[q] |= stages;
        }
    }
    for block in &ctx.plan.memory.blocks {
        for (k, p) in block.placements.iter().enumerate() {
            for q in &block.placements[k + 1..] {
                let bytes = p.offset < q.offset.saturating_add(q.size)
                    && q.offset < p.offset.saturating_add(p.size);
                let (x, y) = if p.last < q.first {
                    (p, q)
                } else if q.last < p.first {
                    (q, p)
                } else {
                    continue; // overlapping lifetimes: `memory.overlap`
                };
                let (Some(&xi), Some(&yi)) = (
                    ctx.resource_index.get(x.resource.as_str()),
                    ctx.resource_index.get(y.resource.as_str()),
                ) else {
                    continue;
                };
                if !bytes {
                    continue;
                }
                let Some((b, b_stages)) = uses[yi].first else {
                    continue;
                };
                for (queue, chains) in chains.iter().enumerate() {
                    let Some(a) = uses[xi].last[queue] else {
                        continue;
                    };
                    let same = queue == qi(ctx.queue[b]);
                    let by_sync = sync_reach[a][b];
                    let ordered = by_sync
                        || (same
                            && barrier_chain(
                                ctx,
                                chains,
                                a,
                                uses[xi].stages[queue],
                                b,
                                b_stages,
                                yi,
                            ));
                    if ordered {
                        continue;
                    }
                    let (rule, how) = if same {
                        ("memory.alias_barrier", "no barrier chain or semaphore path")
                    } else {
                        ("memory.alias_sync", "no semaphore path")
                    };
                    out.push(Violation {
                        rule,
                        detail: format!(
                            "'{}' reuses the bytes of '{}': its first use by '{}' is not ordered after the last use of '{}' by '{}' waiting on {} ({how})",
                            y.resource,
                            x.resource,
                            ctx.pname(b),
                            x.resource,
                            ctx.pname(a),
                            uses[xi].stages[queue]
                        ),
                    });
                }
            }
        }
    }
}

/// A chain on one queue from a barrier after pass `a` waiting on `stages` to a barrier of
/// resource `y` at or before pass `b` covering `b_stages` (both in this frame).
fn barrier_chain(
    ctx: &Ctx,
    chains: &Chains,
    a: usize,
    stages: StageMask,
    b: usize,
    b_stages: StageMask,
    y: usize,
) -> bool {
    let len = ctx.frame_len(qi(ctx.queue[b]));
    let (ta, tb) = (len + ctx.pass_time(a), len + ctx.pass_time(b));
    let lo = chains.time.partition_point(|&t| t <= ta);
    let hi = chains.time.partition_point(|&t| t <= tb);
    let barrier = |n: usize| match chains.nodes[n] {
        (Node::Barrier(i), 1) => Some(i),
        _ => None,
    };
    let ends: Vec<usize> = (lo..hi)
        .filter(|&n| {
            barrier(n).is_some_and(|i| {
                ctx.barriers[i].resource == y
                    && stages_cover(ctx.plan.barriers[ctx.barriers[i].index].dst_stage, b_stages)
            })
        })
        .collect();
    (lo..hi).any(|s| {
        barrier(s).is_some_and(|i| {
            stages_cover(ctx.plan.barriers[ctx.barriers[i].index].src_stage, stages)
        }) && ends.iter().any(|&e| chains.reaches(s, e))
    })
}
