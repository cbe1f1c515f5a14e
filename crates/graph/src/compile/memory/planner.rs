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
//! Orders tried: size descending (and, when that misses the lower bound, the rescue run of
//! `rescue`: size descending, longer lifetimes first, kept only if it reaches the bound);
//! start ascending; size × length descending; length
//! descending; end descending. The best run is then refined: an item is moved to an earlier
//! place in the order (a seeded pseudo-random choice, biased to the item that sets the
//! block's height) and the move is kept when the block does not grow; the items before the
//! moved one keep their places, so a refinement run places only the rest. Everything stops
//! as soon as the block reaches the class's lower bound. The number of runs scales with the
//! problem: at most `RUNS_TIMES_ITEMS / n` (3,000 / n: hundreds for small frames, a few for
//! 1,000 items) and at most `BUDGET / (n + 2·pairs)` (dense problems), 1 to 400.
//!
//! Where conflicts are sparse, a run looks only at the placed items that conflict with the
//! one it places ([`Conflicts`], built once per class by a sweep), sorted by offset:
//! O(d log d) per item of d conflicts. Dense problems (many long lifetimes) walk every placed
//! item in offset order instead, skipping those that do not conflict, O(n) per item
//! ([`sparse_conflicts`] decides). Both give the same placements. With the lowest-offset
//! rule, the ranges are checked against offset 0 while they are gathered, and each one that
//! overlaps the candidate moves it to its end (no offset below that end can fit): some
//! items land at 0 without sorting anything, and the others start the walk higher; at most
//! a dozen ranges are sorted by insertion. Ranges that end at or below the candidate when
//! read are not gathered (it only moves up), and an unplaced item's range is empty at 0,
//! so the gathering tests one condition per list entry. The first order
//! (size descending, then first position) comes from two counting sorts when first
//! positions are small integers and footprints take few values; the first of them is the
//! conflict lists' sweep order ([`Conflicts::by_start`]) when the lists keep it, and the
//! second ranks the few distinct footprints once (each item gets its footprint's index by
//! a short linear search), not by a search per item.
//!
//! When some class misses its lower bound, the article's bucket packing is computed too
//! (per class, used when it is smaller), so the result is never worse than the article's;
//! when every class reaches its lower bound nothing can do better and the article is not
//! run. Deterministic: same problem, same placement.
//!
//! Cost: O(n log n + pairs) for the conflict lists, then O(Σ d log d) per run (O(n²) per run
//! when dense): with short lifetimes (few conflicts per item) linear in n, and the number of
//! runs falls as n grows. A class whose first run reaches its bound costs one run; one that
//! the rescue run brings to its bound, two.

use super::article;
use super::bound;
use super::conflicts::{sparse_conflicts, Conflicts};
use super::packing::{PackedBlock, Packing};
use super::problem::{Problem, Span};

/// How a greedy run picks among the gaps that fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The lowest offset that fits.
    Lowest,
    /// The smallest gap that fits.
    BestFit,
}

/// Work the planner may spend per class, in conflict-list entries read (a greedy run over
/// n items with p conflicting pairs reads about n + 2p): bounds the runs of dense problems.
const BUDGET: u64 = 600_000;

/// Greedy runs per class times items: bounds the runs of sparse problems, so that the
/// refinement costs about `RUNS_TIMES_ITEMS · (1 + mean conflicts per item)` whatever n.
const RUNS_TIMES_ITEMS: u64 = 3_000;

/// Greedy runs never skipped, whatever the size: size descending, lowest offset.
const MIN_RUNS: u64 = 1;

/// Most greedy runs per class.
const MAX_RUNS: u64 = 400;

/// Packs `problem` with Tessera's planner.
pub fn pack(problem: &Problem) -> Packing {
    plan(problem).0
}

/// Packs `problem` and says what the article's algorithm needed, when it was run: only when
/// the planner's own result misses the lower bound of some class (nothing beats the lower
/// bound). Then, per class, the article's packing replaces the planner's where it is
/// smaller, so the result is never worse than the article's.
pub fn plan(problem: &Problem) -> (Packing, Option<u64>) {
    plan_knowing(problem, None)
}

/// [`plan`], given the lower bound of the whole problem when the caller has it already
/// (it is the bound of the only class when there is one).
pub fn plan_knowing(problem: &Problem, lower_bound: Option<u64>) -> (Packing, Option<u64>) {
    let planned = plan_in_start_order(problem, lower_bound);
    (planned.0, planned.1)
}

/// What [`plan_in_start_order`] gives: the packing, the article's bytes when it ran, and
/// per block of the packing, its items (indices into `problem.items`) by (first use,
/// index) when the conflict lists' sweep gave that order on the way (one queue: first uses
/// are first positions) or, with lifetimes in levels, from one counting sort by first
/// level; else (the article's blocks) `None`.
pub type Planned = (Packing, Option<u64>, Vec<Option<Vec<u32>>>);

/// [`plan_knowing`], also handing on the items of each block in order of first use where
/// that order was found on the way (the plan section lists placements in that order within
/// an offset, so it need not sort them by first use again).
pub fn plan_in_start_order(problem: &Problem, lower_bound: Option<u64>) -> Planned {
    let mut classes = Vec::new();
    let mut all_at_floor = true;
    let all = problem.classes();
    for &class in &all {
        let items: Vec<usize> = if all.len() == 1 {
            (0..problem.items.len()).collect()
        } else {
            (0..problem.items.len())
                .filter(|&i| problem.items[i].class == class)
                .collect()
        };
        let conflicts = sparse_conflicts(problem, &items);
        let floor = match lower_bound {
            Some(b) if all.len() == 1 => b,
            _ => bound::lower_bound_of(problem, &items),
        };
        let (height, placed) = pack_class(problem, &items, conflicts.as_ref(), floor);
        all_at_floor &= height <= floor;
        classes.push((class, items, conflicts, height, placed));
    }
    let mut out = Packing::default();
    let mut orders = Vec::with_capacity(classes.len());
    // Local indices follow the global ones: the sweep's order mapped through `items`.
    let start_order = |items: &[usize], conflicts: Option<Conflicts>| {
        if problem.by_level {
            return by_first_use(problem, items);
        }
        let order = conflicts.and_then(Conflicts::into_by_start)?;
        Some(if items.len() == problem.items.len() {
            order
        } else {
            order.iter().map(|&k| items[k as usize] as u32).collect()
        })
    };
    if all_at_floor {
        for (class, items, conflicts, height, placed) in classes {
            orders.push(start_order(&items, conflicts));
            log::debug!(
                "memory class {class}: {} items in one block of {height} bytes (the lower bound)",
                items.len()
            );
            out.blocks.push(PackedBlock {
                class,
                size: height,
                items: placed,
            });
        }
        return (out, None, orders);
    }
    let mut article_total = 0;
    for (class, items, conflicts, height, placed) in classes {
        let article_blocks = article::pack_class(problem, class, &items, conflicts.as_ref());
        let article_height: u64 = article_blocks.iter().map(|b| b.size).sum();
        article_total += article_height;
        if article_height < height {
            log::debug!("memory class {class}: the article's buckets ({article_height} bytes) beat the planner ({height} bytes); using them");
            orders.extend(article_blocks.iter().map(|_| None));
            out.blocks.extend(article_blocks);
        } else {
            log::debug!("memory class {class}: {} items in one block of {height} bytes (article: {article_height})", items.len());
            orders.push(start_order(&items, conflicts));
            out.blocks.push(PackedBlock {
                class,
                size: height,
                items: placed,
            });
        }
    }
    (out, Some(article_total), orders)
}

/// `items` (indices into `problem.items`, ascending) by (first use, index): one stable
/// counting sort by first use (levels are small integers); `None` when they are not small.
fn by_first_use(problem: &Problem, items: &[usize]) -> Option<Vec<u32>> {
    let first = |i: usize| problem.items[i].first as usize;
    let max = items.iter().map(|&i| first(i)).max().unwrap_or(0);
    if max > 4 * items.len() + 1024 {
        return None;
    }
    let mut count = vec![0u32; max + 2];
    for &i in items {
        count[first(i) + 1] += 1;
    }
    super::running_sums(&mut count);
    let mut out = vec![0u32; items.len()];
    for &i in items {
        let c = &mut count[first(i)];
        out[*c as usize] = i as u32;
        *c += 1;
    }
    Some(out)
}

/// The best greedy run so far: height, order, placements (local item, offset in alignment
/// units), rule.
type Best = (u64, Vec<u32>, Vec<(u32, u32)>, Rule);

/// A sort key of an order to try: smaller keys are placed first.
type OrderKey<'a> = Box<dyn Fn(usize) -> (u64, u64, usize) + 'a>;

/// Best single block for `items` (whose conflict lists are `conflicts`, `None` for a dense
/// problem), stopping at
/// `floor`: (height, placements `(item, offset)`).
fn pack_class(
    problem: &Problem,
    items: &[usize],
    conflicts: Option<&Conflicts>,
    floor: u64,
) -> (u64, Vec<(usize, u64)>) {
    let it = &problem.items;
    let n = items.len() as u64;
    let len = |i: usize| span_len(&it[i].span);
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
    let run_cost = match conflicts {
        Some(c) => n + 2 * c.pairs() as u64,
        None => n * n / 2,
    };
    let mut runs_left = (BUDGET / run_cost.max(1))
        .min(RUNS_TIMES_ITEMS / n.max(1))
        .clamp(MIN_RUNS, MAX_RUNS);
    let mut greedy = Greedy::new(problem, items, conflicts);
    let mut best: Option<Best> = None;
    let mut order: Vec<u32> = Vec::with_capacity(items.len());
    let mut keyed: Vec<((u64, u64, usize), u32)> = Vec::new();
    // The footprints' ranks, shared by the first order and the rescue run's.
    let ranks = SizeRanks::of(problem, items);
    'orders: for (o, key) in orders.iter().enumerate() {
        if o != 0
            || size_then_start(
                problem,
                items,
                ranks.as_ref(),
                conflicts.and_then(Conflicts::by_start),
                &mut order,
            )
            .is_none()
        {
            sort_by_key_into(items, key, &mut keyed, &mut order);
        }
        debug_assert_in_key_order(items, key, &order);
        for rule in [Rule::Lowest, Rule::BestFit] {
            if runs_left == 0 || best.as_ref().is_some_and(|b| b.0 <= floor) {
                break 'orders;
            }
            runs_left -= 1;
            let cutoff = best.as_ref().map_or(u64::MAX, |b| b.0.saturating_add(1));
            if let Some(h) = greedy.run(&order, rule, cutoff) {
                if best.as_ref().is_none_or(|b| h < b.0) {
                    best = Some((h, order.clone(), greedy.placed.clone(), rule));
                }
            }
            if o == 0 && rule == Rule::Lowest && best.as_ref().is_some_and(|b| b.0 > floor) {
                if let Some(found) = rescue(problem, &mut greedy, items, ranks.as_ref(), floor) {
                    best = Some(found);
                    break 'orders;
                }
            }
        }
    }
    let Some((mut best_h, mut best_order, mut best_place, mut best_rule)) = best else {
        return (0, Vec::new());
    };
    let rounds = runs_left;
    let mut rng = SplitMix(0x9e37_79b9_7f4a_7c15 ^ n);
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
                .max_by_key(|&&(k, off)| (off.saturating_add(greedy.units[k as usize]), off))
                .map(|&(k, _)| k);
            top.and_then(|t| order.iter().position(|&k| k == t))
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
        // Items before `to` keep their places when the rule is the same.
        let prefix = if rule == best_rule {
            &best_place[..to]
        } else {
            &[]
        };
        if let Some(h) = greedy.run_from(&order, prefix, rule, best_h.saturating_add(1)) {
            if h <= best_h {
                best_h = h;
                best_rule = rule;
                best_place.clone_from(&greedy.placed);
                std::mem::swap(&mut best_order, &mut order);
            }
        }
    }
    let unit = greedy.unit;
    let placed = best_place
        .iter()
        .map(|&(k, off)| (items[k as usize], u64::from(off) * unit))
        .collect();
    (best_h, placed)
}

/// The rescue run, tried once when the first run misses the lower bound `floor`: size
/// descending, then longer lifetimes first (`len`), lowest offset. Its placement is kept
/// only when it reaches `floor` (then nothing can do better, and the other orders, the
/// refinement and the article's algorithm are skipped); otherwise it is forgotten and the
/// search goes on exactly as without it, so it never makes a result worse. It costs at
/// most one greedy run, outside the run budget.
fn rescue(
    problem: &Problem,
    greedy: &mut Greedy<'_>,
    items: &[usize],
    ranks: Option<&SizeRanks>,
    floor: u64,
) -> Option<Best> {
    let it = &problem.items;
    let len = |i: usize| span_len(&it[i].span);
    let key = |i: usize| (u64::MAX - it[i].footprint, u64::MAX - len(i), i);
    let longest = items.iter().map(|&i| len(i)).max().unwrap_or(0);
    let mut order = Vec::with_capacity(items.len());
    let shorter = |i: usize| u32::try_from(longest - len(i)).unwrap_or(u32::MAX);
    if size_then(ranks, items, shorter, &mut order).is_none() {
        sort_by_key_into(items, key, &mut Vec::new(), &mut order);
    }
    debug_assert_in_key_order(items, key, &order);
    let h = greedy.run(&order, Rule::Lowest, floor.saturating_add(1))?;
    Some((h, order, greedy.placed.clone(), Rule::Lowest))
}

/// `order` := the positions `0..items.len()` sorted by the key of their item: the comparison
/// sort used when a counting sort does not apply (`keyed` is scratch).
fn sort_by_key_into<K: Ord>(
    items: &[usize],
    key: impl Fn(usize) -> K,
    keyed: &mut Vec<(K, u32)>,
    order: &mut Vec<u32>,
) {
    keyed.clear();
    keyed.extend((0..items.len() as u32).map(|k| (key(items[k as usize]), k)));
    keyed.sort_unstable();
    order.clear();
    order.extend(keyed.iter().map(|&(_, k)| k));
}

/// Debug check that `order` (positions into `items`) is strictly increasing in `key`, whichever
/// sort produced it.
fn debug_assert_in_key_order<K: Ord>(items: &[usize], key: impl Fn(usize) -> K, order: &[u32]) {
    debug_assert!(
        order
            .windows(2)
            .all(|w| key(items[w[0] as usize]) < key(items[w[1] as usize])),
        "the counting sort gives the order of the key"
    );
}

/// Length of a conflict span, in positions and levels together (at least 2).
fn span_len(s: &Span) -> u64 {
    u64::from(s.lvl_hi - s.lvl_lo) + u64::from(s.pos_hi - s.pos_lo) + 2
}

/// Most units the items of one class may add up to: a greedy run's block height never
/// exceeds the sum of the units it placed (each item lands at or below the current top),
/// so no offset or end of a run overflows its 32 bits, with room to spare.
const MAX_UNITS: u32 = u32::MAX / 2;

/// Bytes per unit for the greedy runs over `items`: the alignment, or the smallest
/// power-of-two multiple of it at which the items' footprints (rounded up to whole units)
/// add up to at most [`MAX_UNITS`]. Offsets in units are then aligned and every run's
/// arithmetic fits in 32 bits. Only huge classes on small alignments (more than
/// 2^31 · alignment bytes, 128 TiB at 64 KiB) need a coarser unit; it may waste up to one
/// unit per item, and the article's byte-exact buckets are still compared with the result.
/// With the validated limit (at most 2^48 transient bytes, each footprint at least the
/// alignment) the doubling stops after a few steps and every height in bytes fits in 64
/// bits. O(n) per step.
fn unit_of(problem: &Problem, items: &[usize]) -> u64 {
    let mut unit = problem.alignment.max(1);
    loop {
        let total = items.iter().fold(0u64, |sum, &i| {
            sum.saturating_add(problem.items[i].footprint.div_ceil(unit))
        });
        if total <= u64::from(MAX_UNITS) {
            return unit;
        }
        match unit.checked_mul(2) {
            Some(u) => unit = u,
            // More items than units: not a frame that passes validation.
            None => return unit,
        }
    }
}

/// A placed item as the walk reads it: offsets in units of the alignment, span inline.
#[derive(Clone, Copy, Debug)]
struct Slot {
    off: u32,
    end: u32,
    span: Span,
}

/// Range of an item not placed yet: empty at 0, so it overlaps nothing (a placed item
/// occupies at least one unit).
const UNPLACED: u64 = 0;

/// A placed range as one word: `offset << 32 | end`, in alignment units.
#[inline]
fn range(off: u32, end: u32) -> u64 {
    u64::from(off) << 32 | u64::from(end)
}

/// Reusable state of greedy runs over the items of one class (local indices `0..n`).
#[derive(Debug)]
pub struct Greedy<'a> {
    /// Conflict lists, or `None`: walk over every placed item (dense problems).
    conflicts: Option<&'a Conflicts>,
    /// Bytes per unit of offsets and sizes ([`unit_of`]).
    unit: u64,
    /// Footprint of each item in units, rounded up.
    units: Vec<u32>,
    /// Conflict span of each item.
    spans: Vec<Span>,
    /// Placed range of each item ([`range`]), [`UNPLACED`] before it is placed.
    at: Vec<u64>,
    /// Placements (item, offset) of the last run, in placement order.
    placed: Vec<(u32, u32)>,
    /// Scratch (lists): ranges of the placed items conflicting with the one being placed.
    busy: Vec<u64>,
    /// (walk) Every placed item, sorted by offset, its span inline (for cache locality).
    slots: Vec<Slot>,
}

impl<'a> Greedy<'a> {
    /// State for runs over `items` of `problem`, whose conflict lists are `conflicts`.
    pub fn new(problem: &Problem, items: &[usize], conflicts: Option<&'a Conflicts>) -> Self {
        let unit = unit_of(problem, items);
        let units = items
            .iter()
            .map(|&i| {
                let u = problem.items[i].footprint.div_ceil(unit);
                debug_assert!(u <= u64::from(MAX_UNITS));
                u as u32
            })
            .collect();
        Greedy {
            conflicts,
            unit,
            units,
            // Read by the walk only.
            spans: match conflicts {
                Some(_) => Vec::new(),
                None => items.iter().map(|&i| problem.items[i].span).collect(),
            },
            at: vec![UNPLACED; items.len()],
            placed: Vec::with_capacity(items.len()),
            busy: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// Places `order` (local item indices) with `rule`; returns the block height in bytes,
    /// or `None` as soon as it reaches `cutoff` bytes.
    pub fn run(&mut self, order: &[u32], rule: Rule, cutoff: u64) -> Option<u64> {
        self.run_from(order, &[], rule, cutoff)
    }

    /// The same, when the first `prefix.len()` items of `order` are known to land where
    /// `prefix` (placements of an earlier run with the same rule and the same first items)
    /// says: only the rest is placed.
    pub fn run_from(
        &mut self,
        order: &[u32],
        prefix: &[(u32, u32)],
        rule: Rule,
        cutoff: u64,
    ) -> Option<u64> {
        debug_assert!(prefix.iter().zip(order).all(|(p, &k)| p.0 == k));
        self.at.fill(UNPLACED);
        self.placed.clear();
        self.placed.extend_from_slice(prefix);
        let walk = self.conflicts.is_none();
        self.slots.clear();
        let mut height = 0u32;
        for &(k, off) in prefix {
            let end = off.saturating_add(self.units[k as usize]);
            self.at[k as usize] = range(off, end);
            height = height.max(end);
            if walk {
                self.slots.push(Slot {
                    off,
                    end,
                    span: self.spans[k as usize],
                });
            }
        }
        self.slots.sort_by_key(|s| s.off);
        // The height (in units) at which the run gives up: `height · unit >= cutoff`.
        let limit = cutoff.div_ceil(self.unit);
        if let Some(c) = self.conflicts {
            let h = self.place_by_lists(c, &order[prefix.len()..], rule, height, limit)?;
            return Some(u64::from(h) * self.unit);
        }
        for &k in &order[prefix.len()..] {
            let off = self.offset_by_walk(k as usize, rule, height);
            let end = off.saturating_add(self.units[k as usize]);
            height = height.max(end);
            if u64::from(height) >= limit {
                return None;
            }
            self.placed.push((k, off));
            let at = self.slots.partition_point(|s| s.off <= off);
            self.slots.insert(
                at,
                Slot {
                    off,
                    end,
                    span: self.spans[k as usize],
                },
            );
        }
        Some(u64::from(height) * self.unit)
    }

    /// Places `rest` (the items after the prefix) through the conflict lists, from block
    /// height `height` (units); the final height, or `None` once it reaches `limit`.
    /// The state is borrowed into locals once (the loop reads nothing through `self`).
    fn place_by_lists(
        &mut self,
        c: &Conflicts,
        rest: &[u32],
        rule: Rule,
        mut height: u32,
        limit: u64,
    ) -> Option<u32> {
        let (units, at, placed, busy) = (
            &self.units[..],
            &mut self.at[..],
            &mut self.placed,
            &mut self.busy,
        );
        for &k in rest {
            let need = units[k as usize];
            let (stored, later) = c.parts(k as usize);
            let off = match rule {
                Rule::Lowest => lowest_by_lists(stored, later, at, need, busy),
                Rule::BestFit => {
                    busy.clear();
                    for part in [stored, later] {
                        busy.extend(
                            part.iter()
                                .map(|&j| at[j as usize])
                                .filter(|&r| r != UNPLACED),
                        );
                    }
                    busy.sort_unstable();
                    gap(
                        busy.iter().map(|&b| ((b >> 32) as u32, b as u32)),
                        need,
                        rule,
                        height,
                    )
                }
            };
            let end = off.saturating_add(need);
            height = height.max(end);
            if u64::from(height) >= limit {
                return None;
            }
            at[k as usize] = range(off, end);
            placed.push((k, off));
        }
        Some(height)
    }

    /// The offset (in alignment units) where item `k` goes, given what is placed and the
    /// current `height`, walking every placed item in offset order and skipping those that
    /// do not conflict (dense problems, no conflict lists).
    fn offset_by_walk(&self, k: usize, rule: Rule, height: u32) -> u32 {
        let me = self.spans[k];
        let busy = self
            .slots
            .iter()
            .filter(|s| me.conflicts(&s.span))
            .map(|s| (s.off, s.end));
        gap(busy, self.units[k], rule, height)
    }

    /// Placements (local item, offset in alignment units) of the last complete run, in
    /// placement order.
    pub fn placements(&self) -> &[(u32, u32)] {
        &self.placed
    }
}

/// Where an item of `need` units goes among `busy` (offset, end) ranges sorted by offset,
/// given the block's current `height`: the first gap that fits (`Lowest`) or the smallest
/// (`BestFit`, the space above the last range counting only when it fits below `height`).
fn gap(busy: impl Iterator<Item = (u32, u32)>, need: u32, rule: Rule, height: u32) -> u32 {
    let mut cursor = 0u32;
    let mut best: Option<(u32, u32)> = None; // (gap length, start)
    for (off, end) in busy {
        if end <= cursor {
            continue;
        }
        if off >= cursor.saturating_add(need) {
            match rule {
                Rule::Lowest => return cursor,
                Rule::BestFit => {
                    if best.is_none_or(|(l, _)| off - cursor < l) {
                        best = Some((off - cursor, cursor));
                    }
                }
            }
        }
        cursor = cursor.max(end);
    }
    if cursor.saturating_add(need) <= height && best.is_none_or(|(l, _)| height - cursor < l) {
        best = Some((height - cursor, cursor));
    }
    best.map_or(cursor, |(_, start)| start)
}

/// The lowest offset (alignment units) where `need` units overlap no placed range ([`at`
/// words](range)) of the items in `stored` and `later` (one item's conflict lists). Each
/// range that overlaps the candidate while they are gathered moves it to its end (no
/// lower offset can fit): 0 when none does; else the ranges still above the candidate
/// (`busy`, scratch) are sorted and walked from there. Ranges ending at or below the
/// candidate when read never matter (it only moves up); unplaced items end at 0.
#[inline]
fn lowest_by_lists(
    stored: &[u32],
    later: &[u32],
    at: &[u64],
    need: u32,
    busy: &mut Vec<u64>,
) -> u32 {
    busy.clear();
    let (mut low, mut top) = (0u32, need);
    for part in [stored, later] {
        for &j in part {
            let r = at[j as usize];
            if r as u32 > low {
                busy.push(r);
                if ((r >> 32) as u32) < top {
                    low = r as u32;
                    top = low.saturating_add(need);
                }
            }
        }
    }
    if low == 0 {
        return 0;
    }
    // Those still ending above the candidate, kept without a branch per range (the
    // write index advances by the comparison).
    let mut above = 0;
    for i in 0..busy.len() {
        let b = busy[i];
        busy[above] = b;
        above += usize::from(b as u32 > low);
    }
    busy.truncate(above);
    if busy.len() <= SMALL_BUSY {
        insertion_sort(busy);
    } else {
        busy.sort_unstable();
    }
    lowest_sorted(busy, need, low)
}

/// Sorts a few words, ascending.
fn insertion_sort(v: &mut [u64]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// [`gap`] for [`Rule::Lowest`] over `busy` ([`range`] words, sorted), starting at `low`
/// (no lower offset fits).
fn lowest_sorted(busy: &[u64], need: u32, mut low: u32) -> u32 {
    for &b in busy {
        let (off, end) = ((b >> 32) as u32, b as u32);
        if end <= low {
            continue;
        }
        if off >= low.saturating_add(need) {
            return low;
        }
        low = end;
    }
    low
}

/// Most placed conflicting items for which an insertion sort beats the library sort.
const SMALL_BUSY: usize = 12;

/// Order of local items by (footprint descending, first position, index), the first
/// greedy order ([`size_then`]); `by_start`, when given, is the items' order by (first
/// position, index) already (the conflict lists' sweep order), so that only the stable
/// pass by footprint is left. `None` without footprint ranks (the caller sorts instead).
fn size_then_start(
    problem: &Problem,
    items: &[usize],
    ranks: Option<&SizeRanks>,
    by_start: Option<&[u32]>,
    out: &mut Vec<u32>,
) -> Option<()> {
    let ranks = ranks?;
    match by_start {
        Some(order) => {
            ranks.order(order, out);
            Some(())
        }
        None => size_then(Some(ranks), items, |i| problem.items[i].span.pos_lo, out),
    }
}

/// Order of local items by (footprint descending, `then(item)`, index), by two counting
/// sorts (`then` gives small integers and footprints take few distinct values, `ranks`);
/// `None` when either is not small (the caller sorts instead).
fn size_then(
    ranks: Option<&SizeRanks>,
    items: &[usize],
    then: impl Fn(usize) -> u32,
    out: &mut Vec<u32>,
) -> Option<()> {
    let ranks = ranks?;
    let n = items.len();
    let keys: Vec<u32> = items.iter().map(|&i| then(i)).collect();
    let max_key = keys.iter().copied().max().unwrap_or(0) as usize;
    if max_key > 4 * n + 1024 {
        return None;
    }
    // By `then` (stable in the index), then stably by footprint rank.
    let mut count = vec![0u32; max_key + 2];
    for &key in &keys {
        count[key as usize + 1] += 1;
    }
    super::running_sums(&mut count);
    let mut by_key = vec![0u32; n];
    for (k, &key) in keys.iter().enumerate() {
        let c = &mut count[key as usize];
        by_key[*c as usize] = k as u32;
        *c += 1;
    }
    ranks.order(&by_key, out);
    Some(())
}

/// The footprints of a class's items ranked for counting sorts by footprint descending:
/// found once per class and shared by the orders that start with the footprint (the first
/// order and the rescue run's).
#[derive(Debug)]
struct SizeRanks {
    /// Index of each local item's footprint among the distinct ones.
    id: Vec<u8>,
    /// First slot of each distinct footprint in an order by footprint descending.
    start: [u32; SizeRanks::MAX],
}

impl SizeRanks {
    /// Most distinct footprints.
    const MAX: usize = 32;

    /// The ranks of `items`' footprints; `None` when they take more than [`Self::MAX`]
    /// distinct values. One pass gives each item the index of its footprint among those
    /// seen so far (a short linear search; neighbours in declaration order often share
    /// one) and counts them; the few distinct footprints are then ranked.
    fn of(problem: &Problem, items: &[usize]) -> Option<Self> {
        const MAX: usize = SizeRanks::MAX;
        let it = &problem.items;
        let mut sizes = [0u64; MAX];
        let mut count = [0u32; MAX];
        let mut distinct = 0;
        let mut id: Vec<u8> = Vec::with_capacity(items.len());
        let (mut last, mut last_id) = (u64::MAX, 0usize);
        for &i in items {
            let f = it[i].footprint;
            if f != last || distinct == 0 {
                last_id = match sizes[..distinct].iter().position(|&s| s == f) {
                    Some(d) => d,
                    None if distinct == MAX => return None,
                    None => {
                        sizes[distinct] = f;
                        distinct += 1;
                        distinct - 1
                    }
                };
                last = f;
            }
            id.push(last_id as u8);
            count[last_id] += 1;
        }
        // Footprint indices by footprint descending; each one's first slot.
        let mut by_rank: [u8; MAX] = std::array::from_fn(|d| d as u8);
        let by_rank = &mut by_rank[..distinct];
        by_rank.sort_unstable_by(|&a, &b| sizes[b as usize].cmp(&sizes[a as usize]));
        let mut start = [0u32; MAX];
        let mut next = 0;
        for &d in by_rank.iter() {
            start[d as usize] = next;
            next += count[d as usize];
        }
        Some(SizeRanks { id, start })
    }

    /// `out` := `order` (local items) stably sorted by footprint descending, one pass.
    fn order(&self, order: &[u32], out: &mut Vec<u32>) {
        debug_assert_eq!(order.len(), self.id.len());
        let mut start = self.start;
        out.clear();
        out.resize(order.len(), 0);
        for &k in order {
            let c = &mut start[self.id[k as usize] as usize];
            out[*c as usize] = k;
            *c += 1;
        }
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

#[cfg(test)]
mod tests {
    use super::super::bound;
    use super::super::conflicts::Conflicts;
    use super::super::packing::{PackedBlock, Packing};
    use super::super::problem::{Item, Problem};
    use super::{
        gap, insertion_sort, lowest_sorted, rescue, size_then_start, Greedy, Rule, SizeRanks,
    };

    #[test]
    fn rescue_reaches_the_bound_where_the_first_order_misses_it() {
        let mut rescued = 0;
        for seed in 1..400u64 {
            let mut next = super::super::test_rng(seed);
            let n = 5 + next(6) as usize;
            let items: Vec<Item> = (0..n)
                .map(|i| {
                    let pos_lo = next(8) as u32;
                    let pos_hi = pos_lo + next(4) as u32;
                    let footprint = 1 + next(4);
                    Item::test_buffer(i, pos_lo, pos_hi, footprint)
                })
                .collect();
            let p = Problem {
                items,
                alignment: 1,
                by_level: false,
                memoryless_bytes: 0,
            };
            let all: Vec<usize> = (0..n).collect();
            let floor = bound::lower_bound_of(&p, &all);
            let c = Conflicts::new(&p, &all);
            let mut greedy = Greedy::new(&p, &all, Some(&c));
            let ranks = SizeRanks::of(&p, &all);
            let mut order = Vec::new();
            assert_eq!(
                size_then_start(&p, &all, ranks.as_ref(), c.by_start(), &mut order),
                Some(())
            );
            let first = greedy.run(&order, Rule::Lowest, u64::MAX);
            let Some(found) = rescue(&p, &mut greedy, &all, ranks.as_ref(), floor) else {
                continue;
            };
            // Kept only at the bound, in its order: size descending, longer first.
            assert!(found.0 <= floor, "seed {seed}");
            let key = |k: u32| {
                let it = &p.items[k as usize];
                (
                    u64::MAX - it.footprint,
                    u64::MAX - super::span_len(&it.span),
                    k,
                )
            };
            assert!(
                found.1.windows(2).all(|w| key(w[0]) < key(w[1])),
                "seed {seed}"
            );
            let packing = Packing {
                blocks: vec![PackedBlock {
                    class: 0,
                    size: found.0,
                    items: found
                        .2
                        .iter()
                        .map(|&(k, o)| (k as usize, u64::from(o)))
                        .collect(),
                }],
            };
            assert_eq!(packing.violation(&p), None, "seed {seed}");
            if first.is_some_and(|h| h > floor) {
                rescued += 1;
                // The planner keeps it: it reaches the bound and runs nothing else.
                let (planned, article) = super::plan(&p);
                assert_eq!(planned.total(), floor, "seed {seed}");
                assert_eq!(article, None, "seed {seed}");
            }
        }
        assert!(
            rescued > 0,
            "some problem where only the rescue order reaches the bound"
        );
    }

    #[test]
    fn counting_order_is_the_sorted_order() {
        for seed in 1..65u64 {
            let mut next = super::super::test_rng(seed);
            let n = 3 + seed as usize * 4;
            let items: Vec<Item> = (0..n)
                .map(|i| {
                    let pos_lo = next(n as u64) as u32;
                    let footprint = 64 << next(5);
                    Item::test_buffer(i, pos_lo, pos_lo + 2, footprint)
                })
                .collect();
            let p = Problem {
                items,
                alignment: 64,
                by_level: false,
                memoryless_bytes: 0,
            };
            let local: Vec<usize> = (0..n).filter(|&i| i % 5 != 1).collect();
            let mut want: Vec<u32> = (0..local.len() as u32).collect();
            want.sort_by_key(|&k| {
                let it = &p.items[local[k as usize]];
                (u64::MAX - it.footprint, it.span.pos_lo, k)
            });
            let mut got = Vec::new();
            let ranks = SizeRanks::of(&p, &local);
            assert_eq!(
                size_then_start(&p, &local, ranks.as_ref(), None, &mut got),
                Some(())
            );
            assert_eq!(got, want, "seed {seed}");
            // From the conflict lists' sweep order: the same.
            let c = Conflicts::new(&p, &local);
            assert!(c.by_start().is_some(), "one queue keeps the sweep order");
            got.clear();
            assert_eq!(
                size_then_start(&p, &local, ranks.as_ref(), c.by_start(), &mut got),
                Some(())
            );
            assert_eq!(got, want, "seed {seed}");
            // Ranges in any order: the lowest offset is the sorted walk's.
            let mut busy: Vec<u64> = (0..next(10))
                .map(|_| {
                    let off = next(40) as u32;
                    u64::from(off) << 32 | u64::from(off + 1 + next(8) as u32)
                })
                .collect();
            let need = 1 + next(6) as u32;
            let mut sorted = busy.clone();
            insertion_sort(&mut sorted);
            busy.sort_unstable();
            assert_eq!(sorted, busy, "seed {seed}");
            let lowest = lowest_sorted(&busy, need, 0);
            let walk = busy.iter().map(|&b| ((b >> 32) as u32, b as u32));
            assert_eq!(lowest, gap(walk, need, Rule::Lowest, 100), "seed {seed}");
            // Starting above 0 at an offset below the answer changes nothing.
            let start = busy
                .iter()
                .map(|&b| b as u32)
                .filter(|&e| e <= lowest)
                .max();
            assert_eq!(lowest_sorted(&busy, need, start.unwrap_or(0)), lowest);
        }
    }
}
