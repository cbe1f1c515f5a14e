//! The baseline: the greedy bucket packing of the aliasing article, as published.
//!
//! Per memory class, items are sorted by size, descending. A bucket is opened with the size
//! of the largest unplaced item, which goes at offset 0. Every other unplaced item, in the
//! same order, collects the byte ranges of the items already in the bucket whose lifetimes
//! overlap its own, sorts their start and end offsets, and walks them with an overlap
//! counter (+1 at a start, -1 at an end): the gaps where the counter is 0, plus the head and
//! tail of the bucket, are the free ranges. The item goes into the smallest free range that
//! fits, or is left for a later bucket. Buckets are opened until every item is placed.
//! Buckets never grow. Cost: O(n² log n).

use super::lifetimes::Problem;
use super::packing::{PackedBlock, Packing};

/// Packs `problem` with the article's algorithm.
pub fn pack(problem: &Problem) -> Packing {
    let mut out = Packing::default();
    for class in problem.classes() {
        let mut unplaced: Vec<usize> = (0..problem.items.len()).filter(|&i| problem.items[i].class == class).collect();
        unplaced.sort_by_key(|&i| (std::cmp::Reverse(problem.items[i].footprint), i));
        let mut events: Vec<(u64, i8)> = Vec::new();
        while let Some(&largest) = unplaced.first() {
            let size = problem.items[largest].footprint;
            let mut block = PackedBlock { class, size, items: vec![(largest, 0)] };
            let mut left = Vec::new();
            for &i in &unplaced[1..] {
                let need = problem.items[i].footprint;
                events.clear();
                for &(j, off) in &block.items {
                    if problem.conflicts(i, j) {
                        events.push((off, 1));
                        events.push((off + problem.items[j].footprint, -1));
                    }
                }
                // Ends before starts at the same offset: touching ranges leave no gap.
                events.sort_unstable_by_key(|&(o, d)| (o, d));
                let mut best: Option<(u64, u64)> = None; // (range length, start)
                let mut consider = |start: u64, end: u64| {
                    if end >= start && end - start >= need && best.map_or(true, |(len, _)| end - start < len) {
                        best = Some((end - start, start));
                    }
                };
                let (mut counter, mut free_from) = (0i32, 0u64);
                for &(o, d) in &events {
                    if counter == 0 && d > 0 {
                        consider(free_from, o);
                    }
                    counter += i32::from(d);
                    if counter == 0 {
                        free_from = o;
                    }
                }
                consider(free_from, size);
                match best {
                    Some((_, start)) => block.items.push((i, start)),
                    None => left.push(i),
                }
            }
            log::trace!("article: bucket of {size} bytes holds {} items", block.items.len());
            out.blocks.push(block);
            unplaced = left;
        }
    }
    out
}
