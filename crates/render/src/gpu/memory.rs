//! Buffers and images the renderer owns (scene geometry and textures, per-slot constants,
//! the output and its read-back), each in its own gpu-allocator sub-allocation.

use crate::RenderError;
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use tessera_vk::Gpu;

fn allocate(
    gpu: &Gpu,
    name: &str,
    requirements: vk::MemoryRequirements,
    location: MemoryLocation,
    linear: bool,
) -> Result<Allocation, RenderError> {
    let allocator = gpu
        .allocator
        .as_ref()
        .ok_or_else(|| RenderError::Frame("allocator gone".into()))?;
    let mut allocator = allocator
        .lock()
        .map_err(|_| RenderError::Frame("allocator lock poisoned".into()))?;
    Ok(allocator.allocate(&AllocationCreateDesc {
        name,
        requirements,
        location,
        linear,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    })?)
}

fn free(gpu: &Gpu, a: Allocation) {
    if let Some(Ok(mut al)) = gpu.allocator.as_ref().map(|a| a.lock()) {
        let _ = al.free(a);
    }
}

/// A buffer with its memory.
#[derive(Debug)]
pub struct Buffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Its size in bytes.
    pub size: u64,
    alloc: Option<Allocation>,
}

impl Buffer {
    /// No buffer (destroying it does nothing).
    pub fn null() -> Buffer {
        Buffer {
            buffer: vk::Buffer::null(),
            size: 0,
            alloc: None,
        }
    }

    /// A buffer of `size` bytes in `location` memory.
    pub fn new(
        gpu: &Gpu,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> Result<Buffer, RenderError> {
        let info = vk::BufferCreateInfo::default()
            .size(size.max(16))
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a complete create info; destroyed by `destroy` or below on error.
        let buffer = unsafe { gpu.device.create_buffer(&info, None) }?;
        gpu.name(buffer, name);
        // SAFETY: a query on the buffer just created.
        let req = unsafe { gpu.device.get_buffer_memory_requirements(buffer) };
        let bound = allocate(gpu, name, req, location, true).and_then(|a| {
            // SAFETY: a fresh allocation of a type the buffer allows, inside its bounds.
            match unsafe {
                gpu.device
                    .bind_buffer_memory(buffer, a.memory(), a.offset())
            } {
                Ok(()) => Ok(a),
                Err(e) => {
                    free(gpu, a);
                    Err(e.into())
                }
            }
        });
        match bound {
            Ok(a) => Ok(Buffer {
                buffer,
                size,
                alloc: Some(a),
            }),
            Err(e) => {
                // SAFETY: unbound and never used.
                unsafe { gpu.device.destroy_buffer(buffer, None) };
                Err(e)
            }
        }
    }

    /// The mapped bytes (host-visible buffers).
    pub fn mapped(&mut self) -> Option<&mut [u8]> {
        self.alloc.as_mut()?.mapped_slice_mut()
    }

    /// The mapped bytes for reading (host-visible buffers).
    pub fn mapped_ref(&self) -> Option<&[u8]> {
        self.alloc.as_ref()?.mapped_slice()
    }

    /// Frees it (the GPU no longer uses it).
    pub fn destroy(&mut self, gpu: &Gpu) {
        if let Some(a) = self.alloc.take() {
            // SAFETY: the GPU no longer uses the buffer (caller's contract).
            unsafe { gpu.device.destroy_buffer(self.buffer, None) };
            free(gpu, a);
        }
    }
}

/// A 2D image with one view over all its mips.
#[derive(Debug)]
pub struct Image {
    /// The image.
    pub image: vk::Image,
    /// A view of every mip.
    pub view: vk::ImageView,
    /// Format.
    pub format: vk::Format,
    /// Size of mip 0.
    pub extent: vk::Extent2D,
    /// Mip levels.
    pub mips: u32,
    alloc: Option<Allocation>,
}

impl Image {
    /// A device-local colour image.
    pub fn new(
        gpu: &Gpu,
        name: &str,
        format: vk::Format,
        extent: vk::Extent2D,
        mips: u32,
        usage: vk::ImageUsageFlags,
    ) -> Result<Image, RenderError> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: extent.width,
                height: extent.height,
                depth: 1,
            })
            .mip_levels(mips)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: a complete create info; destroyed by `destroy` or below on error.
        let image = unsafe { gpu.device.create_image(&info, None) }?;
        gpu.name(image, name);
        // SAFETY: a query on the image just created.
        let req = unsafe { gpu.device.get_image_memory_requirements(image) };
        let bound = allocate(gpu, name, req, MemoryLocation::GpuOnly, false).and_then(|a| {
            // SAFETY: a fresh allocation of a type the image allows, inside its bounds.
            match unsafe { gpu.device.bind_image_memory(image, a.memory(), a.offset()) } {
                Ok(()) => Ok(a),
                Err(e) => {
                    free(gpu, a);
                    Err(e.into())
                }
            }
        });
        let alloc = match bound {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: unbound and never used.
                unsafe { gpu.device.destroy_image(image, None) };
                return Err(e);
            }
        };
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 0,
                level_count: mips,
                base_array_layer: 0,
                layer_count: 1,
            });
        // SAFETY: the image is live and bound; the view covers its subresources.
        let view = match unsafe { gpu.device.create_image_view(&view_info, None) } {
            Ok(v) => v,
            Err(e) => {
                // SAFETY: never used.
                unsafe { gpu.device.destroy_image(image, None) };
                free(gpu, alloc);
                return Err(e.into());
            }
        };
        Ok(Image {
            image,
            view,
            format,
            extent,
            mips,
            alloc: Some(alloc),
        })
    }

    /// Frees it (the GPU no longer uses it).
    pub fn destroy(&mut self, gpu: &Gpu) {
        if let Some(a) = self.alloc.take() {
            // SAFETY: the GPU no longer uses the image or its view (caller's contract).
            unsafe {
                gpu.device.destroy_image_view(self.view, None);
                gpu.device.destroy_image(self.image, None);
            }
            free(gpu, a);
        }
    }
}
