//! A frame slot's objects: a command pool and a fence per logical queue, and the
//! descriptor pools reset when its frame retires. Below both the device state, which owns
//! the slots, and the upload ring, which retires its regions by their frames.

use crate::device::Gpu;
use crate::VkError;
use ash::vk;

/// Descriptor pools of one frame slot: allocated from in order, a new pool when the current
/// one is full, all reset when the slot's frame is complete.
#[derive(Debug, Default)]
pub(crate) struct DescriptorAllocator {
    pools: Vec<vk::DescriptorPool>,
    current: usize,
    /// Sets allocated from the current pool (the next pool is taken at `SETS_PER_POOL`,
    /// whether or not the driver reports the pool full).
    in_current: u32,
}

/// Sets per pool, and descriptors of each type per pool.
const SETS_PER_POOL: u32 = 256;
const DESCRIPTORS_PER_TYPE: u32 = 1024;

impl DescriptorAllocator {
    fn new_pool(gpu: &Gpu) -> Result<vk::DescriptorPool, VkError> {
        let sizes = [
            vk::DescriptorType::SAMPLER,
            vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            vk::DescriptorType::SAMPLED_IMAGE,
            vk::DescriptorType::STORAGE_IMAGE,
            vk::DescriptorType::UNIFORM_BUFFER,
            vk::DescriptorType::STORAGE_BUFFER,
            vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
            vk::DescriptorType::STORAGE_BUFFER_DYNAMIC,
            vk::DescriptorType::INPUT_ATTACHMENT,
        ]
        .map(|ty| vk::DescriptorPoolSize {
            ty,
            descriptor_count: DESCRIPTORS_PER_TYPE,
        });
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(SETS_PER_POOL)
            .pool_sizes(&sizes);
        // SAFETY: complete create info; destroyed in `destroy`.
        Ok(unsafe { gpu.device.create_descriptor_pool(&info, None) }?)
    }

    /// A set of `layout` from the current pool, or the next one when it is full.
    pub(crate) fn allocate(
        &mut self,
        gpu: &Gpu,
        layout: vk::DescriptorSetLayout,
    ) -> Result<vk::DescriptorSet, VkError> {
        let layouts = [layout];
        loop {
            if self.in_current == SETS_PER_POOL {
                self.current += 1;
                self.in_current = 0;
            }
            if self.current == self.pools.len() {
                self.pools.push(Self::new_pool(gpu)?);
            }
            let info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(self.pools[self.current])
                .set_layouts(&layouts);
            // SAFETY: the pool and layout are live; the pool is used by this slot only.
            match unsafe { gpu.device.allocate_descriptor_sets(&info) } {
                Ok(s) => {
                    self.in_current += 1;
                    return Ok(s[0]);
                }
                Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY | vk::Result::ERROR_FRAGMENTED_POOL)
                    if self.in_current > 0 =>
                {
                    self.in_current = SETS_PER_POOL
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Pools created.
    pub(crate) fn pools(&self) -> usize {
        self.pools.len()
    }

    /// Frees every set (the slot's frame is complete).
    pub(crate) fn reset(&mut self, gpu: &Gpu) -> Result<(), VkError> {
        for &p in &self.pools[..self.pools.len().min(self.current + 1)] {
            // SAFETY: no submitted work that uses the pool's sets is pending.
            unsafe {
                gpu.device
                    .reset_descriptor_pool(p, vk::DescriptorPoolResetFlags::empty())
            }?;
        }
        self.current = 0;
        self.in_current = 0;
        Ok(())
    }

    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        for p in self.pools.drain(..) {
            // SAFETY: no work in flight (the executor waited).
            unsafe { gpu.device.destroy_descriptor_pool(p, None) };
        }
    }
}

/// One frame slot.
pub(crate) struct Slot {
    /// Command pool per logical queue.
    pub(crate) pools: [vk::CommandPool; 2],
    /// Fence per logical queue, signalled by its last submit of the frame. The host waits
    /// for these before reusing the slot (validation follows fence waits, not host waits on
    /// timeline semaphores).
    pub(crate) fences: [vk::Fence; 2],
    /// Which fences the slot's frame submitted.
    pub(crate) submitted: [bool; 2],
    /// The frame in flight in this slot.
    pub(crate) frame: Option<u64>,
    pub(crate) descriptors: DescriptorAllocator,
}
