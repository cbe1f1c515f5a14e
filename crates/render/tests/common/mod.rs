//! What the renderer's GPU tests share: the validated lavapipe device, small settings,
//! rendering a few frames with zero validation messages, and golden images.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tessera_graph::CompileOptions;
use tessera_render::features::{Aa, Features};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings};
use tessera_scene::Scene;
use tessera_vk::{Gpu, GpuOptions};

/// Test output width (CI renders small).
pub const W: u32 = 320;
/// Test output height.
pub const H: u32 = 180;

/// lavapipe with validation and synchronization validation.
pub fn gpu() -> Arc<Gpu> {
    Arc::new(
        Gpu::new(&GpuOptions {
            validation: true,
            surface: None,
            ..Default::default()
        })
        .expect("a Vulkan device (lavapipe) with validation"),
    )
}

/// Settings at W×H with `features` (512-texel cascades unless they say otherwise).
pub fn settings_with(options: CompileOptions, features: Features) -> Settings {
    Settings {
        width: W,
        height: H,
        options,
        features,
        ..Settings::default()
    }
}

/// The default features with 512-texel shadow cascades (enough for 320×180, quick on a CPU
/// rasteriser) and FXAA in place of the default TAA: the golden images, the pass lists and
/// the tests that compare consecutive frames are about a frame that is the same every time,
/// which TAA's jitter and history are not by design (`taa_gpu.rs` tests TAA).
pub fn small_features() -> Features {
    Features {
        shadow_size: 512,
        aa: Aa::Fxaa,
        ..Features::default()
    }
}

/// `s` on the raster post chain: the golden images were made with it (the compute chain's
/// pictures are within a rounding step of them, `post_compute_gpu.rs`).
pub fn raster_post(mut s: Settings) -> Settings {
    s.features.post = tessera_render::features::PostPath::Raster;
    s
}

/// Renders `frames` frames and returns the last picture; asserts no validation message.
pub fn render(gpu: &Arc<Gpu>, scene: Scene, s: Settings, frames: u64) -> Picture {
    let before = gpu.messages.count();
    let mut r = Renderer::new(gpu.clone(), scene, s).expect("renderer");
    for f in 0..frames {
        r.render(f as f32 / 60.0).expect("frame");
    }
    let p = r.picture().expect("read back").expect("a picture");
    r.destroy();
    assert_no_messages_since(gpu, before);
    p
}

/// Asserts that the validation layers reported nothing since `before` messages.
pub fn assert_no_messages_since(gpu: &Gpu, before: u64) {
    assert_eq!(
        gpu.messages.count() - before,
        0,
        "validation: {:#?}",
        gpu.messages.texts()
    );
}

/// Where the golden image `name` lives.
pub fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

/// Compares with the committed golden image (`TESSERA_BLESS=1` rewrites it).
pub fn check_golden(name: &str, picture: &Picture) {
    let path = golden_path(name);
    if std::env::var_os("TESSERA_BLESS").is_some() {
        picture.write_png(&path).expect("write golden");
        return;
    }
    let golden =
        Picture::read_png(&path).unwrap_or_else(|e| panic!("{e} (bless with TESSERA_BLESS=1)"));
    let d = picture
        .difference(&golden)
        .expect("same size as the golden image");
    if !d.within_tolerance(u64::from(picture.width * picture.height)) {
        let out = std::env::temp_dir().join(format!("tessera-{name}-actual.png"));
        let _ = picture.write_png(&out);
        panic!(
            "{name}: {d:?} exceeds the golden tolerance; the picture is at {}",
            out.display()
        );
    }
}

/// The renderer's frame at `width`×`height` with `features`, compiled for `profile` with
/// every optimisation on, without a device: the graph and its plan.
pub fn frame_plan(
    (width, height): (u32, u32),
    profile: &str,
    features: Features,
) -> (tessera_graph::Graph, tessera_graph::Plan) {
    let settings = Settings {
        width,
        height,
        features,
        profile: profile.into(),
        ..Settings::default()
    };
    let graph = tessera_render::frame_graph(&tessera_scene::builtin(), &settings);
    let caps = tessera_graph::Capabilities::profile(profile).expect("profile");
    let plan =
        tessera_graph::compile(&graph, &caps, &CompileOptions::ALL).expect("the frame compiles");
    (graph, plan)
}

/// The render pass of `plan` that holds `pass` as a subpass, if any.
pub fn render_pass_holding<'p>(
    plan: &'p tessera_graph::Plan,
    pass: &str,
) -> Option<&'p tessera_graph::plan::RenderPass> {
    plan.render_passes
        .iter()
        .find(|rp| rp.subpasses.iter().any(|s| s.as_str() == pass))
}

/// A binary semaphore, signalled by an empty submit (what an acquire would do).
pub fn signalled_semaphore(gpu: &Gpu) -> ash::vk::Semaphore {
    let s = semaphore(gpu);
    let sig = [ash::vk::SemaphoreSubmitInfo::default()
        .semaphore(s)
        .stage_mask(ash::vk::PipelineStageFlags2::ALL_COMMANDS)];
    let info = ash::vk::SubmitInfo2::default().signal_semaphore_infos(&sig);
    // SAFETY: an empty submit signalling a fresh binary semaphore.
    unsafe {
        gpu.device
            .queue_submit2(gpu.graphics.queue, &[info], ash::vk::Fence::null())
    }
    .unwrap();
    s
}

/// A fresh binary semaphore.
pub fn semaphore(gpu: &Gpu) -> ash::vk::Semaphore {
    // SAFETY: a complete create info; the caller destroys it.
    unsafe {
        gpu.device
            .create_semaphore(&ash::vk::SemaphoreCreateInfo::default(), None)
    }
    .unwrap()
}

/// Waits on `s` with an empty submit and a fence (what a present would do), on the host.
pub fn wait_semaphore(gpu: &Gpu, s: ash::vk::Semaphore) {
    let d = &gpu.device;
    // SAFETY: complete create info; destroyed below.
    let fence = unsafe { d.create_fence(&ash::vk::FenceCreateInfo::default(), None) }.unwrap();
    let wait = [ash::vk::SemaphoreSubmitInfo::default()
        .semaphore(s)
        .stage_mask(ash::vk::PipelineStageFlags2::ALL_COMMANDS)];
    let info = ash::vk::SubmitInfo2::default().wait_semaphore_infos(&wait);
    // SAFETY: an empty submit waiting for a semaphore a frame signals; the fence is waited
    // (a frame that never signals fails the test after 10 s instead of hanging it).
    unsafe {
        d.queue_submit2(gpu.graphics.queue, &[info], fence).unwrap();
        d.wait_for_fences(&[fence], true, 10_000_000_000)
            .expect("the frame signals its semaphore");
        d.destroy_fence(fence, None);
    }
}
