//! [`List`]: a list of the plan that may share one buffer with the lists next to it.
//!
//! The compiler gives the subpass and attachment lists of every render pass one buffer
//! each for the whole frame (the lists are consecutive slices of it, [`List::shared`]), so
//! a plan of ~500 render passes holds two allocations instead of ~1,000 and dropping it
//! frees two; a list costs a reference-count increment to make and a decrement to drop.
//! Reading goes through `Deref<Target = [T]>`, so a `List` reads like a `Vec` (`iter`,
//! `len`, indexing, `join`, `contains`, `==` with arrays and vectors); editing ([`List::to_mut`],
//! `DerefMut`, `push`, `pop`, `truncate`, `extend`) first copies a shared list into a list of its own
//! (copy on write), so edits never reach the neighbours. Serializes exactly as a `Vec`
//! (a JSON array); deserializing gives lists of their own.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Deref, DerefMut, Range};
use std::sync::Arc;

/// A list that reads like a `Vec<T>` and may be a slice of a buffer shared with other lists
/// (see the module doc).
#[derive(Clone)]
pub struct List<T>(Repr<T>);

#[derive(Clone)]
enum Repr<T> {
    /// `all[start..end]`.
    Shared { all: Arc<[T]>, start: u32, end: u32 },
    /// A list of its own.
    Owned(Vec<T>),
}

impl<T> List<T> {
    /// The slice `range` of a buffer shared with other lists (one reference-count increment;
    /// `range` must lie inside `all`).
    pub fn shared(all: &Arc<[T]>, range: Range<usize>) -> Self {
        debug_assert!(range.start <= range.end && range.end <= all.len());
        List(Repr::Shared {
            all: Arc::clone(all),
            start: range.start as u32,
            end: range.end as u32,
        })
    }

    /// The elements as a slice.
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Shared { all, start, end } => &all[*start as usize..*end as usize],
            Repr::Owned(v) => v,
        }
    }
}

impl<T: Clone> List<T> {
    /// The list as a `Vec` of its own to edit (a shared list is copied out first).
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if let Repr::Shared { .. } = self.0 {
            self.0 = Repr::Owned(self.as_slice().to_vec());
        }
        match &mut self.0 {
            Repr::Owned(v) => v,
            Repr::Shared { .. } => unreachable!("made a list of its own above"),
        }
    }

    /// Appends an element (like `Vec::push`).
    pub fn push(&mut self, value: T) {
        self.to_mut().push(value);
    }

    /// Removes the last element (like `Vec::pop`).
    pub fn pop(&mut self) -> Option<T> {
        self.to_mut().pop()
    }

    /// Keeps the first `len` elements (like `Vec::truncate`).
    pub fn truncate(&mut self, len: usize) {
        self.to_mut().truncate(len);
    }

    /// Inserts an element at `index` (like `Vec::insert`).
    pub fn insert(&mut self, index: usize, value: T) {
        self.to_mut().insert(index, value);
    }

    /// Removes and returns the element at `index` (like `Vec::remove`).
    pub fn remove(&mut self, index: usize) -> T {
        self.to_mut().remove(index)
    }

    /// Keeps the elements for which `keep` is true (like `Vec::retain`).
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.to_mut().retain(keep);
    }

    /// The list as a `Vec` (the elements cloned when shared).
    pub fn into_vec(self) -> Vec<T> {
        match self.0 {
            Repr::Owned(v) => v,
            Repr::Shared { .. } => self.as_slice().to_vec(),
        }
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Repr::Owned(Vec::new()))
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Clone> DerefMut for List<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.to_mut()
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        List(Repr::Owned(v))
    }
}

impl<T> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        List(Repr::Owned(iter.into_iter().collect()))
    }
}

impl<T: Clone> Extend<T> for List<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.to_mut().extend(iter);
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a, T: Clone> IntoIterator for &'a mut List<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.to_mut().iter_mut()
    }
}

impl<T: Clone> IntoIterator for List<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<T: PartialEq<U>, U> PartialEq<List<U>> for List<T> {
    fn eq(&self, other: &List<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for List<T> {}

impl<T: PartialEq<U>, U> PartialEq<Vec<U>> for List<T> {
    fn eq(&self, other: &Vec<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq<U>, U> PartialEq<List<U>> for Vec<T> {
    fn eq(&self, other: &List<U>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq<U>, U> PartialEq<List<U>> for [T] {
    fn eq(&self, other: &List<U>) -> bool {
        self == other.as_slice()
    }
}

impl<T: PartialEq<U>, U> PartialEq<[U]> for List<T> {
    fn eq(&self, other: &[U]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq<U>, U, const N: usize> PartialEq<[U; N]> for List<T> {
    fn eq(&self, other: &[U; N]) -> bool {
        self.as_slice() == other
    }
}

impl<T: std::hash::Hash> std::hash::Hash for List<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<T: Serialize> Serialize for List<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(List::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_lists_read_like_vectors_and_copy_before_an_edit() {
        let all: Arc<[u32]> = Arc::from(vec![1, 2, 3, 4, 5]);
        let mut a = List::shared(&all, 0..2);
        let b = List::shared(&all, 2..5);
        assert_eq!(a, [1, 2]);
        assert_eq!(b, vec![3, 4, 5]);
        assert_eq!(vec![3, 4, 5], b);
        assert_eq!(all[2..], b);
        assert_eq!(b[1], 4);
        assert_eq!(b.iter().sum::<u32>(), 12);
        assert_eq!(Arc::strong_count(&all), 3);
        a.push(9);
        a[0] = 7;
        assert_eq!(a, [7, 2, 9]);
        assert_eq!(b, [3, 4, 5], "the neighbour is untouched");
        assert_eq!(&all[..], [1, 2, 3, 4, 5], "the buffer is untouched");
        assert_eq!(Arc::strong_count(&all), 2, "the edited list has its own");
        assert_eq!(a.pop(), Some(9));
        let mut d = List::shared(&all, 1..4);
        d.insert(0, 8);
        assert_eq!(d.remove(1), 2);
        d.retain(|&x| x != 3);
        assert_eq!(d, [8, 4]);
        assert_eq!(&all[..], [1, 2, 3, 4, 5], "the buffer is untouched");
        let mut c = b.clone();
        c.extend(List::shared(&all, 0..1));
        assert_eq!(c, [3, 4, 5, 1]);
        assert_eq!(c.into_vec(), vec![3, 4, 5, 1]);
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(json, "[3,4,5]");
        let back: List<u32> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, b);
        assert_eq!(format!("{b:?}"), "[3, 4, 5]");
        assert!(List::<u32>::default().is_empty());
    }
}
