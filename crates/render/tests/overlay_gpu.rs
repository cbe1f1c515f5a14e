//! The text overlay and the screenshot of a presented frame on lavapipe, with zero
//! validation and synchronization-validation messages:
//! - the `overlay` pass changes only the pixels of its panel, is the same picture with every
//!   optimisation off, and changing only its text never re-plans;
//! - `capture_next` + `render_to` into an image standing in for a swapchain image (BGRA and
//!   RGBA, sRGB) reads back exactly what `render` draws, and fails clearly on images that
//!   forbid the copy.

mod common;

use ash::vk;
use common::*;
use std::sync::Arc;
use tessera_graph::CompileOptions;
use tessera_render::features::{Exposure, Features};
use tessera_render::png_out::Picture;
use tessera_render::{OverlayLine, OverlayText, Renderer, Settings};
use tessera_vk::resources::OwnedImage;
use tessera_vk::Gpu;

const WHITE: [u8; 3] = [255, 255, 255];
const GREEN: [u8; 3] = [0, 255, 0];

/// A fixed exposure: every frame at one time is the same picture, whatever came before.
fn features() -> Features {
    Features {
        exposure: Exposure::Fixed(1.0),
        ..small_features()
    }
}

fn settings(options: CompileOptions) -> Settings {
    settings_with(options, features())
}

/// What the app shows, with `n` in it (so the text changes frame to frame).
fn text(n: u32) -> OverlayText {
    OverlayText {
        lines: vec![
            OverlayLine::new(format!("FPS {n}.0   cpu 3.2 ms"), WHITE),
            OverlayLine::new("gpu: gbuffer 0.41 ms  lighting 0.22 ms", GREEN),
            OverlayLine::new("[F1] overlay  [F2] ssao: gbuffer  [F12] screenshot", WHITE),
        ],
    }
}

fn assert_clean(gpu: &Gpu, before: u64) {
    assert_eq!(
        gpu.messages.count() - before,
        0,
        "validation: {:#?}",
        gpu.messages.texts()
    );
}

fn picture(r: &mut Renderer) -> Picture {
    r.picture().expect("read back").expect("a picture")
}

fn pixel(p: &Picture, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * p.width + x) * 4) as usize;
    p.rgba[i..i + 4].try_into().unwrap()
}

const TIME: f32 = 0.5;

#[test]
fn the_overlay_draws_only_its_panel_and_new_text_never_replans() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let mut r = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
    )
    .expect("renderer");
    r.render(TIME).expect("frame");
    let plain = picture(&mut r);

    r.set_overlay(Some(text(60)));
    let stats = r.render(TIME).expect("frame");
    assert!(stats.rebuilt, "switching the overlay on changes the graph");
    let plan = r.executor().plan().expect("a plan").clone();
    let order: Vec<String> = plan.order.iter().map(|n| n.to_string()).collect();
    assert!(order.iter().any(|n| n == "overlay"), "{order:?}");
    let at = |n: &str| order.iter().position(|o| o == n).expect(n);
    assert!(
        at("fxaa") < at("overlay") && at("overlay") < at("readback"),
        "{order:?}"
    );
    let with = picture(&mut r);
    // `tessera plan --frame` declares the same frame from the same settings.
    let live = r.executor().graph().expect("a graph").clone();
    assert!(r.settings().overlay);
    let offline = tessera_render::frame_graph(r.scene(), r.settings());
    assert_eq!(offline.passes, live.passes);

    let panel = text(60).panel(W, H).expect("a panel");
    let (mut inside, mut changed, mut white) = (0u32, 0u32, 0u32);
    for y in 0..H {
        for x in 0..W {
            let (a, b) = (pixel(&plain, x, y), pixel(&with, x, y));
            if panel.contains(x, y) {
                inside += 1;
                changed += u32::from(a != b);
                white += u32::from(b[..3] == WHITE);
            } else {
                assert_eq!(a, b, "pixel ({x}, {y}) outside the panel {panel:?} changed");
            }
        }
    }
    assert!(
        changed * 10 > inside * 9,
        "only {changed} of the panel's {inside} pixels changed"
    );
    assert!(white > 50, "{white} white glyph pixels");
    eprintln!(
        "panel {panel:?}: {changed}/{inside} pixels changed, {white} white; render passes {:?}",
        plan.render_passes
            .iter()
            .map(|rp| rp
                .subpasses
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );

    // New text every frame (other lengths, another line count): no re-plan.
    let rebuilds = r.rebuilds();
    let mut last = with;
    for n in [61, 7, 1234] {
        let mut t = text(n);
        if n == 7 {
            t.lines.push(OverlayLine::new("one more line", GREEN));
        }
        r.set_overlay(Some(t));
        let stats = r.render(TIME).expect("frame");
        assert!(!stats.rebuilt, "new text re-planned");
        let p = picture(&mut r);
        assert!(p != last, "the text changed, the picture did not");
        last = p;
    }
    assert_eq!(r.rebuilds(), rebuilds);

    // Off again: the frame without the overlay, to the byte.
    r.set_overlay(None);
    assert!(r.render(TIME).expect("frame").rebuilt);
    assert!(
        picture(&mut r) == plain,
        "switched off, the overlay left a trace"
    );
    r.destroy();
    assert_clean(&gpu, before);
}

fn overlay_frame(gpu: &Arc<Gpu>, options: CompileOptions, features: Features) -> Picture {
    let before = gpu.messages.count();
    let mut s = settings_with(options, features);
    s.overlay = true;
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    r.set_overlay(Some(text(60)));
    r.render(TIME).expect("frame");
    r.render(TIME).expect("frame");
    let p = picture(&mut r);
    r.destroy();
    assert_clean(gpu, before);
    p
}

/// Whatever the compiler does with the overlay (a subpass of the last post pass, or a render
/// pass of its own), the picture is the same; also when tone mapping writes the output
/// itself, and when the exposure debug view draws its panel first.
#[test]
fn the_overlay_frame_is_the_same_with_every_optimisation_off() {
    let gpu = gpu();
    let direct = Features {
        aa: tessera_render::features::Aa::Off,
        ..features()
    };
    let exposure_view = Features {
        debug_view: tessera_render::features::DebugView::Exposure,
        exposure: Exposure::Auto { compensation: 1.0 },
        ..small_features()
    };
    for (name, f) in [
        ("default", features()),
        ("no fxaa", direct),
        ("exposure view", exposure_view),
    ] {
        let none = overlay_frame(&gpu, CompileOptions::NONE, f.clone());
        let all = overlay_frame(&gpu, CompileOptions::ALL, f);
        assert!(
            none == all,
            "{name}: every optimisation off differs from all on: {:?}",
            none.difference(&all)
        );
    }
}

/// `tessera plan --frame` sees the overlay the app runs: `frame_graph` declares it when
/// `Settings::overlay` is on, as the last raster pass, and it compiles on every profile
/// with every optimisation on, off, or one off.
#[test]
fn the_planned_frame_has_the_overlay_last() {
    let scene = tessera_scene::builtin();
    let mut s = settings(CompileOptions::ALL);
    assert!(!tessera_render::frame_graph(&scene, &s)
        .passes
        .iter()
        .any(|p| p.name.as_str() == "overlay"));
    s.overlay = true;
    let graph = tessera_render::frame_graph(&scene, &s);
    let mut options = vec![CompileOptions::ALL, CompileOptions::NONE];
    for i in 0..6 {
        let mut o = CompileOptions::ALL;
        *[
            &mut o.merge,
            &mut o.memoryless,
            &mut o.alias,
            &mut o.async_compute,
            &mut o.reorder,
            &mut o.minimize_syncs,
        ][i] = false;
        options.push(o);
    }
    for profile in ["desktop", "mali", "adreno"] {
        let caps = tessera_graph::Capabilities::profile(profile).expect("profile");
        for o in &options {
            let plan = tessera_graph::compile(&graph, &caps, o).expect("compiles");
            let raster: Vec<String> = plan
                .render_passes
                .iter()
                .flat_map(|rp| rp.subpasses.iter().map(|s| s.to_string()))
                .collect();
            assert_eq!(
                raster.last().map(String::as_str),
                Some("overlay"),
                "{profile} {o:?}: {raster:?}"
            );
            let order: Vec<String> = plan.order.iter().map(|n| n.to_string()).collect();
            assert_eq!(
                order.last().map(String::as_str),
                Some("readback"),
                "{order:?}"
            );
            let last: Vec<String> = plan
                .render_passes
                .last()
                .expect("render passes")
                .subpasses
                .iter()
                .map(|s| s.to_string())
                .collect();
            eprintln!("{profile} merge {}: last render pass {last:?}", o.merge);
            // The compute post chain (the desktop default) leaves the overlay a render pass
            // of its own; the raster one's `fxaa` merges with it.
            let raster_post = features().post == tessera_render::features::PostPath::Raster;
            if o.merge && raster_post {
                assert_eq!(last, ["fxaa", "overlay"], "{profile} {o:?}");
            } else {
                assert_eq!(last, ["overlay"], "{profile} {o:?}");
            }
        }
    }
}

/// An image standing in for a swapchain image of `format`.
fn stand_in(gpu: &Gpu, format: vk::Format, usage: vk::ImageUsageFlags) -> OwnedImage {
    let extent = vk::Extent2D {
        width: W,
        height: H,
    };
    OwnedImage::new(gpu, format, extent, 1, usage, "stand-in swapchain image").unwrap()
}

fn destroy_semaphores(gpu: &Gpu, semaphores: Vec<vk::Semaphore>) {
    for s in semaphores {
        // SAFETY: every submit that used them is complete (the renderer waited).
        unsafe { gpu.device.destroy_semaphore(s, None) };
    }
}

#[test]
fn a_captured_presented_frame_is_the_rendered_frame() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let expected = overlay_frame(&gpu, CompileOptions::ALL, features());
    let mut s = settings(CompileOptions::ALL);
    // The app reads nothing back but the screenshots.
    s.read_back = false;
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    r.set_overlay(Some(text(60)));
    r.set_targets_readable(true);
    // A swapchain image's usage (`tessera_vk::swapchain`): the compute post chain copies in.
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::TRANSFER_DST
        | vk::ImageUsageFlags::TRANSFER_SRC;
    let mut semaphores = Vec::new();
    let mut present = |r: &mut Renderer, target: &OwnedImage| {
        let (acquire, done) = (signalled_semaphore(&gpu), semaphore(&gpu));
        let stats = r
            .render_to(TIME, target.imported(), acquire, done)
            .expect("frame");
        wait_semaphore(&gpu, done);
        semaphores.extend([acquire, done]);
        stats
    };
    for (i, format) in [vk::Format::B8G8R8A8_SRGB, vk::Format::R8G8B8A8_SRGB]
        .into_iter()
        .enumerate()
    {
        let mut target = stand_in(&gpu, format, usage);
        present(&mut r, &target);
        if i == 0 {
            assert!(
                r.picture().expect("picture").is_none(),
                "nothing captured yet"
            );
        }
        r.capture_next();
        let rebuilds = r.rebuilds();
        let stats = present(&mut r, &target);
        assert!(
            stats.rebuilt,
            "the read-back copy is declared for this frame"
        );
        let plan = r.executor().plan().expect("a plan");
        assert!(plan.order.iter().any(|n| n.as_str() == "readback"));
        let shot = picture(&mut r);
        assert!(
            shot == expected,
            "{format:?}: the capture differs from render: {:?}",
            shot.difference(&expected)
        );
        // The next frame draws without the copy (a re-plan back) and the picture stays.
        assert!(present(&mut r, &target).rebuilt);
        assert!(!r
            .executor()
            .plan()
            .expect("a plan")
            .order
            .iter()
            .any(|n| n.as_str() == "readback"));
        assert_eq!(r.rebuilds(), rebuilds + 2);
        assert!(picture(&mut r) == expected);
        r.wait().expect("wait");
        target.destroy(&gpu);
    }
    r.destroy();
    destroy_semaphores(&gpu, semaphores);
    assert_clean(&gpu, before);
}

#[test]
fn capturing_from_images_that_forbid_it_is_a_clear_error() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let mut r = Renderer::new(
        gpu.clone(),
        tessera_scene::builtin(),
        settings(CompileOptions::ALL),
    )
    .expect("renderer");
    let mut target = stand_in(
        &gpu,
        vk::Format::B8G8R8A8_UNORM,
        // A swapchain's usage always has TRANSFER_DST (`tessera_vk::swapchain`).
        vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST,
    );
    // The surface did not offer TRANSFER_SRC: the renderer was not told the images allow it.
    r.capture_next();
    let (acquire, done) = (signalled_semaphore(&gpu), semaphore(&gpu));
    let e = r
        .render_to(TIME, target.imported(), acquire, done)
        .expect_err("a capture from an image without TRANSFER_SRC");
    assert!(e.to_string().contains("TRANSFER_SRC"), "{e}");
    // Nothing was submitted: the acquire semaphore is still pending, and the next frame
    // (the capture request is spent) waits on it and presents as usual.
    r.render_to(TIME, target.imported(), acquire, done)
        .expect("the frame after");
    wait_semaphore(&gpu, done);
    r.wait().expect("wait");
    target.destroy(&gpu);
    r.destroy();
    destroy_semaphores(&gpu, vec![acquire, done]);
    assert_clean(&gpu, before);
}
