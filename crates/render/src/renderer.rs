//! The renderer: device-lifetime state (the executor, pipelines, the uploaded scene), the
//! output image it owns and hands to the graph, and one [`Renderer::render`] per frame.
//!
//! Each frame is declared anew ([`crate::frame::declare`]); the executor compiles it only
//! when it differs from the last one (a resize, a toggle, a scene change) and then rebuilds
//! its plan-lifetime objects while pipelines and the scene stay.

use crate::camera::View;
use crate::features::Features;
use crate::frame::deform::Deformation;
use crate::frame::environment::{names, Epochs, SkyInputs};
use crate::frame::ui::{self, UiFrame, UiInputs, UiMeshes};
use crate::frame::{self, FrameInputs, Rotation, OUTPUT_FORMAT};
use crate::gpu::frame_data::{light_range, FrameData, PointLightData};
use crate::gpu::pass::{FrameBodies, FrameBuilder, Shared};
use crate::gpu::pipelines::Pipelines;
use crate::gpu::scene::{Draw, SceneGpu};
use crate::gpu::ui::UiGpu;
use crate::png_out::Picture;
use crate::pose::Pose;
use crate::shaders::ReloadReport;
use crate::RenderError;
use ash::vk;
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Instant;
use tessera_graph::{CompileOptions, Graph};
use tessera_scene::{LightKind, Scene};
use tessera_vk::executor::{
    ExecOptions, Executor, FrameImports, ImportedImage, PassTiming, SamplerDesc, TimedFrame,
};
use tessera_vk::resources::{OwnedBuffer, OwnedImage};
use tessera_vk::Gpu;

/// How to render.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Output width in pixels: the logical (upright) picture's, which the camera and the
    /// UI use whatever `output_rotation` is.
    pub width: u32,
    /// Output height in pixels (logical, as `width`).
    pub height: u32,
    /// Pre-rotation ([`crate::frame::rotate`]): the rotation the presentation applies to
    /// the output, whose image then has the physical extent (`width` and `height` swapped
    /// at 90° and 270°) and holds the upright frame rotated the other way.
    pub output_rotation: Rotation,
    /// Graph optimisations.
    pub options: CompileOptions,
    /// Run the async-compute queue's passes on the graphics queue (separate submits).
    pub emulate_async: bool,
    /// Sky ambient (linear RGB).
    pub ambient: [f32; 3],
    /// The sun's direction (the way its light travels, world space) in place of the
    /// scene's; `None`: the scene's. Only frame data and the sky depend on it, so
    /// [`Renderer::set_sun`] changes it between frames without a re-plan.
    pub sun: Option<glam::Vec3>,
    /// Run the environment's passes every frame, as if the sun always moved (measures
    /// their cost); off, they run only when their content is stale.
    pub recompute_environment: bool,
    /// Copy each frame's output into a host-visible buffer ([`Renderer::picture`]).
    pub read_back: bool,
    /// A test aid: the pass of this name records nothing.
    #[cfg(feature = "test-hooks")]
    pub skip_pass: Option<String>,
    /// Tests: deform vertices on the CPU (the reference) and upload them, in place of the
    /// `deform` compute pass.
    #[cfg(feature = "test-hooks")]
    pub cpu_deform: bool,
    /// The frame's features (what is declared into the graph).
    pub features: Features,
    /// The device profile whose presets chose `features` (`desktop`, `mali`, `adreno`, or
    /// the device's name); reported, never used to change the graph behind its back.
    pub profile: String,
    /// The view; `None`: the scene's ([`View::of`]). Only frame data depends on it, so
    /// [`Renderer::set_camera`] changes it between frames without a re-plan.
    pub camera: Option<View>,
    /// How the forward path's SSAO prepass resolves its multisampled depth into the depth
    /// SSAO reads (`Max`: the nearest sample, with reversed Z); `None`: the prepass renders
    /// single-sampled. [`Renderer::new`] keeps a mode the device has (else `SampleZero`, else
    /// `None`).
    pub depth_resolve: Option<tessera_graph::ResolveMode>,
    /// Let the forward path at `msaa` > 1 tone map each sample inside its render pass
    /// ([`crate::frame::forward::tonemaps_per_sample`]); off: resolve HDR, then tone map.
    /// [`Renderer::new`] turns it off on a device without `sampleRateShading`.
    pub tonemap_per_sample: bool,
    /// Plan with a tiler's tile facts over the device's own
    /// ([`tessera_vk::executor::TileRules`]); `None`: the device's.
    pub tile_rules: Option<tessera_vk::executor::TileRules>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            width: 1280,
            height: 720,
            output_rotation: Rotation::R0,
            options: CompileOptions::ALL,
            emulate_async: false,
            ambient: [0.05, 0.06, 0.08],
            sun: None,
            recompute_environment: false,
            read_back: true,
            #[cfg(feature = "test-hooks")]
            skip_pass: None,
            #[cfg(feature = "test-hooks")]
            cpu_deform: false,
            features: Features::default(),
            profile: "desktop".into(),
            camera: None,
            tile_rules: None,
            depth_resolve: Some(tessera_graph::ResolveMode::Max),
            tonemap_per_sample: true,
        }
    }
}

/// CPU time of one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Declaring the graph (µs).
    pub declare_us: f64,
    /// The executor's prepare: a hash when the frame is unchanged, else compile and rebuild (µs).
    pub prepare_us: f64,
    /// Waiting for the frame slot's previous frame: GPU time, not CPU work (µs).
    pub wait_us: f64,
    /// Recording and submitting (µs).
    pub record_us: f64,
    /// Of `record_us`, the time in `vkQueueSubmit2` (µs; lavapipe may block there).
    pub submit_us: f64,
    /// Whether this frame re-planned.
    pub rebuilt: bool,
}

/// The renderer.
pub struct Renderer {
    exec: Executor,
    pipelines: RefCell<Pipelines>,
    scene: Scene,
    scene_gpu: SceneGpu,
    output: OwnedImage,
    readback: Option<OwnedBuffer>,
    settings: Settings,
    frames: u64,
    rebuilds: u64,
    /// The last frame's unjittered view-projection (TAA's motion vectors).
    previous_view_proj: Option<glam::Mat4>,
    /// The frame count where TAA's jitter sequence restarted (a resize, a change of `aa`):
    /// the jitter of a frame is picked by the frames since, so the first frame after a
    /// resize is the one a renderer opened at that size draws first.
    taa_epoch: u64,
    /// TAA's frames accumulated since its history was reset (the `taa` pass counts them).
    taa_frames: std::cell::Cell<u64>,
    /// What the persistent environment resources hold (their writers are skipped while it
    /// is this frame's sky).
    environment: crate::frame::environment::Content,
    /// The egui frame every following frame paints ([`Renderer::set_ui`]): its primitives
    /// and pixels per point.
    ui: Option<(Vec<egui::ClippedPrimitive>, f32)>,
    /// egui's textures and the `ui` pass's pipeline, made on the first `set_ui`.
    ui_gpu: Option<RefCell<UiGpu>>,
    /// Textures egui freed, retired after the next frame.
    ui_free: Vec<egui::TextureId>,
    /// The `ui` buffers' capacities so far (they only grow: the graph stays the same).
    ui_capacity: (u64, u64),
    /// The next `render_to` copies the presented image into `capture`.
    capture_next: bool,
    /// Whether the images handed to `render_to` allow `TRANSFER_SRC`.
    targets_readable: bool,
    /// The presented frame's read-back buffer, allocated on the first capture and kept
    /// while the size stays.
    capture: Option<OwnedBuffer>,
    /// Which buffer holds the last picture read back.
    last_read: LastRead,
    /// The animation time drawn and the scene's rest pose.
    pose: Pose,
}

/// Where [`Renderer::picture`] finds the last frame read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LastRead {
    /// `readback`, the renderer's own output (RGBA).
    Output,
    /// `capture`, a presented image; `bgra`: its bytes are BGRA.
    Capture { bgra: bool },
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("scene", &self.scene.name)
            .field("frames", &self.frames)
            .finish()
    }
}

/// The graph of the frame the renderer would declare for `scene` with `settings` at time 0,
/// without a device (`tessera plan --frame`, `tessera graph --frame`). Its bodies cannot
/// record; the imported buffers take the scene's sizes.
pub fn frame_graph(scene: &Scene, settings: &Settings) -> Graph {
    let sizes = (
        std::mem::size_of_val(scene.vertices.as_slice()) as u64,
        std::mem::size_of_val(scene.indices.as_slice()) as u64,
    );
    let readback = settings
        .read_back
        .then(|| u64::from(settings.width.max(1)) * u64::from(settings.height.max(1)) * 4);
    FrameSource {
        scene,
        settings,
        frame: 0,
        previous: None,
        taa_frames: None,
        environment: Default::default(),
        deform: &Deformation::None,
    }
    .declare(0.0, sizes, &[], readback, None, None)
    .0
}

/// The depth resolve mode the forward prepass uses with a device of `modes`: `wanted` if
/// it has it, else `SampleZero` (every device with depth resolve has it), else none (a
/// single-sampled prepass).
pub fn depth_resolve_in(
    wanted: Option<tessera_graph::ResolveMode>,
    modes: tessera_graph::ResolveModes,
) -> Option<tessera_graph::ResolveMode> {
    wanted.and_then(|m| {
        [m, tessera_graph::ResolveMode::SampleZero]
            .into_iter()
            .find(|&m| modes.contains(m))
    })
}

/// The graph format of a presentable 8-bit swapchain format, if it is one.
fn present_format(f: vk::Format) -> Option<tessera_graph::Format> {
    use tessera_graph::Format as F;
    [
        F::B8G8R8A8_SRGB,
        F::B8G8R8A8_UNORM,
        F::R8G8B8A8_SRGB,
        F::R8G8B8A8_UNORM,
    ]
    .into_iter()
    .find(|&g| tessera_vk::conv::format(g) == f)
}

/// The name of the output image in the graph.
pub const OUTPUT: &str = "output";

/// The output image's extent: the logical size, its sides swapped by a quarter-turn
/// `output_rotation`.
pub fn physical_extent(settings: &Settings) -> vk::Extent2D {
    let (width, height) = settings
        .output_rotation
        .swap((settings.width.max(1), settings.height.max(1)));
    vk::Extent2D { width, height }
}

fn output_targets(
    gpu: &Gpu,
    settings: &Settings,
) -> Result<(OwnedImage, Option<OwnedBuffer>), RenderError> {
    let extent = physical_extent(settings);
    // TRANSFER_DST: the compute post chain copies its result in.
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::TRANSFER_SRC
        | vk::ImageUsageFlags::TRANSFER_DST;
    let mut image = OwnedImage::new(
        gpu,
        tessera_vk::conv::format(OUTPUT_FORMAT),
        extent,
        1,
        usage,
        OUTPUT,
    )?;
    if !settings.read_back {
        return Ok((image, None));
    }
    let bytes = u64::from(extent.width) * u64::from(extent.height) * 4;
    match OwnedBuffer::new(
        gpu,
        bytes,
        vk::BufferUsageFlags::TRANSFER_DST,
        true,
        "readback",
    ) {
        Ok(b) => Ok((image, Some(b))),
        Err(e) => {
            image.destroy(gpu);
            Err(e.into())
        }
    }
}

impl Renderer {
    /// Opens the renderer on `gpu` with `scene`.
    pub fn new(
        gpu: Arc<Gpu>,
        scene: Scene,
        mut settings: Settings,
    ) -> Result<Renderer, RenderError> {
        settings.features.check().map_err(RenderError::Frame)?;
        settings.features.msaa = crate::gpu::samples::clamp_msaa(&gpu, settings.features.msaa);
        settings.features.lighting =
            crate::gpu::lighting_support::clamp_lighting(&gpu, settings.features.lighting);
        settings.depth_resolve = depth_resolve_in(
            settings.depth_resolve,
            gpu.capabilities().depth_resolve_modes,
        );
        settings.tonemap_per_sample &= gpu.sample_rate_shading;
        // Every image of the frame within the device's limits, before any is created.
        gpu.check_extents(&frame_graph(&scene, &settings))?;
        let mut exec = Executor::new(
            gpu.clone(),
            ExecOptions {
                emulate_async: settings.emulate_async,
                // The output, the scene's buffers and the read-back are the renderer's.
                imports_handed_in: true,
                tile_rules: settings.tile_rules,
            },
        )?;
        let mut pipelines = Pipelines::new(&gpu)?;
        let samplers = exec
            .sampler(SamplerDesc::LINEAR_CLAMP)
            .and_then(|l| Ok((l, exec.sampler(SamplerDesc::NEAREST_CLAMP)?)));
        match samplers {
            Ok((linear, nearest)) => {
                pipelines.shaders.linear = linear;
                pipelines.shaders.nearest = nearest;
            }
            Err(e) => {
                pipelines.destroy(&gpu);
                return Err(e.into());
            }
        }
        let scene_gpu = match SceneGpu::new(&gpu, &mut exec, &pipelines.layouts, &scene) {
            Ok(s) => s,
            Err(e) => {
                pipelines.destroy(&gpu);
                return Err(e);
            }
        };
        let targets = output_targets(&gpu, &settings);
        let (output, readback) = match targets {
            Ok(t) => t,
            Err(e) => {
                let mut s = scene_gpu;
                s.destroy(&gpu);
                pipelines.destroy(&gpu);
                return Err(e);
            }
        };
        Ok(Renderer {
            exec,
            pipelines: RefCell::new(pipelines),
            scene_gpu,
            output,
            readback,
            settings,
            frames: 0,
            rebuilds: 0,
            previous_view_proj: None,
            taa_epoch: 0,
            taa_frames: std::cell::Cell::new(0),
            environment: Default::default(),
            ui: None,
            ui_gpu: None,
            ui_free: Vec::new(),
            ui_capacity: (0, 0),
            capture_next: false,
            targets_readable: false,
            capture: None,
            last_read: LastRead::Output,
            pose: Pose::of(&scene),
            scene,
        })
    }

    /// The device.
    pub fn gpu(&self) -> &Arc<Gpu> {
        self.exec.gpu()
    }

    /// The settings in use.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The scene drawn.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The pass spans of the frames timed since the last call
    /// ([`Executor::take_frame_times`]).
    pub fn take_frame_times(&mut self) -> Vec<tessera_vk::executor::FrameTimes> {
        self.exec.take_frame_times()
    }

    /// The executor (its plan, timings and counters).
    pub fn executor(&self) -> &Executor {
        &self.exec
    }

    /// Pipelines created so far.
    pub fn pipelines_created(&self) -> u64 {
        let p = self.pipelines.borrow();
        p.created + p.shaders.created
    }

    /// Frames that re-planned.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    /// Mean GPU time per pass.
    pub fn timings(&self) -> Vec<PassTiming> {
        self.exec.timings()
    }

    /// The newest completed frame's GPU pass times, kept across re-plans
    /// ([`Executor::newest_frame`]): what a UI shows, since [`Renderer::timings`] starts over
    /// at every re-plan and a toggle every frame or two would leave it empty.
    pub fn newest_gpu_frame(&self) -> Option<&TimedFrame> {
        self.exec.newest_frame()
    }

    /// The running plan's number ([`Executor::plan_generation`]): the newest frame's times
    /// are of an older plan (stale) when its `plan` differs.
    pub fn plan_generation(&self) -> u64 {
        self.exec.plan_generation()
    }

    /// Changes the output size and the graph options (the next frame re-plans).
    pub fn reconfigure(
        &mut self,
        width: u32,
        height: u32,
        options: CompileOptions,
    ) -> Result<(), RenderError> {
        if (width, height) != (self.settings.width, self.settings.height) {
            let mut next = self.settings.clone();
            next.width = width;
            next.height = height;
            self.remake_output(next)?;
        }
        self.settings.options = options;
        Ok(())
    }

    /// Changes the output's pre-rotation (the next frame re-plans): the output image takes
    /// the physical extent; the logical size, the camera and the UI stay as they are.
    pub fn set_output_rotation(&mut self, rotation: Rotation) -> Result<(), RenderError> {
        if rotation != self.settings.output_rotation {
            let mut next = self.settings.clone();
            next.output_rotation = rotation;
            self.remake_output(next)?;
        }
        Ok(())
    }

    /// Takes `next` (a new size or rotation): the output and read-back re-made for it.
    fn remake_output(&mut self, next: Settings) -> Result<(), RenderError> {
        let gpu = self.exec.gpu().clone();
        // The new size's images within the device's limits, before any is made.
        gpu.check_extents(&frame_graph(&self.scene, &next))?;
        self.wait()?;
        let (output, readback) = output_targets(&gpu, &next)?;
        self.output.destroy(&gpu);
        if let Some(b) = &mut self.readback {
            b.destroy(&gpu);
        }
        self.output = output;
        self.readback = readback;
        self.settings = next;
        // TAA starts again: its history is re-made at the new size.
        self.taa_epoch = self.frames;
        self.previous_view_proj = None;
        // A capture of the old size is of no use any more.
        if let Some(mut b) = self.capture.take() {
            b.destroy(&gpu);
        }
        self.last_read = LastRead::Output;
        Ok(())
    }

    /// Changes the frame's features (the next frame declares them, and re-plans if the
    /// graph changed). Features that cannot be rendered (`Features::check`) are the
    /// caller's to refuse; here MSAA is only clamped to the device's counts, and compute
    /// lighting falls back to raster where the device cannot store HDR.
    pub fn set_features(&mut self, mut features: Features) {
        if features.msaa != self.settings.features.msaa {
            features.msaa = crate::gpu::samples::clamp_msaa(self.gpu(), features.msaa);
        } else {
            features.msaa = self.settings.features.msaa;
        }
        if features.lighting != self.settings.features.lighting {
            features.lighting =
                crate::gpu::lighting_support::clamp_lighting(self.gpu(), features.lighting);
        }
        if features.aa != self.settings.features.aa {
            self.taa_epoch = self.frames;
        }
        self.settings.features = features;
    }

    /// Draws the scene's animations at `time` seconds from the next frame on (each looping
    /// over its duration); `None` (the default) draws the rest pose, the file's static node
    /// transforms. Nothing changes for a scene without animations.
    pub fn set_animation_time(&mut self, time: Option<f32>) {
        self.pose.set_time(time);
    }

    /// The animation time drawn ([`Renderer::set_animation_time`]).
    pub fn animation_time(&self) -> Option<f32> {
        self.pose.time()
    }

    /// Replaces the scene (uploads the new one once the GPU is done with the old one).
    pub fn set_scene(&mut self, scene: Scene) -> Result<(), RenderError> {
        self.wait()?;
        let gpu = self.exec.gpu().clone();
        let next = SceneGpu::new(
            &gpu,
            &mut self.exec,
            &self.pipelines.borrow().layouts,
            &scene,
        )?;
        let mut old = std::mem::replace(&mut self.scene_gpu, next);
        old.destroy(&gpu);
        let time = self.pose.time();
        self.pose = Pose::of(&scene);
        self.pose.set_time(time);
        self.scene = scene;
        // The history (TAA, exposure) holds the old scene: the next frame starts over.
        self.exec.forget_history(&mut FrameBodies::empty())?;
        Ok(())
    }

    /// `Some`: every following frame paints this egui frame over the output in the `ui`
    /// pass; its texture delta is applied now (uploads go with
    /// the next frame; freed textures go after it). Handing in a new frame each frame never
    /// re-plans, unless its meshes outgrow the buffers' capacity (then once). `None`: no
    /// `ui` pass (the next frame re-plans); egui's textures stay.
    pub fn set_ui(&mut self, ui: Option<UiFrame>) -> Result<(), RenderError> {
        let Some(ui) = ui else {
            self.ui = None;
            return Ok(());
        };
        if self.ui_gpu.is_none() {
            self.ui_gpu = Some(RefCell::new(UiGpu::new(self.exec.gpu())?));
        }
        let gpu = self.exec.gpu().clone();
        if let Some(ui_gpu) = &self.ui_gpu {
            let delta = &ui.textures_delta;
            ui_gpu
                .borrow_mut()
                .apply(&gpu, &mut self.exec, delta, self.frames)?;
        }
        self.ui_free.extend(ui.textures_delta.free.iter().copied());
        self.ui = Some((ui.primitives, ui.pixels_per_point));
        Ok(())
    }

    /// egui's textures alive on the GPU (0 before the first [`Renderer::set_ui`]).
    pub fn ui_textures(&self) -> usize {
        self.ui_gpu
            .as_ref()
            .map_or(0, |u| u.borrow().texture_count())
    }

    /// The next frame's `ui` inputs: the meshes packed for the output, the capacities
    /// grown to hold them.
    fn ui_inputs(&mut self) -> Option<UiInputs> {
        let (primitives, ppp) = self.ui.as_ref()?;
        let size = (self.settings.width.max(1), self.settings.height.max(1));
        let meshes = UiMeshes::pack(primitives, *ppp, size);
        let (v, i) = meshes.bytes();
        let (cv, ci) = self.ui_capacity;
        self.ui_capacity = (cv.max(ui::capacity(v)), ci.max(ui::capacity(i)));
        Some(UiInputs {
            meshes,
            capacity: self.ui_capacity,
        })
    }

    /// The next [`Renderer::render_to`] also copies the presented image (UI included)
    /// into a host-visible buffer, and [`Renderer::picture`] afterwards returns that frame.
    /// The graph gains the `readback` pass for that frame only (it re-plans, and the frame
    /// after re-plans back). The images must allow the copy
    /// ([`Renderer::set_targets_readable`]), else that `render_to` fails.
    pub fn capture_next(&mut self) {
        self.capture_next = true;
    }

    /// Whether the images handed to [`Renderer::render_to`] were created with
    /// `TRANSFER_SRC` usage (`tessera_vk::swapchain::Swapchain::can_read_back`); false until
    /// said, so that a capture fails with a clear error rather than copying from an image
    /// that forbids it. Say it again after every swapchain re-creation.
    pub fn set_targets_readable(&mut self, readable: bool) {
        self.targets_readable = readable;
    }

    /// The capture buffer for `bytes`, allocated or re-allocated (after the frames in
    /// flight) when missing or of another size.
    fn capture_buffer(&mut self, bytes: u64) -> Result<(), RenderError> {
        if self.capture.as_ref().is_some_and(|b| b.size != bytes) {
            self.wait()?;
            let gpu = self.exec.gpu().clone();
            if let Some(mut b) = self.capture.take() {
                b.destroy(&gpu);
            }
        }
        if self.capture.is_none() {
            let gpu = self.exec.gpu().clone();
            self.capture = Some(OwnedBuffer::new(
                &gpu,
                bytes,
                vk::BufferUsageFlags::TRANSFER_DST,
                true,
                "capture",
            )?);
        }
        Ok(())
    }

    /// The sun's direction of the next frames (the way its light travels; `None`: the
    /// scene's). A scene without a sun keeps none. The graph does not change, but the
    /// environment's passes run again on the next frame: the sky follows the sun.
    pub fn set_sun(&mut self, direction: Option<glam::Vec3>) {
        self.settings.sun = direction.filter(|d| d.is_finite() && d.length_squared() > 0.0);
    }

    /// The executor's epochs of the persistent environment resources.
    fn environment_epochs(&self) -> Epochs {
        Epochs {
            specular: self.exec.persistent_epoch(names::SPECULAR),
            irradiance: self.exec.persistent_epoch(names::IRRADIANCE),
            brdf: self.exec.persistent_epoch(names::BRDF),
        }
    }

    /// The view of the next frames (`None`: the scene's). The graph does not depend on it:
    /// no re-plan. An unusable view ([`View::is_usable`]) renders the scene's, with a warning.
    pub fn set_camera(&mut self, view: Option<View>) {
        if let Some(v) = view.filter(|v| !v.is_usable()) {
            log::warn!("unusable camera {v:?}: the scene's view is drawn instead");
        }
        self.settings.camera = view;
    }

    /// Replaces the shaders by those of `dir` (the repository's `shaders/render/`): see
    /// [`crate::shaders::ShaderSources::with_dir`] for which files count. Every module in use
    /// is compiled from the new sources first; if one fails, that is the error (its file and
    /// line) and nothing changes. Otherwise, once the GPU is idle, the pipelines are dropped
    /// and the next frame creates them from the new code (the plan stays).
    pub fn reload_shaders(&mut self, dir: &std::path::Path) -> Result<ReloadReport, RenderError> {
        let (sources, read) = self.pipelines.borrow().sources().with_dir(dir)?;
        let mut report = ReloadReport {
            files: read.files,
            changed: read.changed,
            compiled: 0,
        };
        if report.changed.is_empty() {
            return Ok(report);
        }
        let gpu = self.exec.gpu().clone();
        let next = self.pipelines.borrow().compile_all(&gpu, &sources)?;
        report.compiled = next.compiled;
        if let Err(e) = self.wait() {
            next.destroy(&gpu);
            return Err(e);
        }
        self.pipelines.borrow_mut().install(&gpu, next);
        log::info!(
            "shaders reloaded from {}: {} changed, {} modules compiled",
            dir.display(),
            report.changed.join(", "),
            report.compiled
        );
        Ok(report)
    }

    /// Waits for every frame in flight.
    pub fn wait(&mut self) -> Result<(), RenderError> {
        // The frames' own bodies are gone; completed frames are reported to no body.
        self.exec.finish(&mut FrameBodies::empty())?;
        Ok(())
    }

    /// Waits for the frames in flight and forgets what was made for the images handed to
    /// [`Renderer::render_to`] (their framebuffers): call it before those images' views are
    /// destroyed (a swapchain replaced or dropped).
    pub fn forget_targets(&mut self) -> Result<(), RenderError> {
        self.exec.forget_imported_views(&mut FrameBodies::empty())?;
        Ok(())
    }
}

/// What a frame's data is computed from: the scene and the settings (no device), so the
/// renderer and `tessera plan --frame` declare the same frame.
#[derive(Clone, Copy, Debug)]
pub struct FrameSource<'a> {
    /// The scene.
    pub scene: &'a Scene,
    /// The settings.
    pub settings: &'a Settings,
    /// The renderer's frame counter: picks the TAA jitter (never the clock, so a run is
    /// deterministic).
    pub frame: u64,
    /// The previous frame's unjittered view-projection (TAA's motion vectors); `None`: none
    /// (the first frame), this frame's stands for it.
    pub previous: Option<glam::Mat4>,
    /// TAA's count of frames accumulated since its history's reset, kept across frames
    /// (`None`: a frame declared for its plan only).
    pub taa_frames: Option<&'a std::cell::Cell<u64>>,
    /// Which persistent environment content is still valid (all stale: the first frame's
    /// plan, which runs the environment's passes).
    pub environment: crate::frame::environment::Validity,
    /// This frame's deformation (morph targets, skins).
    pub deform: &'a Deformation,
}

impl<'a> FrameSource<'a> {
    /// The view drawn: the settings' camera when usable, else the scene's.
    pub fn view(&self) -> View {
        self.settings
            .camera
            .filter(View::is_usable)
            .unwrap_or_else(|| View::of(self.scene))
    }

    /// The frame constants, point lights and view of the frame at `time` seconds.
    pub fn frame_data(&self, time: f32) -> (FrameData, Vec<PointLightData>, View) {
        let view = self.view();
        let aspect = self.settings.width.max(1) as f32 / self.settings.height.max(1) as f32;
        // The frame's passes draw at the render size (the resolution scale's).
        let render = crate::builder::render_extent(
            vk::Extent2D {
                width: self.settings.width.max(1),
                height: self.settings.height.max(1),
            },
            self.settings.features.resolution_scale,
        );
        let mut data = FrameData::new(
            view.view_proj(aspect),
            view.position,
            (render.width, render.height),
        );
        let a = self.settings.ambient;
        data.ambient = [a[0], a[1], a[2], 0.35];
        let mut lights = Vec::with_capacity(self.scene.lights.len());
        let positions = self.scene.light_positions_at(time);
        let mut sun = false;
        for (l, p) in self.scene.lights.iter().zip(positions) {
            let c = [
                l.color[0] * l.intensity,
                l.color[1] * l.intensity,
                l.color[2] * l.intensity,
            ];
            match l.kind {
                LightKind::Directional if !sun => {
                    let d = l.direction.normalize_or(glam::Vec3::NEG_Y);
                    data.sun_direction = [d.x, d.y, d.z, 1.0];
                    data.sun_color = [c[0], c[1], c[2], 0.0];
                    sun = true;
                }
                LightKind::Directional => log::debug!("only the first directional light is drawn"),
                LightKind::Point => lights.push(PointLightData::point(
                    p.to_array(),
                    light_range(l.range, c),
                    c,
                )),
                LightKind::Spot {
                    inner_cone,
                    outer_cone,
                } => {
                    let mut s = PointLightData::point(p.to_array(), light_range(l.range, c), c);
                    let d = l.direction.normalize_or(glam::Vec3::NEG_Z);
                    s.spot = [d.x, d.y, d.z, outer_cone.cos()];
                    s.spot_inner = [inner_cone.cos(), 0.0, 0.0, 0.0];
                    lights.push(s);
                }
            }
        }
        // `features.lights` caps the point and spot lights drawn: the scene's first ones.
        let cap = self.settings.features.lights as usize;
        if lights.len() > cap {
            lights.truncate(cap);
        }
        if !sun && lights.is_empty() {
            // A scene without lights (most glTF models) gets a default sun.
            let d = glam::Vec3::new(-0.4, -1.0, -0.3).normalize();
            data.sun_direction = [d.x, d.y, d.z, 1.0];
            data.sun_color = [3.0, 2.9, 2.7, 0.0];
        }
        if let Some(d) = self.settings.sun.and_then(|d| d.try_normalize()) {
            if data.sun_direction[3] > 0.0 {
                data.sun_direction = [d.x, d.y, d.z, 1.0];
            }
        }
        data.counts[0] = lights.len() as u32;
        let forward = (view.target - view.position).normalize_or(glam::Vec3::NEG_Z);
        data.camera_forward = [forward.x, forward.y, forward.z, 0.0];
        // What clustering and SSAO need: the view, the projection's slopes and near plane,
        // the grid, and a far depth for the exponential slices (where the scene ends).
        data.view = view.view().to_cols_array();
        let tan_y = (view.yfov * 0.5).tan();
        let b = &self.scene.bounds;
        let far = if b.min.is_finite() && b.max.is_finite() && b.min.cmple(b.max).all() {
            view.position.distance((b.min + b.max) * 0.5) + (b.max - b.min).length() * 0.5
        } else {
            100.0
        };
        data.proj = [
            tan_y * aspect,
            tan_y,
            view.znear,
            far.clamp(view.znear * 16.0, view.znear * 1e6),
        ];
        data.cluster_grid = crate::frame::clustering::grid();
        let f = &self.settings.features;
        data.flags = [
            u32::from(f.clustering),
            u32::from(f.ssao != crate::features::Ssao::Off),
            u32::from(f.ibl),
            0,
        ];
        // The SSAO radius follows the scene's size (glTF models come in any unit).
        let diagonal = if b.min.is_finite() && b.max.is_finite() && b.min.cmple(b.max).all() {
            (b.max - b.min).length()
        } else {
            0.0
        };
        let radius = if diagonal > 0.0 {
            diagonal * crate::frame::ssao::RADIUS_OF_SCENE
        } else {
            crate::frame::ssao::RADIUS
        };
        data.ssao = [radius, crate::frame::ssao::STRENGTH, 0.15, 0.0];
        // TAA: the projection moves by a sub-pixel step every frame; without TAA nothing
        // moves (the picture is the same bit for bit).
        // TAA runs single-sampled only (`Features::check`): no jitter under MSAA.
        let f = &self.settings.features;
        if f.aa == crate::features::Aa::Taa && f.msaa <= 1 {
            data = data.jittered(crate::gpu::frame_data::jitter(self.frame), self.previous);
        }
        // Shadows when switched on, with a size, and a sun to cast them (the scene's, or the
        // default sun of a scene without lights).
        if self.settings.features.shadows
            && self.settings.features.shadow_size > 0
            && data.sun_direction[3] > 0.0
        {
            let b = &self.scene.bounds;
            let (centre, radius) =
                if b.min.is_finite() && b.max.is_finite() && b.min.cmple(b.max).all() {
                    ((b.min + b.max) * 0.5, (b.max - b.min).length() * 0.5)
                } else {
                    (glam::Vec3::ZERO, 1.0)
                };
            let sun = glam::Vec3::from_slice(&data.sun_direction[..3]);
            // Shadows as far as the scene reaches from the eye (and no farther than 200 m).
            let distance = (view.position.distance(centre) + radius).clamp(1.0, 200.0);
            let c = crate::shadows::fit(
                &view,
                aspect,
                sun,
                distance,
                (
                    self.settings.features.shadow_size,
                    self.settings.features.cascades,
                ),
                centre,
                radius,
            );
            for (dst, m) in data.cascade_view_proj.iter_mut().zip(&c.view_proj) {
                *dst = m.to_cols_array();
            }
            data.cascade_splits = c.splits;
            data.shadow = [
                1.0 / self.settings.features.shadow_size as f32,
                1.0,
                c.count as f32,
                0.0,
            ];
        }
        (data, lights, view)
    }

    /// Declares the frame at `time` seconds: the graph, its bodies and its imports.
    /// `buffers` are the bytes of the scene's vertex and index buffers, `transparent` the
    /// transparent draws (sorted back to front here), `readback` the bytes of the read-back
    /// buffer if the output is copied into one, `present` the swapchain format when the
    /// output is a presented swapchain image ([`FrameInputs::present`]), `ui` the egui
    /// meshes to paint ([`FrameInputs::ui`]).
    pub fn declare(
        &self,
        time: f32,
        (vertex_bytes, index_bytes): (u64, u64),
        transparent: &[Draw],
        readback: Option<u64>,
        present: Option<tessera_graph::Format>,
        ui: Option<UiInputs>,
    ) -> (Graph, FrameBodies<'a>, frame::Imports) {
        let (data, lights, view) = self.frame_data(time);
        let mut transparent = transparent.to_vec();
        let eye = view.position;
        transparent.sort_by(|a, b| {
            (b.centre - eye)
                .length_squared()
                .total_cmp(&(a.centre - eye).length_squared())
        });
        let extent = vk::Extent2D {
            width: self.settings.width.max(1),
            height: self.settings.height.max(1),
        };
        let options = &self.settings.options;
        // The post chain can run beside the next frame only where no raster pass (the
        // UI) and no presentation (from the graphics queue) follows it.
        let async_tail = options.overlap_frames
            && options.async_compute
            && ui.is_none()
            && present.is_none()
            && self.settings.output_rotation == Rotation::R0;
        let mut fb = FrameBuilder::new("tessera deferred", extent)
            .with_scale(self.settings.features.resolution_scale);
        let imports = frame::declare(
            &mut fb,
            FrameInputs {
                features: &self.settings.features,
                vertex_bytes,
                index_bytes,
                data,
                lights,
                transparent,
                deform: self.deform.clone(),
                // The frame data says whether this frame casts shadows.
                shadow_size: if data.shadow[1] > 0.0 {
                    self.settings.features.shadow_size
                } else {
                    0
                },
                output_name: OUTPUT,
                present,
                readback,
                ui,
                rotation: self.settings.output_rotation,
                taa_frames: self.taa_frames,
                depth_resolve: self.settings.depth_resolve,
                tonemap_per_sample: self.settings.tonemap_per_sample,
                environment: self.environment,
                async_tail,
            },
        );
        let (mut graph, bodies) = fb.finish();
        if async_tail {
            // The post chain after the last raster pass runs on the async queue, beside the
            // next frame's first graphics passes (`Plan::frame_overlap`).
            tessera_graph::compile::overlap::tail_to_async(&mut graph);
        }
        (graph, bodies, imports)
    }
}

impl Renderer {
    /// Renders one frame of the scene at `time` seconds (light motion).
    pub fn render(&mut self, time: f32) -> Result<FrameStats, RenderError> {
        let stats = self.render_frame(time, None, false)?;
        self.last_read = LastRead::Output;
        Ok(stats)
    }

    /// Renders one frame at `time` seconds into `target`, a swapchain image handed in for
    /// this frame: the output is declared `per_frame` with `exit: present`, its first use
    /// waits for `wait` (the acquire semaphore) and its last signals `signal` (render
    /// finished, for the present). Nothing is read back unless [`Renderer::capture_next`]
    /// asked for this frame. `target` must have the output's extent ([`physical_extent`])
    /// ([`Renderer::reconfigure`] first on a resize) and an 8-bit BGRA/RGBA format.
    ///
    /// On an error about `target` or the capture, nothing was submitted: `wait` is still
    /// pending and `signal` will not be signalled (do not present the image).
    pub fn render_to(
        &mut self,
        time: f32,
        target: ImportedImage,
        wait: vk::Semaphore,
        signal: vk::Semaphore,
    ) -> Result<FrameStats, RenderError> {
        let want = physical_extent(&self.settings);
        let want = (want.width, want.height);
        if (target.extent.width, target.extent.height) != want {
            return Err(RenderError::Output(format!(
                "the presented image is {}x{}, the renderer's output is {}x{} (reconfigure first)",
                target.extent.width, target.extent.height, want.0, want.1
            )));
        }
        let format = present_format(target.format).ok_or_else(|| {
            RenderError::Output(format!(
                "the renderer cannot present to a {:?} image (8-bit BGRA/RGBA only)",
                target.format
            ))
        })?;
        let capture = std::mem::take(&mut self.capture_next);
        if capture {
            if !self.targets_readable {
                return Err(RenderError::Output(
                    "cannot capture the presented frame: its images were not created with \
                     TRANSFER_SRC usage (the surface does not offer it, or \
                     set_targets_readable was not called)"
                        .into(),
                ));
            }
            let bytes = u64::from(want.0) * u64::from(want.1) * 4;
            self.capture_buffer(bytes)?;
        }
        let stats = self.render_frame(time, Some((target, format, wait, signal)), capture)?;
        if capture {
            let bgra = matches!(
                format,
                tessera_graph::Format::B8G8R8A8_SRGB | tessera_graph::Format::B8G8R8A8_UNORM
            );
            self.last_read = LastRead::Capture { bgra };
        }
        Ok(stats)
    }

    fn render_frame(
        &mut self,
        time: f32,
        present: Option<(
            ImportedImage,
            tessera_graph::Format,
            vk::Semaphore,
            vk::Semaphore,
        )>,
        capture: bool,
    ) -> Result<FrameStats, RenderError> {
        let t0 = Instant::now();
        // The buffer the output is copied into this frame, if any.
        let readback = match present {
            Some(_) if capture => self.capture.as_ref(),
            Some(_) => None,
            None => self.readback.as_ref(),
        }
        .map(|b| (b.buffer, b.size));
        let ui = self.ui_inputs();
        // Animated instances where the animation time puts them; moving from where the last
        // frame drew them.
        let moving = self.previous_view_proj.is_some();
        #[cfg(feature = "test-hooks")]
        let cpu = self.settings.cpu_deform;
        #[cfg(not(feature = "test-hooks"))]
        let cpu = false;
        let deform = self
            .pose
            .apply(&mut self.scene, &mut self.scene_gpu, moving, cpu);
        let mut source = FrameSource {
            scene: &self.scene,
            settings: &self.settings,
            frame: self.frames - self.taa_epoch,
            previous: self.previous_view_proj,
            taa_frames: Some(&self.taa_frames),
            environment: Default::default(),
            deform: &deform,
        };
        let sky = SkyInputs::of(&source.frame_data(time).0);
        if !self.settings.recompute_environment {
            source.environment = self.environment.validity(&sky, self.environment_epochs());
        }
        let sizes = (self.scene_gpu.vertices.size, self.scene_gpu.indices.size);
        let (graph, mut bodies, imports) = source.declare(
            time,
            sizes,
            &self.scene_gpu.transparent,
            readback.map(|r| r.1),
            present.map(|p| p.1),
            ui,
        );
        #[cfg(feature = "test-hooks")]
        {
            bodies.skip = self.settings.skip_pass.clone();
        }
        bodies.shared = Some(Shared {
            scene: &self.scene_gpu,
            pipelines: &self.pipelines,
            ui: self.ui_gpu.as_ref(),
        });
        let t1 = Instant::now();
        let rebuilt = self
            .exec
            .prepare(&graph, &self.settings.options, &mut bodies)?;
        let view = self.settings.features.debug_view;
        if rebuilt
            && view != crate::features::DebugView::None
            && !graph.passes.iter().any(|p| p.name.as_str() == "debug view")
        {
            log::warn!(
                "debug view '{}' has nothing to show in this frame (its feature is off): the output is the frame",
                view.name()
            );
        }
        let t2 = Instant::now();
        let output = present.map_or(
            ImportedImage {
                image: self.output.image,
                view: self.output.view,
                format: self.output.format,
                extent: self.output.extent,
            },
            |p| p.0,
        );
        let images = [(imports.output.id(), output)];
        let wait = present.map(|p| p.2);
        let signal = present.map(|p| p.3);
        let mut buffers = vec![
            (imports.vertices.id(), self.scene_gpu.vertices.buffer),
            (imports.indices.id(), self.scene_gpu.indices.buffer),
        ];
        if let (Some(r), Some((b, _))) = (imports.readback, readback) {
            buffers.push((r.id(), b));
        }
        if let (Some(refs), Some(d)) = (imports.deform, &self.scene_gpu.deform) {
            buffers.extend(refs.iter().map(|r| r.id()).zip(d.buffers()));
        }
        self.exec.frame(
            &mut bodies,
            &FrameImports {
                images: &images,
                buffers: &buffers,
                wait: wait.as_slice(),
                signal: signal.as_slice(),
            },
        )?;
        let cpu = self.exec.last_frame_cpu();
        let epochs = self.environment_epochs();
        self.environment.submitted(sky, source.environment, epochs);
        // The next frame's motion vectors start from this frame's unjittered view.
        let aspect = self.settings.width.max(1) as f32 / self.settings.height.max(1) as f32;
        self.previous_view_proj = Some(source.view().view_proj(aspect));
        self.frames += 1;
        self.rebuilds += u64::from(rebuilt);
        if let Some(ui_gpu) = &self.ui_gpu {
            // egui frees textures after the frame that painted with them.
            let mut ui_gpu = ui_gpu.borrow_mut();
            ui_gpu.free(&std::mem::take(&mut self.ui_free), self.frames);
            ui_gpu.collect(self.exec.gpu(), self.frames);
        }
        let us = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e6;
        Ok(FrameStats {
            declare_us: us(t0, t1),
            prepare_us: us(t1, t2),
            wait_us: cpu.wait_us,
            record_us: cpu.record_us,
            submit_us: cpu.submit_us,
            rebuilt,
        })
    }

    /// The last picture read back (waits for it), as RGBA8 rows top to bottom: the last
    /// [`Renderer::render`] frame's output (`None` when read-back is off), or the last
    /// captured [`Renderer::render_to`] frame ([`Renderer::capture_next`]), whichever came
    /// later. A captured BGRA image is swizzled to RGBA; the bytes are the image's encoded
    /// values either way: for an sRGB swapchain format the same bytes as `render`'s sRGB
    /// output, for a UNORM one what the shaders wrote, unencoded (what the window shows).
    pub fn picture(&mut self) -> Result<Option<Picture>, RenderError> {
        self.wait()?;
        let (w, h) = (self.output.extent.width, self.output.extent.height);
        let (buffer, bgra) = match self.last_read {
            LastRead::Output => (self.readback.as_ref(), false),
            LastRead::Capture { bgra } => (self.capture.as_ref(), bgra),
        };
        let Some(bytes) = buffer.and_then(|b| b.mapped()) else {
            return Ok(None);
        };
        let n = (w as usize) * (h as usize) * 4;
        // Row 0 of the image is the picture's top (the Y-up viewport maps clip-space +Y
        // there), as PNG wants it: no flip.
        let mut rgba = bytes
            .get(..n)
            .ok_or_else(|| RenderError::Output("read-back buffer too small".into()))?
            .to_vec();
        if bgra {
            for px in rgba.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        Ok(Some(Picture {
            width: w,
            height: h,
            rgba,
        }))
    }

    /// Waits for the GPU and frees everything (as dropping does).
    pub fn destroy(self) {}
}

impl Drop for Renderer {
    fn drop(&mut self) {
        if let Err(e) = self.wait() {
            log::error!("waiting for the GPU before freeing the renderer: {e}");
        }
        let gpu = self.exec.gpu().clone();
        self.scene_gpu.destroy(&gpu);
        self.output.destroy(&gpu);
        if let Some(b) = &mut self.readback {
            b.destroy(&gpu);
        }
        if let Some(b) = &mut self.capture {
            b.destroy(&gpu);
        }
        self.pipelines.borrow_mut().destroy(&gpu);
        if let Some(ui) = &self.ui_gpu {
            ui.borrow_mut().destroy(&gpu);
        }
        // The executor's own objects go when it drops, after this.
    }
}
