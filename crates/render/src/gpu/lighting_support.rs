//! Whether the device can light in compute: `lighting.comp` stores into the HDR target
//! (`B10G11R11_UFLOAT_PACK32`), whose storage-image support Vulkan leaves optional. Desktop
//! GPUs have it; a device without it lights in the raster pass instead, with one warning.

use crate::features::Lighting;
use crate::frame::HDR_FORMAT;
use ash::vk;
use tessera_vk::Gpu;

/// Whether `gpu` can use the HDR format as the storage image compute lighting writes and as
/// the attachment and texture the later passes use.
pub fn hdr_storage(gpu: &Gpu) -> bool {
    let usage = vk::ImageUsageFlags::STORAGE
        | vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::SAMPLED;
    // SAFETY: a property query on the device's own physical device with complete arguments.
    let props = unsafe {
        gpu.instance.get_physical_device_image_format_properties(
            gpu.physical,
            tessera_vk::conv::format(HDR_FORMAT),
            vk::ImageType::TYPE_2D,
            vk::ImageTiling::OPTIMAL,
            usage,
            vk::ImageCreateFlags::empty(),
        )
    };
    props.is_ok()
}

/// `requested`, or `Lighting::Raster` with one warning when the device cannot store HDR.
pub fn clamp_lighting(gpu: &Gpu, requested: Lighting) -> Lighting {
    if requested == Lighting::Compute && !hdr_storage(gpu) {
        log::warn!(
            "lighting = \"compute\": this device cannot write {HDR_FORMAT} as a storage image; \
             lighting in the raster pass"
        );
        return Lighting::Raster;
    }
    requested
}
