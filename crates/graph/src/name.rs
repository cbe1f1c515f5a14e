//! Interned names of passes and resources.
//!
//! A name appears many times in a plan (order, levels, queues, edges, barriers, placements,
//! ...): ~13,000 times for a 1,000-pass frame. Each name is therefore stored once for the
//! life of the process in a global table and a [`Name`] is a `&'static str` into it, like
//! Unreal's `FName` or Bevy's interned labels: copying one is copying a pointer, dropping a
//! plan frees its vectors without touching a name, and two equal names share their bytes.
//! What that saves, measured: `docs/perf.md`, "Interned names".
//!
//! The cost is that a name is never freed: the table holds every distinct name ever made,
//! which a renderer's frames (a bounded set of pass and resource names) keep small; a
//! process that makes unboundedly many distinct names (a fuzzer feeding random frame files)
//! grows it by each new name's bytes. Making a name takes a lock and a hash lookup, which is
//! still cheaper than the allocation of a shared string it replaces (`docs/perf.md`,
//! "Interned names").

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;
use std::sync::{OnceLock, RwLock};

/// A pass or resource name (interned: see the module documentation).
///
/// Equal names are one stored copy, so equality is pointer identity ([`Name::identity`]);
/// hashing and ordering go by the text, like `str` (a `HashMap<Name, _>` can be read with a
/// `&str` key).
#[derive(Clone, Copy, PartialOrd, Ord)]
pub struct Name(&'static str);

/// The one stored copy of `s`, stored on first use.
fn intern(s: &str) -> &'static str {
    static TABLE: OnceLock<RwLock<HashSet<&'static str>>> = OnceLock::new();
    let table = TABLE.get_or_init(Default::default);
    // A panic while holding the lock leaves the set itself consistent (an insert either
    // happened or not), so a poisoned lock is used as it is.
    if let Some(&stored) = table
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(s)
    {
        return stored;
    }
    let mut table = table
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&stored) = table.get(s) {
        return stored; // another thread stored it between the two locks
    }
    let stored: &'static str = Box::leak(s.into());
    table.insert(stored);
    stored
}

impl Name {
    /// The name as a string slice (it lives as long as the process).
    pub fn as_str(&self) -> &'static str {
        self.0
    }

    /// A number equal for equal names and different for different ones (the address of the
    /// stored copy), for tables keyed by name identity that need not hash the text.
    pub fn identity(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Name {}

impl std::hash::Hash for Name {
    /// By the text, as `str` hashes (equal texts are one identity, so this agrees with `==`).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl Default for Name {
    /// The empty name (stored like any other, so that it equals `Name::from("")`).
    fn default() -> Self {
        Name::from("")
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Name(intern(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Name(intern(&s))
    }
}

impl From<&String> for Name {
    fn from(s: &String) -> Self {
        Name(intern(s))
    }
}

impl From<&Name> for Name {
    fn from(s: &Name) -> Self {
        *s
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.0
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        **self == *other.0
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.0) // honours width and alignment, like `str`
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Name::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_names_share_one_stored_copy() {
        let built = format!("{}_{}", "interned", 7);
        let a = Name::from(built.as_str());
        let b = Name::from(built);
        let c: Name = serde_json::from_str("\"interned_7\"").unwrap();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert!(std::ptr::eq(a.as_str(), c.as_str()));
        assert!(!std::ptr::eq(a.as_str(), Name::from("interned_8").as_str()));
        assert_eq!(a.identity(), c.identity());
        assert_ne!(a.identity(), Name::from("interned_8").identity());
        assert_eq!(Name::default(), Name::from(String::new()));
    }

    #[test]
    fn names_made_on_several_threads_agree() {
        let names: Vec<Name> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| Name::from(format!("threaded_{}", 42))))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(names
            .iter()
            .all(|n| std::ptr::eq(n.as_str(), names[0].as_str())));
    }

    #[test]
    fn compares_and_serializes_like_a_string() {
        let n = Name::from("gbuffer");
        assert_eq!(n, "gbuffer");
        assert_eq!(vec![n], ["gbuffer"]);
        assert_eq!(serde_json::to_string(&n).unwrap(), "\"gbuffer\"");
        assert_eq!(serde_json::from_str::<Name>("\"x\"").unwrap(), "x");
        assert_eq!(
            format!("{n}/{n:?}/{n:<9}|"),
            "gbuffer/\"gbuffer\"/gbuffer  |"
        );
    }
}
