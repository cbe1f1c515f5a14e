//! Pre-rotation on lavapipe, with zero validation and synchronization-validation messages:
//! the frame rendered with an output rotation of 90°, 180° or 270° reads back as an image
//! of the physical extent which, rotated clockwise as the presentation engine would
//! (`VK_SURFACE_TRANSFORM_ROTATE_*_BIT_KHR`), is the upright frame byte for byte, so no
//! tolerance. The last post pass (`post.frag`, `post.comp`: the same index remap) and the
//! UI's vertex transform write the output turned, and so does compute tone mapping direct
//! to the output (no AA); raster tone mapping is followed by `compose` when pre-rotated.
//! With an egui window over the frame.

mod common;

use common::*;
use tessera_graph::CompileOptions;
use tessera_render::egui;
use tessera_render::features::{Aa, DebugView, Exposure, Features, PostPath};
use tessera_render::png_out::Picture;
use tessera_render::{Renderer, Rotation, Settings, UiFrame};

const TIME: f32 = 0.5;

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
    picture_with(features, rotation, true)
}

/// Two frames at `rotation`, with the UI when `ui`; the last read back; no validation
/// message.
fn picture_with(features: &Features, rotation: Rotation, ui: bool) -> Picture {
    let gpu = gpu();
    let before = gpu.messages.count();
    let s = Settings {
        output_rotation: rotation,
        ..settings_with(CompileOptions::ALL, features.clone())
    };
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    if ui {
        r.set_ui(Some(ui_frame())).expect("set ui");
    }
    for _ in 0..2 {
        r.render(TIME).expect("frame");
    }
    let p = r.picture().expect("read back").expect("a picture");
    if rotation != Rotation::R0 {
        let plan = r.executor().plan().expect("a plan");
        let order: Vec<String> = plan.order.iter().map(|n| n.to_string()).collect();
        // The passes that write the output (the last post pass, the UI) turn it.
        if ui {
            assert_eq!(
                order[order.len() - 2..],
                ["ui", "readback"],
                "the output's last write: {order:?}"
            );
        }
        assert!(!order.iter().any(|p| p == "rotate"), "a copy: {order:?}");
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
    let direct = |f: &Features| Features {
        aa: Aa::Off,
        ..f.clone()
    };
    for (chain, features) in [
        ("compute tone mapping direct", direct(&compute)),
        ("raster tone mapping direct", direct(&raster)),
        ("compute post", compute),
        ("raster post", raster),
    ] {
        let upright = picture(&features, Rotation::R0);
        assert_eq!((upright.width, upright.height), (W, H));
        for rotation in [Rotation::R90, Rotation::R180, Rotation::R270] {
            let physical = picture(&features, rotation);
            let (pw, ph) = rotation.swap((W, H));
            assert_eq!((physical.width, physical.height), (pw, ph), "{chain}");
            let shown = physical.turned_cw(rotation.turns());
            assert!(
                shown == upright,
                "{chain}, {}°: the presented picture differs from the upright frame: {:?}",
                rotation.degrees(),
                shown.difference(&upright)
            );
        }
    }
}

/// The debug views draw the output turned as the last post pass does: each view at 90°
/// and 270° turned back is the upright view byte for byte (the exposure view over the lit
/// frame needs auto exposure; clusters need clustering, the default). Without the UI: its
/// turned triangles interpolate their colours in another order, which can move an edge
/// texel's rounding by one step (seen on the clusters view's window corner).
#[test]
fn pre_rotated_debug_views_rotated_back_are_the_upright_views() {
    for view in [
        DebugView::Albedo,
        DebugView::Depth,
        DebugView::Shadow(0),
        DebugView::Clusters,
        DebugView::Exposure,
    ] {
        let features = Features {
            debug_view: view,
            exposure: match view {
                DebugView::Exposure => Exposure::Auto { compensation: 1.0 },
                _ => Exposure::Fixed(1.0),
            },
            ..small_features()
        };
        let upright = picture_with(&features, Rotation::R0, false);
        for rotation in [Rotation::R90, Rotation::R270] {
            let shown = picture_with(&features, rotation, false).turned_cw(rotation.turns());
            assert!(
                shown == upright,
                "{view:?}, {}°: the presented picture differs from the upright view: {:?}",
                rotation.degrees(),
                shown.difference(&upright)
            );
        }
    }
}
