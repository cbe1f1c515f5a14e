//! The lower bound of any packing: the largest sum of footprints alive at one time.
//!
//! A sweep over lifetime starts and ends in the plan's unit (a difference array: the units are
//! small integers). Footprints (sizes rounded up to
//! the alignment) are used because no aligned packing can place simultaneously alive items
//! closer than that, and blocks are whole multiples of the alignment. Cost: O(n + units).
//! The compiler accumulates it while it makes the items (`Accumulator`).

use super::problem::{Item, Problem};

/// Largest sum of footprints of items alive at one time (plan lifetimes, all classes).
pub fn lower_bound(problem: &Problem) -> u64 {
    sweep(problem.items.iter())
}

/// The same over the items with indices `items` (one class, say).
pub fn lower_bound_of(problem: &Problem, items: &[usize]) -> u64 {
    sweep(items.iter().map(|&i| &problem.items[i]))
}

/// [`lower_bound`] accumulated while the items are made (one pass fewer over them): the
/// same difference array, in 64-bit wrapping arithmetic.
#[derive(Debug, Default)]
pub(super) struct Accumulator {
    delta: Vec<u64>,
    total: u64,
}

impl Accumulator {
    /// An accumulator for lifetimes in `0..units` (plan units): the difference array is
    /// made once, so that counting an item never grows it (a branch that would otherwise
    /// go the other way at each new last use); later units still fit, by growing it.
    pub(super) fn for_units(units: usize) -> Self {
        Accumulator {
            delta: vec![0; units + 1],
            total: 0,
        }
    }

    /// Counts an item of `footprint` bytes alive from `first` to `last` (plan units).
    #[inline]
    pub(super) fn add(&mut self, first: u32, last: u32, footprint: u64) {
        let (first, end) = (first as usize, last.max(first) as usize + 1);
        if end >= self.delta.len() {
            self.delta.resize(end + 1, 0);
        }
        self.delta[first] = self.delta[first].wrapping_add(footprint);
        self.delta[end] = self.delta[end].wrapping_sub(footprint);
        self.total = self.total.saturating_add(footprint);
    }

    /// The bound, or `None` when the footprints add up to 2^64 or more (then
    /// [`lower_bound`] computes it in 128 bits).
    pub(super) fn finish(self) -> Option<u64> {
        if self.total == u64::MAX {
            return None;
        }
        let (mut alive, mut best) = (0u64, 0u64);
        for d in self.delta {
            alive = alive.wrapping_add(d);
            best = best.max(alive);
        }
        Some(best)
    }
}

fn sweep<'a>(items: impl Iterator<Item = &'a Item> + Clone) -> u64 {
    // Lifetimes are small integers (positions or levels): a difference array over them,
    // `+footprint` at `first` and `-footprint` after `last` (closed intervals). In 64-bit
    // wrapping arithmetic when the footprints add up to less than 2^64: every prefix sum
    // then lies in 0..2^64, so it comes out exact; else in 128 bits.
    let (mut len, mut total) = (0usize, 0u64);
    for it in items.clone() {
        len = len.max(it.last.max(it.first) as usize + 2);
        total = total.saturating_add(it.footprint);
    }
    if total == u64::MAX {
        let mut delta = vec![0i128; len];
        for it in items {
            delta[it.first as usize] += i128::from(it.footprint);
            delta[it.last.max(it.first) as usize + 1] -= i128::from(it.footprint);
        }
        let (mut alive, mut best) = (0i128, 0i128);
        for d in delta {
            alive += d;
            best = best.max(alive);
        }
        return u64::try_from(best).unwrap_or(u64::MAX);
    }
    let mut delta = vec![0u64; len];
    for it in items {
        let (first, end) = (it.first as usize, it.last.max(it.first) as usize + 1);
        delta[first] = delta[first].wrapping_add(it.footprint);
        delta[end] = delta[end].wrapping_sub(it.footprint);
    }
    let (mut alive, mut best) = (0u64, 0u64);
    for d in delta {
        alive = alive.wrapping_add(d);
        best = best.max(alive);
    }
    best
}
