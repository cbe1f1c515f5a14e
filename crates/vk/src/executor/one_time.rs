//! The start of a one-time submit, below both of its users: the device state's `once_on`
//! and the upload ring's flush.

use crate::device::Gpu;
use crate::VkError;
use ash::vk;

/// A primary command buffer from `pool`, begun for one submit, and an unsignalled fence for
/// that submit. On error nothing is left behind.
pub(crate) fn begin_one_time(
    gpu: &Gpu,
    pool: vk::CommandPool,
) -> Result<(vk::CommandBuffer, vk::Fence), VkError> {
    let d = &gpu.device;
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the pool is live and used from this thread only.
    let cmd = unsafe { d.allocate_command_buffers(&info) }?[0];
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: a complete create info; a fresh command buffer.
    let made = unsafe {
        d.create_fence(&vk::FenceCreateInfo::default(), None)
            .and_then(|f| match d.begin_command_buffer(cmd, &begin) {
                Ok(()) => Ok(f),
                Err(e) => {
                    d.destroy_fence(f, None);
                    Err(e)
                }
            })
    };
    match made {
        Ok(fence) => Ok((cmd, fence)),
        Err(e) => {
            // SAFETY: never submitted.
            unsafe { d.free_command_buffers(pool, &[cmd]) };
            Err(e.into())
        }
    }
}
