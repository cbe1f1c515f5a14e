//! A frame without shadows says so: its plan has no `shadows` pass, only the clear of the
//! one-texel atlas that lighting samples, under a name that says what it is.

use tessera_render::features::Features;
use tessera_render::{frame_graph, Settings};

fn graph(shadows: bool) -> tessera_graph::Graph {
    let settings = Settings {
        width: 320,
        height: 180,
        features: Features {
            shadows,
            ..Features::default()
        },
        ..Settings::default()
    };
    frame_graph(&tessera_scene::builtin(), &settings)
}

#[test]
fn no_shadows_declares_the_atlas_clear_and_no_shadow_pass() {
    let off = graph(false);
    assert!(off.find_pass("shadows").is_none());
    assert!(off.find_pass("shadow atlas clear").is_some());
    let on = graph(true);
    assert!(on.find_pass("shadows").is_some());
    assert!(on.find_pass("shadow atlas clear").is_none());
}
