//! Device facts as data (`Capabilities`) and optimisation switches (`CompileOptions`).
//!
//! The compiler never queries a device: the executor fills `Capabilities` from the real
//! `VkPhysicalDevice`, and tests and `tessera plan` use the named profiles of docs/frame-format.md.

use crate::resolve::{ResolveMode, ResolveModes};
use serde::{Deserialize, Serialize};

/// What the target device can do, as far as planning is concerned.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Capabilities {
    /// Profile the facts came from (`desktop`, `mali`, `adreno`, or a device name).
    pub profile: String,
    /// A queue family that runs compute beside graphics exists.
    pub async_compute: bool,
    /// A `LAZILY_ALLOCATED` memory type exists (memoryless attachments possible).
    pub lazily_allocated: bool,
    /// `maxColorAttachments`.
    pub max_color_attachments: u32,
    /// `maxPerStageDescriptorInputAttachments` (input attachments per subpass).
    pub max_input_attachments: u32,
    /// Bits of colour per pixel that tile storage holds; 0 means no budget.
    pub tile_bits_per_pixel: u32,
    /// Alignment of placements inside aliasing blocks.
    pub placement_alignment: u64,
    /// `bufferImageGranularity`: distance a buffer and an image placed next to each other keep.
    pub buffer_image_granularity: u64,
    /// Memory-compatibility class of each kind of resource: resources of different classes
    /// never share a memory block (the backend derives them from `memoryTypeBits`).
    #[serde(default)]
    pub memory_classes: MemoryClasses,
    /// Depth/stencil resolve modes the device supports (`supportedDepthResolveModes`);
    /// `sample_zero` only when absent, the mode every device with depth resolve has.
    #[serde(default)]
    pub depth_resolve_modes: ResolveModes,
}

/// What kind of memory a resource needs, as far as memory-type compatibility goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// A buffer.
    Buffer,
    /// An image never used as an attachment (sampled, storage, transfer).
    Image,
    /// An image used as a colour attachment or resolve target.
    ColorAttachment,
    /// An image used as a depth/stencil attachment.
    DepthAttachment,
}

/// Memory-compatibility class per [`MemoryKind`]. Equal numbers may share a block. All
/// profiles put everything in class 0 (one device-local memory type serves every kind, as
/// on current desktop and mobile Vulkan drivers); a device whose buffers and render targets
/// need different memory types (like D3D12 resource heap tier 1) gives them different classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MemoryClasses {
    /// Class of buffers.
    pub buffer: u32,
    /// Class of images that are not attachments.
    pub image: u32,
    /// Class of colour attachments and resolve targets.
    pub color_attachment: u32,
    /// Class of depth/stencil attachments.
    pub depth_attachment: u32,
}

impl MemoryClasses {
    /// The class of a kind of resource.
    pub fn of(&self, kind: MemoryKind) -> u32 {
        match kind {
            MemoryKind::Buffer => self.buffer,
            MemoryKind::Image => self.image,
            MemoryKind::ColorAttachment => self.color_attachment,
            MemoryKind::DepthAttachment => self.depth_attachment,
        }
    }
}

impl Capabilities {
    /// Known profile names.
    pub const PROFILES: &'static [&'static str] = &["desktop", "mali", "adreno"];

    /// The named profile of docs/frame-format.md, or `None` for an unknown name.
    pub fn profile(name: &str) -> Option<Self> {
        let base = Capabilities {
            profile: name.to_string(),
            async_compute: false,
            lazily_allocated: false,
            max_color_attachments: 8,
            max_input_attachments: 8,
            tile_bits_per_pixel: 0,
            placement_alignment: 65536,
            buffer_image_granularity: 1024,
            memory_classes: MemoryClasses::default(),
            // What desktop and tiler drivers report alike.
            depth_resolve_modes: ResolveModes::of(&[
                ResolveMode::SampleZero,
                ResolveMode::Min,
                ResolveMode::Max,
            ]),
        };
        match name {
            "desktop" => Some(Capabilities {
                async_compute: true,
                ..base
            }),
            "mali" => Some(Capabilities {
                lazily_allocated: true,
                tile_bits_per_pixel: 256,
                ..base
            }),
            "adreno" => Some(Capabilities {
                lazily_allocated: true,
                ..base
            }),
            _ => None,
        }
    }

    /// The default profile, `desktop`.
    pub fn desktop() -> Self {
        Self::profile("desktop").expect("desktop is a known profile")
    }
}

impl Default for Capabilities {
    fn default() -> Self {
        Self::desktop()
    }
}

/// Switches for every optimisation, so each can be turned off for comparison: a plan with
/// all of them off must render the same picture as one with all on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CompileOptions {
    /// Move independent passes (never against an edge) to group mergeable or overlapping work.
    pub reorder: bool,
    /// Merge adjacent raster passes into subpasses of one render pass.
    pub merge: bool,
    /// Keep attachments that never leave tile memory in lazily allocated memory.
    pub memoryless: bool,
    /// Let transient resources with disjoint lifetimes share memory.
    pub alias: bool,
    /// Run `async_compute` passes on the async-compute queue where the device has one.
    pub async_compute: bool,
    /// Drop cross-queue waits implied by the others.
    pub minimize_syncs: bool,
    /// Let the next frame's graphics work start while this frame's tail still runs on the
    /// async queue (plans the two-frame window: `Plan::frame_overlap`). Older plans lack it.
    #[serde(default)]
    pub overlap_frames: bool,
}

impl CompileOptions {
    /// Every optimisation on (the default).
    pub const ALL: CompileOptions = CompileOptions {
        reorder: true,
        merge: true,
        memoryless: true,
        alias: true,
        async_compute: true,
        minimize_syncs: true,
        overlap_frames: true,
    };

    /// Every optimisation off: the naive reference plan.
    pub const NONE: CompileOptions = CompileOptions {
        reorder: false,
        merge: false,
        memoryless: false,
        alias: false,
        async_compute: false,
        minimize_syncs: false,
        overlap_frames: false,
    };
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_match_graph_format() {
        let d = Capabilities::profile("desktop").unwrap();
        assert!(d.async_compute && !d.lazily_allocated && d.tile_bits_per_pixel == 0);
        let m = Capabilities::profile("mali").unwrap();
        assert!(!m.async_compute && m.lazily_allocated && m.tile_bits_per_pixel == 256);
        let a = Capabilities::profile("adreno").unwrap();
        assert!(!a.async_compute && a.lazily_allocated && a.tile_bits_per_pixel == 0);
        assert!(Capabilities::profile("voodoo").is_none());
        for c in [d, m, a] {
            let modes: Vec<ResolveMode> = c.depth_resolve_modes.iter().collect();
            assert_eq!(
                modes,
                [ResolveMode::SampleZero, ResolveMode::Min, ResolveMode::Max]
            );
        }
    }
}
