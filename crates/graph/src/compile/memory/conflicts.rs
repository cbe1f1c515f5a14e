//! Conflict lists: for the items of one memory class, the other items of the class each one
//! may never share bytes with, so that a placement looks only at those instead of at every
//! placed item.
//!
//! Built by one sweep over the items sorted by first execution position (a counting sort:
//! positions are small integers). When item `k` is reached, every earlier-starting item `j`
//! conflicts with it exactly when `j` is still alive in positions (`j.pos_hi >= k.pos_lo`:
//! their positions overlap) or, with lifetimes in levels, when `j` ended in positions but not
//! in levels (`j.lvl_hi >= k.lvl_lo`: the inverted pairs of
//! [`Span::conflicts`](super::Span::conflicts)); `k` cannot come wholly before an item that
//! started no later than it.
//! On one queue (conflicts are position overlaps), and with levels whenever first levels
//! never decrease along the sweep (the level-by-level order of async compute gives that:
//! an item alive in neither positions nor levels then never conflicts with a later one, so
//! "alive" means alive in either), an item conflicts with a run of the sweep's order: the
//! items reached after it while it is alive, kept as a range, up to the step that ends it.
//! That step is known without sweeping: on one queue it is the number of items starting at
//! or before its last position (the counting sort's slots hold those counts); with levels
//! in that order, the later of the same for positions and for levels (prefix counts over
//! both). Each item also stores the earlier items alive when it is reached (one entry per
//! pair): the runs transposed, each step's share counted by a difference array over the
//! runs and each item written into the slots of its run (`Conflicts::from_runs`); no list
//! of alive items is kept (the list order of conflicts carries no meaning).
//! Otherwise, with levels, items finished in positions go to an ordered set by last level,
//! read from `k.lvl_lo` up, and both directions of every pair are stored.
//! Invariant: `of(a)` contains `b` iff `of(b)` contains `a` iff the two items' spans
//! conflict. Cost: O(n + positions + levels + pairs) (O(n log n + pairs) where positions
//! are not small integers or levels are out of order, plus O(n · alive) for scanning the
//! alive list where levels are not small integers); linear when lifetimes are short.
//! [`Conflicts::bounded`] gives up past a number of pairs (dense problems).

use super::problem::Problem;
use std::collections::BTreeSet;

/// Conflict lists of items `0..n` (local indices into the item list they were built from).
#[derive(Clone, Debug, Default)]
pub struct Conflicts {
    /// `adj[stored[k].0..stored[k].1]` are items conflicting with item `k`: all of them
    /// with lifetimes in levels; those starting no later (in the sweep) on one queue.
    stored: Vec<(u32, u32)>,
    adj: Vec<u32>,
    /// Items by (first position, index), the sweep's order (one queue only).
    order: Vec<u32>,
    /// `order[later[k].0..later[k].1]`: the items the sweep reaches after `k` while `k` is
    /// alive, the rest of `k`'s conflicts (one queue; empty ranges with levels).
    later: Vec<(u32, u32)>,
    /// Number of conflicting pairs.
    pairs: usize,
}

/// Local item indices ordered by (first position, index), given each item's first
/// position: a counting sort when the positions are small integers (they are positions in
/// the order), else a sort.
fn by_first_position(first: impl ExactSizeIterator<Item = u32> + Clone) -> Vec<u32> {
    by_first_position_counted(first).0
}

/// [`by_first_position`], and with the counting sort, for each position `v` up to one past
/// the last first position, the number of items starting at or before `v` (what the
/// counting sort's slots hold once it has placed every item).
fn by_first_position_counted(
    first: impl ExactSizeIterator<Item = u32> + Clone,
) -> (Vec<u32>, Option<Vec<u32>>) {
    let n = first.len();
    let max_lo = first.clone().max().unwrap_or(0) as usize;
    if max_lo > 4 * n + 1024 {
        let mut keys: Vec<u64> = first
            .enumerate()
            .map(|(k, lo)| u64::from(lo) << 32 | k as u64)
            .collect();
        keys.sort_unstable();
        return (keys.into_iter().map(|key| key as u32).collect(), None);
    }
    let mut count = vec![0u32; max_lo + 2];
    for lo in first.clone() {
        count[lo as usize + 1] += 1;
    }
    super::running_sums(&mut count);
    let mut out = vec![0u32; n];
    for (k, lo) in first.enumerate() {
        let c = &mut count[lo as usize];
        out[*c as usize] = k as u32;
        *c += 1;
    }
    (out, Some(count))
}

/// For the sweep with levels (`order`: items by first position, first levels never
/// decreasing along it), the step at which each item is shed: the first step whose item
/// starts after it both in positions and in levels (`n` when none does; the sweep sheds
/// no item before the step after its own). The number of
/// items starting at or before a value is the first step starting after it, counted over
/// the values (a prefix sum); `None` when positions or levels are not small integers.
fn shedding_steps(spans: &[super::Span], order: &[u32]) -> Option<Vec<u32>> {
    let n = spans.len();
    let limit = 4 * n + 1024;
    let (mut max_pos, mut max_lvl) = (0usize, 0usize);
    for s in spans {
        max_pos = max_pos.max(s.pos_hi.max(s.pos_lo) as usize);
        max_lvl = max_lvl.max(s.lvl_hi.max(s.lvl_lo) as usize);
    }
    if max_pos > limit || max_lvl > limit {
        return None;
    }
    // `upto[v]`: items starting at or before `v` (the first step starting after `v`).
    let mut upto_pos = vec![0u32; max_pos + 1];
    let mut upto_lvl = vec![0u32; max_lvl + 1];
    for s in spans {
        upto_pos[s.pos_lo as usize] += 1;
        upto_lvl[s.lvl_lo as usize] += 1;
    }
    super::running_sums(&mut upto_pos);
    super::running_sums(&mut upto_lvl);
    debug_assert!(order.is_empty() || order.len() == n);
    Some(
        spans
            .iter()
            .map(|s| upto_pos[s.pos_hi as usize].max(upto_lvl[s.lvl_hi as usize]))
            .collect(),
    )
}

impl Conflicts {
    /// The conflict lists of `items` (indices into `problem.items`); item `k` of the result
    /// is `items[k]`.
    pub fn new(problem: &Problem, items: &[usize]) -> Self {
        Self::bounded(problem, items, usize::MAX).unwrap_or_default()
    }

    /// The same, or `None` as soon as more than `max_pairs` conflicting pairs are found
    /// (dense problems, where a walk over every placed item is cheaper than the lists).
    pub fn bounded(problem: &Problem, items: &[usize], max_pairs: usize) -> Option<Self> {
        if !problem.by_level {
            // One queue: first and last positions only.
            let lo_hi: Vec<(u32, u32)> = items
                .iter()
                .map(|&i| {
                    let s = &problem.items[i].span;
                    (s.pos_lo, s.pos_hi)
                })
                .collect();
            let c = Self::one_queue(&lo_hi, max_pairs)?;
            debug_assert!(
                items.len() > 300 || c.matches(problem, items),
                "conflict lists match the conflict relation"
            );
            return Some(c);
        }
        let spans: Vec<super::Span> = items.iter().map(|&i| problem.items[i].span).collect();
        let by_start = by_first_position(spans.iter().map(|s| s.pos_lo));
        let c = if by_start
            .windows(2)
            .all(|w| spans[w[0] as usize].lvl_lo <= spans[w[1] as usize].lvl_lo)
        {
            Self::sweep(&spans, by_start, max_pairs)?
        } else {
            // Listing stops late here (finished items kept in an ordered set): count the
            // position overlaps first, a part of the pairs, and give up early when they
            // are too many.
            if Self::position_pairs(problem, items) > max_pairs {
                return None;
            }
            Self::with_levels(&spans, &by_start, max_pairs)?
        };
        debug_assert!(
            items.len() > 300 || c.matches(problem, items),
            "conflict lists match the conflict relation"
        );
        Some(c)
    }

    /// One queue: an item reached earlier conflicts with the current one exactly while it
    /// is alive in positions, and once it ended it never conflicts with a later item again
    /// (first positions only grow). So the item reached at step `s` conflicts with the
    /// items the sweep reaches up to the last one starting no later than its last position:
    /// its run ends at the number of items starting at or before that position (the
    /// counting sort's slots give it; a binary search over the first positions when they
    /// are not small integers).
    fn one_queue(lo_hi: &[(u32, u32)], max_pairs: usize) -> Option<Self> {
        let (order, upto) = by_first_position_counted(lo_hi.iter().map(|&(lo, _)| lo));
        let mut ends: Vec<u32> = match upto {
            Some(upto) => {
                let last = upto.len() - 1;
                order
                    .iter()
                    .map(|&k| upto[(lo_hi[k as usize].1 as usize).min(last)])
                    .collect()
            }
            None => {
                let lo: Vec<u32> = order.iter().map(|&k| lo_hi[k as usize].0).collect();
                order
                    .iter()
                    .map(|&k| lo.partition_point(|&l| l <= lo_hi[k as usize].1) as u32)
                    .collect()
            }
        };
        // A run ends after its own step (only an empty span, never made, would say less).
        for (s, e) in ends.iter_mut().enumerate() {
            *e = (*e).max(s as u32 + 1);
        }
        Self::from_runs(order, &ends, max_pairs)
    }

    /// The lists of a sweep that reaches the items in `order`, given for each step `s` the
    /// step `ends[s]` (after `s`, at most n) from which the item reached at `s` is no longer
    /// alive: it conflicts with the items reached at steps `s + 1 .. ends[s]` (its later
    /// conflicts, that run of `order`) and with the earlier items still alive at its own
    /// step (stored, one entry per pair). The stored lists are filled step by step in `adj`:
    /// each step's share is counted first (a difference array over the runs, +1 where a
    /// run starts and −1 where it ends, summed into each step's first slot), then every
    /// item is written into the slots of the steps of its run. O(n + pairs), no search and
    /// no list of alive items; gives up before filling anything when the pairs (the runs'
    /// lengths) are more than `max_pairs`.
    fn from_runs(order: Vec<u32>, ends: &[u32], max_pairs: usize) -> Option<Self> {
        let n = order.len();
        debug_assert_eq!(ends.len(), n);
        debug_assert!(ends
            .iter()
            .enumerate()
            .all(|(s, &e)| e as usize > s && e as usize <= n));
        let pairs: usize = ends
            .iter()
            .enumerate()
            .map(|(s, &e)| e as usize - s - 1)
            .sum();
        if pairs > max_pairs {
            return None;
        }
        // `first[t]`: first slot in `adj` of the items stored for step `t` (`first[n]`: the
        // pairs).
        let mut first = vec![0u32; n + 1];
        for (s, &e) in ends.iter().enumerate() {
            first[s + 1] = first[s + 1].wrapping_add(1);
            first[e as usize] = first[e as usize].wrapping_sub(1);
        }
        let (mut alive, mut slot) = (0u32, 0u32);
        for f in first.iter_mut() {
            alive = alive.wrapping_add(*f);
            *f = slot;
            slot = slot.wrapping_add(alive);
        }
        debug_assert_eq!(first[n] as usize, pairs);
        let mut stored = vec![(0u32, 0u32); n];
        let mut later = vec![(0u32, 0u32); n];
        for (s, (&k, &e)) in order.iter().zip(ends).enumerate() {
            stored[k as usize] = (first[s], first[s + 1]);
            later[k as usize] = (s as u32 + 1, e);
        }
        // `first` becomes the fill cursor of each step.
        let mut adj = vec![0u32; pairs];
        for (s, (&k, &e)) in order.iter().zip(ends).enumerate() {
            for f in &mut first[s + 1..e as usize] {
                adj[*f as usize] = k;
                *f += 1;
            }
        }
        Some(Conflicts {
            stored,
            adj,
            order,
            later,
            pairs,
        })
    }

    /// Levels that never decrease along the sweep (the level-by-level order of async
    /// compute): an item reached earlier conflicts with the current one exactly while it is
    /// alive in positions or in levels, and once it is alive in neither it never conflicts
    /// with a later item again (first positions and first levels only grow). Lists as for
    /// one queue (`Conflicts::from_runs`). Both first positions and first levels grow
    /// along the sweep, so the step that ends an item's run is known when it is reached:
    /// the later of the first step whose position passes `j.pos_hi` and the first whose
    /// level passes `j.lvl_hi` (counts of first positions and first levels up to each
    /// value, when those are small integers); otherwise the alive items are scanned at
    /// every step.
    fn sweep(spans: &[super::Span], order: Vec<u32>, max_pairs: usize) -> Option<Self> {
        match shedding_steps(spans, &order) {
            Some(shed_at) => Self::sweep_by_steps(&shed_at, order, max_pairs),
            None => Self::sweep_by_scan(spans, order, max_pairs),
        }
    }

    /// [`Conflicts::sweep`] given the step `shed_at[k]` at which each item stops being alive
    /// (`n` for those alive to the end; never before the step after its own).
    fn sweep_by_steps(shed_at: &[u32], order: Vec<u32>, max_pairs: usize) -> Option<Self> {
        let ends: Vec<u32> = order
            .iter()
            .enumerate()
            .map(|(s, &k)| shed_at[k as usize].max(s as u32 + 1))
            .collect();
        Self::from_runs(order, &ends, max_pairs)
    }

    /// [`Conflicts::sweep`] scanning the alive items at every step (they leave in no
    /// single order), when positions or levels are not small integers: the step at which
    /// each one is shed ends its run.
    fn sweep_by_scan(spans: &[super::Span], order: Vec<u32>, max_pairs: usize) -> Option<Self> {
        let n = order.len();
        let mut ends = vec![n as u32; n];
        // Alive items as (last position, last level, step reached).
        let mut alive: Vec<(u32, u32, u32)> = Vec::new();
        let mut pairs = 0usize;
        for (step, &k) in order.iter().enumerate() {
            let s = spans[k as usize];
            alive.retain(|&(hi, lvl_hi, j)| {
                let keep = hi >= s.pos_lo || lvl_hi >= s.lvl_lo;
                if !keep {
                    ends[j as usize] = step as u32;
                }
                keep
            });
            pairs += alive.len();
            if pairs > max_pairs {
                return None;
            }
            alive.push((s.pos_hi, s.lvl_hi, step as u32));
        }
        Self::from_runs(order, &ends, max_pairs)
    }

    /// Lifetimes in levels whose first levels decrease somewhere along the sweep: items
    /// that ended in positions but not in levels conflict too (an ordered set by last
    /// level); every list is stored.
    fn with_levels(spans: &[super::Span], by_start: &[u32], max_pairs: usize) -> Option<Self> {
        let n = spans.len();
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(4 * n);
        // Alive items as (last position, item).
        let mut alive: Vec<(u32, u32)> = Vec::new();
        let mut ended: BTreeSet<(u32, u32)> = BTreeSet::new();
        for &k in by_start {
            let s = spans[k as usize];
            alive.retain(|&(hi, j)| {
                let keep = hi >= s.pos_lo;
                if !keep {
                    ended.insert((spans[j as usize].lvl_hi, j));
                }
                keep
            });
            edges.extend(alive.iter().map(|&(_, j)| (j, k)));
            edges.extend(ended.range((s.lvl_lo, 0)..).map(|&(_, j)| (j, k)));
            alive.push((s.pos_hi, k));
            if edges.len() > max_pairs {
                return None;
            }
        }
        let mut start = vec![0u32; n + 1];
        for &(a, b) in &edges {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        super::running_sums(&mut start);
        let mut fill: Vec<u32> = start[..n].to_vec();
        let mut adj = vec![0u32; 2 * edges.len()];
        for &(a, b) in &edges {
            adj[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
            adj[fill[b as usize] as usize] = a;
            fill[b as usize] += 1;
        }
        Some(Conflicts {
            stored: start.windows(2).map(|w| (w[0], w[1])).collect(),
            adj,
            order: Vec::new(),
            later: vec![(0, 0); n],
            pairs: edges.len(),
        })
    }

    /// Pairs of `items` whose execution positions overlap (every conflicting pair of a
    /// one-queue problem; a subset with lifetimes in levels), counted without listing
    /// them: for each item, the items that start no later minus those that ended before it
    /// starts. O(n log n).
    pub fn position_pairs(problem: &Problem, items: &[usize]) -> usize {
        let mut lo: Vec<u32> = items
            .iter()
            .map(|&i| problem.items[i].span.pos_lo)
            .collect();
        let mut hi: Vec<u32> = items
            .iter()
            .map(|&i| problem.items[i].span.pos_hi)
            .collect();
        lo.sort_unstable();
        hi.sort_unstable();
        lo.iter()
            .enumerate()
            .map(|(rank, &l)| rank - hi.partition_point(|&h| h < l).min(rank))
            .sum()
    }

    /// The items conflicting with item `k` (in no particular order).
    #[inline]
    pub fn of(&self, k: usize) -> impl Iterator<Item = u32> + '_ {
        let (a, b) = self.stored[k];
        let (c, d) = self.later[k];
        self.adj[a as usize..b as usize]
            .iter()
            .chain(&self.order[c as usize..d as usize])
            .copied()
    }

    /// The same as two slices (their concatenation is [`Conflicts::of`]): cheaper to walk.
    #[inline]
    pub fn parts(&self, k: usize) -> (&[u32], &[u32]) {
        let (a, b) = self.stored[k];
        let (c, d) = self.later[k];
        (
            &self.adj[a as usize..b as usize],
            &self.order[c as usize..d as usize],
        )
    }

    /// The items by (first position, index), the sweep's order, when the lists keep it
    /// (one queue, or levels that never decrease along it).
    pub fn by_start(&self) -> Option<&[u32]> {
        (self.order.len() == self.stored.len()).then_some(&self.order[..])
    }

    /// [`Conflicts::by_start`], taken out of the lists.
    pub fn into_by_start(self) -> Option<Vec<u32>> {
        (self.order.len() == self.stored.len()).then_some(self.order)
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.stored.len()
    }

    /// True when there are no items.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of conflicting pairs.
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// Brute-force comparison with [`Problem::conflicts`] (debug assertions, tests).
    pub fn matches(&self, problem: &Problem, items: &[usize]) -> bool {
        (0..items.len()).all(|a| {
            let mut want: Vec<u32> = (0..items.len() as u32)
                .filter(|&b| b as usize != a && problem.conflicts(items[a], items[b as usize]))
                .collect();
            let mut got: Vec<u32> = self.of(a).collect();
            want.sort_unstable();
            got.sort_unstable();
            want == got
        })
    }
}

/// Conflict lists of `items`, when they make greedy runs cheaper than walking every placed
/// item: a run reads about d list entries and sorts the ≈ d/2 placed ones per item (d =
/// 2·pairs / n conflicts), about 4·d·(1 + log₂ d) steps, against n/2 placed items with a
/// conflict test each, about 3·n steps, for a walk. Building the lists stops as soon as
/// they would be too long.
pub fn sparse_conflicts(problem: &Problem, items: &[usize]) -> Option<Conflicts> {
    let n = items.len();
    let cheaper = |d: usize| 4 * d * (1 + (usize::BITS - d.leading_zeros()) as usize) < 3 * n;
    let mut d = 1;
    while d < n && cheaper(d + 1) {
        d += 1;
    }
    Conflicts::bounded(problem, items, d * n / 2)
}

#[cfg(test)]
mod tests {
    use super::super::problem::{Item, Problem, Span};
    use super::Conflicts;
    use crate::caps::MemoryKind;
    use crate::graph::ResourceId;

    /// Random problems with short and long lifetimes, one queue or levels.
    fn problem(seed: u64, n: usize, by_level: bool) -> Problem {
        let mut next = super::super::test_rng(seed);
        let items = (0..n)
            .map(|i| {
                let pos_lo = next(3 * n as u64) as u32;
                let len = if next(8) == 0 {
                    next(n as u64)
                } else {
                    next(4)
                } as u32;
                // Levels follow positions (the sweep path), or not (the ordered-set path).
                let lvl_lo = match (by_level, seed % 2) {
                    (false, _) => pos_lo,
                    (true, 0) => pos_lo / 3,
                    (true, _) => next(n as u64) as u32,
                };
                let lvl_len = if by_level { next(3) as u32 } else { len };
                let span = Span {
                    pos_lo,
                    pos_hi: pos_lo + len,
                    lvl_lo,
                    lvl_hi: lvl_lo + lvl_len,
                };
                Item {
                    resource: ResourceId(i as u32),
                    size: 1,
                    footprint: 1,
                    class: 0,
                    kind: MemoryKind::Buffer,
                    first: span.lvl_lo,
                    last: span.lvl_hi,
                    span,
                }
            })
            .collect();
        Problem {
            items,
            alignment: 1,
            by_level,
            memoryless_bytes: 0,
        }
    }

    #[test]
    fn shedding_lists_are_the_scanning_lists() {
        let mut compared = 0;
        for seed in (0..128).step_by(2) {
            // Even seeds: first levels never decrease along the sweep.
            let p = problem(seed, 5 + seed as usize * 2, true);
            let spans: Vec<Span> = p.items.iter().map(|i| i.span).collect();
            let by_start = super::by_first_position(spans.iter().map(|s| s.pos_lo));
            let Some(shed_at) = super::shedding_steps(&spans, &by_start) else {
                continue;
            };
            let steps = Conflicts::sweep_by_steps(&shed_at, by_start.clone(), usize::MAX)
                .expect("no limit");
            let scan = Conflicts::sweep_by_scan(&spans, by_start, usize::MAX).expect("no limit");
            assert_eq!(steps.later, scan.later, "seed {seed}");
            assert_eq!(steps.pairs(), scan.pairs(), "seed {seed}");
            for k in 0..spans.len() {
                let mut a: Vec<u32> = steps.of(k).collect();
                let mut b: Vec<u32> = scan.of(k).collect();
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "seed {seed}, item {k}");
            }
            compared += 1;
        }
        assert!(compared > 32);
    }

    #[test]
    fn large_positions_give_the_same_lists() {
        // Positions far apart (no counting sort: the runs end by binary search).
        for seed in 0..64 {
            let mut p = problem(seed, 5 + seed as usize * 3, false);
            let items: Vec<usize> = (0..p.items.len()).collect();
            let small = Conflicts::new(&p, &items);
            for it in &mut p.items {
                for v in [&mut it.span.pos_lo, &mut it.span.pos_hi] {
                    *v *= 100_000;
                }
                (it.span.lvl_lo, it.span.lvl_hi) = (it.span.pos_lo, it.span.pos_hi);
            }
            let large = Conflicts::new(&p, &items);
            assert!(large.matches(&p, &items), "seed {seed}");
            assert_eq!(large.later, small.later, "seed {seed}");
            assert_eq!(large.pairs(), small.pairs(), "seed {seed}");
        }
    }

    #[test]
    fn lists_match_the_conflict_relation() {
        for seed in 0..64 {
            for by_level in [false, true] {
                let p = problem(seed, 5 + seed as usize * 3, by_level);
                let items: Vec<usize> = (0..p.items.len()).collect();
                let c = Conflicts::new(&p, &items);
                assert!(c.matches(&p, &items), "seed {seed}, levels {by_level}");
                let listed: usize = (0..items.len()).map(|k| c.of(k).count()).sum();
                assert_eq!(listed, 2 * c.pairs(), "seed {seed}, levels {by_level}");
                for k in 0..items.len() {
                    let (a, b) = c.parts(k);
                    assert!(a.iter().chain(b).copied().eq(c.of(k)));
                }
                // Giving up depends on the number of pairs only, whichever path lists them.
                for max in [c.pairs().saturating_sub(1), c.pairs()] {
                    let bounded = Conflicts::bounded(&p, &items, max);
                    assert_eq!(bounded.is_some(), c.pairs() <= max, "seed {seed}");
                }
            }
        }
    }
}
