//! [`Text`]: a text of the plan that may share one buffer with the texts next to it.
//!
//! The compiler writes the reasons of every break of a frame into one buffer and gives each
//! [`super::Break`] a slice of it ([`Text::shared`]), so a plan of ~500 breaks holds one
//! allocation for their reasons instead of ~500, and dropping it frees one; a text costs a
//! reference-count increment to make and a decrement to drop. Reading goes through
//! `Deref<Target = str>`, so a `Text` reads like a `String` (`contains`, `split`, `len`,
//! `==` with `&str` and `String`, `Display`). Serializes exactly as a `String` (a JSON
//! string); deserializing, and `From<String>`, give texts of their own.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// A text that reads like a `String` and may be a slice of a buffer shared with other texts
/// (see the module doc).
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    /// `all[start..end]` (the buffer is the compiler's own `String`, moved behind the
    /// reference count as it is rather than copied).
    Shared {
        all: Arc<String>,
        start: u32,
        end: u32,
    },
    /// A text of its own.
    Owned(String),
}

impl Text {
    /// The slice `range` of a buffer shared with other texts (one reference-count
    /// increment; `range` must lie inside `all`, on character boundaries).
    pub fn shared(all: &Arc<String>, range: Range<usize>) -> Self {
        debug_assert!(all.get(range.clone()).is_some(), "a slice of the buffer");
        Text(Repr::Shared {
            all: Arc::clone(all),
            start: range.start as u32,
            end: range.end as u32,
        })
    }

    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Shared { all, start, end } => {
                all.get(*start as usize..*end as usize).unwrap_or("")
            }
            Repr::Owned(s) => s,
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
        self.as_str().fmt(f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
    use super::Text;
    use std::sync::Arc;

    /// Shared texts read, compare and serialize like the slices they stand for, and like
    /// texts of their own with the same content.
    #[test]
    fn shared_texts_read_like_their_slices() {
        let all = Arc::new(String::from("first reason; secondthird"));
        let texts = [
            Text::shared(&all, 0..19),
            Text::shared(&all, 19..25),
            Text::shared(&all, 25..25),
        ];
        assert_eq!(texts[0], "first reason; secon");
        assert_eq!(texts[1].as_str(), "dthird");
        assert!(texts[2].is_empty());
        assert_eq!(texts[0], Text::from("first reason; secon"));
        assert_ne!(texts[0], texts[1]);
        assert_eq!(texts[1].to_string(), "dthird");
        assert_eq!(format!("{:?}", texts[1]), "\"dthird\"");
        let json = serde_json::to_string(&texts[0]).unwrap();
        assert_eq!(json, "\"first reason; secon\"");
        let back: Text = serde_json::from_str(&json).unwrap();
        assert_eq!(back, texts[0]);
        assert_eq!(String::from(texts[1].clone()), "dthird");
    }
}
