//! The result every placement algorithm produces: blocks of one memory class each, holding
//! items at aligned offsets. Algorithms work on item indices of a [`Problem`].

use super::problem::Problem;

/// One block of a packing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedBlock {
    /// Memory-compatibility class of everything in it.
    pub class: u32,
    /// Bytes (a multiple of the alignment, covering every item's footprint).
    pub size: u64,
    /// `(item index, offset)` in placement order.
    pub items: Vec<(usize, u64)>,
}

/// Items placed into blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Packing {
    /// The blocks.
    pub blocks: Vec<PackedBlock>,
}

impl Packing {
    /// Sum of block sizes: the bytes the packing needs.
    pub fn total(&self) -> u64 {
        self.blocks.iter().map(|b| b.size).sum()
    }

    /// Every item in a block of its own (aliasing off).
    pub fn unaliased(problem: &Problem) -> Self {
        let blocks = problem
            .items
            .iter()
            .enumerate()
            .map(|(i, it)| PackedBlock {
                class: it.class,
                size: it.footprint,
                items: vec![(i, 0)],
            })
            .collect();
        Packing { blocks }
    }

    /// The first broken rule, if any: every item exactly once, aligned, inside its block,
    /// in a block of its class, and no two conflicting items sharing bytes. Used by debug
    /// assertions and tests; O(n²).
    pub fn violation(&self, problem: &Problem) -> Option<String> {
        let mut seen = vec![false; problem.items.len()];
        for (b, block) in self.blocks.iter().enumerate() {
            for (k, &(i, off)) in block.items.iter().enumerate() {
                let it = problem.items.get(i)?;
                if std::mem::replace(&mut seen[i], true) {
                    return Some(format!("item {i} placed twice"));
                }
                if it.class != block.class {
                    return Some(format!(
                        "item {i} of class {} in block {b} of class {}",
                        it.class, block.class
                    ));
                }
                if off % problem.alignment != 0 || off + it.footprint > block.size {
                    return Some(format!(
                        "item {i} at {off} misaligned or outside block {b} ({} bytes)",
                        block.size
                    ));
                }
                for &(j, o2) in &block.items[..k] {
                    let jt = &problem.items[j];
                    let bytes = off < o2 + jt.footprint && o2 < off + it.footprint;
                    if bytes && problem.conflicts(i, j) {
                        return Some(format!("items {j} and {i} overlap in bytes and lifetime"));
                    }
                }
            }
        }
        seen.iter()
            .position(|s| !s)
            .map(|i| format!("item {i} not placed"))
    }
}
