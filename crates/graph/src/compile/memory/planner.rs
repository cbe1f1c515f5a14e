//! Tessera's placement: one growing block per memory class, several greedy orders and an
//! iterated-greedy refinement, never worse than the article's algorithm.
//!
//! A greedy run takes the items in a given order and puts each at an offset where it
//! overlaps no conflicting item already placed. The block is not fixed in advance: it grows
//! when nothing below the top fits. Two offset rules are tried: *lowest* (the first gap from
//! the bottom that fits) and *best fit* (the smallest gap that fits, the space above the
//! current top counting as a gap only when the item fits below the block's current size).
//! Any packing can be reproduced by the lowest-offset rule with some order (take the items
//! in order of their offsets: each lands at or below its offset there), so searching over
//! orders loses nothing in principle; the exact search of the tests does exactly that.
//!
//! Orders tried: size descending; start ascending; size × length descending; length
//! descending; end descending. The best run is then refined: an item is moved to an earlier
//! place in the order (a seeded pseudo-random choice, biased to the item that sets the
//! block's height) and the move is kept when the block does not grow. The amount of work is
//! bounded by a budget of pair tests (6·10⁵, a run costing about n²/2), so 1,000 items
//! get one size-descending run (besides the article's) while small frames get hundreds of refinement
//! rounds; everything stops as soon as the block reaches the class's lower bound. Finally, per class, the
//! article's bucket packing is computed too and used when it is smaller, so the result is
//! never worse than the article's. Deterministic: same problem, same placement.
//!
//! Cost: O(k·n²) for k runs (each run is O(n) per item: a walk over the placed items in
//! offset order, no sorting).

use super::article;
use super::bound;
use super::lifetimes::{Problem, Span};
use super::packing::{PackedBlock, Packing};

/// How a greedy run picks among the gaps that fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The lowest offset that fits.
    Lowest,
    /// The smallest gap that fits.
    BestFit,
}

/// Pair tests the planner may spend per class (a greedy run over n items costs about n²/2).
const BUDGET: u64 = 600_000;

/// Greedy runs never skipped, whatever the size: size descending, lowest offset.
const MIN_RUNS: u64 = 1;

/// Packs `problem` with Tessera's planner.
pub fn pack(problem: &Problem) -> Packing {
    pack_against(problem, &article::pack(problem))
}

/// Packs `problem`, falling back per class to `baseline` (the article's packing of the same
/// problem) where that is smaller.
pub fn pack_against(problem: &Problem, baseline: &Packing) -> Packing {
    let mut out = Packing::default();
    for class in problem.classes() {
        let items: Vec<usize> = (0..problem.items.len())
            .filter(|&i| problem.items[i].class == class)
            .collect();
        let (height, placed) = pack_class(problem, &items);
        let article_blocks: Vec<&PackedBlock> = baseline
            .blocks
            .iter()
            .filter(|b| b.class == class)
            .collect();
        let article_total: u64 = article_blocks.iter().map(|b| b.size).sum();
        if article_total < height {
            log::debug!("memory class {class}: the article's buckets ({article_total} bytes) beat the planner ({height} bytes); using them");
            out.blocks.extend(article_blocks.into_iter().cloned());
        } else {
            log::debug!("memory class {class}: {} items in one block of {height} bytes (article: {article_total})", items.len());
            out.blocks.push(PackedBlock {
                class,
                size: height,
                items: placed,
            });
        }
    }
    out
}

/// A sort key of an order to try: smaller keys are placed first.
type OrderKey<'a> = Box<dyn Fn(usize) -> (u64, u64, usize) + 'a>;

/// A greedy result: height, the order that gave it, and its placements.
type Candidate = (u64, Vec<usize>, Vec<(usize, u64)>);

/// Best single block for `items`: (height, placements).
fn pack_class(problem: &Problem, items: &[usize]) -> (u64, Vec<(usize, u64)>) {
    let it = &problem.items;
    let n = items.len() as u64;
    let len = |i: usize| {
        u64::from(it[i].span.lvl_hi - it[i].span.lvl_lo)
            + u64::from(it[i].span.pos_hi - it[i].span.pos_lo)
            + 2
    };
    let orders: [OrderKey<'_>; 5] = [
        Box::new(|i| (u64::MAX - it[i].footprint, u64::from(it[i].span.pos_lo), i)),
        Box::new(|i| (u64::from(it[i].span.pos_lo), u64::MAX - it[i].footprint, i)),
        Box::new(|i| (u64::MAX - it[i].footprint.saturating_mul(len(i)), 0, i)),
        Box::new(|i| (u64::MAX - len(i), u64::MAX - it[i].footprint, i)),
        Box::new(|i| {
            (
                u64::MAX - u64::from(it[i].span.pos_hi),
                u64::MAX - it[i].footprint,
                i,
            )
        }),
    ];
    let floor = bound::lower_bound_of(problem, items);
    let mut runs_left = (BUDGET / (n * n / 2).max(1)).clamp(MIN_RUNS, 400);
    let mut best: Option<Candidate> = None;
    let mut greedy = Greedy::new(problem, items.len());
    'orders: for key in &orders {
        let mut order = items.to_vec();
        order.sort_by_key(|&i| key(i));
        for rule in [Rule::Lowest, Rule::BestFit] {
            if runs_left == 0 || best.as_ref().is_some_and(|b| b.0 <= floor) {
                break 'orders;
            }
            runs_left -= 1;
            let cutoff = best.as_ref().map_or(u64::MAX, |b| b.0.saturating_add(1));
            if let Some(h) = greedy.run(&order, rule, cutoff) {
                if best.as_ref().is_none_or(|b| h < b.0) {
                    best = Some((h, order.clone(), greedy.placements()));
                }
            }
        }
    }
    let Some((mut best_h, mut best_order, mut best_place)) = best else {
        return (0, Vec::new());
    };
    let rounds = runs_left;
    let mut rng = SplitMix(0x9e37_79b9_7f4a_7c15 ^ n);
    let mut order = best_order.clone();
    for round in 0..rounds {
        if best_h <= floor || n < 2 {
            break;
        }
        order.clone_from(&best_order);
        // The item on top of the block sets its height: moving it earlier is the move most
        // likely to help; otherwise a random one.
        let from = if round % 2 == 0 {
            let top = best_place
                .iter()
                .max_by_key(|&&(i, off)| (off + it[i].footprint, off))
                .map(|&(i, _)| i);
            top.and_then(|t| order.iter().position(|&i| i == t))
                .unwrap_or(0)
        } else {
            rng.below(n) as usize
        };
        if from == 0 {
            continue;
        }
        let to = rng.below(from as u64) as usize;
        let moved = order.remove(from);
        order.insert(to, moved);
        let rule = if rng.below(2) == 0 {
            Rule::Lowest
        } else {
            Rule::BestFit
        };
        if let Some(h) = greedy.run(&order, rule, best_h.saturating_add(1)) {
            if h <= best_h {
                best_h = h;
                best_place = greedy.placements();
                std::mem::swap(&mut best_order, &mut order);
            }
        }
    }
    (best_h, best_place)
}

/// A placed item as the greedy walk reads it: offsets in units of the alignment, span
/// inline (24 bytes, for cache locality).
#[derive(Clone, Copy, Debug)]
struct Slot {
    off: u32,
    end: u32,
    span: Span,
}

/// Reusable state of greedy runs.
#[derive(Debug)]
pub struct Greedy<'a> {
    problem: &'a Problem,
    /// Placed items sorted by offset.
    placed: Vec<Slot>,
    order: Vec<(usize, u64)>,
    /// Footprint of each item in units of the alignment.
    units: Vec<u32>,
}

impl<'a> Greedy<'a> {
    /// State for runs over `problem`, `capacity` items at a time.
    pub fn new(problem: &'a Problem, capacity: usize) -> Self {
        let a = problem.alignment.max(1);
        let units = problem
            .items
            .iter()
            .map(|it| u32::try_from(it.footprint / a).unwrap_or(u32::MAX / 4))
            .collect();
        Greedy {
            problem,
            placed: Vec::with_capacity(capacity),
            order: Vec::with_capacity(capacity),
            units,
        }
    }

    /// Places `order` with `rule`; returns the block height in bytes, or `None` as soon as
    /// it reaches `cutoff` bytes.
    pub fn run(&mut self, order: &[usize], rule: Rule, cutoff: u64) -> Option<u64> {
        self.placed.clear();
        self.order.clear();
        let a = self.problem.alignment.max(1);
        let mut height = 0u32;
        for &i in order {
            let off = self.offset_for(i, rule, height);
            let end = off.saturating_add(self.units[i]);
            height = height.max(end);
            if u64::from(height) * a >= cutoff {
                return None;
            }
            let at = self.placed.partition_point(|s| s.off <= off);
            self.placed.insert(
                at,
                Slot {
                    off,
                    end,
                    span: self.problem.items[i].span,
                },
            );
            self.order.push((i, u64::from(off) * a));
        }
        Some(u64::from(height) * a)
    }

    /// The offset (in alignment units) where item `i` goes, given what is placed and the
    /// current `height`.
    fn offset_for(&self, i: usize, rule: Rule, height: u32) -> u32 {
        let me = self.problem.items[i].span;
        let need = self.units[i];
        let mut cursor = 0u32;
        let mut best: Option<(u32, u32)> = None; // (gap length, start)
        for s in &self.placed {
            if s.end <= cursor || !me.conflicts(&s.span) {
                continue;
            }
            if s.off >= cursor + need {
                match rule {
                    Rule::Lowest => return cursor,
                    Rule::BestFit => {
                        if best.is_none_or(|(l, _)| s.off - cursor < l) {
                            best = Some((s.off - cursor, cursor));
                        }
                    }
                }
            }
            cursor = cursor.max(s.end);
        }
        if cursor + need <= height && best.is_none_or(|(l, _)| height - cursor < l) {
            best = Some((height - cursor, cursor));
        }
        best.map_or(cursor, |(_, start)| start)
    }

    /// Placements (item, byte offset) of the last complete run, in placement order.
    pub fn placements(&self) -> Vec<(usize, u64)> {
        self.order.clone()
    }
}

/// A tiny deterministic generator for the refinement's choices.
#[derive(Clone, Copy, Debug)]
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}
