//! Pre-rotation on lavapipe, with zero validation and synchronization-validation messages:
//! the frame rendered with an output rotation of 90°, 180° or 270° reads back as an image
//! of the physical extent which, rotated clockwise as the presentation engine would
//! (`VK_SURFACE_TRANSFORM_ROTATE_*_BIT_KHR`), is the upright frame byte for byte: the
//! `rotate` pass is a pure index remap (`texelFetch`), so no tolerance. On the compute
//! and the raster post chain, with an egui window over the frame (the UI rotates too).

mod common;

use common::*;
use tessera_graph::CompileOptions;
use tessera_render::egui;
use tessera_render::features::{Exposure, Features, PostPath};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Rotation, Settings, UiFrame};

const TIME: f32 = 0.5;

/// `p` rotated a quarter turn clockwise, `turns` times: what the presentation engine
/// shows of a presented image (written here from the Vulkan spec's words, not from the
/// shader's formula).
fn rotate_cw(p: &Picture, turns: u32) -> Picture {
    let mut p = p.clone();
    for _ in 0..turns {
        let (w, h) = (p.width as usize, p.height as usize);
        let mut rgba = vec![0u8; w * h * 4];
        // Source (x, y) lands at (h - 1 - y, x) of the h × w result: the top row becomes
        // the right column.
        for y in 0..h {
            for x in 0..w {
                let (dx, dy) = (h - 1 - y, x);
                let s = (y * w + x) * 4;
                let d = (dy * h + dx) * 4;
                rgba[d..d + 4].copy_from_slice(&p.rgba[s..s + 4]);
            }
        }
        p = Picture {
            width: h as u32,
            height: w as u32,
            rgba,
        };
    }
    p
}

/// A small egui window (a label and a checkbox) on the logical W×H screen.
fn ui_frame() -> UiFrame {
    let ctx = egui::Context::default();
    ctx.style_mut(|s| s.animation_time = 0.0);
    let mut delta = egui::TexturesDelta::default();
    let mut last = None;
    // A new window is invisible in its sizing pass: run twice, keep both deltas.
    for _ in 0..2 {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(W as f32, H as f32),
            )),
            ..Default::default()
        };
        let mut merge = true;
        let out = ctx.run(input, |ctx| {
            egui::Window::new("Tessera")
                .default_pos([40.0, 30.0])
                .show(ctx, |ui| {
                    ui.label("upright");
                    ui.checkbox(&mut merge, "merge");
                });
        });
        delta.append(out.textures_delta.clone());
        last = Some(out);
    }
    let out = last.expect("ran");
    UiFrame {
        primitives: ctx.tessellate(out.shapes, out.pixels_per_point),
        textures_delta: delta,
        pixels_per_point: out.pixels_per_point,
    }
}

/// Two frames at `rotation` with the UI; the last read back; no validation message.
fn picture(features: &Features, rotation: Rotation) -> Picture {
    let gpu = gpu();
    let before = gpu.messages.count();
    let s = Settings {
        output_rotation: rotation,
        ..settings_with(CompileOptions::ALL, features.clone())
    };
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    r.set_ui(Some(ui_frame())).expect("set ui");
    for _ in 0..2 {
        r.render(TIME).expect("frame");
    }
    let p = r.picture().expect("read back").expect("a picture");
    if rotation != Rotation::R0 {
        let plan = r.executor().plan().expect("a plan");
        let order: Vec<String> = plan.order.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            order[order.len() - 2..],
            ["rotate", "readback"],
            "the rotation is the last write: {order:?}"
        );
    }
    r.destroy();
    assert_no_messages_since(&gpu, before);
    p
}

#[test]
fn a_pre_rotated_frame_rotated_back_is_the_upright_frame() {
    let compute = Features {
        exposure: Exposure::Fixed(1.0),
        ..small_features()
    };
    let raster = Features {
        post: PostPath::Raster,
        ..compute.clone()
    };
    for (chain, features) in [("compute post", compute), ("raster post", raster)] {
        let upright = picture(&features, Rotation::R0);
        assert_eq!((upright.width, upright.height), (W, H));
        for rotation in [Rotation::R90, Rotation::R180, Rotation::R270] {
            let physical = picture(&features, rotation);
            let (pw, ph) = rotation.swap((W, H));
            assert_eq!((physical.width, physical.height), (pw, ph), "{chain}");
            let shown = rotate_cw(&physical, rotation.turns());
            assert!(
                shown == upright,
                "{chain}, {}°: the presented picture differs from the upright frame: {:?}",
                rotation.degrees(),
                shown.difference(&upright)
            );
        }
    }
}

#[test]
fn the_test_rotation_turns_a_row_into_a_column() {
    // 2×1: red, green. A quarter turn clockwise: a 1×2 column, red on top.
    let p = Picture {
        width: 2,
        height: 1,
        rgba: vec![255, 0, 0, 255, 0, 255, 0, 255],
    };
    let r = rotate_cw(&p, 1);
    assert_eq!((r.width, r.height), (1, 2));
    assert_eq!(r.rgba, vec![255, 0, 0, 255, 0, 255, 0, 255]);
    // Four quarter turns: the picture itself.
    assert!(rotate_cw(&p, 4) == p);
}
