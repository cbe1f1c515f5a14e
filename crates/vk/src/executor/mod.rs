//! Runs compiled plans frame after frame, exactly as planned, for a live renderer and for the
//! synthetic `tessera exec` alike.
//!
//! **Three lifetimes.**
//! - *Device* ([`Executor::new`], `device_state`): the shared [`Gpu`], the render-pass cache
//!   (an identical render pass in a rebuilt plan keeps its handle, so pipelines made for it
//!   stay valid), samplers ([`Executor::sampler`]), a pipeline cache
//!   ([`Executor::pipeline_cache`]), two frame slots (command pools, one
//!   fence per logical queue, a descriptor allocator reset when the slot's fence retires),
//!   the upload ring ([`Executor::upload_buffer`], `staging`) and one-time command pools.
//! - *Plan* ([`Executor::prepare`], `setup` and `plan_state`): compile for the device's
//!   capabilities (with an async-compute queue when it is emulated), create the resources
//!   unbound, put their real sizes in the graph, recompile, check that the memoryless
//!   decisions held, bind memory as planned; then framebuffers, pass setups, barrier
//!   placement, the submission layout with its timeline semaphores, command buffers and
//!   timestamp queries. `prepare` with the graph and options of the running plan does
//!   nothing (one comparison, linear in the graph); otherwise the frames in flight are
//!   waited for through their slot fences (never `vkDeviceWaitIdle`), the old plan's
//!   objects are destroyed and [`PassBodies::rebuilt`] hears of the new passes.
//! - *Frame* ([`Executor::frame`], `frame` and `record`): the slot's previous frame is
//!   waited for, its command buffers are recorded — pending uploads first, then per pass (or
//!   render pass) the plan's barriers placed `before` it, the render pass begin (with the
//!   clear values of the graph's clearing uses)/next/end, a debug label and two timestamps
//!   per pass, the body ([`PassBodies::record`] with a [`RecordContext`]), the barriers
//!   placed `after` it — and submitted only when every body succeeded: a recording error
//!   resets the slot and leaves the executor usable.
//!
//! **Submits.** One submit per plan batch on the `VkQueue` of its logical queue, waiting for
//! and signalling that queue's timeline semaphore at the planned values plus a per-frame base
//! ([`crate::submit`]); a render pass is never split between submits. With work on both
//! queues each queue gets a tail submit that waits for the other queue's frame and runs
//! [`PassBodies::end_frame`]; the first submit of each queue waits for the previous frame's
//! end on the other queue. With overlapping frames (the plan's `frame_overlap`) the graphics
//! queue instead waits for its own previous frame and, at the plan's cross-frame wait, for the
//! async queue's, and its tail does not wait for the async queue; a resource the plan doubles
//! gets a second object, used on odd frames. The emulated async queue ([`ExecOptions::emulate_async`]) runs the
//! async-compute batches as separate submits on the graphics `VkQueue`. Barriers become
//! Vulkan barriers in [`crate::barrier`], ownership transfers included.
//!
//! **Imports.** An imported resource of the graph is created and owned by the executor for
//! the plan's lifetime unless it is `per_frame` (a swapchain image: never created, handed in
//! every frame, or the frame fails naming it). Any import can be handed in through
//! [`FrameImports`] for one frame, replacing the executor's object; it must match the
//! graph's format and extent (checked) and be in the layout the plan expects at the frame's
//! start ([`Executor::end_layouts`] for content kept across frames; `UNDEFINED` will do for a
//! `per_frame` one). Framebuffers that involve a handed-in view are cached by their views
//! for the plan's lifetime (views must live as long as the plan). The frame's binary
//! semaphores go where the plan's `external` entries say: `wait` (acquire) on the submit of
//! the earliest `first_pass`, at its `wait_stages`; `signal` (render finished) on the submit
//! of the latest `last_pass`, which holds the present barrier. Without `external` entries:
//! around the first and last submits that use a handed-in resource.
//!
//! **Times.** Two timestamps per pass; a frame's are read when its slot is waited for
//! (its slot reused, a re-plan, `finish`). The running plan keeps means
//! ([`Executor::timings`]) and the spans of recent frames ([`Executor::take_frame_times`]),
//! both gone with the plan; the newest frame's spans are kept across re-plans
//! ([`Executor::newest_frame`], tagged with [`Executor::plan_generation`]), so times keep
//! coming while a window re-plans every frame.
//!
//! **History.** The graph's history resources (content kept from one frame to the next) are
//! the executor's own, outside any plan (`history`): kept across re-plans while their
//! description holds, swapped by frame parity when double-buffered, cleared and put in the
//! plan's entry layout when new; [`RecordContext::history_valid`] tells bodies whether the
//! previous content is a previous frame's ([`Executor::forget_history`] starts them over).
//!
//! **Persistent resources.** The graph's persistent resources (content written only while
//! stale) are the executor's own too (`persistent`): made on first use, cleared and left at
//! rest, kept across frames and re-plans while their name and shape hold;
//! [`Executor::persistent_epoch`] changes whenever one is made anew (its content lost).
//!
//! Cost per frame: linear in passes, barriers and uses; no allocation of Vulkan objects in
//! the steady state (a new handed-in view costs one framebuffer, once).

mod device_state;
mod frame;
mod history;
mod imports;
mod one_time;
mod persistent;
mod plan_state;
mod record;
mod resolve;
mod setup;
mod slot;
mod staging;
mod times;

pub use crate::resources::ImportedImage;
pub use device_state::SamplerDesc;
pub use imports::FrameImports;
pub use record::RecordContext;
pub use times::{FrameTimes, PassSpan, PassTiming, TimedFrame};

use crate::device::Gpu;
use crate::resources::{Res, Resources, SpareMemory, StagingRing};
use crate::submit;
use crate::VkError;
use ash::vk;
use device_state::DeviceState;
use plan_state::PlanState;
use std::sync::Arc;
use tessera_graph::access::Access;
use tessera_graph::{CompileOptions, Graph, PassId, PassKind, Plan, QueueKind, ResourceId};

/// One resource use of a pass, as the pass body sees it.
#[derive(Clone)]
pub struct PassUse {
    /// How the pass uses it.
    pub access: Access,
    /// Cleared at this use.
    pub clear: bool,
    /// A clear the render pass's load operation cannot do (an earlier subpass of the render
    /// pass used the attachment): the body clears it with `vkCmdClearAttachments` at the
    /// start of its subpass.
    pub mid_clear: bool,
    /// The value a clear at this use writes.
    pub clear_value: vk::ClearValue,
    /// The resource.
    pub resource: ResourceId,
    /// Resource name.
    pub name: String,
    /// The Vulkan object of even frames (null handles for an import handed in every frame;
    /// a resource the plan doubles for overlapping frames is another object on odd frames,
    /// a history resource swaps: record with [`RecordContext::image`] /
    /// [`RecordContext::buffer`] / [`RecordContext::resources`], which give this frame's).
    pub res: Res,
    /// For resolves: the multisampled source.
    pub from: Option<ResourceId>,
}

impl std::fmt::Debug for PassUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassUse")
            .field("access", &self.access)
            .field("clear", &self.clear)
            .field("mid_clear", &self.mid_clear)
            .field("resource", &self.resource)
            .field("name", &self.name)
            .field("res", &self.res)
            .field("from", &self.from)
            .finish_non_exhaustive()
    }
}

/// What a pass body gets: its resources, and for raster passes the render pass, subpass
/// index and extent. No graph internals.
#[derive(Clone, Debug)]
pub struct PassSetup {
    /// The pass in the graph.
    pub id: PassId,
    /// Pass name.
    pub name: String,
    /// Raster, compute or transfer.
    pub kind: PassKind,
    /// Queue it runs on.
    pub queue: QueueKind,
    /// Its uses in declaration order.
    pub uses: Vec<PassUse>,
    /// Raster passes: render pass, subpass index, render area.
    pub subpass: Option<(vk::RenderPass, u32, vk::Extent2D)>,
}

/// The renderer's pass bodies.
pub trait PassBodies {
    /// The plan changed (or is the first): `passes` in execution order. Re-point descriptors
    /// and (re)build pipelines here; render passes come from a device-lifetime cache, so an
    /// unchanged render pass keeps its handle.
    fn rebuilt(&mut self, gpu: &Gpu, passes: &[PassSetup]) -> Result<(), VkError>;
    /// Records the pass into `cmd` (inside its subpass for raster passes). An error aborts
    /// the frame: nothing of it is submitted.
    fn record(
        &mut self,
        ctx: &mut RecordContext<'_>,
        pass: &PassSetup,
        cmd: vk::CommandBuffer,
    ) -> Result<(), VkError>;
    /// Records extra work at the end of each queue's last command buffer of the frame.
    fn end_frame(
        &mut self,
        _ctx: &mut RecordContext<'_>,
        _end: &FrameEnd<'_>,
        _cmd: vk::CommandBuffer,
    ) -> Result<(), VkError> {
        Ok(())
    }
    /// The GPU has finished `frame` (reported at the next `frame`, `prepare` or `finish`).
    fn frame_done(&mut self, _gpu: &Gpu, _frame: u64) {}
    /// Destroys what the bodies created (no frame in flight).
    fn destroy(&mut self, gpu: &Gpu);
}

/// What `end_frame` may look at: the layout each image ends the frame in, and which queue
/// each resource ends the frame on.
#[derive(Debug)]
pub struct FrameEnd<'a> {
    /// Layout each image is in at the end of the frame (indexed by resource).
    pub end_layouts: &'a [vk::ImageLayout],
    /// Stages of the last use of each resource in the frame (indexed by resource).
    pub last_stages: &'a [vk::PipelineStageFlags2],
    /// Logical queue of the last access (use or barrier) of each resource in the frame,
    /// `None` when no kept pass uses it. An EXCLUSIVE image is owned by that queue's family.
    pub last_queue: &'a [Option<QueueKind>],
    /// The queue `cmd` is submitted to: `end_frame` is called once per queue with work (after
    /// the other queue's work of the frame) and should touch only the resources whose
    /// `last_queue` is this one.
    pub queue: QueueKind,
}

mod hooks {
    use tessera_graph::{Graph, Plan};

    /// Test-only switches, with the `test-hooks` feature ([`super::Executor::with_test_hooks`];
    /// tessera-synth and its tests set them, the renderer never does): each proves that a
    /// test can fail. Without the feature every executor runs with none.
    #[derive(Clone, Debug, Default)]
    pub struct TestHooks {
        /// Drop every plan barrier on this resource.
        pub drop_barriers_on: Option<String>,
        /// Drop the planned semaphore waits of the batch that starts with this pass.
        pub drop_waits_before: Option<String>,
        /// Alters the plan compiled for the device before it runs
        /// ([`super::Executor::plan`] returns the altered plan).
        pub alter_plan: Option<fn(&mut Plan)>,
        /// The plan as executed (render passes, barriers) when it differs from
        /// [`super::Executor::plan`] (synth turns `DONT_CARE` loads into clears).
        pub executed_plan: Option<fn(&Graph, &Plan) -> Plan>,
    }
}

#[cfg(feature = "test-hooks")]
pub use hooks::TestHooks;
#[cfg(not(feature = "test-hooks"))]
use hooks::TestHooks;

/// Executor switches.
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Run the async-compute logical queue on the graphics `VkQueue` (separate submits, the
    /// same timeline semaphores); plans are compiled with an async-compute queue then. On a
    /// device with one queue family this is the only way to run an async plan.
    pub emulate_async: bool,
    /// The renderer owns every imported resource and hands each in every frame
    /// ([`FrameImports`]): the executor creates none (by default it creates those not marked
    /// `per_frame`, which is what `tessera exec` relies on).
    pub imports_handed_in: bool,
    /// Plan with a tiler's memory and tile facts over the device's own (see [`TileRules`]):
    /// a desktop GPU then runs the render passes and memoryless attachments a tiler gets.
    pub tile_rules: Option<TileRules>,
}

/// The facts of a tile-based GPU that decide merging and memoryless attachments: a
/// lazily allocated memory type and the tile budget. Planning with them on a device that
/// lacks them is sound (memoryless attachments then get ordinary memory, with their
/// tile-memory load/store ops unchanged), which lets a desktop GPU and RenderDoc show the
/// plan a phone gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRules {
    /// Plan memoryless attachments.
    pub lazily_allocated: bool,
    /// Colour bits per pixel the tile holds (0: no budget).
    pub tile_bits_per_pixel: u32,
}

impl TileRules {
    /// The names [`TileRules::named`] knows: the tiler profiles, and `mali-bifrost` for a
    /// Bifrost or Midgard Mali (128 bits per pixel instead of Valhall's 256).
    pub const NAMES: &'static [&'static str] = &["mali", "mali-bifrost", "adreno"];

    /// The tile facts of a named profile (`mali`, `adreno`), `None` for an unknown name.
    pub fn of_profile(name: &str) -> Option<TileRules> {
        tessera_graph::Capabilities::profile(name).map(|c| TileRules {
            lazily_allocated: c.lazily_allocated,
            tile_bits_per_pixel: c.tile_bits_per_pixel,
        })
    }

    /// [`TileRules::of_profile`], and `mali-bifrost`: the older Mali's smaller tile budget
    /// ([`crate::device_class::BIFROST_TILE_BITS`]).
    pub fn named(name: &str) -> Option<TileRules> {
        match name {
            "mali-bifrost" => Some(TileRules {
                lazily_allocated: true,
                tile_bits_per_pixel: crate::device_class::BIFROST_TILE_BITS,
            }),
            _ => TileRules::of_profile(name),
        }
    }
}

/// The queue family of each logical queue (graphics, async compute) the executor will use:
/// the compute-only family when the device has one and the queue is not emulated, else the
/// graphics family.
pub fn queue_families(gpu: &Gpu, emulate_async: bool) -> [u32; 2] {
    let g = gpu.graphics.family;
    match gpu.compute {
        Some(c) if !emulate_async => [g, c.family],
        _ => [g, g],
    }
}

/// Counters the tests assert on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecStats {
    /// Plans built by [`Executor::prepare`] (the first included).
    pub rebuilds: u64,
    /// `VkRenderPass` objects created (render-pass cache misses).
    pub render_passes_created: u64,
    /// `VkFramebuffer` objects created.
    pub framebuffers_created: u64,
    /// `vkDeviceWaitIdle` calls through the device so far ([`Gpu::wait_idle_count`]).
    pub wait_idle_calls: u64,
    /// Uploads made ([`Executor::upload_buffer`], [`Executor::upload_image`]).
    pub uploads: u64,
    /// Bytes uploaded.
    pub bytes_uploaded: u64,
    /// Times an upload waited for ring space (an older frame's fence or a one-time submit).
    pub upload_waits: u64,
    /// `vkAllocateMemory` allocations alive ([`Gpu::allocation_count`]).
    pub allocations: u64,
    /// Frames submitted.
    pub frames: u64,
    /// Frames aborted by a recording error.
    pub aborted_frames: u64,
    /// Descriptor pools created (over both frame slots; each slot's are reset and reused
    /// when its frame retires).
    pub descriptor_pools: u64,
    /// Samplers created (sampler-cache misses).
    pub samplers_created: u64,
    /// Memory allocations a new plan took over from the plan it replaced
    /// ([`crate::resources::SpareMemory`]).
    pub allocations_reused: u64,
}

/// Host time of the last [`Executor::frame`], split so that a slow GPU (the frame waits for
/// the slot's previous frame) does not read as recording cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameCpu {
    /// Waiting for the frame slot's previous frame (µs).
    pub wait_us: f64,
    /// Recording the command buffers and submitting them (µs).
    pub record_us: f64,
    /// Of `record_us`, the time in `vkQueueSubmit2` (µs): near zero on a GPU, but a driver
    /// that executes on the submitting thread blocks there.
    pub submit_us: f64,
}

pub(crate) const FRAMES_IN_FLIGHT: usize = 2;

/// Runs plans on a device; see the module docs.
pub struct Executor {
    gpu: Arc<Gpu>,
    options: ExecOptions,
    /// None unless made [`Executor::with_test_hooks`] (the `test-hooks` feature).
    hooks: TestHooks,
    dev: DeviceState,
    plan: Option<PlanState>,
    /// Frames submitted so far (the next frame's number).
    frame: u64,
    /// Frames complete on the GPU, not yet reported to the bodies.
    done: Vec<u64>,
    stats: ExecStats,
    last_cpu: FrameCpu,
    /// History resources' objects, kept across plans.
    history: history::HistoryStore,
    /// Persistent resources' objects, kept across frames and plans.
    persistent: persistent::PersistentStore,
    /// The newest frame whose timestamps were read, kept across plans (a re-plan retires
    /// the plan that read it).
    newest: Option<TimedFrame>,
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executor")
            .field("passes", &self.passes().len())
            .field("frame", &self.frame)
            .finish()
    }
}

impl Executor {
    /// The device-lifetime objects; no plan yet ([`Executor::prepare`]).
    pub fn new(gpu: Arc<Gpu>, options: ExecOptions) -> Result<Executor, VkError> {
        let dev = DeviceState::new(&gpu, options.emulate_async, options.tile_rules)?;
        Ok(Executor {
            gpu,
            options,
            hooks: TestHooks::default(),
            dev,
            plan: None,
            frame: 0,
            done: Vec::new(),
            stats: ExecStats::default(),
            last_cpu: FrameCpu::default(),
            history: history::HistoryStore::default(),
            persistent: persistent::PersistentStore::default(),
            newest: None,
        })
    }

    /// [`Executor::new`] with test-only switches (the `test-hooks` feature).
    #[cfg(feature = "test-hooks")]
    pub fn with_test_hooks(
        gpu: Arc<Gpu>,
        options: ExecOptions,
        hooks: TestHooks,
    ) -> Result<Executor, VkError> {
        let mut exec = Executor::new(gpu, options)?;
        exec.hooks = hooks;
        Ok(exec)
    }

    /// The device.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Makes `graph` compiled with `options` the running plan: nothing when it already is
    /// (`Ok(false)`); otherwise the frames in flight are waited for (slot fences), the old
    /// plan's objects retired, the new plan built and `bodies.rebuilt` called (`Ok(true)`).
    /// On an error (the compile, the device, or `bodies.rebuilt`) no plan runs and the next
    /// `prepare` starts afresh.
    pub fn prepare(
        &mut self,
        graph: &Graph,
        options: &CompileOptions,
        bodies: &mut dyn PassBodies,
    ) -> Result<bool, VkError> {
        if self
            .plan
            .as_ref()
            .is_some_and(|p| p.declared == *graph && p.compile_options == *options)
        {
            return Ok(false);
        }
        // The old plan's memory is offered to the new one (what did not grow is bound
        // again without a new allocation); what the new plan did not take is freed.
        let mut spare = SpareMemory::default();
        self.wait_all()?;
        self.report_done(bodies);
        if let Some(mut old) = self.plan.take() {
            old.retire(&self.gpu, &mut self.dev, &mut spare);
        }
        let built = PlanState::build(
            &self.gpu,
            &mut self.dev,
            &self.options,
            &self.hooks,
            graph,
            options,
            self.frame,
            &mut spare,
        );
        let state = match built {
            Ok(s) => s,
            Err(e) => {
                spare.free(&self.gpu);
                return Err(e);
            }
        };
        self.stats.rebuilds += 1;
        let state = self.plan.insert(state);
        state.generation = self.stats.rebuilds;
        // History objects whose description changed (a resize) take over memory too.
        let followed = self
            .history
            .follow(&self.gpu, &mut self.dev, state, &mut spare)
            .and_then(|()| {
                self.persistent
                    .follow(&self.gpu, &self.dev, state, &mut spare)
            });
        spare.free(&self.gpu);
        self.stats.allocations_reused += spare.reused;
        if let Err(e) = followed {
            if let Some(mut p) = self.plan.take() {
                p.destroy(&self.gpu, &mut self.dev);
            }
            return Err(e);
        }
        let state = self.plan.as_mut().expect("inserted above");
        if let Err(e) = bodies.rebuilt(&self.gpu, &state.setups) {
            // Bodies that could not follow must not run this plan: the next `prepare`
            // builds it again.
            if let Some(mut p) = self.plan.take() {
                p.destroy(&self.gpu, &mut self.dev);
            }
            return Err(e);
        }
        Ok(true)
    }

    /// Waits for the frames in flight and destroys the framebuffers made for handed-in
    /// views. Call it before destroying views that were handed in (a swapchain replaced,
    /// or dropped when the window goes away): the cache is keyed by view handle, and a new
    /// view may be given a destroyed one's handle.
    pub fn forget_imported_views(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        self.wait_all()?;
        self.report_done(bodies);
        if let Some(p) = &mut self.plan {
            p.forget_imported_framebuffers(&self.gpu);
        }
        Ok(())
    }

    /// For the history resource `name` (this frame's half): the frames its objects have
    /// taken part in since the executor made them (0 after a description change, when the
    /// previous content is invalid) and how many objects it has (2 when double-buffered).
    pub fn history_age(&self, name: &str) -> Option<(u64, usize)> {
        self.history.age(name)
    }

    /// The epoch of persistent resource `name`'s object: `None` until the executor made one
    /// (the first plan that declares it), then a number that changes whenever it makes a new
    /// one (its description changed: the content is lost). A renderer declares the content
    /// valid only while the epoch is the one it recorded after the frame that wrote it.
    pub fn persistent_epoch(&self, name: &str) -> Option<u64> {
        self.persistent.epoch(name)
    }

    /// Waits for the frames in flight and drops every history resource's objects: the next
    /// frame makes new ones, whose previous content is invalid (a scene change: what the
    /// history holds belongs to another picture).
    pub fn forget_history(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        self.wait_all()?;
        self.report_done(bodies);
        self.history.destroy(&self.gpu);
        if let Some(plan) = &self.plan {
            let mut none = SpareMemory::default();
            self.history
                .follow(&self.gpu, &mut self.dev, plan, &mut none)?;
        }
        Ok(())
    }

    /// The plan that runs (compiled with the real sizes), if any.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref().map(|p| &p.plan)
    }

    /// The graph the running plan was compiled from (with the real sizes), if any.
    pub fn graph(&self) -> Option<&Graph> {
        self.plan.as_ref().map(|p| &p.graph)
    }

    /// The running plan's resources (the executor's objects; placeholders with null handles
    /// for imports handed in every frame).
    pub fn resources(&self) -> Option<&Resources> {
        self.plan.as_ref().map(|p| &p.resources)
    }

    /// The pass setups in execution order (empty without a plan).
    pub fn passes(&self) -> &[PassSetup] {
        self.plan.as_ref().map_or(&[], |p| &p.setups)
    }

    /// Layout of each image at the end of a frame (where an imported image whose content is
    /// needed must be when it is handed in).
    pub fn end_layouts(&self) -> &[vk::ImageLayout] {
        self.plan.as_ref().map_or(&[], |p| &p.end_layouts)
    }

    /// Logical queue of each resource's last access in a frame (`None` when unused).
    pub fn last_queues(&self) -> &[Option<QueueKind>] {
        self.plan.as_ref().map_or(&[], |p| &p.last_queue)
    }

    /// Queue family a logical queue runs on.
    pub fn family(&self, q: QueueKind) -> u32 {
        self.dev.families[submit::slot(q)]
    }

    /// Frames submitted so far.
    pub fn frames(&self) -> u64 {
        self.frame
    }

    /// Number of submits (command buffers) per frame.
    pub fn submits_per_frame(&self) -> usize {
        self.plan.as_ref().map_or(0, |p| p.submits.len())
    }

    /// Mean GPU time per pass of the running plan over the frames timed so far, in
    /// execution order.
    pub fn timings(&self) -> Vec<PassTiming> {
        let Some(p) = &self.plan else {
            return Vec::new();
        };
        p.setups
            .iter()
            .enumerate()
            .map(|(i, s)| PassTiming {
                pass: s.name.clone(),
                mean_us: if p.ns_count[i] > 0 {
                    p.ns_sum[i] / p.ns_count[i] as f64 / 1000.0
                } else {
                    0.0
                },
                frames: p.ns_count[i],
            })
            .collect()
    }

    /// The pass spans of every frame whose timestamps were read since the last call, oldest
    /// first (a frame's are read when its slot is reused, or by [`Executor::finish`]). The
    /// times are the device's timestamps in nanoseconds: comparable across the two queues of
    /// one device, which share its timestamp clock.
    pub fn take_frame_times(&mut self) -> Vec<FrameTimes> {
        let Some(p) = &mut self.plan else {
            return Vec::new();
        };
        let read: Vec<_> = p.frame_times.drain(..).collect();
        read.iter().map(|spans| p.times_of(spans)).collect()
    }

    /// The newest completed frame's pass times, kept across re-plans (unlike
    /// [`Executor::timings`] and [`Executor::take_frame_times`], which belong to the running
    /// plan): updated whenever a frame's timestamps are read (its slot reused, a `prepare`
    /// that waits for the frames in flight, [`Executor::finish`]). `None` until a frame with
    /// a timed pass completes. Compare its `plan` with [`Executor::plan_generation`] to tell
    /// times of the running plan from those of an older one.
    pub fn newest_frame(&self) -> Option<&TimedFrame> {
        self.newest.as_ref()
    }

    /// The running plan's number: a new one for every plan `prepare` builds (the value of
    /// [`ExecStats::rebuilds`] when it was built); 0 without a plan.
    pub fn plan_generation(&self) -> u64 {
        self.plan.as_ref().map_or(0, |p| p.generation)
    }

    /// Host time of the last frame, waiting and recording apart.
    pub fn last_frame_cpu(&self) -> FrameCpu {
        self.last_cpu
    }

    /// The counters.
    pub fn stats(&self) -> ExecStats {
        ExecStats {
            render_passes_created: self.dev.render_passes.created,
            framebuffers_created: self.dev.framebuffers_created,
            wait_idle_calls: self.gpu.wait_idle_count(),
            allocations: self.gpu.allocation_count(),
            frames: self.frame,
            descriptor_pools: self
                .dev
                .slots
                .iter()
                .map(|s| s.descriptors.pools() as u64)
                .sum(),
            samplers_created: self.dev.samplers_created(),
            ..self.stats.clone()
        }
    }

    /// A descriptor set of `layout` valid for the next frame only (from the next frame slot's
    /// pools, reset when that slot's fence retires): waits for the frame that last used the
    /// slot, if it is still in flight. During recording use [`RecordContext::descriptor_set`].
    pub fn descriptor_set(
        &mut self,
        layout: vk::DescriptorSetLayout,
    ) -> Result<vk::DescriptorSet, VkError> {
        let slot = (self.frame % FRAMES_IN_FLIGHT as u64) as usize;
        self.wait_slot(slot)?;
        self.dev.slots[slot].descriptors.allocate(&self.gpu, layout)
    }

    /// A `VkPipelineCache` for the bodies' pipelines (device lifetime: pipelines rebuilt for
    /// a new plan compile from it).
    pub fn pipeline_cache(&self) -> vk::PipelineCache {
        self.dev.pipeline_cache
    }

    /// A sampler (device-lifetime cache: equal descriptions give the same handle).
    pub fn sampler(&mut self, desc: SamplerDesc) -> Result<vk::Sampler, VkError> {
        self.dev.sampler(&self.gpu, desc)
    }

    /// Runs one frame of the running plan with this frame's imports.
    pub fn frame(
        &mut self,
        bodies: &mut dyn PassBodies,
        imports: &FrameImports<'_>,
    ) -> Result<(), VkError> {
        let slot_i = (self.frame % FRAMES_IN_FLIGHT as u64) as usize;
        let started = std::time::Instant::now();
        self.wait_slot(slot_i)?;
        let waited = std::time::Instant::now();
        self.report_done(bodies);
        let Some(plan) = &mut self.plan else {
            return Err(VkError::Setup(
                "a frame before any plan was prepared".into(),
            ));
        };
        let frame = self.frame;
        self.dev.submit_time = std::time::Duration::ZERO;
        self.history.settle(&self.gpu, &mut self.dev, plan)?;
        self.persistent.settle(&self.gpu, &mut self.dev)?;
        let mut history = self.history.frame(&plan.graph);
        history.objects.extend(self.persistent.objects(&plan.graph));
        let outcome = plan.run_frame(
            &self.gpu,
            &mut self.dev,
            slot_i,
            frame,
            bodies,
            imports,
            &history,
        );
        self.last_cpu = FrameCpu {
            wait_us: (waited - started).as_secs_f64() * 1e6,
            record_us: waited.elapsed().as_secs_f64() * 1e6,
            submit_us: self.dev.submit_time.as_secs_f64() * 1e6,
        };
        match outcome {
            Ok(()) => {
                self.dev.slots[slot_i].frame = Some(frame);
                self.frame += 1;
                self.history.advance(plan);
                Ok(())
            }
            Err(e) => {
                self.stats.aborted_frames += 1;
                Err(e)
            }
        }
    }

    /// Waits for every frame in flight (and the one-time upload submits) and reports them to
    /// the bodies.
    pub fn finish(&mut self, bodies: &mut dyn PassBodies) -> Result<(), VkError> {
        self.flush_uploads()?;
        self.wait_all()?;
        self.dev.ring.wait_all(&self.gpu)?;
        self.report_done(bodies);
        Ok(())
    }

    fn wait_all(&mut self) -> Result<(), VkError> {
        let mut order: Vec<(u64, usize)> = self
            .dev
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.frame.map(|f| (f, i)))
            .collect();
        order.sort();
        for (_, i) in order {
            self.wait_slot(i)?;
        }
        Ok(())
    }

    fn report_done(&mut self, bodies: &mut dyn PassBodies) {
        for f in self.done.drain(..) {
            bodies.frame_done(&self.gpu, f);
        }
    }

    /// Waits for the frame that used slot `slot_i` (if any): fences, timestamps, descriptor
    /// pools reset, upload-ring space retired. The frame is reported to the bodies later.
    fn wait_slot(&mut self, slot_i: usize) -> Result<(), VkError> {
        let Some(f) = self.dev.wait_slot(&self.gpu, slot_i)? else {
            return Ok(());
        };
        if let Some(p) = &mut self.plan {
            // Every slot in flight was recorded by the running plan: `prepare` waits for
            // them all before it replaces the plan.
            if let Some(spans) = p.read_timestamps(&self.gpu, slot_i) {
                times::keep_newest(&mut self.newest, f, p.generation, || p.times_of(&spans));
            }
            debug_assert!(p.timeline_reached(&self.gpu, f));
        }
        self.dev.ring.retire(&self.gpu, &self.dev.slots)?;
        self.done.push(f);
        Ok(())
    }

    /// Records `f` into a one-time command buffer on the graphics queue, submits it and
    /// waits for its fence.
    pub fn once(
        &mut self,
        f: impl FnOnce(&Gpu, vk::CommandBuffer, &mut StagingRing),
    ) -> Result<(), VkError> {
        self.once_on(QueueKind::Graphics, f)
    }

    /// Records `f` into a one-time command buffer on the device queue of logical queue `q`,
    /// submits it and waits for its fence. `f` gets the one-time staging ring (created on
    /// first use; its space is free again once this returns).
    pub fn once_on(
        &mut self,
        q: QueueKind,
        f: impl FnOnce(&Gpu, vk::CommandBuffer, &mut StagingRing),
    ) -> Result<(), VkError> {
        self.dev.once_on(&self.gpu, submit::slot(q), f)
    }

    /// The one-time staging ring (for [`Executor::once_on`] work).
    pub fn staging(&mut self) -> Result<&mut StagingRing, VkError> {
        self.dev.once_ring(&self.gpu)
    }

    /// Moves an EXCLUSIVE image from the family of logical queue `from` to that of `to` (a
    /// release and an acquire in `layout`, one-time work waited for in between); nothing when
    /// both map to one family.
    pub fn hand_over_image(
        &mut self,
        resource: usize,
        layout: vk::ImageLayout,
        from: QueueKind,
        to: QueueKind,
    ) -> Result<(), VkError> {
        let (src, dst) = (self.family(from), self.family(to));
        let Some(Res::Image(im)) = self
            .plan
            .as_ref()
            .and_then(|p| p.resources.res.get(resource))
            .copied()
        else {
            return Ok(());
        };
        if src == dst {
            return Ok(());
        }
        let half = |release: bool| {
            move |gpu: &Gpu, cmd: vk::CommandBuffer, _: &mut StagingRing| {
                let (ss, sa, ds, da) = if release {
                    (
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        vk::AccessFlags2::MEMORY_WRITE,
                        vk::PipelineStageFlags2::NONE,
                        vk::AccessFlags2::NONE,
                    )
                } else {
                    (
                        vk::PipelineStageFlags2::NONE,
                        vk::AccessFlags2::NONE,
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                    )
                };
                let b = [vk::ImageMemoryBarrier2::default()
                    .src_stage_mask(ss)
                    .src_access_mask(sa)
                    .dst_stage_mask(ds)
                    .dst_access_mask(da)
                    .old_layout(layout)
                    .new_layout(layout)
                    .src_queue_family_index(src)
                    .dst_queue_family_index(dst)
                    .image(im.image)
                    .subresource_range(im.range())];
                // SAFETY: recording an ownership-transfer half of a live image.
                unsafe {
                    gpu.device.cmd_pipeline_barrier2(
                        cmd,
                        &vk::DependencyInfo::default().image_memory_barriers(&b),
                    )
                };
            }
        };
        self.once_on(from, half(true))?;
        self.once_on(to, half(false))
    }

    /// Waits for every frame, destroys the bodies' objects and everything the executor built.
    pub fn destroy(mut self, bodies: &mut dyn PassBodies) {
        if let Err(e) = self.finish(bodies) {
            log::warn!("executor teardown: {e}");
        }
        bodies.destroy(&self.gpu);
        // Drop does the rest.
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        let waited = self
            .wait_all()
            .and_then(|_| self.dev.ring.wait_all(&self.gpu));
        if let Err(e) = waited {
            // Only after a device loss or similar: make sure nothing runs before destroying.
            log::warn!("executor teardown: {e}; waiting for the device");
            let _ = self.gpu.wait_idle();
        }
        if let Some(mut p) = self.plan.take() {
            p.destroy(&self.gpu, &mut self.dev);
        }
        self.history.destroy(&self.gpu);
        self.persistent.destroy(&self.gpu);
        self.dev.destroy(&self.gpu);
    }
}
