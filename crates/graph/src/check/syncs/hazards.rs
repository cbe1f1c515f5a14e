//! The checker's own cross-queue hazards: per resource, the graph's uses in plan order (a use
//! whose subpass stores the attachment, or loads it with `CLEAR`/`DONT_CARE`, writes it: see
//! `check/ops.rs`) plus the plan's layout transitions (a transition is a write: whatever
//! touched the image before it must finish first, and whatever reads after it must wait for
//! it). A use or transition conflicts with the last write (or transition) if it reads, and
//! also with every read since if it writes. Release halves are skipped: a transfer pair
//! transitions once, and the acquire stands for it. Cost: O(uses + barriers) plus a sort per resource.

use super::Ctx;
use crate::check::ops::Ops;
use crate::check::table;
use crate::graph::ResourceId;
use crate::plan::TransferHalf;

/// `to` must not start before `from` has finished; they are on different queues.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hazard {
    pub from: usize,
    pub to: usize,
    pub resource: ResourceId,
}

/// Every cross-queue hazard of the plan.
pub(super) fn cross_queue(ctx: &Ctx<'_>) -> Vec<Hazard> {
    // (node, phase: 0 barrier before, 1 use, 2 barrier after, writes)
    let mut events: Vec<Vec<(usize, u8, bool)>> = vec![Vec::new(); ctx.graph.resources.len()];
    let ops = Ops::new(ctx.graph, ctx.plan);
    for (i, &p) in ctx.pass.iter().enumerate() {
        for u in &ctx.graph.pass(p).uses {
            let r = u.resource.index();
            // A subpass that stores the attachment, or loads it with CLEAR/DONT_CARE, writes it.
            let op = ops.at(p.index(), r);
            let writes = table::writes(u.access)
                || op.store.is_some_and(|(_, a)| a.writes)
                || op.load.is_some_and(|(_, a)| a.writes);
            if let Some(list) = events.get_mut(r) {
                list.push((i, 1, writes));
            }
        }
    }
    for b in &ctx.plan.barriers {
        let Some((old, new)) = b.old_layout.zip(b.new_layout) else {
            continue;
        };
        let release = b
            .queue_transfer
            .as_ref()
            .is_some_and(|t| t.half == TransferHalf::Release);
        if old == new || release {
            continue;
        }
        let (Some(&i), Some(r)) = (
            ctx.node.get(b.before.as_str()),
            ctx.graph.find_resource(&b.resource),
        ) else {
            continue;
        };
        let phase = match b.position {
            crate::plan::BarrierPosition::Before => 0,
            crate::plan::BarrierPosition::After => 2,
        };
        events[r.index()].push((i, phase, true));
    }
    let mut out = Vec::new();
    for (r, list) in ctx.graph.resource_ids().zip(events.iter_mut()) {
        list.sort_by_key(|&(i, phase, _)| (i, phase));
        let mut last_write: Option<usize> = None;
        let mut readers: Vec<usize> = Vec::new();
        for &(node, _, writes) in list.iter() {
            let mut conflict = |from: usize| {
                if ctx.queue[from] != ctx.queue[node] {
                    out.push(Hazard {
                        from,
                        to: node,
                        resource: r,
                    });
                }
            };
            if let Some(w) = last_write {
                conflict(w);
            }
            if writes {
                readers.iter().for_each(|&x| conflict(x));
                readers.clear();
                last_write = Some(node);
            } else {
                readers.push(node);
            }
        }
    }
    out
}

/// Cross-queue hazards of memory aliasing: a resource placed over bytes an earlier occupant
/// used (its lifetime ends before this one's starts) must not start before every use of the
/// earlier occupant on the other queue has finished. Read from the plan's own placements.
pub(super) fn aliasing(ctx: &Ctx<'_>) -> Vec<Hazard> {
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); ctx.graph.resources.len()];
    for (i, &p) in ctx.pass.iter().enumerate() {
        for u in &ctx.graph.pass(p).uses {
            if let Some(list) = uses.get_mut(u.resource.index()) {
                list.push(i);
            }
        }
    }
    let mut out = Vec::new();
    for block in &ctx.plan.memory.blocks {
        for later in &block.placements {
            let Some(b) = ctx.graph.find_resource(&later.resource) else {
                continue;
            };
            let Some(&first) = uses[b.index()].first() else {
                continue;
            };
            for earlier in &block.placements {
                let bytes_overlap = earlier.offset < later.offset + later.size
                    && later.offset < earlier.offset + earlier.size;
                if !bytes_overlap || earlier.last >= later.first {
                    continue;
                }
                let Some(a) = ctx.graph.find_resource(&earlier.resource) else {
                    continue;
                };
                for &from in &uses[a.index()] {
                    if ctx.queue[from] != ctx.queue[first] {
                        out.push(Hazard {
                            from,
                            to: first,
                            resource: b,
                        });
                    }
                }
            }
        }
    }
    out
}
