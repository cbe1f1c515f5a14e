//! The baseline: the greedy bucket packing of the aliasing article, as published.
//!
//! Per memory class, items are sorted by size, descending. A bucket is opened with the size
//! of the largest unplaced item, which goes at offset 0. Every other unplaced item, in the
//! same order, collects the byte ranges of the items already in the bucket whose lifetimes
//! overlap its own, sorts their start and end offsets, and walks them with an overlap
//! counter (+1 at a start, -1 at an end): the gaps where the counter is 0, plus the head and
//! tail of the bucket, are the free ranges. The item goes into the smallest free range that
//! fits, or is left for a later bucket. Buckets are opened until every item is placed.
//! Buckets never grow. Cost: O(n²) (the article sorts the offsets for every item, O(n² log
//! n); walking the bucket's items kept in offset order finds the same ranges).

use super::lifetimes::{Problem, Span};
use super::packing::{PackedBlock, Packing};

/// Packs `problem` with the article's algorithm.
pub fn pack(problem: &Problem) -> Packing {
    let mut out = Packing::default();
    for class in problem.classes() {
        let mut unplaced: Vec<usize> = (0..problem.items.len())
            .filter(|&i| problem.items[i].class == class)
            .collect();
        unplaced.sort_by_key(|&i| (std::cmp::Reverse(problem.items[i].footprint), i));
        // The bucket's items as (offset, end, span), sorted by offset: walking them in that
        // order visits the same start/end events as sorting them, without the sort.
        let mut placed: Vec<(u64, u64, Span)> = Vec::new();
        while let Some(&largest) = unplaced.first() {
            let size = problem.items[largest].footprint;
            let mut block = PackedBlock {
                class,
                size,
                items: vec![(largest, 0)],
            };
            placed.clear();
            placed.push((0, size, problem.items[largest].span));
            let mut left = Vec::new();
            for &i in &unplaced[1..] {
                let me = &problem.items[i];
                let need = me.footprint;
                let mut best: Option<(u64, u64)> = None; // (range length, start)
                let mut consider = |start: u64, end: u64| {
                    if end >= start + need && best.is_none_or(|(len, _)| end - start < len) {
                        best = Some((end - start, start));
                    }
                };
                // `free_from` is where the overlap counter last dropped to 0.
                let mut free_from = 0u64;
                for &(off, end, ref span) in &placed {
                    if end <= free_from || !me.span.conflicts(span) {
                        continue;
                    }
                    if off > free_from {
                        consider(free_from, off);
                    }
                    free_from = free_from.max(end);
                }
                consider(free_from, size);
                match best {
                    Some((_, start)) => {
                        block.items.push((i, start));
                        let at = placed.partition_point(|&(o, _, _)| o <= start);
                        placed.insert(at, (start, start + need, me.span));
                    }
                    None => left.push(i),
                }
            }
            log::trace!(
                "article: bucket of {size} bytes holds {} items",
                block.items.len()
            );
            out.blocks.push(block);
            unplaced = left;
        }
    }
    out
}
