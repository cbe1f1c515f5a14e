//! Pre-rotation in the plan, without a device: the last post pass writes the output turned
//! itself (raster), or a `post out` of the physical extent that `post copy` copies
//! (compute, also from tone mapping direct), or a debug view writes it: no `upright` image,
//! no `rotate` pass. Pre-rotated, raster tone mapping without AA is followed by `compose`.

mod common;

use tessera_graph::{CompileOptions, Graph, Plan};
use tessera_render::features::{Aa, Exposure, Features, PostPath};
use tessera_render::{Rotation, Settings};

/// The frame at 64×48 with `features` and `rotation`, compiled with every optimisation.
fn plan(features: Features, rotation: Rotation) -> (Graph, Plan) {
    let settings = Settings {
        width: 64,
        height: 48,
        features,
        output_rotation: rotation,
        ..Settings::default()
    };
    let graph = tessera_render::frame_graph(&tessera_scene::builtin(), &settings);
    let caps = tessera_graph::Capabilities::profile(&settings.profile).expect("profile");
    let plan = tessera_graph::compile(&graph, &caps, &CompileOptions::ALL).expect("compiles");
    (graph, plan)
}

/// The passes of `plan`, in order, that write the resource `name`.
fn writers(graph: &Graph, plan: &Plan, name: &str) -> Vec<String> {
    let id = graph.find_resource(name).expect(name);
    plan.order
        .iter()
        .filter(|p| {
            let pass = graph.pass(graph.find_pass(p.as_str()).expect("a planned pass"));
            pass.uses
                .iter()
                .any(|u| u.resource == id && u.access.writes())
        })
        .map(|p| p.to_string())
        .collect()
}

fn features(post: PostPath) -> Features {
    Features {
        exposure: Exposure::Fixed(1.0),
        post,
        ..common::small_features()
    }
}

#[test]
fn the_raster_last_post_pass_writes_the_output_turned_without_a_copy() {
    for rotation in [Rotation::R90, Rotation::R180, Rotation::R270] {
        let (graph, plan) = plan(features(PostPath::Raster), rotation);
        let d = rotation.degrees();
        assert!(graph.find_pass("rotate").is_none(), "{d}°: a rotate pass");
        assert!(
            !plan.order.iter().any(|p| p.as_str() == "rotate"),
            "{d}°: rotate planned"
        );
        assert!(
            graph.find_resource("upright").is_none(),
            "{d}°: an upright image"
        );
        let w = writers(&graph, &plan, "output");
        assert_eq!(w, ["fxaa"], "{d}°: the output's writers");
    }
}

#[test]
fn the_compute_last_post_pass_writes_a_turned_post_out_copied_as_it_is() {
    let (graph, plan) = plan(features(PostPath::Compute), Rotation::R90);
    assert!(graph.find_pass("rotate").is_none(), "a rotate pass");
    assert!(graph.find_resource("upright").is_none(), "an upright image");
    assert_eq!(writers(&graph, &plan, "output"), ["post copy"]);
    assert_eq!(writers(&graph, &plan, "post out"), ["fxaa"]);
}

#[test]
fn compute_tone_mapping_direct_writes_a_turned_post_out() {
    let (graph, plan) = plan(direct(PostPath::Compute), Rotation::R270);
    assert!(graph.find_pass("rotate").is_none(), "a rotate pass");
    assert!(graph.find_resource("upright").is_none(), "an upright image");
    assert_eq!(writers(&graph, &plan, "output"), ["post copy"]);
    assert_eq!(writers(&graph, &plan, "post out"), ["tonemap"]);
}

/// No AA: tone mapping writes the output directly.
fn direct(post: PostPath) -> Features {
    Features {
        aa: Aa::Off,
        ..features(post)
    }
}

#[test]
fn pre_rotated_raster_tone_mapping_is_followed_by_compose() {
    // Upright, raster tone mapping writes the output; pre-rotated `compose` turns its
    // picture into it (tone mapping reads HDR at its own pixel).
    let (graph, upright) = plan(direct(PostPath::Raster), Rotation::R0);
    assert_eq!(writers(&graph, &upright, "output"), ["tonemap"]);
    let (graph, turned) = plan(direct(PostPath::Raster), Rotation::R270);
    assert!(graph.find_pass("rotate").is_none(), "a rotate pass");
    assert!(graph.find_resource("upright").is_none(), "an upright image");
    assert_eq!(writers(&graph, &turned, "output"), ["compose"]);
}

#[test]
fn a_debug_view_writes_the_output_turned_without_a_copy() {
    use tessera_render::features::DebugView;
    let view = Features {
        debug_view: DebugView::Depth,
        ..features(PostPath::Compute)
    };
    let (graph, plan) = plan(view, Rotation::R90);
    assert!(graph.find_pass("rotate").is_none(), "a rotate pass");
    assert!(graph.find_resource("upright").is_none(), "an upright image");
    assert_eq!(writers(&graph, &plan, "output"), ["debug view"]);
}
