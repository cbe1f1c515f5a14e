//! Many small lists in one arena: the per-resource lists that the replay phases keep (the
//! readers since the last write, the scopes a write was made visible to, ...).
//!
//! Each list is a [`Chain`] (head and tail of a singly linked list) into a shared
//! [`Chains`] arena. A list is only ever appended to, read front to back (insertion order)
//! and emptied as a whole; emptying drops the head and leaves the nodes in the arena, which
//! is freed at once at the end of the phase. So a replay over all resources allocates one
//! growing vector instead of one per resource. Cost: O(1) per append and per emptied list,
//! O(length) per walk; memory O(appends).

/// One list: its first and last node in a [`Chains`] arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    head: u32,
    tail: u32,
}

/// End of a list.
const END: u32 = u32::MAX;

impl Chain {
    /// The empty list.
    pub const EMPTY: Chain = Chain {
        head: END,
        tail: END,
    };

    /// True when the list has no element.
    pub fn is_empty(self) -> bool {
        self.head == END
    }
}

impl Default for Chain {
    fn default() -> Self {
        Chain::EMPTY
    }
}

/// The arena that holds the nodes of many [`Chain`]s.
#[derive(Clone, Debug, Default)]
pub struct Chains<T> {
    nodes: Vec<(T, u32)>,
}

impl<T> Chains<T> {
    /// An arena with room for `capacity` appends.
    pub fn with_capacity(capacity: usize) -> Self {
        Chains {
            nodes: Vec::with_capacity(capacity),
        }
    }

    /// Appends `value` to `chain`.
    pub fn push(&mut self, chain: &mut Chain, value: T) {
        let node = self.nodes.len() as u32;
        self.nodes.push((value, END));
        if chain.head == END {
            chain.head = node;
        } else if let Some(last) = self.nodes.get_mut(chain.tail as usize) {
            last.1 = node;
        }
        chain.tail = node;
    }

    /// The elements of `chain`, in the order they were appended.
    pub fn iter(&self, chain: Chain) -> impl Iterator<Item = &T> + '_ {
        let mut next = chain.head;
        std::iter::from_fn(move || {
            let (value, after) = self.nodes.get(next as usize)?;
            next = *after;
            Some(value)
        })
    }

    /// Forgets every list (their nodes are dropped; existing [`Chain`]s become invalid).
    pub fn clear(&mut self) {
        self.nodes.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_share_an_arena_and_keep_their_order() {
        let mut arena = Chains::with_capacity(4);
        let (mut a, mut b) = (Chain::EMPTY, Chain::EMPTY);
        arena.push(&mut a, 1);
        arena.push(&mut b, 10);
        arena.push(&mut a, 2);
        arena.push(&mut b, 20);
        arena.push(&mut a, 3);
        assert_eq!(arena.iter(a).copied().collect::<Vec<_>>(), vec![1, 2, 3]);
        assert_eq!(arena.iter(b).copied().collect::<Vec<_>>(), vec![10, 20]);
        a = Chain::EMPTY;
        assert!(a.is_empty() && arena.iter(a).next().is_none());
        arena.push(&mut a, 4);
        assert_eq!(arena.iter(a).copied().collect::<Vec<_>>(), vec![4]);
        assert_eq!(arena.iter(b).count(), 2);
    }
}
