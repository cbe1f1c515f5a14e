//! Uploads through a persistent host-visible ring.
//!
//! The bytes are copied into the ring at once; the copy commands wait in a pending list and
//! are recorded at the start of the next frame's first graphics command buffer (or, when
//! the ring must be freed before a frame comes, into a one-time command buffer with its own
//! fence). Each region of the ring is retired when the fence of what carried its copy
//! signals: the frame slot's fence, or the one-time fence. No `vkDeviceWaitIdle`.
//!
//! Space: the ring's used regions form a FIFO between `tail` (the oldest region's start) and
//! `head`. A reservation that does not fit retires completed regions (fence status, no
//! wait); then flushes pending copies into a one-time submit; then waits for the oldest
//! region's fence. A reservation larger than the ring replaces it by one twice as large (or
//! the reservation's size rounded up to a power of two); the old ring is destroyed when its
//! last region retires. So an upload never deadlocks.
//!
//! After a buffer upload, a memory barrier makes the copy visible to every later command of
//! the queue; an image upload goes `UNDEFINED` → `TRANSFER_DST_OPTIMAL` → copies of each mip
//! → `SHADER_READ_ONLY_OPTIMAL`, visible to every later read. Each copy first waits for
//! earlier work on the queue (the previous frame may still read the destination). Uploaded
//! resources belong to the graphics queue's family: an async-compute pass on another family
//! must not read them.

use super::one_time::begin_one_time;
use super::slot::Slot;
use super::Executor;
use crate::device::Gpu;
use crate::resources::StagingRing;
use crate::VkError;
use ash::vk;
use std::collections::VecDeque;

/// Ring size at first use.
const INITIAL_RING: u64 = 8 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    /// Its copy is not submitted yet.
    Pending,
    /// Carried by this frame's first graphics command buffer.
    Frame(u64),
    /// Carried by a one-time submit (id).
    Once(u64),
}

#[derive(Clone, Copy, Debug)]
struct Region {
    start: u64,
    token: Token,
}

/// A pending copy.
#[derive(Clone, Debug)]
pub(crate) enum Copy {
    Buffer {
        src: vk::Buffer,
        src_offset: u64,
        dst: vk::Buffer,
        dst_offset: u64,
        size: u64,
    },
    Image {
        src: vk::Buffer,
        image: vk::Image,
        /// (offset in `src`, extent) per mip.
        mips: Vec<(u64, vk::Extent2D)>,
    },
}

#[derive(Default)]
pub(crate) struct UploadRing {
    ring: Option<StagingRing>,
    head: u64,
    regions: VecDeque<Region>,
    /// Replaced rings with their regions still in flight.
    old: Vec<(StagingRing, VecDeque<Region>)>,
    pub(crate) pending: Vec<Copy>,
    /// One-time submits in flight: (id, fence, command buffer).
    flights: Vec<(u64, vk::Fence, vk::CommandBuffer)>,
    /// Command buffers of completed one-time submits, freed at the next flush.
    free_cmds: Vec<vk::CommandBuffer>,
    next_once: u64,
}

/// Ring arithmetic: where `len` bytes aligned to `align` go in a ring of `size` bytes whose
/// used part starts at `tail` (the oldest region; `None` when empty) and ends at `head`.
fn place(head: u64, tail: Option<u64>, size: u64, len: u64, align: u64) -> Option<u64> {
    let up = |x: u64| x.div_ceil(align) * align;
    match tail {
        None => (len <= size).then_some(0),
        // Used: [tail, head); free: [head, size) and [0, tail).
        Some(t) if head > t => {
            if up(head) + len <= size {
                Some(up(head))
            } else if len <= t {
                Some(0)
            } else {
                None
            }
        }
        // Wrapped: used [tail, size) and [0, head); free: [head, tail).
        Some(t) => (up(head) + len <= t).then_some(up(head)),
    }
}

impl UploadRing {
    /// Where `len` bytes aligned to `align` fit without waiting, if they do (reserved).
    fn try_reserve(&mut self, len: u64, align: u64) -> Option<u64> {
        let size = self.ring.as_ref()?.size();
        let at = place(
            self.head,
            self.regions.front().map(|r| r.start),
            size,
            len,
            align,
        )?;
        self.head = at + len;
        self.regions.push_back(Region {
            start: at,
            token: Token::Pending,
        });
        Some(at)
    }

    fn done(&self, t: Token, slots: &[Slot]) -> bool {
        match t {
            Token::Pending => false,
            Token::Frame(f) => slots.iter().all(|s| s.frame.is_none_or(|g| g > f)),
            Token::Once(id) => !self.flights.iter().any(|(i, _, _)| *i == id),
        }
    }

    /// Retires completed regions and one-time submits (no waiting).
    pub(crate) fn retire(&mut self, gpu: &Gpu, slots: &[Slot]) -> Result<(), VkError> {
        let d = &gpu.device;
        let mut k = 0;
        while k < self.flights.len() {
            let (_, fence, _) = self.flights[k];
            // SAFETY: a status query of a live fence.
            if unsafe { d.get_fence_status(fence) }? {
                let (_, fence, cmd) = self.flights.swap_remove(k);
                // SAFETY: the fence signalled: the submit is complete. Its command buffer is
                // freed at the next flush (which has the pool).
                unsafe { d.destroy_fence(fence, None) };
                self.free_cmds.push(cmd);
            } else {
                k += 1;
            }
        }
        while let Some(r) = self.regions.front() {
            if !self.done(r.token, slots) {
                break;
            }
            self.regions.pop_front();
        }
        if self.regions.is_empty() {
            self.head = 0;
        }
        let mut i = 0;
        while i < self.old.len() {
            let all_done = self.old[i].1.iter().all(|r| self.done(r.token, slots));
            if all_done {
                let (mut ring, _) = self.old.swap_remove(i);
                ring.destroy(gpu);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Records the pending copies into a one-time command buffer on the graphics queue and
    /// submits it with a fence.
    pub(crate) fn flush(
        &mut self,
        gpu: &Gpu,
        pool: vk::CommandPool,
        queue: vk::Queue,
    ) -> Result<(), VkError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let d = &gpu.device;
        self.free_done_cmds(gpu, pool);
        let (cmd, fence) = begin_one_time(gpu, pool)?;
        record_copies(gpu, cmd, &self.pending);
        let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
        let submit = vk::SubmitInfo2::default().command_buffer_infos(&cmds);
        // SAFETY: recorded above, submitted once; the fence tells when it completes.
        let r = unsafe {
            d.end_command_buffer(cmd)
                .and_then(|()| d.queue_submit2(queue, &[submit], fence))
        };
        if let Err(e) = r {
            // SAFETY: not submitted.
            unsafe {
                d.free_command_buffers(pool, &[cmd]);
                d.destroy_fence(fence, None);
            }
            return Err(e.into());
        }
        let id = self.next_once;
        self.next_once += 1;
        self.flights.push((id, fence, cmd));
        self.tag(Token::Once(id));
        Ok(())
    }

    /// The pending copies were recorded into frame `f`, which was submitted.
    pub(crate) fn submitted_with_frame(&mut self, f: u64) {
        if !self.pending.is_empty() {
            self.tag(Token::Frame(f));
        }
    }

    fn tag(&mut self, t: Token) {
        for r in self
            .regions
            .iter_mut()
            .chain(self.old.iter_mut().flat_map(|(_, rs)| rs.iter_mut()))
        {
            if r.token == Token::Pending {
                r.token = t;
            }
        }
        self.pending.clear();
    }

    fn free_done_cmds(&mut self, gpu: &Gpu, pool: vk::CommandPool) {
        if !self.free_cmds.is_empty() {
            // SAFETY: their submits completed (fences signalled).
            unsafe { gpu.device.free_command_buffers(pool, &self.free_cmds) };
            self.free_cmds.clear();
        }
    }

    /// Waits for every one-time submit in flight.
    pub(crate) fn wait_all(&mut self, gpu: &Gpu) -> Result<(), VkError> {
        let fences: Vec<vk::Fence> = self.flights.iter().map(|f| f.1).collect();
        if !fences.is_empty() {
            // SAFETY: live fences of submitted work.
            unsafe { gpu.device.wait_for_fences(&fences, true, u64::MAX) }?;
        }
        Ok(())
    }

    /// Destroys the rings (no work in flight); `pool` is the one-time pool.
    pub(crate) fn destroy(&mut self, gpu: &Gpu, pool: vk::CommandPool) {
        for (_, fence, cmd) in self.flights.drain(..) {
            // SAFETY: no work in flight (waited by the caller).
            unsafe { gpu.device.destroy_fence(fence, None) };
            self.free_cmds.push(cmd);
        }
        if pool != vk::CommandPool::null() {
            self.free_done_cmds(gpu, pool);
        }
        for (mut r, _) in self.old.drain(..) {
            r.destroy(gpu);
        }
        if let Some(mut r) = self.ring.take() {
            r.destroy(gpu);
        }
        self.regions.clear();
        self.pending.clear();
    }
}

/// Records copies (see the module docs for their barriers).
pub(crate) fn record_copies(gpu: &Gpu, cmd: vk::CommandBuffer, copies: &[Copy]) {
    if copies.is_empty() {
        return;
    }
    let d = &gpu.device;
    let range = |levels: u32| vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: levels,
        base_array_layer: 0,
        layer_count: 1,
    };
    let mut to_dst = Vec::new();
    let mut to_read = Vec::new();
    for c in copies {
        if let Copy::Image { image, mips, .. } = c {
            to_dst.push(
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_stage_mask(vk::PipelineStageFlags2::COPY)
                    .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .image(*image)
                    .subresource_range(range(mips.len() as u32)),
            );
            to_read.push(
                vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::COPY)
                    .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_access_mask(vk::AccessFlags2::MEMORY_READ)
                    .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
                    .image(*image)
                    .subresource_range(range(mips.len() as u32)),
            );
        }
    }
    // Earlier work on the queue (the previous frame) may still use the destinations.
    let before = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::COPY)
        .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)];
    let after = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::COPY)
        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)];
    // SAFETY: recording outside any render pass; every buffer and image is live (the
    // renderer keeps its destinations alive until the frame that uploads them completes),
    // every region lies inside its buffer or mip.
    unsafe {
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default()
                .memory_barriers(&before)
                .image_memory_barriers(&to_dst),
        );
        for c in copies {
            match c {
                Copy::Buffer {
                    src,
                    src_offset,
                    dst,
                    dst_offset,
                    size,
                } => d.cmd_copy_buffer(
                    cmd,
                    *src,
                    *dst,
                    &[vk::BufferCopy {
                        src_offset: *src_offset,
                        dst_offset: *dst_offset,
                        size: *size,
                    }],
                ),
                Copy::Image { src, image, mips } => {
                    let regions: Vec<vk::BufferImageCopy> = mips
                        .iter()
                        .enumerate()
                        .map(|(level, (offset, extent))| vk::BufferImageCopy {
                            buffer_offset: *offset,
                            image_subresource: vk::ImageSubresourceLayers {
                                aspect_mask: vk::ImageAspectFlags::COLOR,
                                mip_level: level as u32,
                                base_array_layer: 0,
                                layer_count: 1,
                            },
                            image_extent: vk::Extent3D {
                                width: extent.width,
                                height: extent.height,
                                depth: 1,
                            },
                            ..Default::default()
                        })
                        .collect();
                    d.cmd_copy_buffer_to_image(
                        cmd,
                        *src,
                        *image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &regions,
                    );
                }
            }
        }
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default()
                .memory_barriers(&after)
                .image_memory_barriers(&to_read),
        );
    }
}

impl Executor {
    /// Reserves `len` bytes aligned to `align` in the upload ring, waiting (for older
    /// frames or one-time submits) or growing the ring as the module docs say.
    fn reserve_upload(&mut self, len: u64, align: u64) -> Result<(vk::Buffer, u64), VkError> {
        loop {
            self.dev.ring.retire(&self.gpu, &self.dev.slots)?;
            let size = self.dev.ring.ring.as_ref().map_or(0, |r| r.size());
            if size < len + align {
                let (pool, queue) = (self.dev.once_pools[0], self.dev.queues[0].queue);
                self.dev.ring.flush(&self.gpu, pool, queue)?;
                let new = (2 * size)
                    .max(INITIAL_RING)
                    .max((len + align).next_power_of_two());
                let fresh = StagingRing::new(&self.gpu, new, self.dev.families)?;
                let r = &mut self.dev.ring;
                if let Some(old) = r.ring.replace(fresh) {
                    let regions = std::mem::take(&mut r.regions);
                    r.old.push((old, regions));
                }
                r.head = 0;
                continue;
            }
            if let Some(at) = self.dev.ring.try_reserve(len, align) {
                let buffer = self
                    .dev
                    .ring
                    .ring
                    .as_ref()
                    .map_or(vk::Buffer::null(), |r| r.buffer);
                return Ok((buffer, at));
            }
            self.stats.upload_waits += 1;
            let front = self.dev.ring.regions.front().map(|r| r.token);
            match front {
                Some(Token::Pending) | None => {
                    let (pool, queue) = (self.dev.once_pools[0], self.dev.queues[0].queue);
                    self.dev.ring.flush(&self.gpu, pool, queue)?;
                }
                Some(Token::Frame(f)) => {
                    let slot = self
                        .dev
                        .slots
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.frame.is_some_and(|g| g <= f))
                        .min_by_key(|(_, s)| s.frame)
                        .map(|(i, _)| i);
                    if let Some(i) = slot {
                        self.wait_slot(i)?;
                    }
                }
                Some(Token::Once(id)) => {
                    if let Some(&(_, fence, _)) =
                        self.dev.ring.flights.iter().find(|(i, _, _)| *i == id)
                    {
                        // SAFETY: a live fence of submitted work.
                        unsafe { self.gpu.device.wait_for_fences(&[fence], true, u64::MAX) }?;
                    }
                }
            }
        }
    }

    fn stage(&mut self, parts: &[&[u8]], align: u64) -> Result<(vk::Buffer, Vec<u64>), VkError> {
        let up = |x: u64| x.div_ceil(align) * align;
        let total: u64 = parts.iter().map(|p| up(p.len() as u64)).sum();
        let (buffer, at) = self.reserve_upload(total, align)?;
        let ring = self
            .dev
            .ring
            .ring
            .as_mut()
            .ok_or_else(|| VkError::Setup("no upload ring".into()))?;
        let bytes = ring
            .bytes_mut()
            .ok_or_else(|| VkError::Setup("the upload ring is not mapped".into()))?;
        let mut offsets = Vec::with_capacity(parts.len());
        let mut o = at;
        for p in parts {
            bytes[o as usize..o as usize + p.len()].copy_from_slice(p);
            offsets.push(o);
            o += up(p.len() as u64);
        }
        self.stats.uploads += 1;
        self.stats.bytes_uploaded += parts.iter().map(|p| p.len() as u64).sum::<u64>();
        Ok((buffer, offsets))
    }

    /// Uploads `data` into `dst` at `offset` (see the module docs of the staging ring: the
    /// copy runs at the start of the next frame, the ring space is retired by that frame's
    /// fence). `dst` needs `TRANSFER_DST` usage and must stay alive until that frame is done.
    pub fn upload_buffer(
        &mut self,
        dst: vk::Buffer,
        offset: u64,
        data: &[u8],
    ) -> Result<(), VkError> {
        if data.is_empty() {
            return Ok(());
        }
        let (src, offsets) = self.stage(&[data], 16)?;
        self.dev.ring.pending.push(Copy::Buffer {
            src,
            src_offset: offsets[0],
            dst,
            dst_offset: offset,
            size: data.len() as u64,
        });
        Ok(())
    }

    /// Uploads the mips of a colour image (mip `i` is `mips[i]`, tightly packed, extent
    /// `extent >> i`); the image ends in `SHADER_READ_ONLY_OPTIMAL`, visible to the frame's
    /// shader reads. `image` needs `TRANSFER_DST` usage, one layer and at least `mips.len()`
    /// levels.
    pub fn upload_image(
        &mut self,
        image: vk::Image,
        format: vk::Format,
        extent: vk::Extent2D,
        mips: &[&[u8]],
    ) -> Result<(), VkError> {
        if mips.is_empty() || mips.iter().any(|m| m.is_empty()) {
            return Err(VkError::Setup(format!(
                "image upload ({format:?}, {}x{}): no mips, or an empty mip",
                extent.width, extent.height
            )));
        }
        let texels = u64::from(extent.width.max(1)) * u64::from(extent.height.max(1));
        let len0 = mips[0].len() as u64;
        // Buffer offsets must be multiples of the texel size and of 4.
        let align = if len0.is_multiple_of(texels) {
            let t = len0 / texels;
            let g = gcd(16, t);
            16 / g * t
        } else {
            16
        };
        let (src, offsets) = self.stage(mips, align)?;
        let list = offsets
            .into_iter()
            .enumerate()
            .map(|(i, o)| {
                (
                    o,
                    vk::Extent2D {
                        width: (extent.width >> i).max(1),
                        height: (extent.height >> i).max(1),
                    },
                )
            })
            .collect();
        self.dev.ring.pending.push(Copy::Image {
            src,
            image,
            mips: list,
        });
        Ok(())
    }

    /// Submits the pending uploads now in a one-time command buffer (with its own fence),
    /// instead of with the next frame.
    pub fn flush_uploads(&mut self) -> Result<(), VkError> {
        let (pool, queue) = (self.dev.once_pools[0], self.dev.queues[0].queue);
        self.dev.ring.flush(&self.gpu, pool, queue)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_places_wraps_and_refuses() {
        // Empty ring: at the start.
        assert_eq!(place(40, None, 64, 16, 16), Some(0));
        assert_eq!(place(0, None, 64, 65, 16), None);
        // Used [0, 20): after the head, aligned.
        assert_eq!(place(20, Some(0), 64, 16, 16), Some(32));
        // Used [32, 60): no room at the end, wraps before the tail.
        assert_eq!(place(60, Some(32), 64, 16, 16), Some(0));
        assert_eq!(place(60, Some(32), 64, 40, 16), None);
        // Wrapped, used [32, 64) and [0, 16): room in [16, 32) only.
        assert_eq!(place(16, Some(32), 64, 16, 16), Some(16));
        assert_eq!(place(16, Some(32), 64, 17, 16), None);
        // Full after a wrap (head at the tail).
        assert_eq!(place(32, Some(32), 64, 1, 16), None);
    }

    #[test]
    fn gcd_of_texel_sizes() {
        assert_eq!(gcd(16, 12), 4);
        assert_eq!(gcd(16, 4), 4);
        assert_eq!(16 / gcd(16, 12) * 12, 48);
    }
}
