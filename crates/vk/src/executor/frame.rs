//! One frame of the running plan: the frame's imports resolved, its command buffers
//! recorded (pending uploads first, then each submit's units) and submitted at the plan's
//! timeline values with the frame's binary semaphores.

use super::device_state::DeviceState;
use super::history::HistoryFrame;
use super::imports::{self, FrameImports};
use super::plan_state::{PlanState, Submission};
use super::record::{Rec, RecordContext};
use super::staging::record_copies;
use super::{FrameEnd, PassBodies};
use crate::device::Gpu;
use crate::submit;
use crate::VkError;
use ash::vk;

impl PlanState {
    /// Records and submits frame `frame` in slot `slot_i` (waited for by the caller). On a
    /// recording error nothing is submitted and the slot's command buffers are reset.
    #[allow(clippy::too_many_arguments)] // the frame's inputs, each read once
    pub(crate) fn run_frame(
        &mut self,
        gpu: &Gpu,
        dev: &mut DeviceState,
        slot_i: usize,
        frame: u64,
        bodies: &mut dyn PassBodies,
        imports: &FrameImports<'_>,
        history: &HistoryFrame,
    ) -> Result<(), VkError> {
        let d = &gpu.device;
        let (res, handed) = imports::resolve(self, imports, history, frame)?;
        let fbs = imports::framebuffers(self, gpu, dev, &res, &handed)?;
        // SAFETY: the slot's previous frame is complete (waited for by the caller).
        unsafe {
            for &p in &dev.slots[slot_i].pools {
                d.reset_command_pool(p, vk::CommandPoolResetFlags::empty())?;
            }
        }
        // The binary semaphores: where the plan's `external` entries say, else around the
        // submits that use a handed-in resource.
        let touches_handed = |s: &Submission| s.touches.iter().any(|&r| handed[r]);
        let (wait_at, wait_stages) = self.external_wait.unwrap_or_else(|| {
            (
                self.submits.iter().position(touches_handed).unwrap_or(0),
                vk::PipelineStageFlags2::ALL_COMMANDS,
            )
        });
        let signal_at = self.external_signal.unwrap_or_else(|| {
            self.submits
                .iter()
                .rposition(touches_handed)
                .or_else(|| self.submits.iter().rposition(|s| s.queue == 0))
                .unwrap_or(0)
        });
        let first_graphics = self.submits.iter().position(|s| s.queue == 0);
        let queries = self.queries[slot_i];
        let recorded = {
            let rec = Rec {
                gpu,
                plan: self,
                res: &res,
                fbs: &fbs,
                queries,
            };
            let mut ctx = RecordContext {
                gpu,
                frame,
                slot: slot_i,
                res: &res,
                descriptors: &mut dev.slots[slot_i].descriptors,
                history_valid: &history.valid,
            };
            let pending = &dev.ring.pending;
            (|| {
                for (si, sub) in self.submits.iter().enumerate() {
                    let cmd = self.cmds[slot_i][si];
                    let begin = vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
                    // SAFETY: the command buffer was reset with its pool.
                    unsafe { d.begin_command_buffer(cmd, &begin) }?;
                    if Some(si) == first_graphics {
                        record_copies(gpu, cmd, pending);
                    }
                    for &u in &sub.units {
                        rec.unit(u, cmd, &mut ctx, bodies)?;
                    }
                    if sub.frame_end {
                        let end = FrameEnd {
                            end_layouts: &self.end_layouts,
                            last_stages: &self.last_stages,
                            last_queue: &self.last_queue,
                            queue: submit::kind(sub.queue),
                        };
                        bodies.end_frame(&mut ctx, &end, cmd)?;
                    }
                    // SAFETY: recording started above; no render pass is open.
                    unsafe { d.end_command_buffer(cmd) }?;
                }
                Ok::<(), VkError>(())
            })()
        };
        if let Err(e) = recorded {
            // Nothing was submitted: the slot's command buffers go back to the initial state
            // and the queries written by them are reset.
            // SAFETY: no command buffer of the slot is pending (its frame was waited for).
            unsafe {
                for &p in &dev.slots[slot_i].pools {
                    d.reset_command_pool(p, vk::CommandPoolResetFlags::empty())?;
                }
                if let Some(q) = queries {
                    d.reset_query_pool(q, 0, 2 * self.setups.len() as u32);
                }
            }
            log::debug!("frame {frame} aborted while recording: {e}");
            return Err(e);
        }
        if first_graphics.is_none() {
            dev.ring
                .flush(gpu, dev.once_pools[0], dev.queues[0].queue)?;
        }
        let rel = frame - self.first_frame;
        for (si, sub) in self.submits.iter().enumerate() {
            let cmd = self.cmds[slot_i][si];
            let (waits, signal) = match sub.batch {
                Some(b) => (
                    self.layout.waits(b, rel, !sub.drop_waits),
                    self.layout.signal(b, rel),
                ),
                None => {
                    let (w, s) = self.layout.tail(sub.queue, rel);
                    (w.into_iter().collect(), Some(s))
                }
            };
            let point = |(q, v): submit::Point| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(self.semaphores[q])
                    .value(v)
                    .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            };
            let binary = |s: &vk::Semaphore, stages| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(*s)
                    .stage_mask(stages)
            };
            let mut wait_infos: Vec<vk::SemaphoreSubmitInfo> =
                waits.into_iter().map(point).collect();
            if si == wait_at {
                wait_infos.extend(imports.wait.iter().map(|s| binary(s, wait_stages)));
            }
            let mut signal_infos: Vec<vk::SemaphoreSubmitInfo> =
                signal.into_iter().map(point).collect();
            if si == signal_at {
                signal_infos.extend(
                    imports
                        .signal
                        .iter()
                        .map(|s| binary(s, vk::PipelineStageFlags2::ALL_COMMANDS)),
                );
            }
            let cmds = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
            let info = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&wait_infos)
                .command_buffer_infos(&cmds)
                .signal_semaphore_infos(&signal_infos);
            // The frame-end submit is the queue's last of the frame: its fence covers the
            // queue's whole frame.
            let fence = if sub.frame_end {
                dev.slots[slot_i].submitted[sub.queue] = true;
                dev.slots[slot_i].fences[sub.queue]
            } else {
                vk::Fence::null()
            };
            let submitting = std::time::Instant::now();
            // SAFETY: everything referenced is alive; every timeline wait names a value
            // signalled by a submit made earlier (checked when the layout was built); the
            // fence was reset when the slot was last waited for.
            unsafe { d.queue_submit2(dev.queues[sub.queue].queue, &[info], fence) }?;
            dev.submit_time += submitting.elapsed();
        }
        if first_graphics.is_some() {
            dev.ring.submitted_with_frame(frame);
        }
        Ok(())
    }
}
