//! Pure mappings from the graph's vocabulary (stages, accesses, layouts, formats, load/store
//! operations, access kinds) to Vulkan flags. No device, no `unsafe`: every function is a
//! table lookup, unit-tested below.

use ash::vk;
use tessera_graph::access::Access;
use tessera_graph::plan::{LoadOp, StoreOp};
use tessera_graph::sync::{AccessMask, Layout, StageMask};
use tessera_graph::{Format, PassKind, ResolveMode, ResolveModes};

/// synchronization2 pipeline stages of a graph stage mask.
pub fn stages(mask: StageMask) -> vk::PipelineStageFlags2 {
    let table = [
        (
            StageMask::DRAW_INDIRECT,
            vk::PipelineStageFlags2::DRAW_INDIRECT,
        ),
        (StageMask::INDEX_INPUT, vk::PipelineStageFlags2::INDEX_INPUT),
        (
            StageMask::VERTEX_INPUT,
            vk::PipelineStageFlags2::VERTEX_INPUT,
        ),
        (
            StageMask::VERTEX_SHADER,
            vk::PipelineStageFlags2::VERTEX_SHADER,
        ),
        (
            StageMask::FRAGMENT_SHADER,
            vk::PipelineStageFlags2::FRAGMENT_SHADER,
        ),
        (
            StageMask::EARLY_FRAGMENT_TESTS,
            vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS,
        ),
        (
            StageMask::LATE_FRAGMENT_TESTS,
            vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS,
        ),
        (
            StageMask::COLOR_ATTACHMENT_OUTPUT,
            vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
        ),
        (
            StageMask::COMPUTE_SHADER,
            vk::PipelineStageFlags2::COMPUTE_SHADER,
        ),
        (
            StageMask::ALL_TRANSFER,
            vk::PipelineStageFlags2::ALL_TRANSFER,
        ),
        (
            StageMask::ALL_COMMANDS,
            vk::PipelineStageFlags2::ALL_COMMANDS,
        ),
    ];
    table
        .iter()
        .filter(|(g, _)| mask.contains(*g))
        .fold(vk::PipelineStageFlags2::NONE, |acc, (_, v)| acc | *v)
}

/// synchronization2 access flags of a graph access mask.
pub fn accesses(mask: AccessMask) -> vk::AccessFlags2 {
    let table = [
        (
            AccessMask::INDIRECT_COMMAND_READ,
            vk::AccessFlags2::INDIRECT_COMMAND_READ,
        ),
        (AccessMask::INDEX_READ, vk::AccessFlags2::INDEX_READ),
        (
            AccessMask::VERTEX_ATTRIBUTE_READ,
            vk::AccessFlags2::VERTEX_ATTRIBUTE_READ,
        ),
        (AccessMask::UNIFORM_READ, vk::AccessFlags2::UNIFORM_READ),
        (
            AccessMask::INPUT_ATTACHMENT_READ,
            vk::AccessFlags2::INPUT_ATTACHMENT_READ,
        ),
        (
            AccessMask::SHADER_SAMPLED_READ,
            vk::AccessFlags2::SHADER_SAMPLED_READ,
        ),
        (
            AccessMask::SHADER_STORAGE_READ,
            vk::AccessFlags2::SHADER_STORAGE_READ,
        ),
        (
            AccessMask::SHADER_STORAGE_WRITE,
            vk::AccessFlags2::SHADER_STORAGE_WRITE,
        ),
        (
            AccessMask::COLOR_ATTACHMENT_READ,
            vk::AccessFlags2::COLOR_ATTACHMENT_READ,
        ),
        (
            AccessMask::COLOR_ATTACHMENT_WRITE,
            vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
        ),
        (
            AccessMask::DEPTH_STENCIL_ATTACHMENT_READ,
            vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ,
        ),
        (
            AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE,
            vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE,
        ),
        (AccessMask::TRANSFER_READ, vk::AccessFlags2::TRANSFER_READ),
        (AccessMask::TRANSFER_WRITE, vk::AccessFlags2::TRANSFER_WRITE),
        (AccessMask::MEMORY_READ, vk::AccessFlags2::MEMORY_READ),
        (AccessMask::MEMORY_WRITE, vk::AccessFlags2::MEMORY_WRITE),
    ];
    table
        .iter()
        .filter(|(g, _)| mask.contains(*g))
        .fold(vk::AccessFlags2::NONE, |acc, (_, v)| acc | *v)
}

/// The Vulkan image layout of a graph layout.
pub fn layout(l: Layout) -> vk::ImageLayout {
    match l {
        Layout::UNDEFINED => vk::ImageLayout::UNDEFINED,
        Layout::GENERAL => vk::ImageLayout::GENERAL,
        Layout::COLOR_ATTACHMENT_OPTIMAL => vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL => {
            vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        }
        Layout::DEPTH_STENCIL_READ_ONLY_OPTIMAL => vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL,
        Layout::SHADER_READ_ONLY_OPTIMAL => vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        Layout::TRANSFER_SRC_OPTIMAL => vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        Layout::TRANSFER_DST_OPTIMAL => vk::ImageLayout::TRANSFER_DST_OPTIMAL,
        Layout::PRESENT_SRC_KHR => vk::ImageLayout::PRESENT_SRC_KHR,
    }
}

/// The `VkFormat` of a graph format (same name without the prefix).
pub fn format(f: Format) -> vk::Format {
    match f {
        Format::R8_UNORM => vk::Format::R8_UNORM,
        Format::R8_UINT => vk::Format::R8_UINT,
        Format::R8G8_UNORM => vk::Format::R8G8_UNORM,
        Format::R8G8B8A8_UNORM => vk::Format::R8G8B8A8_UNORM,
        Format::R8G8B8A8_SNORM => vk::Format::R8G8B8A8_SNORM,
        Format::R8G8B8A8_SRGB => vk::Format::R8G8B8A8_SRGB,
        Format::R8G8B8A8_UINT => vk::Format::R8G8B8A8_UINT,
        Format::B8G8R8A8_UNORM => vk::Format::B8G8R8A8_UNORM,
        Format::B8G8R8A8_SRGB => vk::Format::B8G8R8A8_SRGB,
        Format::A2B10G10R10_UNORM_PACK32 => vk::Format::A2B10G10R10_UNORM_PACK32,
        Format::A2R10G10B10_UNORM_PACK32 => vk::Format::A2R10G10B10_UNORM_PACK32,
        Format::B10G11R11_UFLOAT_PACK32 => vk::Format::B10G11R11_UFLOAT_PACK32,
        Format::E5B9G9R9_UFLOAT_PACK32 => vk::Format::E5B9G9R9_UFLOAT_PACK32,
        Format::R16_UNORM => vk::Format::R16_UNORM,
        Format::R16_SFLOAT => vk::Format::R16_SFLOAT,
        Format::R16_UINT => vk::Format::R16_UINT,
        Format::R16G16_UNORM => vk::Format::R16G16_UNORM,
        Format::R16G16_SNORM => vk::Format::R16G16_SNORM,
        Format::R16G16_SFLOAT => vk::Format::R16G16_SFLOAT,
        Format::R16G16B16A16_UNORM => vk::Format::R16G16B16A16_UNORM,
        Format::R16G16B16A16_SFLOAT => vk::Format::R16G16B16A16_SFLOAT,
        Format::R32_SFLOAT => vk::Format::R32_SFLOAT,
        Format::R32_UINT => vk::Format::R32_UINT,
        Format::R32_SINT => vk::Format::R32_SINT,
        Format::R32G32_SFLOAT => vk::Format::R32G32_SFLOAT,
        Format::R32G32_UINT => vk::Format::R32G32_UINT,
        Format::R32G32B32A32_SFLOAT => vk::Format::R32G32B32A32_SFLOAT,
        Format::R32G32B32A32_UINT => vk::Format::R32G32B32A32_UINT,
        Format::D16_UNORM => vk::Format::D16_UNORM,
        Format::D32_SFLOAT => vk::Format::D32_SFLOAT,
        Format::X8_D24_UNORM_PACK32 => vk::Format::X8_D24_UNORM_PACK32,
        Format::D24_UNORM_S8_UINT => vk::Format::D24_UNORM_S8_UINT,
        Format::D32_SFLOAT_S8_UINT => vk::Format::D32_SFLOAT_S8_UINT,
        Format::S8_UINT => vk::Format::S8_UINT,
    }
}

/// Aspects of a format: colour, or depth and/or stencil.
pub fn aspects(f: Format) -> vk::ImageAspectFlags {
    let mut a = vk::ImageAspectFlags::empty();
    if f.has_depth() {
        a |= vk::ImageAspectFlags::DEPTH;
    }
    if f.has_stencil() {
        a |= vk::ImageAspectFlags::STENCIL;
    }
    if a.is_empty() {
        a = vk::ImageAspectFlags::COLOR;
    }
    a
}

/// The attachment load operation.
pub fn load_op(op: LoadOp) -> vk::AttachmentLoadOp {
    match op {
        LoadOp::Load => vk::AttachmentLoadOp::LOAD,
        LoadOp::Clear => vk::AttachmentLoadOp::CLEAR,
        LoadOp::DontCare => vk::AttachmentLoadOp::DONT_CARE,
    }
}

/// The attachment store operation.
pub fn store_op(op: StoreOp) -> vk::AttachmentStoreOp {
    match op {
        StoreOp::Store => vk::AttachmentStoreOp::STORE,
        StoreOp::DontCare => vk::AttachmentStoreOp::DONT_CARE,
    }
}

/// Image usage an access needs.
pub fn image_usage(access: Access) -> vk::ImageUsageFlags {
    match access {
        Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite | Access::Resolve => {
            vk::ImageUsageFlags::COLOR_ATTACHMENT
        }
        Access::DepthWrite | Access::DepthRead => vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        Access::InputAttachment => vk::ImageUsageFlags::INPUT_ATTACHMENT,
        Access::Sampled => vk::ImageUsageFlags::SAMPLED,
        Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite => {
            vk::ImageUsageFlags::STORAGE
        }
        Access::TransferSrc => vk::ImageUsageFlags::TRANSFER_SRC,
        Access::TransferDst => vk::ImageUsageFlags::TRANSFER_DST,
        Access::Indirect | Access::VertexBuffer | Access::IndexBuffer | Access::Uniform => {
            vk::ImageUsageFlags::empty()
        }
    }
}

/// Image usage an access to an image of `format` needs: [`image_usage`], except that a
/// resolve into a depth/stencil image (a depth resolve on write-back) makes it a depth/stencil
/// attachment.
pub fn image_usage_for(access: Access, format: Format) -> vk::ImageUsageFlags {
    match access {
        Access::Resolve if format.is_depth_stencil() => {
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        }
        _ => image_usage(access),
    }
}

/// Buffer usage an access needs.
pub fn buffer_usage(access: Access) -> vk::BufferUsageFlags {
    match access {
        Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite => {
            vk::BufferUsageFlags::STORAGE_BUFFER
        }
        Access::TransferSrc => vk::BufferUsageFlags::TRANSFER_SRC,
        Access::TransferDst => vk::BufferUsageFlags::TRANSFER_DST,
        Access::Indirect => vk::BufferUsageFlags::INDIRECT_BUFFER,
        Access::VertexBuffer => vk::BufferUsageFlags::VERTEX_BUFFER,
        Access::IndexBuffer => vk::BufferUsageFlags::INDEX_BUFFER,
        Access::Uniform => vk::BufferUsageFlags::UNIFORM_BUFFER,
        _ => vk::BufferUsageFlags::empty(),
    }
}

/// Format features an image access needs (checked against the device before running).
pub fn format_features(access: Access) -> vk::FormatFeatureFlags {
    match access {
        Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite | Access::Resolve => {
            vk::FormatFeatureFlags::COLOR_ATTACHMENT
        }
        Access::DepthWrite | Access::DepthRead => vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
        Access::Sampled => vk::FormatFeatureFlags::SAMPLED_IMAGE,
        Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite => {
            vk::FormatFeatureFlags::STORAGE_IMAGE
        }
        Access::TransferSrc => vk::FormatFeatureFlags::TRANSFER_SRC,
        Access::TransferDst => vk::FormatFeatureFlags::TRANSFER_DST,
        Access::InputAttachment
        | Access::Indirect
        | Access::VertexBuffer
        | Access::IndexBuffer
        | Access::Uniform => vk::FormatFeatureFlags::empty(),
    }
}

/// Format features an access to an image of `format` needs: [`format_features`], except
/// that a depth resolve target needs depth/stencil attachment support.
pub fn format_features_for(access: Access, format: Format) -> vk::FormatFeatureFlags {
    match access {
        Access::Resolve if format.is_depth_stencil() => {
            vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT
        }
        _ => format_features(access),
    }
}

/// The pipeline bind point of a pass kind (transfer passes bind nothing).
pub fn bind_point(kind: PassKind) -> Option<vk::PipelineBindPoint> {
    match kind {
        PassKind::Raster => Some(vk::PipelineBindPoint::GRAPHICS),
        PassKind::Compute => Some(vk::PipelineBindPoint::COMPUTE),
        PassKind::Transfer => None,
    }
}

/// MSAA sample count flag for a sample count; `None` for counts Vulkan does not have.
pub fn samples(n: u32) -> Option<vk::SampleCountFlags> {
    Some(match n {
        1 => vk::SampleCountFlags::TYPE_1,
        2 => vk::SampleCountFlags::TYPE_2,
        4 => vk::SampleCountFlags::TYPE_4,
        8 => vk::SampleCountFlags::TYPE_8,
        16 => vk::SampleCountFlags::TYPE_16,
        32 => vk::SampleCountFlags::TYPE_32,
        64 => vk::SampleCountFlags::TYPE_64,
        _ => return None,
    })
}

/// The Vulkan flag of a resolve mode.
pub fn resolve_mode(mode: ResolveMode) -> vk::ResolveModeFlags {
    match mode {
        ResolveMode::SampleZero => vk::ResolveModeFlags::SAMPLE_ZERO,
        ResolveMode::Average => vk::ResolveModeFlags::AVERAGE,
        ResolveMode::Min => vk::ResolveModeFlags::MIN,
        ResolveMode::Max => vk::ResolveModeFlags::MAX,
    }
}

/// The resolve modes among `flags` (a device's `supportedDepthResolveModes`); flags the
/// graph has no mode for are left out.
pub fn resolve_modes(flags: vk::ResolveModeFlags) -> ResolveModes {
    ResolveMode::ALL
        .into_iter()
        .filter(|&m| flags.contains(resolve_mode(m)))
        .fold(ResolveModes::EMPTY, ResolveModes::with)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stage_maps_to_one_distinct_flag() {
        let names = [
            "DRAW_INDIRECT",
            "VERTEX_SHADER",
            "FRAGMENT_SHADER",
            "EARLY_FRAGMENT_TESTS",
            "LATE_FRAGMENT_TESTS",
            "COLOR_ATTACHMENT_OUTPUT",
            "COMPUTE_SHADER",
            "ALL_TRANSFER",
            "ALL_COMMANDS",
        ];
        let mut seen = vk::PipelineStageFlags2::NONE;
        for n in names {
            let s = StageMask::from_name(n).expect("graph stage name");
            let v = stages(s);
            assert_eq!(v.as_raw().count_ones(), 1, "{n}");
            assert!(!seen.intersects(v), "{n} maps to a flag already used");
            seen |= v;
        }
        assert_eq!(stages(StageMask::empty()), vk::PipelineStageFlags2::NONE);
        assert_eq!(
            stages(StageMask::COMPUTE_SHADER | StageMask::ALL_TRANSFER),
            vk::PipelineStageFlags2::COMPUTE_SHADER | vk::PipelineStageFlags2::ALL_TRANSFER
        );
    }

    #[test]
    fn every_access_maps_to_one_distinct_flag_and_writes_stay_writes() {
        let mut seen = vk::AccessFlags2::NONE;
        let vk_writes = vk::AccessFlags2::SHADER_STORAGE_WRITE
            | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE
            | vk::AccessFlags2::TRANSFER_WRITE
            | vk::AccessFlags2::MEMORY_WRITE;
        let names = [
            "INDIRECT_COMMAND_READ",
            "INPUT_ATTACHMENT_READ",
            "SHADER_SAMPLED_READ",
            "SHADER_STORAGE_READ",
            "SHADER_STORAGE_WRITE",
            "COLOR_ATTACHMENT_READ",
            "COLOR_ATTACHMENT_WRITE",
            "DEPTH_STENCIL_ATTACHMENT_READ",
            "DEPTH_STENCIL_ATTACHMENT_WRITE",
            "TRANSFER_READ",
            "TRANSFER_WRITE",
            "MEMORY_READ",
            "MEMORY_WRITE",
        ];
        for name in names {
            let a = AccessMask::from_name(name).expect("graph access name");
            let v = accesses(a);
            assert_eq!(v.as_raw().count_ones(), 1, "{name}");
            assert!(!seen.intersects(v), "{name}");
            seen |= v;
            assert_eq!(a.has_write(), vk_writes.contains(v), "{name}");
        }
    }

    #[test]
    fn layouts_and_names_agree() {
        assert_eq!(
            layout(Layout::SHADER_READ_ONLY_OPTIMAL),
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
        );
        assert_eq!(layout(Layout::UNDEFINED), vk::ImageLayout::UNDEFINED);
        assert_eq!(
            layout(Layout::DEPTH_STENCIL_READ_ONLY_OPTIMAL),
            vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
        );
        // Vulkan's Debug names are the graph's names: a typo in the table shows up here.
        for &f in Format::ALL {
            assert_eq!(format!("{:?}", format(f)), f.name());
        }
    }

    #[test]
    fn aspects_follow_the_format() {
        assert_eq!(aspects(Format::R8G8B8A8_UNORM), vk::ImageAspectFlags::COLOR);
        assert_eq!(aspects(Format::D32_SFLOAT), vk::ImageAspectFlags::DEPTH);
        assert_eq!(
            aspects(Format::D24_UNORM_S8_UINT),
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        );
        assert_eq!(aspects(Format::S8_UINT), vk::ImageAspectFlags::STENCIL);
    }

    #[test]
    fn usages_match_the_access_scope() {
        // Every attachment access needs an attachment usage; every access with a layout of
        // its own needs the usage that allows that layout.
        for &a in Access::ALL {
            if a.is_attachment() {
                assert!(
                    image_usage(a).intersects(
                        vk::ImageUsageFlags::COLOR_ATTACHMENT
                            | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                            | vk::ImageUsageFlags::INPUT_ATTACHMENT
                    ),
                    "{a}"
                );
            }
        }
        assert_eq!(
            buffer_usage(Access::Indirect),
            vk::BufferUsageFlags::INDIRECT_BUFFER
        );
        assert_eq!(
            buffer_usage(Access::StorageReadWrite),
            vk::BufferUsageFlags::STORAGE_BUFFER
        );
        for (a, u) in [
            (Access::VertexBuffer, vk::BufferUsageFlags::VERTEX_BUFFER),
            (Access::IndexBuffer, vk::BufferUsageFlags::INDEX_BUFFER),
            (Access::Uniform, vk::BufferUsageFlags::UNIFORM_BUFFER),
        ] {
            assert_eq!(buffer_usage(a), u, "{a}");
            assert_eq!(image_usage(a), vk::ImageUsageFlags::empty(), "{a}");
        }
        assert_eq!(image_usage(Access::Sampled), vk::ImageUsageFlags::SAMPLED);
        assert_eq!(
            format_features(Access::StorageWrite),
            vk::FormatFeatureFlags::STORAGE_IMAGE
        );
    }

    #[test]
    fn resolve_modes_round_trip() {
        let all = vk::ResolveModeFlags::SAMPLE_ZERO
            | vk::ResolveModeFlags::MIN
            | vk::ResolveModeFlags::MAX;
        let modes = resolve_modes(all);
        assert!(modes.contains(ResolveMode::Min) && !modes.contains(ResolveMode::Average));
        assert_eq!(resolve_mode(ResolveMode::Max), vk::ResolveModeFlags::MAX);
    }

    #[test]
    fn load_store_samples_bind_points() {
        assert_eq!(load_op(LoadOp::Clear), vk::AttachmentLoadOp::CLEAR);
        assert_eq!(load_op(LoadOp::DontCare), vk::AttachmentLoadOp::DONT_CARE);
        assert_eq!(
            store_op(StoreOp::DontCare),
            vk::AttachmentStoreOp::DONT_CARE
        );
        assert_eq!(samples(4), Some(vk::SampleCountFlags::TYPE_4));
        assert_eq!(samples(3), None);
        assert_eq!(bind_point(PassKind::Transfer), None);
        assert_eq!(
            bind_point(PassKind::Compute),
            Some(vk::PipelineBindPoint::COMPUTE)
        );
    }
}
