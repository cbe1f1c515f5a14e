//! Memory-type decisions as pure functions of the device's memory properties (given as data),
//! so they can be tested with the properties of devices we do not have (Mali, Adreno).
//!
//! - Memoryless attachments take a `LAZILY_ALLOCATED` type allowed by the image's
//!   `memoryTypeBits`, chosen by hand (gpu-allocator never picks such a type); without one
//!   they fall back to an ordinary device-local placement.
//! - A plan block becomes one allocation: its members' `memoryTypeBits` are ANDed, and the
//!   block is only possible when a device-local type remains (compatibility class).

use ash::vk;

/// How a memoryless attachment is backed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorylessBacking {
    /// Its own `vkAllocateMemory` of this lazily allocated memory type.
    Lazy {
        /// Index into the device's memory types.
        type_index: u32,
    },
    /// No lazily allocated type fits: an ordinary device-local allocation.
    Ordinary,
}

/// The lazily allocated memory type for an image with `type_bits`, preferring one that is
/// also device-local (every real tiler reports `DEVICE_LOCAL | LAZILY_ALLOCATED`).
pub fn memoryless_backing(types: &[vk::MemoryType], type_bits: u32) -> MemorylessBacking {
    let allowed = |i: usize| i < 32 && type_bits & (1 << i) != 0;
    let lazy = |t: &vk::MemoryType| {
        t.property_flags
            .contains(vk::MemoryPropertyFlags::LAZILY_ALLOCATED)
    };
    let pick = types
        .iter()
        .enumerate()
        .filter(|(i, t)| allowed(*i) && lazy(t))
        .max_by_key(|(i, t)| {
            (
                t.property_flags
                    .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL),
                std::cmp::Reverse(*i),
            )
        });
    match pick {
        Some((i, _)) => MemorylessBacking::Lazy {
            type_index: i as u32,
        },
        None => MemorylessBacking::Ordinary,
    }
}

/// True when the device has any lazily allocated memory type.
pub fn has_lazily_allocated(types: &[vk::MemoryType]) -> bool {
    types.iter().any(|t| {
        t.property_flags
            .contains(vk::MemoryPropertyFlags::LAZILY_ALLOCATED)
    })
}

/// Memory requirements of a block holding several placed resources: size = end of the last
/// placement, alignment = the largest member alignment, type bits = AND of the members'.
/// `None` when no device-local memory type is allowed by every member (the block mixes
/// resources of incompatible memory classes).
pub fn block_requirements(
    types: &[vk::MemoryType],
    members: &[(u64, vk::MemoryRequirements)],
) -> Option<vk::MemoryRequirements> {
    let mut out = vk::MemoryRequirements {
        size: 0,
        alignment: 1,
        memory_type_bits: u32::MAX,
    };
    for (offset, r) in members {
        out.size = out.size.max(offset + r.size);
        out.alignment = out.alignment.max(r.alignment);
        out.memory_type_bits &= r.memory_type_bits;
    }
    let device_local = types.iter().enumerate().any(|(i, t)| {
        i < 32
            && out.memory_type_bits & (1 << i) != 0
            && t.property_flags
                .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
            && !t
                .property_flags
                .contains(vk::MemoryPropertyFlags::LAZILY_ALLOCATED)
    });
    device_local.then_some(out)
}

/// Groups memory-type bit sets into compatibility classes: two resources are in one class
/// when they share a device-local, non-lazy memory type (so one allocation can hold both).
/// Returns, per input, the index of its class (classes numbered in order of first member).
pub fn compatibility_classes(types: &[vk::MemoryType], type_bits: &[u32]) -> Vec<usize> {
    let usable: u32 = types
        .iter()
        .enumerate()
        .filter(|(i, t)| {
            *i < 32
                && t.property_flags
                    .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
                && !t
                    .property_flags
                    .contains(vk::MemoryPropertyFlags::LAZILY_ALLOCATED)
        })
        .fold(0, |acc, (i, _)| acc | (1 << i));
    let mut classes: Vec<u32> = Vec::new();
    type_bits
        .iter()
        .map(|&bits| {
            let b = bits & usable;
            match classes.iter().position(|c| c & b != 0) {
                Some(i) => {
                    classes[i] &= b;
                    i
                }
                None => {
                    classes.push(b);
                    classes.len() - 1
                }
            }
        })
        .collect()
}

/// The compiler's memory classes from the `memoryTypeBits` of a representative buffer,
/// sampled/storage image, colour attachment and depth attachment (in that order): kinds that
/// share a device-local, non-lazy memory type get one class, so the compiler puts only
/// compatible resources in one block.
pub fn memory_classes(
    types: &[vk::MemoryType],
    bits: [u32; 4],
) -> tessera_graph::caps::MemoryClasses {
    let c = compatibility_classes(types, &bits);
    tessera_graph::caps::MemoryClasses {
        buffer: c[0] as u32,
        image: c[1] as u32,
        color_attachment: c[2] as u32,
        depth_attachment: c[3] as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vk::MemoryPropertyFlags as F;

    fn ty(flags: F) -> vk::MemoryType {
        vk::MemoryType {
            property_flags: flags,
            heap_index: 0,
        }
    }

    /// Memory types as a Mali (Valhall) driver reports them.
    fn mali() -> Vec<vk::MemoryType> {
        vec![
            ty(F::DEVICE_LOCAL),
            ty(F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT),
            ty(F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT | F::HOST_CACHED),
            ty(F::DEVICE_LOCAL | F::LAZILY_ALLOCATED),
        ]
    }

    /// Memory types as an Adreno driver reports them (lazy type first, host-visible last).
    fn adreno() -> Vec<vk::MemoryType> {
        vec![
            ty(F::DEVICE_LOCAL | F::LAZILY_ALLOCATED),
            ty(F::DEVICE_LOCAL),
            ty(F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT),
            ty(F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_CACHED),
        ]
    }

    /// lavapipe: one type, no lazy memory.
    fn lavapipe() -> Vec<vk::MemoryType> {
        vec![ty(F::DEVICE_LOCAL
            | F::HOST_VISIBLE
            | F::HOST_COHERENT
            | F::HOST_CACHED)]
    }

    #[test]
    fn memoryless_picks_the_lazy_type_allowed_by_the_image() {
        assert_eq!(
            memoryless_backing(&mali(), 0b1111),
            MemorylessBacking::Lazy { type_index: 3 }
        );
        assert_eq!(
            memoryless_backing(&adreno(), 0b1111),
            MemorylessBacking::Lazy { type_index: 0 }
        );
        // A transient image whose bits exclude the lazy type falls back.
        assert_eq!(
            memoryless_backing(&mali(), 0b0111),
            MemorylessBacking::Ordinary
        );
        assert_eq!(
            memoryless_backing(&lavapipe(), 0b1),
            MemorylessBacking::Ordinary
        );
        assert!(has_lazily_allocated(&mali()) && has_lazily_allocated(&adreno()));
        assert!(!has_lazily_allocated(&lavapipe()));
    }

    #[test]
    fn lazy_and_device_local_is_preferred_over_lazy_only() {
        let types = vec![
            ty(F::LAZILY_ALLOCATED),
            ty(F::DEVICE_LOCAL | F::LAZILY_ALLOCATED),
        ];
        assert_eq!(
            memoryless_backing(&types, 0b11),
            MemorylessBacking::Lazy { type_index: 1 }
        );
        assert_eq!(
            memoryless_backing(&types, 0b01),
            MemorylessBacking::Lazy { type_index: 0 }
        );
    }

    #[test]
    fn block_requirements_combine_members() {
        let r = |size, alignment, bits| vk::MemoryRequirements {
            size,
            alignment,
            memory_type_bits: bits,
        };
        let b = block_requirements(
            &mali(),
            &[(0, r(100, 256, 0b0111)), (4096, r(64, 1024, 0b0011))],
        )
        .unwrap();
        assert_eq!(
            (b.size, b.alignment, b.memory_type_bits),
            (4160, 1024, 0b0011)
        );
        // Only the lazy type in common: not a valid block.
        assert!(
            block_requirements(&mali(), &[(0, r(1, 1, 0b1001)), (0, r(1, 1, 0b1000))]).is_none()
        );
    }

    #[test]
    fn classes_group_resources_sharing_a_type() {
        // Mali: images 0b0001 and buffers 0b0111 share type 0; 0b0110 (host-visible types
        // only) shares nothing with that class; 0b1000 (lazy only) fits no block at all.
        assert_eq!(
            compatibility_classes(&mali(), &[0b0001, 0b0111, 0b0110, 0b1000]),
            vec![0, 0, 1, 2]
        );
        assert_eq!(
            compatibility_classes(&lavapipe(), &[1, 1, 1]),
            vec![0, 0, 0]
        );
    }

    #[test]
    fn probed_kinds_become_the_compilers_classes() {
        // Desktop drivers: every kind shares the device-local type.
        let desktop = vec![
            ty(F::DEVICE_LOCAL),
            ty(F::HOST_VISIBLE | F::HOST_COHERENT),
            ty(F::DEVICE_LOCAL | F::HOST_VISIBLE | F::HOST_COHERENT),
        ];
        let c = memory_classes(&desktop, [0b111, 0b001, 0b001, 0b001]);
        assert_eq!(
            (c.buffer, c.image, c.color_attachment, c.depth_attachment),
            (0, 0, 0, 0)
        );
        // A device whose buffers and render targets need different types (like D3D12 heap
        // tier 1): buffers, plain images and attachments fall into separate classes, and
        // colour and depth attachments share one.
        let tiered = vec![
            ty(F::DEVICE_LOCAL),
            ty(F::DEVICE_LOCAL),
            ty(F::DEVICE_LOCAL),
        ];
        let c = memory_classes(&tiered, [0b001, 0b010, 0b100, 0b100]);
        assert_eq!(
            (c.buffer, c.image, c.color_attachment, c.depth_attachment),
            (0, 1, 2, 2)
        );
        assert_eq!(c.of(tessera_graph::MemoryKind::DepthAttachment), 2);
    }
}
