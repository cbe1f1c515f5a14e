//! Texel formats the graph understands: enough facts per format (bytes per texel, depth,
//! stencil) to validate accesses, estimate sizes and model tile storage.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! formats {
    ($($name:ident => $bytes:expr, $depth:expr, $stencil:expr;)*) => {
        /// An image format, spelled as Vulkan's `VkFormat` without the `VK_FORMAT_` prefix.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum Format { $(#[doc = concat!("`VK_FORMAT_", stringify!($name), "`")] $name,)* }

        impl Format {
            /// Every known format.
            pub const ALL: &'static [Format] = &[$(Format::$name,)*];

            /// Parses a Vulkan format name without the `VK_FORMAT_` prefix.
            pub fn from_name(name: &str) -> Option<Format> {
                match name { $(stringify!($name) => Some(Format::$name),)* _ => None }
            }

            /// The name as written in frame files.
            pub fn name(self) -> &'static str {
                match self { $(Format::$name => stringify!($name),)* }
            }

            /// Bytes per texel (per sample).
            pub fn bytes_per_texel(self) -> u32 {
                match self { $(Format::$name => $bytes,)* }
            }

            /// True for formats with a depth aspect.
            pub fn has_depth(self) -> bool {
                match self { $(Format::$name => $depth,)* }
            }

            /// True for formats with a stencil aspect.
            pub fn has_stencil(self) -> bool {
                match self { $(Format::$name => $stencil,)* }
            }
        }
    };
}

formats! {
    R8_UNORM => 1, false, false;
    R8_UINT => 1, false, false;
    R8G8_UNORM => 2, false, false;
    R8G8B8A8_UNORM => 4, false, false;
    R8G8B8A8_SNORM => 4, false, false;
    R8G8B8A8_SRGB => 4, false, false;
    R8G8B8A8_UINT => 4, false, false;
    B8G8R8A8_UNORM => 4, false, false;
    B8G8R8A8_SRGB => 4, false, false;
    A2B10G10R10_UNORM_PACK32 => 4, false, false;
    A2R10G10B10_UNORM_PACK32 => 4, false, false;
    B10G11R11_UFLOAT_PACK32 => 4, false, false;
    E5B9G9R9_UFLOAT_PACK32 => 4, false, false;
    R16_UNORM => 2, false, false;
    R16_SFLOAT => 2, false, false;
    R16_UINT => 2, false, false;
    R16G16_UNORM => 4, false, false;
    R16G16_SNORM => 4, false, false;
    R16G16_SFLOAT => 4, false, false;
    R16G16B16A16_UNORM => 8, false, false;
    R16G16B16A16_SFLOAT => 8, false, false;
    R32_SFLOAT => 4, false, false;
    R32_UINT => 4, false, false;
    R32_SINT => 4, false, false;
    R32G32_SFLOAT => 8, false, false;
    R32G32_UINT => 8, false, false;
    R32G32B32A32_SFLOAT => 16, false, false;
    R32G32B32A32_UINT => 16, false, false;
    D16_UNORM => 2, true, false;
    D32_SFLOAT => 4, true, false;
    X8_D24_UNORM_PACK32 => 4, true, false;
    D24_UNORM_S8_UINT => 4, true, true;
    D32_SFLOAT_S8_UINT => 8, true, true;
    S8_UINT => 1, false, true;
}

impl Format {
    /// True for depth and/or stencil formats (attached as depth/stencil, not colour).
    pub fn is_depth_stencil(self) -> bool {
        self.has_depth() || self.has_stencil()
    }

    /// Bits per texel, for the tile-storage budget.
    pub fn bits_per_texel(self) -> u32 {
        self.bytes_per_texel() * 8
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("R8G8B8A8"), None);
    }

    #[test]
    fn depth_and_stencil_aspects() {
        assert!(Format::D32_SFLOAT.is_depth_stencil());
        assert!(Format::S8_UINT.is_depth_stencil() && !Format::S8_UINT.has_depth());
        assert!(!Format::R16G16B16A16_SFLOAT.is_depth_stencil());
        assert_eq!(Format::R16G16B16A16_SFLOAT.bits_per_texel(), 64);
    }
}
