//! The placement problem of one frame: the items to place ([`Item`]), their conflict spans
//! ([`Span`]) and the alignment ([`Problem`]). Plain data that every step of the memory
//! phase reads: [`super::lifetimes`] builds it, [`super::bound`], [`super::conflicts`],
//! [`super::planner`], [`super::article`] and [`super::exact`] solve it or bound it.

use crate::caps::MemoryKind;
use crate::graph::ResourceId;

/// Closed intervals in execution positions and in dependency levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// First position.
    pub pos_lo: u32,
    /// Last position.
    pub pos_hi: u32,
    /// First level (equal to the positions when lifetimes are not in levels).
    pub lvl_lo: u32,
    /// Last level.
    pub lvl_hi: u32,
}

impl Span {
    /// True when the two may not share bytes: neither comes wholly before the other in
    /// both positions and levels (spans inverted between the two count as conflicting).
    #[inline]
    pub fn conflicts(&self, o: &Span) -> bool {
        !(self.before(o) || o.before(self))
    }

    /// True when every use of `self` comes before every use of `o` (both in positions and
    /// levels): `o` may reuse the bytes of `self`.
    #[inline]
    pub fn before(&self, o: &Span) -> bool {
        self.pos_hi < o.pos_lo && self.lvl_hi < o.lvl_lo
    }

    /// No position at all (widening it by a span gives that span).
    pub(super) const EMPTY: Span = Span {
        pos_lo: u32::MAX,
        pos_hi: 0,
        lvl_lo: u32::MAX,
        lvl_hi: 0,
    };

    /// True for [`Span::EMPTY`] (no use).
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.pos_lo > self.pos_hi
    }

    #[inline]
    pub(super) fn widen(&mut self, o: &Span) {
        self.pos_lo = self.pos_lo.min(o.pos_lo);
        self.pos_hi = self.pos_hi.max(o.pos_hi);
        self.lvl_lo = self.lvl_lo.min(o.lvl_lo);
        self.lvl_hi = self.lvl_hi.max(o.lvl_hi);
    }
}

/// One resource to place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The resource.
    pub resource: ResourceId,
    /// Its bytes.
    pub size: u64,
    /// Its bytes rounded up to the alignment: what it occupies in a block.
    pub footprint: u64,
    /// Memory-compatibility class: items of different classes never share a block.
    pub class: u32,
    /// Kind of memory (decides `class`).
    pub kind: MemoryKind,
    /// First use in the plan's lifetime unit.
    pub first: u32,
    /// Last use in the plan's lifetime unit.
    pub last: u32,
    /// Conflict span (render-pass widened).
    pub span: Span,
}

#[cfg(test)]
impl Item {
    /// Resource `i` as a buffer of `footprint` bytes (class 0), alive on one queue from
    /// position `pos_lo` to `pos_hi` (levels equal positions): the item unit tests place.
    pub(crate) fn test_buffer(i: usize, pos_lo: u32, pos_hi: u32, footprint: u64) -> Item {
        Item {
            resource: ResourceId(i as u32),
            size: footprint,
            footprint,
            class: 0,
            kind: MemoryKind::Buffer,
            first: pos_lo,
            last: pos_hi,
            span: Span {
                pos_lo,
                pos_hi,
                lvl_lo: pos_lo,
                lvl_hi: pos_hi,
            },
        }
    }
}

/// The placement problem of one frame: items, alignment and the conflict relation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problem {
    /// Items in resource declaration order.
    pub items: Vec<Item>,
    /// Alignment of every offset (a power of two; footprints are multiples of it).
    pub alignment: u64,
    /// Lifetimes are in levels.
    pub by_level: bool,
    /// Bytes of the memoryless resources left out.
    pub memoryless_bytes: u64,
}

impl Problem {
    /// True when items `a` and `b` may not share bytes.
    #[inline]
    pub fn conflicts(&self, a: usize, b: usize) -> bool {
        self.items[a].span.conflicts(&self.items[b].span)
    }

    /// The distinct memory classes, ascending.
    pub fn classes(&self) -> Vec<u32> {
        let Some(first) = self.items.first().map(|i| i.class) else {
            return Vec::new();
        };
        if self.items.iter().all(|i| i.class == first) {
            return vec![first];
        }
        let mut c: Vec<u32> = self.items.iter().map(|i| i.class).collect();
        c.sort_unstable();
        c.dedup();
        c
    }
}
