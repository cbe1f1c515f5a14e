//! Phase 8, memory: placement of transient resources into memory blocks, so that resources
//! whose lifetimes do not overlap share bytes (low-level aliasing).
//!
//! [`lifetimes`] turns the schedule into a placement [`Problem`] ([`problem`]: which
//! resources, their footprints, classes and conflict spans); [`conflicts`] lists, per class, which items may
//! not share bytes; [`planner`] places them (several greedy orders in one growing block per
//! memory class, refined, never worse than [`article`], the baseline of the aliasing
//! article, which runs only when the planner misses the lower bound: `article_bytes` is 0
//! when it did not run); [`bound`] gives the lower bound any placement needs (accumulated
//! once, while the problem is built: it is also the floor of a problem with a single memory
//! class);
//! [`exact`] finds the optimum of small problems for tests. Without `CompileOptions::alias`
//! every resource gets a block of its own. Invariant: placements whose conflict spans
//! overlap never overlap in bytes, and every placement lies inside its block. Sizes: the
//! validate phase caps each transient footprint and their sum at
//! [`MAX_TRANSIENT_BYTES`](crate::error::MAX_TRANSIENT_BYTES) (2^48), so no size, offset, end
//! or total here overflows 64 bits, and the greedy runs count in units of which a class holds
//! at most 2^31 (coarser than the alignment only for classes over 2^31 alignments). Cost:
//! dominated by the planner, O(n log n + pairs) for the conflict lists plus O(Σ d log d) per
//! greedy run (d conflicts per item), a handful of runs for large frames. The plan section lists each block's placements by (offset, first use,
//! resource): one counting sort by offset over the items by first use (handed on by
//! [`planner::plan_in_start_order`]: on one queue the conflict sweep's order by first
//! position, with levels one counting sort by first level), else two counting sorts.
//! The aliasing barriers that make reuse safe are added afterwards by `alias_barriers`.

pub mod article;
pub mod bound;
pub mod conflicts;
pub mod exact;
pub mod lifetimes;
pub mod packing;
pub mod planner;
pub mod problem;

pub use lifetimes::Timeline;
pub use packing::{PackedBlock, Packing};
pub use problem::{Item, Problem, Span};

use super::renderpass::RenderPassGrouping;
use super::Schedule;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::Graph;
use crate::plan::{Block, Memory, Placement};

/// Where the overlap of two frames (`compile::overlap`) wants a transient placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Apart {
    /// Anywhere its lifetime allows (the default).
    #[default]
    Shared,
    /// Among the other `Group` resources only: the next frame's first graphics passes use
    /// them while the previous frame's async tail uses the others.
    Group,
    /// Bytes no other resource uses.
    Own,
}

/// The class bit of [`Apart::Group`] items while the planner runs (items of different
/// classes never share a block); blocks get their real class back.
const GROUP_CLASS: u32 = 1 << 30;

/// The memory phase's output: the problem, its packing (by item index) and the plan section.
#[derive(Clone, Debug, Default)]
pub struct MemoryLayout {
    /// What had to be placed.
    pub problem: Problem,
    /// Where it went.
    pub packing: Packing,
    /// The plan's `memory` section.
    pub memory: Memory,
}

/// Places the transient resources used by kept passes, leaving out imported ones and those
/// marked in `memoryless` (indexed by resource), each where `apart` says (indexed by
/// resource, may be empty: all [`Apart::Shared`]).
pub fn plan_memory(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
    caps: &Capabilities,
    options: &CompileOptions,
    memoryless: &[bool],
    apart: &[Apart],
) -> MemoryLayout {
    let (mut problem, lower_bound) =
        Problem::of_schedule(graph, schedule, grouping, caps, memoryless);
    let of = |it: &Item| apart.get(it.resource.index()).copied().unwrap_or_default();
    for it in &mut problem.items {
        if of(it) == Apart::Group {
            it.class |= GROUP_CLASS;
        }
    }
    if apart.contains(&Apart::Own) {
        // The whole frame, as far as any item reaches: such an item conflicts with all.
        let whole = problem.items.iter().fold(
            Span {
                pos_lo: 0,
                pos_hi: 0,
                lvl_lo: 0,
                lvl_hi: 0,
            },
            |w, it| Span {
                pos_hi: w.pos_hi.max(it.span.pos_hi),
                lvl_hi: w.lvl_hi.max(it.span.lvl_hi),
                ..w
            },
        );
        for it in &mut problem.items {
            if of(it) == Apart::Own {
                it.span = whole;
            }
        }
    }
    let (packing, article_bytes, by_start) = if options.alias {
        let (packing, article, by_start) =
            planner::plan_in_start_order(&problem, Some(lower_bound));
        let placed_apart = apart.iter().any(|&a| a != Apart::Shared);
        let article = match article {
            Some(a) => a,
            // Each group may reach its own bound while the real class, both groups
            // together, does not: the article's algorithm is then the comparison.
            None if placed_apart => article::pack(&problem).total(),
            None => 0,
        };
        (packing, article, by_start)
    } else {
        let packing = Packing::unaliased(&problem);
        let total = packing.total();
        (packing, total, Vec::new())
    };
    debug_assert_eq!(
        packing.violation(&problem),
        None,
        "the planner keeps every placement rule"
    );
    let memory = describe(
        graph,
        &problem,
        &packing,
        &by_start,
        article_bytes,
        lower_bound,
    );
    log::debug!(
        "memory: {} resources, unaliased {} bytes, aliased {} bytes, lower bound {}, article {}",
        problem.items.len(),
        memory.unaliased_bytes,
        memory.aliased_bytes,
        memory.lower_bound_bytes,
        article_bytes
    );
    MemoryLayout {
        problem,
        packing,
        memory,
    }
}

/// The plan section of a packing; `lower_bound` is [`bound::lower_bound`] of `problem`;
/// `by_start[b]`, where present, holds the items of block `b` by (first use, index) (see
/// [`planner::plan_in_start_order`]): then one counting sort by offset lists the
/// placements.
pub fn describe(
    graph: &Graph,
    problem: &Problem,
    packing: &Packing,
    by_start: &[Option<Vec<u32>>],
    article_bytes: u64,
    lower_bound: u64,
) -> Memory {
    let mut units: Vec<u32> = Vec::new();
    let blocks = packing
        .blocks
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            // Sorted by (offset, first use, item): as one word (offset in alignment units,
            // first use) and the item when the offsets fit in 32 bits, as they do but for
            // huge blocks; then built in that order (exact capacity: a slice is mapped).
            let a = problem.alignment.max(1);
            let place = |offset: u64, i: u32| {
                let it = &problem.items[i as usize];
                Placement {
                    resource: graph.resource(it.resource).name,
                    offset,
                    size: it.size,
                    first: it.first,
                    last: it.last,
                }
            };
            let in_start_order = by_start.get(bi).and_then(Option::as_deref);
            if let Some(order) = in_start_order.filter(|o| o.len() == b.items.len()) {
                if let Some(sorted) = by_offset(problem, &b.items, order, &mut units) {
                    return Block {
                        size: b.size,
                        placements: sorted.map(|(i, off)| place(off, i)).collect(),
                        class: b.class & !GROUP_CLASS,
                    };
                }
            }
            let placements: Vec<Placement> = if b.size / a <= u64::from(u32::MAX) {
                let mut keys: Vec<(u64, u32)> = b
                    .items
                    .iter()
                    .map(|&(i, offset)| {
                        let first = problem.items[i].first;
                        (units_of(offset, a) << 32 | u64::from(first), i as u32)
                    })
                    .collect();
                sort_packed(&mut keys);
                keys.iter()
                    .map(|&(key, i)| place((key >> 32) * a, i))
                    .collect()
            } else {
                let mut keys: Vec<(u64, u32, u32)> = b
                    .items
                    .iter()
                    .map(|&(i, offset)| (offset, problem.items[i].first, i as u32))
                    .collect();
                keys.sort_unstable();
                keys.iter()
                    .map(|&(offset, _, i)| place(offset, i))
                    .collect()
            };
            Block {
                size: b.size,
                placements,
                class: b.class & !GROUP_CLASS,
            }
        })
        .collect();
    Memory {
        alignment: problem.alignment,
        lifetime_unit: if problem.by_level {
            crate::plan::LifetimeUnit::Level
        } else {
            crate::plan::LifetimeUnit::Order
        },
        unaliased_bytes: problem.items.iter().map(|i| i.footprint).sum(),
        aliased_bytes: packing.total(),
        lower_bound_bytes: lower_bound,
        memoryless_bytes: problem.memoryless_bytes,
        article_bytes,
        blocks,
        memoryless_fallbacks: Vec::new(),
    }
}

/// The placements `(item, offset)` of one block by (offset, first use, item), given the
/// block's items by (first use, item) in `order`: a stable counting sort by offset in
/// alignment units (`units` is scratch, indexed by item). `None` when the offsets are not
/// small integers (the caller sorts instead).
fn by_offset<'a>(
    problem: &Problem,
    placed: &[(usize, u64)],
    order: &'a [u32],
    units: &'a mut Vec<u32>,
) -> Option<impl Iterator<Item = (u32, u64)> + 'a> {
    let a = problem.alignment.max(1);
    let limit = 4 * placed.len() as u64 + 1024;
    units.clear();
    units.resize(problem.items.len(), 0);
    let mut max = 0u64;
    for &(i, offset) in placed {
        let u = units_of(offset, a);
        max = max.max(u);
        units[i] = u as u32;
    }
    if max > limit {
        return None;
    }
    let max = max as usize;
    let mut count = vec![0u32; max + 2];
    for &i in order {
        count[units[i as usize] as usize + 1] += 1;
    }
    running_sums(&mut count);
    let mut out = vec![0u32; order.len()];
    for &i in order {
        let c = &mut count[units[i as usize] as usize];
        out[*c as usize] = i;
        *c += 1;
    }
    let units = &*units;
    Some(
        out.into_iter()
            .map(move |i| (i, u64::from(units[i as usize]) * a)),
    )
}

/// Sorts `(key, item)` pairs as `sort_unstable` would, where `key` packs two small integers
/// (offset in alignment units, first use): two stable counting sorts, low half then high
/// half, when both halves are small; the keys of one block's placements are distinct (two
/// items at one offset and one first use would overlap in bytes and lifetime), and where
/// they are not a comparison sort decides the ties by item.
fn sort_packed(keys: &mut Vec<(u64, u32)>) {
    let n = keys.len();
    let limit = 4 * n as u64 + 1024;
    let (mut lo_max, mut hi_max) = (0u64, 0u64);
    for &(key, _) in keys.iter() {
        lo_max = lo_max.max(key & 0xffff_ffff);
        hi_max = hi_max.max(key >> 32);
    }
    if n < 2 || lo_max > limit || hi_max > limit {
        keys.sort_unstable();
        return;
    }
    let mut count: Vec<u32> = Vec::new();
    let mut out: Vec<(u64, u32)> = vec![(0, 0); n];
    for shift in [0u32, 32] {
        let digit = |key: u64| ((key >> shift) & 0xffff_ffff) as usize;
        let max = if shift == 0 { lo_max } else { hi_max } as usize;
        count.clear();
        count.resize(max + 2, 0);
        for &(key, _) in keys.iter() {
            count[digit(key) + 1] += 1;
        }
        running_sums(&mut count);
        for &e in keys.iter() {
            let c = &mut count[digit(e.0)];
            out[*c as usize] = e;
            *c += 1;
        }
        std::mem::swap(keys, &mut out);
    }
    if keys.windows(2).any(|w| w[0].0 == w[1].0) {
        keys.sort_unstable();
    }
}

/// `bytes / alignment`: a shift for the power-of-two alignments the compiler uses (a
/// division costs tens of cycles), a division otherwise.
#[inline]
fn units_of(bytes: u64, alignment: u64) -> u64 {
    if alignment.is_power_of_two() {
        bytes >> alignment.trailing_zeros()
    } else {
        bytes / alignment.max(1)
    }
}

/// Running sums in place: `v[i]` becomes `v[0] + … + v[i]` (the counts of a counting sort
/// shifted by one become each key's first slot).
fn running_sums(v: &mut [u32]) {
    let mut acc = 0u32;
    for c in v {
        acc += *c;
        *c = acc;
    }
}

/// A seeded xorshift generator for the memory modules' randomized tests: `next(m)` is in
/// `0..m`.
#[cfg(test)]
fn test_rng(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    }
}

#[cfg(test)]
mod tests {
    use super::problem::{Item, Problem};
    use super::{by_offset, planner, sort_packed, test_rng};

    #[test]
    fn offset_sort_over_the_start_order_is_the_packed_sort() {
        let (mut checked, mut with_levels) = (0, 0);
        for seed in 1..97u64 {
            let mut next = test_rng(seed);
            let n = 4 + seed as usize * 2;
            // Every third problem has lifetimes in levels (first uses are first levels,
            // a few positions apart from the first positions).
            let by_level = seed % 3 == 1;
            let items: Vec<Item> = (0..n)
                .map(|i| {
                    let pos_lo = next(n as u64) as u32;
                    let pos_hi = pos_lo + next(5) as u32;
                    let footprint = 64 * (1 + next(6));
                    let mut item = Item {
                        class: (seed % 3 == 0) as u32 * (i as u32 % 2),
                        ..Item::test_buffer(i, pos_lo, pos_hi, footprint)
                    };
                    if by_level {
                        let lvl_lo = pos_lo / 2 + next(3) as u32;
                        let lvl_hi = lvl_lo + next(3) as u32;
                        (item.span.lvl_lo, item.span.lvl_hi) = (lvl_lo, lvl_hi);
                        (item.first, item.last) = (lvl_lo, lvl_hi);
                    }
                    item
                })
                .collect();
            let p = Problem {
                items,
                alignment: 64,
                by_level,
                memoryless_bytes: 0,
            };
            let (packing, _, orders) = planner::plan_in_start_order(&p, None);
            assert_eq!(orders.len(), packing.blocks.len(), "seed {seed}");
            let mut units = Vec::new();
            for (b, order) in packing.blocks.iter().zip(&orders) {
                let Some(order) = order else { continue };
                let mut keys: Vec<(u64, u32)> = b
                    .items
                    .iter()
                    .map(|&(i, off)| ((off / 64) << 32 | u64::from(p.items[i].first), i as u32))
                    .collect();
                sort_packed(&mut keys);
                let want: Vec<(u32, u64)> =
                    keys.iter().map(|&(k, i)| (i, (k >> 32) * 64)).collect();
                let got: Vec<(u32, u64)> = by_offset(&p, &b.items, order, &mut units)
                    .expect("small offsets")
                    .collect();
                assert_eq!(got, want, "seed {seed}");
                checked += 1;
                with_levels += usize::from(by_level);
            }
        }
        assert!(checked > 64, "the planner hands on the start order");
        assert!(with_levels > 16, "and the order by first level");
    }

    #[test]
    fn packed_sort_is_the_comparison_sort() {
        for seed in 1..65u64 {
            let mut next = test_rng(seed);
            let n = seed as usize * 3;
            // Small halves (counting sorts), sometimes repeated keys or one huge half.
            let spread = if seed % 7 == 0 {
                1 << 40
            } else {
                4 * n as u64 + 8
            };
            let mut keys: Vec<(u64, u32)> = (0..n)
                .map(|i| {
                    let hi = next(spread >> 32 | spread.min(64));
                    (hi << 32 | next(spread.min(1 << 20)), i as u32)
                })
                .collect();
            if seed % 5 == 0 && n > 1 {
                keys[1].0 = keys[0].0;
            }
            let mut want = keys.clone();
            want.sort_unstable();
            sort_packed(&mut keys);
            assert_eq!(keys, want, "seed {seed}");
        }
    }
}
