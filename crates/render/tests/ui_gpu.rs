//! The egui `ui` pass on lavapipe, with zero validation and synchronization-validation
//! messages: a real egui frame (a window with a label and a checkbox, built headless)
//! changes only the pixels of its window and draws its text; new UI content never re-plans;
//! the font atlas, uploaded once, keeps drawing text in frames whose delta is empty; the
//! same picture with every optimisation off and when presented to a BGRA swapchain image.

mod common;

use ash::vk;
use common::*;
use tessera_graph::CompileOptions;
use tessera_render::egui;
use tessera_render::features::{Exposure, Features};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Settings, UiFrame};
use tessera_vk::resources::OwnedImage;

const TIME: f32 = 0.5;

/// A fixed exposure: every frame at one time is the same picture, whatever came before.
fn settings() -> Settings {
    settings_with(
        CompileOptions::ALL,
        Features {
            exposure: Exposure::Fixed(1.0),
            ..small_features()
        },
    )
}

/// One egui frame of a window "Tessera" holding `label` and a checkbox, at 1 pixel per
/// point on a W×H screen: the frame, the window's and the label's rectangles (pixels).
/// Without the window's shadow, so that only the window's own rectangle changes, and
/// without animations (no fade-in). egui runs twice (a new window is invisible in its
/// sizing pass); the frame carries both runs' texture deltas.
fn ui_frame(ctx: &egui::Context, text: &str) -> (UiFrame, egui::Rect, egui::Rect) {
    ctx.style_mut(|s| {
        s.visuals.window_shadow = egui::Shadow::NONE;
        s.visuals.popup_shadow = egui::Shadow::NONE;
        s.animation_time = 0.0;
    });
    let mut delta = egui::TexturesDelta::default();
    let (mut sizing, _, _) = ui_run(ctx, text);
    delta.append(std::mem::take(&mut sizing.textures_delta));
    let (mut frame, window, label) = ui_run(ctx, text);
    delta.append(std::mem::take(&mut frame.textures_delta));
    frame.textures_delta = delta;
    (frame, window, label)
}

fn ui_run(ctx: &egui::Context, label: &str) -> (UiFrame, egui::Rect, egui::Rect) {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(W as f32, H as f32),
        )),
        ..Default::default()
    };
    let mut merge = true;
    let mut window = egui::Rect::NOTHING;
    let mut label_rect = egui::Rect::NOTHING;
    let out = ctx.run(input, |ctx| {
        let shown = egui::Window::new("Tessera")
            .default_pos([40.0, 30.0])
            .show(ctx, |ui| {
                label_rect = ui.label(label).rect;
                ui.checkbox(&mut merge, "merge");
            });
        window = shown.expect("the window is open").response.rect;
    });
    let ppp = out.pixels_per_point;
    let primitives = ctx.tessellate(out.shapes, ppp);
    let frame = UiFrame {
        primitives,
        textures_delta: out.textures_delta,
        pixels_per_point: ppp,
    };
    (frame, window * ppp, label_rect * ppp)
}

fn picture(r: &mut Renderer) -> Picture {
    r.picture().expect("read back").expect("a picture")
}

fn pixel(p: &Picture, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * p.width + x) * 4) as usize;
    p.rgba[i..i + 4].try_into().unwrap()
}

/// Pixels inside `rect` brighter than egui's dark window background.
fn bright_in(p: &Picture, rect: egui::Rect) -> u32 {
    let mut n = 0;
    for y in rect.min.y.max(0.0) as u32..(rect.max.y as u32).min(H) {
        for x in rect.min.x.max(0.0) as u32..(rect.max.x as u32).min(W) {
            let c = pixel(p, x, y);
            n += u32::from(c[..3].iter().all(|&v| v > 110));
        }
    }
    n
}

#[test]
fn an_egui_window_changes_only_its_rectangle_draws_text_and_never_replans() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), settings()).expect("r");
    r.render(TIME).expect("frame");
    let plain = picture(&mut r);

    let ctx = egui::Context::default();
    let (frame, window, label) = ui_frame(&ctx, "hello");
    assert!(
        !frame.textures_delta.set.is_empty(),
        "the first frame sets the font atlas"
    );
    let first = frame.primitives.clone();
    r.set_ui(Some(frame)).expect("set ui");
    assert!(r.ui_textures() >= 1);
    let stats = r.render(TIME).expect("frame");
    assert!(stats.rebuilt, "switching the UI on changes the graph");
    let plan = r.executor().plan().expect("a plan").clone();
    let order: Vec<String> = plan.order.iter().map(|n| n.to_string()).collect();
    let at = |n: &str| order.iter().position(|o| o == n).expect(n);
    assert!(
        at("fxaa") < at("ui") && at("ui") < at("readback"),
        "{order:?}"
    );
    let with = picture(&mut r);

    // Only the window's rectangle (its anti-aliased edge: 2 px more) changes.
    let edge = window.expand(2.0);
    let (mut inside, mut changed) = (0u32, 0u32);
    for y in 0..H {
        for x in 0..W {
            let (a, b) = (pixel(&plain, x, y), pixel(&with, x, y));
            if edge.contains(egui::pos2(x as f32 + 0.5, y as f32 + 0.5)) {
                inside += 1;
                changed += u32::from(a != b);
            } else {
                assert_eq!(
                    a, b,
                    "pixel ({x}, {y}) outside the window {window:?} changed"
                );
            }
        }
    }
    assert!(
        window.width() > 40.0 && window.height() > 30.0,
        "a window: {window:?}"
    );
    assert!(
        changed * 10 > inside * 8,
        "only {changed} of the window's {inside} pixels changed"
    );
    // The label's glyphs: bright pixels over the dark window where it lies.
    let text = bright_in(&with, label);
    assert!(text > 15, "{text} bright pixels in the label {label:?}");
    eprintln!(
        "window {window:?}: {changed}/{inside} pixels changed; label {label:?}: {text} bright"
    );

    // Other content, egui's next delta (empty or partial): no re-plan, another picture.
    let (frame, _, label2) = ui_frame(&ctx, "another label, longer");
    r.set_ui(Some(frame)).expect("set ui");
    let stats = r.render(TIME).expect("frame");
    assert!(!stats.rebuilt, "new UI content re-planned");
    let other = picture(&mut r);
    assert_ne!(other.rgba, with.rgba, "the new label is drawn");
    assert!(bright_in(&other, label2) > 15, "the new label has text");

    // The same content with an empty delta, frame after frame: the atlas persists.
    let frame = UiFrame {
        primitives: first,
        textures_delta: egui::TexturesDelta::default(),
        pixels_per_point: 1.0,
    };
    r.set_ui(Some(frame)).expect("set ui");
    let rebuilds = r.rebuilds();
    for _ in 0..3 {
        r.render(TIME).expect("frame");
    }
    assert_eq!(r.rebuilds(), rebuilds, "no re-plan");
    let again = picture(&mut r);
    assert_eq!(again.rgba, with.rgba, "the same UI draws the same picture");
    assert!(bright_in(&again, label) > 15);

    // Off again: the frame without the UI.
    r.set_ui(None).expect("set ui");
    r.render(TIME).expect("frame");
    assert_eq!(picture(&mut r).rgba, plain.rgba);
    r.destroy();
    assert_no_messages_since(&gpu, before);
}

/// One frame with the egui window over it, rendered with `options` and `features`; no
/// validation message.
fn ui_picture(options: CompileOptions, features: Features) -> Picture {
    let gpu = gpu();
    let before = gpu.messages.count();
    let s = settings_with(options, features);
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    let (frame, _, _) = ui_frame(&egui::Context::default(), "hello");
    r.set_ui(Some(frame)).expect("set ui");
    r.render(TIME).expect("frame");
    let p = picture(&mut r);
    let plan = r.executor().plan().expect("a plan");
    let order: Vec<String> = plan.order.iter().map(|n| n.to_string()).collect();
    assert_eq!(
        order.last().map(String::as_str),
        Some("readback"),
        "{order:?}"
    );
    assert_eq!(
        order[order.len() - 2],
        "ui",
        "the last raster pass: {order:?}"
    );
    r.destroy();
    assert_no_messages_since(&gpu, before);
    p
}

/// The `ui` pass draws the same picture in a render pass of its own (every optimisation
/// off) as in the plan the compiler makes (merged where it can), on the compute and the
/// raster post chain.
#[test]
fn the_ui_frame_is_the_same_with_every_optimisation_off() {
    let base = Features {
        exposure: Exposure::Fixed(1.0),
        ..small_features()
    };
    let raster = Features {
        post: tessera_render::features::PostPath::Raster,
        ..base.clone()
    };
    for (name, f) in [("compute post", base), ("raster post", raster)] {
        let none = ui_picture(CompileOptions::NONE, f.clone());
        let all = ui_picture(CompileOptions::ALL, f);
        assert!(
            none == all,
            "{name}: every optimisation off differs from all on: {:?}",
            none.difference(&all)
        );
    }
}

/// Presented into a `B8G8R8A8_SRGB` image standing in for a swapchain image, the UI frame
/// captured is the frame `render` reads back: the pass suits the swapchain's format too.
#[test]
fn a_presented_ui_frame_is_the_rendered_frame() {
    let features = Features {
        exposure: Exposure::Fixed(1.0),
        ..small_features()
    };
    let expected = ui_picture(CompileOptions::ALL, features.clone());
    let gpu = gpu();
    let before = gpu.messages.count();
    let mut s = settings_with(CompileOptions::ALL, features);
    s.read_back = false;
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    r.set_targets_readable(true);
    let (frame, _, _) = ui_frame(&egui::Context::default(), "hello");
    r.set_ui(Some(frame)).expect("set ui");
    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT
        | vk::ImageUsageFlags::TRANSFER_DST
        | vk::ImageUsageFlags::TRANSFER_SRC;
    let extent = vk::Extent2D {
        width: W,
        height: H,
    };
    let mut target = OwnedImage::new(
        &gpu,
        vk::Format::B8G8R8A8_SRGB,
        extent,
        1,
        usage,
        "stand-in",
    )
    .unwrap();
    let mut semaphores = Vec::new();
    for _ in 0..2 {
        r.capture_next();
        let (acquire, done) = (signalled_semaphore(&gpu), semaphore(&gpu));
        r.render_to(TIME, target.imported(), acquire, done)
            .expect("frame");
        wait_semaphore(&gpu, done);
        semaphores.extend([acquire, done]);
        let shot = picture(&mut r);
        assert!(
            shot == expected,
            "the capture differs from render: {:?}",
            shot.difference(&expected)
        );
    }
    r.wait().expect("wait");
    target.destroy(&gpu);
    r.destroy();
    for s in semaphores {
        // SAFETY: every submit that used them is complete (the renderer waited).
        unsafe { gpu.device.destroy_semaphore(s, None) };
    }
    assert_no_messages_since(&gpu, before);
}
