//! History resources in the running renderer: the executor keeps a history's objects (and
//! content) while its description holds, across re-plans an unrelated toggle causes, and
//! starts over after a scene change; a new history is invalid for one frame, and a frame
//! rendered from a new history equals the first frame of a new renderer. Zero validation
//! messages throughout.

mod common;

use common::*;
use tessera_graph::CompileOptions;
use tessera_render::features::{Exposure, Features};
use tessera_render::Renderer;

fn auto_exposure() -> Features {
    Features {
        exposure: Exposure::Auto { compensation: 1.0 },
        ..small_features()
    }
}

#[test]
fn a_toggle_keeps_the_history_and_a_scene_change_starts_it_over() {
    let gpu = gpu();
    let before = gpu.messages.count();
    let s = settings_with(CompileOptions::ALL, auto_exposure());
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    for f in 0..3 {
        r.render(f as f32 / 60.0).expect("frame");
    }
    assert_eq!(r.executor().history_age("exposure"), Some((3, 1)));
    let plan = r.executor().plan().expect("a plan");
    let entry = plan.history.iter().find(|h| h.resource == "exposure");
    assert!(entry.is_some(), "{:?}", plan.history);
    // Aliasing off re-plans; the exposure buffer's description holds, so it keeps counting.
    let rebuilds = r.rebuilds();
    let mut off = CompileOptions::ALL;
    off.alias = false;
    r.reconfigure(W, H, off).expect("reconfigure");
    r.render(3.0 / 60.0).expect("frame");
    assert!(r.rebuilds() > rebuilds, "the toggle re-planned");
    assert_eq!(r.executor().history_age("exposure"), Some((4, 1)));
    // A new scene: what the history holds belongs to another picture.
    r.set_scene(tessera_scene::builtin()).expect("scene");
    r.render(4.0 / 60.0).expect("frame");
    assert_eq!(r.executor().history_age("exposure"), Some((1, 1)));
    r.destroy();
    assert_no_messages_since(&gpu, before);
}

#[test]
fn a_frame_from_a_new_history_equals_a_new_renderers_first_frame() {
    let gpu = gpu();
    let s = settings_with(CompileOptions::ALL, auto_exposure());
    let first = render(&gpu, tessera_scene::builtin(), s.clone(), 1);
    let before = gpu.messages.count();
    let mut r = Renderer::new(gpu.clone(), tessera_scene::builtin(), s).expect("renderer");
    for f in 0..4 {
        r.render(f as f32 / 60.0).expect("frame");
    }
    let adapted = r.picture().expect("read").expect("a picture");
    assert!(
        adapted != first,
        "four frames of adaptation change the picture"
    );
    r.set_scene(tessera_scene::builtin()).expect("scene");
    r.render(0.0).expect("frame");
    let restarted = r.picture().expect("read").expect("a picture");
    r.destroy();
    assert!(restarted == first, "{:?}", restarted.difference(&first));
    assert_no_messages_since(&gpu, before);
}
