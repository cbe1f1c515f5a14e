//! The movable camera on lavapipe with validation and synchronization validation (zero
//! messages): `Renderer::set_camera` changes the picture between frames without a re-plan,
//! shadows and all, and the graph does not depend on the view.

mod common;

use common::{gpu, small_features};
use glam::Vec3;
use tessera_render::camera::{CameraController, CameraInput, View};
use tessera_render::features::Exposure;
use tessera_render::png_out::Picture;
use tessera_render::{frame_graph, Renderer, Settings};

/// 160×90, the full frame with 512-texel shadows and a fixed exposure (no adaptation
/// across frames).
fn settings() -> Settings {
    Settings {
        width: 160,
        height: 90,
        features: tessera_render::features::Features {
            exposure: Exposure::Fixed(1.0),
            ..small_features()
        },
        ..Settings::default()
    }
}

fn frame(r: &mut Renderer) -> Picture {
    r.render(0.0).expect("frame");
    r.picture().expect("read back").expect("a picture")
}

#[test]
fn the_graph_does_not_depend_on_the_view() {
    let scene = tessera_scene::builtin();
    let plain = frame_graph(&scene, &settings());
    let moved = Settings {
        camera: Some(View {
            position: Vec3::new(-7.0, 1.5, 3.0),
            target: Vec3::new(2.0, 0.5, -4.0),
            ..View::of(&scene)
        }),
        ..settings()
    };
    assert_eq!(frame_graph(&scene, &moved), plain);
}

#[test]
fn set_camera_moves_the_view_without_a_re_plan() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let scene = tessera_scene::builtin();
    let start = View::of(&scene);
    let bounds = scene.bounds;
    let mut r = Renderer::new(gpu.clone(), scene, settings()).expect("renderer");
    let first = frame(&mut r);
    // The scene's own view handed in explicitly: the same picture.
    r.set_camera(Some(start));
    assert_eq!(frame(&mut r).rgba, first.rgba);
    // Turned and moved by the controller: another picture, the same plan.
    let mut c = CameraController::new(start, bounds);
    c.update(
        &CameraInput {
            forward: 1.0,
            look: (150.0, 20.0),
            ..Default::default()
        },
        0.1,
    );
    r.set_camera(Some(c.view()));
    let moved = frame(&mut r);
    let d = moved.difference(&first).expect("same size");
    assert!(d.pixels > 160 * 90 / 4, "the view moved: {d:?}");
    // An unusable view draws the scene's.
    r.set_camera(Some(View {
        target: c.view().position,
        ..c.view()
    }));
    assert_eq!(frame(&mut r).rgba, first.rgba);
    // Back to the scene's view: the first picture, bit for bit.
    r.set_camera(None);
    assert_eq!(frame(&mut r).rgba, first.rgba);
    // The first frame planned, the second once more: the environment is kept from then on.
    assert_eq!(r.rebuilds(), 2, "only the first two frames planned");
    r.destroy();
    assert_eq!(
        gpu.messages.count() - before,
        0,
        "validation: {:#?}",
        gpu.messages.texts()
    );
}
