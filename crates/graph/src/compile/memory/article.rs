//! The baseline: the greedy bucket packing of the aliasing article, as published.
//!
//! Per memory class, items are sorted by size, descending. A bucket is opened with the size
//! of the largest unplaced item, which goes at offset 0. Every other unplaced item, in the
//! same order, collects the byte ranges of the items already in the bucket whose lifetimes
//! overlap its own, sorts their start and end offsets, and walks them with an overlap
//! counter (+1 at a start, -1 at an end): the gaps where the counter is 0, plus the head and
//! tail of the bucket, are the free ranges. The item goes into the smallest free range that
//! fits, or is left for a later bucket. Buckets are opened until every item is placed.
//! Buckets never grow. Only items whose lifetimes overlap contribute ranges, so each item
//! looks at its conflict list ([`Conflicts`]) instead of at every placed item, and sorts the
//! few ranges it finds: the same free ranges as the article's sort over the bucket. Cost:
//! O(buckets · (n + pairs)) plus the small sorts (the article's O(n² log n)).

use super::conflicts::Conflicts;
use super::packing::{PackedBlock, Packing};
use super::problem::Problem;

/// Packs `problem` with the article's algorithm.
pub fn pack(problem: &Problem) -> Packing {
    let mut out = Packing::default();
    for class in problem.classes() {
        let items: Vec<usize> = (0..problem.items.len())
            .filter(|&i| problem.items[i].class == class)
            .collect();
        let conflicts = super::conflicts::sparse_conflicts(problem, &items);
        out.blocks
            .extend(pack_class(problem, class, &items, conflicts.as_ref()));
    }
    out
}

/// Bucket of an item not placed yet.
const UNPLACED: u32 = u32::MAX;

/// The article's buckets for `items` (all of memory class `class`), whose conflict lists
/// are `conflicts` (`None` for a dense problem: then every item of the bucket is walked in
/// offset order, skipping those that do not conflict).
pub fn pack_class(
    problem: &Problem,
    class: u32,
    items: &[usize],
    conflicts: Option<&Conflicts>,
) -> Vec<PackedBlock> {
    let n = items.len();
    let footprint: Vec<u64> = items.iter().map(|&i| problem.items[i].footprint).collect();
    // Size descending, then item: the keys are distinct, so an unstable sort is the stable
    // one.
    let mut unplaced: Vec<u32> = (0..n as u32).collect();
    unplaced.sort_unstable_by_key(|&k| (std::cmp::Reverse(footprint[k as usize]), k));
    let mut left: Vec<u32> = Vec::with_capacity(n);
    // Bucket and offset of each placed item; the items of the current bucket that conflict
    // with the one being placed, as (offset, end) sorted by offset, are the start and end
    // events the article sorts (only conflicting items count).
    let mut bucket_of = vec![UNPLACED; n];
    let mut offset = vec![0u64; n];
    let mut busy: Vec<(u64, u64)> = Vec::new();
    // Dense problems: the bucket's items as (offset, end, span), sorted by offset.
    let mut in_bucket: Vec<(u64, u64, super::problem::Span)> = Vec::new();
    let mut out = Vec::new();
    while let Some(&largest) = unplaced.first() {
        let bucket = out.len() as u32;
        let size = footprint[largest as usize];
        let mut block = PackedBlock {
            class,
            size,
            items: vec![(items[largest as usize], 0)],
        };
        bucket_of[largest as usize] = bucket;
        offset[largest as usize] = 0;
        in_bucket.clear();
        if conflicts.is_none() {
            let span = problem.items[items[largest as usize]].span;
            in_bucket.push((0, size, span));
        }
        left.clear();
        for &k in &unplaced[1..] {
            let need = footprint[k as usize];
            busy.clear();
            match conflicts {
                Some(c) => {
                    let (stored, later) = c.parts(k as usize);
                    for part in [stored, later] {
                        for &j in part {
                            if bucket_of[j as usize] == bucket {
                                let off = offset[j as usize];
                                busy.push((off, off + footprint[j as usize]));
                            }
                        }
                    }
                    busy.sort_unstable();
                }
                None => {
                    let me = problem.items[items[k as usize]].span;
                    busy.extend(
                        in_bucket
                            .iter()
                            .filter(|x| me.conflicts(&x.2))
                            .map(|x| (x.0, x.1)),
                    );
                }
            }
            let mut best: Option<(u64, u64)> = None; // (range length, start)
            let mut consider = |start: u64, end: u64| {
                if end >= start + need && best.is_none_or(|(len, _)| end - start < len) {
                    best = Some((end - start, start));
                }
            };
            // `free_from` is where the overlap counter last dropped to 0.
            let mut free_from = 0u64;
            for &(off, end) in &busy {
                if end <= free_from {
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
                    block.items.push((items[k as usize], start));
                    bucket_of[k as usize] = bucket;
                    offset[k as usize] = start;
                    if conflicts.is_none() {
                        let at = in_bucket.partition_point(|x| x.0 <= start);
                        let span = problem.items[items[k as usize]].span;
                        in_bucket.insert(at, (start, start + need, span));
                    }
                }
                None => left.push(k),
            }
        }
        log::trace!(
            "article: bucket of {size} bytes holds {} items",
            block.items.len()
        );
        out.push(block);
        std::mem::swap(&mut unplaced, &mut left);
    }
    out
}
