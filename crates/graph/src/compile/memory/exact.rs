//! Exact optimum for small problems, by branch and bound over placement orders (for tests
//! and the quality report, not for compiling frames).
//!
//! Every packing can be pushed down until each item sits at the lowest offset that clears
//! the conflicting items below it; taking the items of such a packing in offset order and
//! placing each at its lowest fitting offset reproduces it. So the search enumerates orders
//! whose lowest-fit offsets are non-decreasing (ties by item index), places each item at its
//! lowest fitting offset, and prunes a branch as soon as its height reaches the best found
//! (starting from Tessera's planner). It stops at the lower bound of the class. The search
//! is exponential; `node_limit` caps it and the result says whether it finished.

use super::packing::{PackedBlock, Packing};
use super::planner;
use super::problem::Problem;

/// Result of the exact search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// The best packing found (one block per class).
    pub packing: Packing,
    /// True when the search finished: `packing` is optimal.
    pub proven: bool,
    /// Search nodes visited.
    pub nodes: u64,
}

/// Searches the optimum of `problem`, visiting at most `node_limit` nodes per class.
pub fn pack(problem: &Problem, node_limit: u64) -> Exact {
    let start = planner::pack(problem);
    let mut out = Exact {
        packing: Packing::default(),
        proven: true,
        nodes: 0,
    };
    for class in problem.classes() {
        let items: Vec<usize> = (0..problem.items.len())
            .filter(|&i| problem.items[i].class == class)
            .collect();
        let incumbent: u64 = start
            .blocks
            .iter()
            .filter(|b| b.class == class)
            .map(|b| b.size)
            .sum();
        let mut s = Search {
            problem,
            items: &items,
            placed: Vec::with_capacity(items.len()),
            best: incumbent,
            best_place: None,
            bound: super::bound::lower_bound_of(problem, &items),
            nodes: 0,
            limit: node_limit,
        };
        s.dfs(0, 0, 0);
        out.nodes += s.nodes;
        out.proven &= s.nodes < s.limit || s.best == s.bound;
        match s.best_place {
            Some(place) => out.packing.blocks.push(PackedBlock {
                class,
                size: s.best,
                items: place,
            }),
            None => out
                .packing
                .blocks
                .extend(start.blocks.iter().filter(|b| b.class == class).cloned()),
        }
    }
    out
}

struct Search<'a> {
    problem: &'a Problem,
    items: &'a [usize],
    /// `(item, offset)` in placement order.
    placed: Vec<(usize, u64)>,
    best: u64,
    best_place: Option<Vec<(usize, u64)>>,
    bound: u64,
    nodes: u64,
    limit: u64,
}

impl Search<'_> {
    fn lowest(&self, i: usize) -> u64 {
        let it = &self.problem.items;
        let mut busy: Vec<(u64, u64)> = self
            .placed
            .iter()
            .filter(|&&(j, _)| self.problem.conflicts(i, j))
            .map(|&(j, off)| (off, off + it[j].footprint))
            .collect();
        busy.sort_unstable();
        let mut cursor = 0;
        for (off, end) in busy {
            if off >= cursor + it[i].footprint {
                break;
            }
            cursor = cursor.max(end);
        }
        cursor
    }

    fn dfs(&mut self, height: u64, last_off: u64, last_item: usize) {
        self.nodes += 1;
        if self.placed.len() == self.items.len() {
            if height < self.best || self.best_place.is_none() && height <= self.best {
                self.best = height;
                self.best_place = Some(self.placed.clone());
            }
            return;
        }
        if self.nodes >= self.limit || self.best_place.is_some() && self.best <= self.bound {
            return;
        }
        for k in 0..self.items.len() {
            let i = self.items[k];
            if self.placed.iter().any(|&(j, _)| j == i) {
                continue;
            }
            let off = self.lowest(i);
            if off < last_off || (off == last_off && !self.placed.is_empty() && i < last_item) {
                continue;
            }
            let h = height.max(off + self.problem.items[i].footprint);
            if h > self.best || (h == self.best && self.best_place.is_some()) {
                continue;
            }
            self.placed.push((i, off));
            self.dfs(h, off, i);
            self.placed.pop();
        }
    }
}
