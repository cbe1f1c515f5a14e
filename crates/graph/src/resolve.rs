//! Depth/stencil resolve modes: how the samples of a multisampled depth/stencil attachment
//! become one value when it is resolved on write-back (`VkResolveModeFlagBits`).
//!
//! A colour resolve always averages; a depth/stencil one picks a mode the device supports
//! ([`crate::Capabilities::depth_resolve_modes`]). `sample_zero` is the mode every device
//! with depth/stencil resolve supports, so it is what a depth resolve without a mode uses.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a resolve combines the samples of one pixel.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum ResolveMode {
    /// The value of sample 0 (every device with depth/stencil resolve supports it).
    #[default]
    SampleZero,
    /// The mean of the samples (every colour resolve; a depth resolve where the device
    /// supports it, never a stencil one).
    Average,
    /// The smallest sample (nearest depth with a standard depth test).
    Min,
    /// The largest sample (nearest depth with reversed Z).
    Max,
}

impl ResolveMode {
    /// Every mode, in declaration order.
    pub const ALL: [ResolveMode; 4] = [
        ResolveMode::SampleZero,
        ResolveMode::Average,
        ResolveMode::Min,
        ResolveMode::Max,
    ];

    /// The name frame files and plans use.
    pub fn name(self) -> &'static str {
        match self {
            ResolveMode::SampleZero => "sample_zero",
            ResolveMode::Average => "average",
            ResolveMode::Min => "min",
            ResolveMode::Max => "max",
        }
    }

    /// The mode named `name` in frame files, if any.
    pub fn from_name(name: &str) -> Option<ResolveMode> {
        ResolveMode::ALL.into_iter().find(|m| m.name() == name)
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for ResolveMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`ResolveMode`]s (a bitset): the depth/stencil resolve modes a device supports.
/// Serialized as a list of names in declaration order; the default is `sample_zero` only,
/// the mode every device with depth/stencil resolve has.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResolveModes(u8);

impl ResolveModes {
    /// No mode.
    pub const EMPTY: ResolveModes = ResolveModes(0);
    /// `sample_zero` only.
    pub const SAMPLE_ZERO: ResolveModes = ResolveModes(1);

    /// The set holding `modes`.
    pub fn of(modes: &[ResolveMode]) -> Self {
        modes.iter().fold(Self::EMPTY, |s, &m| s.with(m))
    }

    /// This set with `mode` added.
    #[must_use]
    pub fn with(self, mode: ResolveMode) -> Self {
        ResolveModes(self.0 | mode.bit())
    }

    /// True when `mode` is in the set.
    pub fn contains(self, mode: ResolveMode) -> bool {
        self.0 & mode.bit() != 0
    }

    /// True when the set holds no mode.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The modes in the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = ResolveMode> {
        ResolveMode::ALL
            .into_iter()
            .filter(move |&m| self.contains(m))
    }
}

impl Default for ResolveModes {
    fn default() -> Self {
        Self::SAMPLE_ZERO
    }
}

/// The names, e.g. `sample_zero, min, max` (`none` for the empty set).
impl fmt::Display for ResolveModes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        for (i, m) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(m.name())?;
        }
        Ok(())
    }
}

impl fmt::Debug for ResolveModes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Serialize for ResolveModes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for ResolveModes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<ResolveMode>::deserialize(d).map(|modes| ResolveModes::of(&modes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde_and_display() {
        for m in ResolveMode::ALL {
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.name())
            );
            assert_eq!(m.to_string(), m.name());
            assert_eq!(ResolveMode::from_name(m.name()), Some(m));
        }
        assert_eq!(ResolveMode::from_name("median"), None);
    }

    #[test]
    fn sets_hold_what_was_put_in_and_serialize_as_names() {
        let s = ResolveModes::of(&[ResolveMode::Max, ResolveMode::SampleZero]);
        assert!(s.contains(ResolveMode::Max) && s.contains(ResolveMode::SampleZero));
        assert!(!s.contains(ResolveMode::Min) && !s.contains(ResolveMode::Average));
        assert_eq!(s.to_string(), "sample_zero, max");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"["sample_zero","max"]"#);
        assert_eq!(serde_json::from_str::<ResolveModes>(&json).unwrap(), s);
        assert!(serde_json::from_str::<ResolveModes>(r#"["median"]"#).is_err());
        assert_eq!(
            ResolveModes::default().iter().collect::<Vec<_>>(),
            [ResolveMode::SampleZero]
        );
        assert_eq!(ResolveModes::EMPTY.to_string(), "none");
    }
}
