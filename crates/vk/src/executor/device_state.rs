//! The executor's device-lifetime objects: the device queue of each logical queue, the frame
//! slots (command pools, fences, descriptor allocators), one-time command pools, the
//! render-pass and sampler caches, a pipeline cache for the bodies and the upload ring.

use super::one_time::begin_one_time;
use super::slot::{DescriptorAllocator, Slot};
use super::staging::UploadRing;
use super::FRAMES_IN_FLIGHT;
use crate::device::{Gpu, Queue};
use crate::render::RenderPassCache;
use crate::resources::StagingRing;
use crate::VkError;
use ash::vk;
use std::collections::HashMap;

/// A sampler description (the device-lifetime cache's key). Anisotropy is not enabled on the
/// device, so there is no anisotropy field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerDesc {
    /// Magnification filter.
    pub mag_filter: vk::Filter,
    /// Minification filter.
    pub min_filter: vk::Filter,
    /// Filter between mips.
    pub mipmap_mode: vk::SamplerMipmapMode,
    /// Addressing in u, v and w.
    pub address_mode: vk::SamplerAddressMode,
    /// Depth comparison (shadow maps), if any.
    pub compare: Option<vk::CompareOp>,
    /// Highest mip level sampled (`None`: all).
    pub max_lod: Option<u32>,
    /// Border colour for `CLAMP_TO_BORDER`.
    pub border_color: vk::BorderColor,
}

impl SamplerDesc {
    /// Linear filtering, linear mips, repeat.
    pub const LINEAR_REPEAT: SamplerDesc = SamplerDesc {
        mag_filter: vk::Filter::LINEAR,
        min_filter: vk::Filter::LINEAR,
        mipmap_mode: vk::SamplerMipmapMode::LINEAR,
        address_mode: vk::SamplerAddressMode::REPEAT,
        compare: None,
        max_lod: None,
        border_color: vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
    };
    /// Linear filtering, clamp to edge.
    pub const LINEAR_CLAMP: SamplerDesc = SamplerDesc {
        address_mode: vk::SamplerAddressMode::CLAMP_TO_EDGE,
        ..SamplerDesc::LINEAR_REPEAT
    };
    /// Nearest filtering, clamp to edge.
    pub const NEAREST_CLAMP: SamplerDesc = SamplerDesc {
        mag_filter: vk::Filter::NEAREST,
        min_filter: vk::Filter::NEAREST,
        mipmap_mode: vk::SamplerMipmapMode::NEAREST,
        ..SamplerDesc::LINEAR_CLAMP
    };
}

impl Default for SamplerDesc {
    fn default() -> Self {
        SamplerDesc::LINEAR_REPEAT
    }
}

pub(crate) struct DeviceState {
    pub(crate) families: [u32; 2],
    /// Device queue of each logical queue.
    pub(crate) queues: [Queue; 2],
    /// Whether both device queues write timestamps.
    pub(crate) timestamps: bool,
    pub(crate) slots: Vec<Slot>,
    /// One-time command pools per logical queue (resettable buffers).
    pub(crate) once_pools: [vk::CommandPool; 2],
    once_ring: Option<StagingRing>,
    pub(crate) render_passes: RenderPassCache,
    pub(crate) framebuffers_created: u64,
    samplers: HashMap<SamplerDesc, vk::Sampler>,
    pub(crate) ring: UploadRing,
    /// The async-compute logical queue runs on the graphics queue.
    pub(crate) emulate_async: bool,
    /// A pipeline cache for the bodies' pipelines (device lifetime).
    pub(crate) pipeline_cache: vk::PipelineCache,
    /// The device's capabilities (queried once).
    pub(crate) caps: tessera_graph::Capabilities,
    /// Host time spent in the last frame's `vkQueueSubmit2` calls: a driver that runs work
    /// on the submitting thread (lavapipe, waiting for an acquired image) blocks there.
    pub(crate) submit_time: std::time::Duration,
}

impl DeviceState {
    pub(crate) fn new(
        gpu: &Gpu,
        emulate_async: bool,
        tile_rules: Option<super::TileRules>,
    ) -> Result<DeviceState, VkError> {
        let queues = [
            gpu.graphics,
            match gpu.compute {
                Some(c) if !emulate_async => c,
                _ => gpu.graphics,
            },
        ];
        // SAFETY: property query on our physical device.
        let fams = unsafe {
            gpu.instance
                .get_physical_device_queue_family_properties(gpu.physical)
        };
        let timestamps = queues.iter().all(|q| {
            fams.get(q.family as usize)
                .is_some_and(|f| f.timestamp_valid_bits > 0)
        }) && gpu.properties.limits.timestamp_period > 0.0;
        let mut caps = gpu.capabilities();
        if emulate_async {
            caps.async_compute = true;
        }
        if let Some(rules) = tile_rules {
            caps.lazily_allocated = rules.lazily_allocated;
            caps.tile_bits_per_pixel = rules.tile_bits_per_pixel;
            log::info!(
                "planning with tile rules over {}'s facts: lazily allocated memory {}, tile \
                 budget {} bits per pixel",
                caps.profile,
                rules.lazily_allocated,
                rules.tile_bits_per_pixel
            );
        }
        let mut me = DeviceState {
            families: [queues[0].family, queues[1].family],
            queues,
            timestamps,
            slots: Vec::new(),
            once_pools: [vk::CommandPool::null(); 2],
            once_ring: None,
            render_passes: RenderPassCache::default(),
            framebuffers_created: 0,
            samplers: HashMap::new(),
            ring: UploadRing::default(),
            emulate_async,
            pipeline_cache: vk::PipelineCache::null(),
            caps,
            submit_time: std::time::Duration::ZERO,
        };
        // On error, the caller drops `me` half-built: destroy what exists.
        match me.create(gpu) {
            Ok(()) => Ok(me),
            Err(e) => {
                me.destroy(gpu);
                Err(e)
            }
        }
    }

    fn create(&mut self, gpu: &Gpu) -> Result<(), VkError> {
        let d = &gpu.device;
        // SAFETY: complete create info (empty initial data); destroyed in `destroy`.
        self.pipeline_cache =
            unsafe { d.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) }?;
        for q in 0..2 {
            let info = vk::CommandPoolCreateInfo::default()
                .queue_family_index(self.queues[q].family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
            // SAFETY: complete create info; destroyed in `destroy`.
            self.once_pools[q] = unsafe { d.create_command_pool(&info, None) }?;
        }
        for _ in 0..FRAMES_IN_FLIGHT {
            self.slots.push(Slot {
                pools: [vk::CommandPool::null(); 2],
                fences: [vk::Fence::null(); 2],
                submitted: [false; 2],
                frame: None,
                descriptors: DescriptorAllocator::default(),
            });
            let slot = self.slots.last_mut().expect("pushed above");
            for q in 0..2 {
                let info = vk::CommandPoolCreateInfo::default()
                    .queue_family_index(self.queues[q].family)
                    .flags(vk::CommandPoolCreateFlags::TRANSIENT);
                // SAFETY: complete create infos; destroyed in `destroy`.
                unsafe {
                    slot.pools[q] = d.create_command_pool(&info, None)?;
                    slot.fences[q] = d.create_fence(&vk::FenceCreateInfo::default(), None)?;
                }
            }
        }
        Ok(())
    }

    /// Waits for the frame in slot `i`, if any, and returns it: fences waited and reset,
    /// descriptor pools reset.
    pub(crate) fn wait_slot(&mut self, gpu: &Gpu, i: usize) -> Result<Option<u64>, VkError> {
        let slot = &mut self.slots[i];
        let Some(f) = slot.frame else {
            return Ok(None);
        };
        let fences: Vec<vk::Fence> = (0..2)
            .filter(|&q| slot.submitted[q])
            .map(|q| slot.fences[q])
            .collect();
        if !fences.is_empty() {
            // SAFETY: the fences are live and were submitted with frame `f`.
            unsafe {
                gpu.device.wait_for_fences(&fences, true, u64::MAX)?;
                gpu.device.reset_fences(&fences)?;
            }
        }
        slot.submitted = [false; 2];
        slot.frame = None;
        slot.descriptors.reset(gpu)?;
        Ok(Some(f))
    }

    /// The cached sampler of `desc`.
    pub(crate) fn sampler(&mut self, gpu: &Gpu, desc: SamplerDesc) -> Result<vk::Sampler, VkError> {
        if let Some(&s) = self.samplers.get(&desc) {
            return Ok(s);
        }
        let mut info = vk::SamplerCreateInfo::default()
            .mag_filter(desc.mag_filter)
            .min_filter(desc.min_filter)
            .mipmap_mode(desc.mipmap_mode)
            .address_mode_u(desc.address_mode)
            .address_mode_v(desc.address_mode)
            .address_mode_w(desc.address_mode)
            .min_lod(0.0)
            .max_lod(desc.max_lod.map_or(vk::LOD_CLAMP_NONE, |l| l as f32))
            .border_color(desc.border_color);
        if let Some(op) = desc.compare {
            info = info.compare_enable(true).compare_op(op);
        }
        // SAFETY: complete create info; destroyed in `destroy`.
        let s = unsafe { gpu.device.create_sampler(&info, None) }?;
        self.samplers.insert(desc, s);
        Ok(s)
    }

    /// Samplers created so far.
    pub(crate) fn samplers_created(&self) -> u64 {
        self.samplers.len() as u64
    }

    /// The one-time staging ring (created on first use).
    pub(crate) fn once_ring(&mut self, gpu: &Gpu) -> Result<&mut StagingRing, VkError> {
        if self.once_ring.is_none() {
            self.once_ring = Some(StagingRing::new(gpu, 4 << 20, self.families)?);
        }
        Ok(self.once_ring.as_mut().expect("created above"))
    }

    /// Records `f` into a one-time command buffer on logical queue `q`'s device queue,
    /// submits it with a fence and waits for the fence.
    pub(crate) fn once_on(
        &mut self,
        gpu: &Gpu,
        q: usize,
        f: impl FnOnce(&Gpu, vk::CommandBuffer, &mut StagingRing),
    ) -> Result<(), VkError> {
        let d = &gpu.device;
        let pool = self.once_pools[q];
        let queue = self.queues[q].queue;
        self.once_ring(gpu)?;
        let (cmd, fence) = begin_one_time(gpu, pool)?;
        f(gpu, cmd, self.once_ring.as_mut().expect("created above"));
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let submit = vk::SubmitInfo2::default().command_buffer_infos(&cmds);
        // SAFETY: recorded above; the fence is waited for before the buffer is freed.
        let r = unsafe {
            d.end_command_buffer(cmd)
                .and_then(|()| d.queue_submit2(queue, &[submit], fence))
                .and_then(|()| d.wait_for_fences(&[fence], true, u64::MAX))
        };
        if r.is_err() {
            // A failed submit or wait: make sure the buffer is not in use before freeing.
            let _ = gpu.wait_idle();
        }
        // SAFETY: complete (fence waited) or never submitted.
        unsafe {
            d.free_command_buffers(pool, &[cmd]);
            d.destroy_fence(fence, None);
        }
        r?;
        Ok(())
    }

    /// Destroys everything (no work in flight).
    pub(crate) fn destroy(&mut self, gpu: &Gpu) {
        let d = &gpu.device;
        self.ring.destroy(gpu, self.once_pools[0]);
        // SAFETY: no work in flight; every object below was created here.
        unsafe {
            for mut s in self.slots.drain(..) {
                for p in s
                    .pools
                    .into_iter()
                    .filter(|p| *p != vk::CommandPool::null())
                {
                    d.destroy_command_pool(p, None);
                }
                for f in s.fences.into_iter().filter(|f| *f != vk::Fence::null()) {
                    d.destroy_fence(f, None);
                }
                s.descriptors.destroy(gpu);
            }
            for p in self
                .once_pools
                .into_iter()
                .filter(|p| *p != vk::CommandPool::null())
            {
                d.destroy_command_pool(p, None);
            }
            for (_, s) in self.samplers.drain() {
                d.destroy_sampler(s, None);
            }
            if self.pipeline_cache != vk::PipelineCache::null() {
                d.destroy_pipeline_cache(self.pipeline_cache, None);
            }
        }
        self.once_pools = [vk::CommandPool::null(); 2];
        if let Some(mut r) = self.once_ring.take() {
            r.destroy(gpu);
        }
        self.render_passes.destroy(gpu);
    }
}
