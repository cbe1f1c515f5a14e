//! [`Text`]: a string of the plan that may be a slice of one buffer shared with the texts
//! next to it.
//!
//! The compiler writes the reasons of every render-pass break into one buffer for the whole
//! frame and gives each break a slice of it ([`Text::shared`]), so a plan of ~500 breaks
//! holds one allocation for their words instead of ~500, and dropping it frees one; a text
//! costs a reference-count increment to make and a decrement to drop. Reads like a `&str`
//! (`Deref<Target = str>`: `contains`, `trim`, `len`, `Display`, `==` with strings);
//! [`Text::to_mut`] makes a `String` of its own to edit. Serializes exactly as a string;
//! deserializing gives texts of their own.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// A string that may be a slice of a buffer shared with other texts (see the module doc).
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    /// `all[start..end]`.
    Shared {
        all: Arc<String>,
        start: u32,
        end: u32,
    },
    /// A string of its own.
    Owned(String),
}

impl Text {
    /// The slice `range` of a buffer shared with other texts (one reference-count
    /// increment; `range` must lie inside `all`, on character boundaries). The buffer is an
    /// `Arc<String>` so that the text written for it is moved in, not copied.
    pub fn shared(all: &Arc<String>, range: Range<usize>) -> Self {
        debug_assert!(all.get(range.clone()).is_some());
        Text(Repr::Shared {
            all: Arc::clone(all),
            start: range.start as u32,
            end: range.end as u32,
        })
    }

    /// The text as a string slice.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Shared { all, start, end } => {
                all.get(*start as usize..*end as usize).unwrap_or_default()
            }
            Repr::Owned(s) => s,
        }
    }

    /// The text as a `String` of its own to edit (a shared text is copied out first).
    pub fn to_mut(&mut self) -> &mut String {
        if let Repr::Shared { .. } = self.0 {
            self.0 = Repr::Owned(self.as_str().to_owned());
        }
        match &mut self.0 {
            Repr::Owned(s) => s,
            Repr::Shared { .. } => unreachable!("made a string of its own above"),
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Text(Repr::Owned(String::new()))
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text(Repr::Owned(s))
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text(Repr::Owned(s.to_owned()))
    }
}

impl From<Text> for String {
    fn from(t: Text) -> Self {
        match t.0 {
            Repr::Owned(s) => s,
            Repr::Shared { .. } => t.as_str().to_owned(),
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::hash::Hash for Text {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Text::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_texts_read_like_strings_and_copy_before_an_edit() {
        let all = Arc::new(String::from("first; second"));
        let mut a = Text::shared(&all, 0..5);
        let b = Text::shared(&all, 7..13);
        assert_eq!(a, "first");
        assert_eq!(b, "second".to_string());
        assert!(b.contains("eco"));
        assert_eq!(format!("{b}|{b:?}|{a:>7}"), "second|\"second\"|  first");
        assert_eq!(Arc::strong_count(&all), 3);
        a.to_mut().push('!');
        assert_eq!(a, "first!");
        assert_eq!(*all, "first; second", "the buffer is untouched");
        assert_eq!(Arc::strong_count(&all), 2, "the edited text has its own");
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(json, "\"second\"");
        let back: Text = serde_json::from_str(&json).unwrap();
        assert_eq!(back, b);
        assert_eq!(String::from(b), "second");
        assert!(Text::default().is_empty());
    }
}
