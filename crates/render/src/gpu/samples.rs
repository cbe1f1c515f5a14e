//! The MSAA sample counts the device can render the forward path's attachments at: the HDR
//! colour and the depth, both as memoryless-capable transient attachments.

use crate::frame::HDR_FORMAT;
use ash::vk;
use tessera_graph::Format;
use tessera_vk::Gpu;

/// The sample counts `format` supports as an attachment with `usage`, as a bit mask (bit
/// `n`: `2^n` samples; 1 sample is always there).
fn counts(gpu: &Gpu, format: Format, usage: vk::ImageUsageFlags) -> vk::SampleCountFlags {
    // SAFETY: a property query on the device's own physical device with complete arguments.
    let props = unsafe {
        gpu.instance.get_physical_device_image_format_properties(
            gpu.physical,
            tessera_vk::conv::format(format),
            vk::ImageType::TYPE_2D,
            vk::ImageTiling::OPTIMAL,
            usage,
            vk::ImageCreateFlags::empty(),
        )
    };
    props.map_or(vk::SampleCountFlags::TYPE_1, |p| p.sample_counts) | vk::SampleCountFlags::TYPE_1
}

/// The largest count at most `requested` that both the HDR colour and the depth attachment
/// support on `gpu`.
pub fn supported_msaa(gpu: &Gpu, requested: u32) -> u32 {
    let transient = vk::ImageUsageFlags::TRANSIENT_ATTACHMENT;
    let color = counts(
        gpu,
        HDR_FORMAT,
        vk::ImageUsageFlags::COLOR_ATTACHMENT | transient,
    );
    let depth = counts(
        gpu,
        Format::D32_SFLOAT,
        vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | transient,
    );
    let both = color & depth;
    (0..7)
        .map(|b| 1u32 << b)
        .filter(|&n| n <= requested.max(1))
        .filter(|&n| both.contains(vk::SampleCountFlags::from_raw(n)))
        .max()
        .unwrap_or(1)
}

/// `requested` clamped to what `gpu` supports, with one warning when it is lowered.
pub fn clamp_msaa(gpu: &Gpu, requested: u32) -> u32 {
    let n = supported_msaa(gpu, requested);
    if n < requested {
        log::warn!(
            "msaa = {requested}: this device renders {} and depth at most {n} samples per \
             pixel; using {n}",
            HDR_FORMAT,
        );
    }
    n
}
