//! The lower bound of any packing: the largest sum of footprints alive at one time.
//!
//! A sweep over lifetime starts and ends in the plan's unit. Footprints (sizes rounded up to
//! the alignment) are used because no aligned packing can place simultaneously alive items
//! closer than that, and blocks are whole multiples of the alignment. Cost: O(n log n).

use super::lifetimes::{Item, Problem};

/// Largest sum of footprints of items alive at one time (plan lifetimes, all classes).
pub fn lower_bound(problem: &Problem) -> u64 {
    sweep(problem.items.iter())
}

/// The same over the items with indices `items` (one class, say).
pub fn lower_bound_of(problem: &Problem, items: &[usize]) -> u64 {
    sweep(items.iter().map(|&i| &problem.items[i]))
}

fn sweep<'a>(items: impl Iterator<Item = &'a Item>) -> u64 {
    let mut events: Vec<(u32, bool, u64)> = Vec::new();
    for it in items {
        // Ends sort after starts of the same unit: lifetimes are closed intervals.
        events.push((it.first, false, it.footprint));
        events.push((it.last, true, it.footprint));
    }
    events.sort_unstable();
    let (mut alive, mut best) = (0u64, 0u64);
    for (_, end, bytes) in events {
        if end {
            alive -= bytes;
        } else {
            alive += bytes;
            best = best.max(alive);
        }
    }
    best
}
