//! Synchronization vocabulary of the graph: pipeline stages, memory accesses and image
//! layouts as the graph's own types.
//!
//! The names are Vulkan synchronization2 names without the `VK_PIPELINE_STAGE_2_`,
//! `VK_ACCESS_2_`, `VK_IMAGE_LAYOUT_` prefixes and `_BIT` suffixes, which is how the plan JSON
//! spells them. The executor maps them to Vulkan flags in its own `conv` module; nothing here
//! knows Vulkan.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Declares a bit set over a list of named flags that (de)serializes as a list of names in
/// declaration order.
macro_rules! flag_set {
    ($(#[$meta:meta])* $set:ident { $($flag:ident),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
        pub struct $set(u32);

        #[allow(non_upper_case_globals)]
        impl $set {
            flag_set!(@consts 0u32; $($flag),*);
            const NAMES: &'static [(&'static str, $set)] = &[$((stringify!($flag), $set::$flag)),*];

            /// The empty set (`NONE` in Vulkan).
            pub const fn empty() -> Self { Self(0) }
            /// True when no flag is set.
            pub const fn is_empty(self) -> bool { self.0 == 0 }
            /// True when every flag of `other` is set in `self`.
            pub const fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
            /// True when `self` and `other` share a flag.
            pub const fn intersects(self, other: Self) -> bool { self.0 & other.0 != 0 }
            /// Raw bits, for hashing and compact storage.
            pub const fn bits(self) -> u32 { self.0 }
            /// The names of the set flags, in declaration order.
            pub fn names(self) -> impl Iterator<Item = &'static str> {
                Self::NAMES.iter().filter(move |(_, f)| self.contains(*f)).map(|(n, _)| *n)
            }
            /// Parses one flag name.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::NAMES.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
            }
        }

        impl std::ops::BitOr for $set {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self { Self(self.0 | rhs.0) }
        }
        impl std::ops::BitOrAssign for $set {
            fn bitor_assign(&mut self, rhs: Self) { self.0 |= rhs.0 }
        }
        impl std::ops::BitAnd for $set {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self { Self(self.0 & rhs.0) }
        }
        impl std::ops::Sub for $set {
            type Output = Self;
            fn sub(self, rhs: Self) -> Self { Self(self.0 & !rhs.0) }
        }
        impl fmt::Debug for $set {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.names()).finish()
            }
        }
        impl fmt::Display for $set {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if self.is_empty() {
                    return f.write_str("NONE");
                }
                let names: Vec<_> = self.names().collect();
                f.write_str(&names.join("|"))
            }
        }
        impl Serialize for $set {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.names())
            }
        }
        impl<'de> Deserialize<'de> for $set {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let names = Vec::<String>::deserialize(d)?;
                let mut set = Self::empty();
                for name in names {
                    set |= Self::from_name(&name).ok_or_else(|| {
                        serde::de::Error::custom(format!("unknown {} name '{name}'", stringify!($set)))
                    })?;
                }
                Ok(set)
            }
        }
    };
    (@consts $bit:expr; $flag:ident $(, $rest:ident)*) => {
        #[doc = concat!("`", stringify!($flag), "`")]
        pub const $flag: Self = Self(1 << $bit);
        flag_set!(@consts $bit + 1; $($rest),*);
    };
    (@consts $bit:expr;) => {};
}

flag_set! {
    /// A set of synchronization2 pipeline stages.
    StageMask {
        DRAW_INDIRECT,
        INDEX_INPUT,
        VERTEX_INPUT,
        VERTEX_SHADER,
        FRAGMENT_SHADER,
        EARLY_FRAGMENT_TESTS,
        LATE_FRAGMENT_TESTS,
        COLOR_ATTACHMENT_OUTPUT,
        COMPUTE_SHADER,
        ALL_TRANSFER,
        ALL_COMMANDS,
    }
}

flag_set! {
    /// A set of synchronization2 memory access types.
    AccessMask {
        INDIRECT_COMMAND_READ,
        INDEX_READ,
        VERTEX_ATTRIBUTE_READ,
        UNIFORM_READ,
        INPUT_ATTACHMENT_READ,
        SHADER_SAMPLED_READ,
        SHADER_STORAGE_READ,
        SHADER_STORAGE_WRITE,
        COLOR_ATTACHMENT_READ,
        COLOR_ATTACHMENT_WRITE,
        DEPTH_STENCIL_ATTACHMENT_READ,
        DEPTH_STENCIL_ATTACHMENT_WRITE,
        TRANSFER_READ,
        TRANSFER_WRITE,
        MEMORY_READ,
        MEMORY_WRITE,
    }
}

impl AccessMask {
    /// Every access kind that modifies memory.
    pub const WRITES: Self = Self(
        Self::SHADER_STORAGE_WRITE.0
            | Self::COLOR_ATTACHMENT_WRITE.0
            | Self::DEPTH_STENCIL_ATTACHMENT_WRITE.0
            | Self::TRANSFER_WRITE.0
            | Self::MEMORY_WRITE.0,
    );

    /// True when any access in the set writes memory.
    pub const fn has_write(self) -> bool {
        self.intersects(Self::WRITES)
    }
}

/// An image layout. Buffers have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum Layout {
    /// Contents are undefined (first use, or after aliasing).
    UNDEFINED,
    /// Storage images and anything that needs every kind of access.
    GENERAL,
    /// Colour attachment being rendered to.
    COLOR_ATTACHMENT_OPTIMAL,
    /// Depth/stencil attachment being written.
    DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    /// Depth/stencil being tested, sampled or read as an input attachment, never written.
    DEPTH_STENCIL_READ_ONLY_OPTIMAL,
    /// Sampled image or colour input attachment.
    SHADER_READ_ONLY_OPTIMAL,
    /// Source of a copy or blit.
    TRANSFER_SRC_OPTIMAL,
    /// Destination of a copy, blit or clear.
    TRANSFER_DST_OPTIMAL,
    /// Ready to be presented (swapchain images).
    PRESENT_SRC_KHR,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_serialize_as_name_lists_in_declaration_order() {
        let m = StageMask::COMPUTE_SHADER | StageMask::DRAW_INDIRECT;
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"["DRAW_INDIRECT","COMPUTE_SHADER"]"#
        );
        let back: StageMask =
            serde_json::from_str(r#"["COMPUTE_SHADER","DRAW_INDIRECT"]"#).unwrap();
        assert_eq!(back, m);
        assert!(serde_json::from_str::<AccessMask>(r#"["NOPE"]"#).is_err());
    }

    #[test]
    fn write_detection() {
        assert!(AccessMask::SHADER_STORAGE_WRITE.has_write());
        assert!(!(AccessMask::SHADER_STORAGE_READ | AccessMask::SHADER_SAMPLED_READ).has_write());
        assert_eq!(StageMask::empty().to_string(), "NONE");
    }
}
