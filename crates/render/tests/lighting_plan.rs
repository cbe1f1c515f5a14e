//! Where the deferred lighting runs, in the plans of the desktop and Mali profiles at
//! 1920×1080, without a device: on desktop (`Lighting::Compute`, the default there) a
//! compute pass outside every render pass that samples the G-buffer; on Mali (the `[mobile]`
//! preset's deferred frame: `Lighting::Raster`) a subpass of the merged G-buffer render pass
//! reading it as input attachments, with the G-buffer memoryless.

mod common;

use common::{frame_plan, render_pass_holding};
use tessera_graph::{compile, Capabilities, CompileOptions, PassKind, Plan};
use tessera_render::config::Config;
use tessera_render::features::{Features, Lighting, RenderPath};

fn plan(profile: &str, features: Features) -> (tessera_graph::Graph, Plan) {
    frame_plan((1920, 1080), profile, features)
}

/// The subpasses of the render pass holding `pass`, if any.
fn in_render_pass(plan: &Plan, pass: &str) -> Option<Vec<String>> {
    render_pass_holding(plan, pass).map(|rp| rp.subpasses.iter().map(|s| s.to_string()).collect())
}

#[test]
fn desktop_lights_in_compute_outside_any_render_pass() {
    let features = Config::builtin().features_for("desktop");
    assert_eq!(features.lighting, Lighting::Compute, "the desktop default");
    let (graph, plan) = plan("desktop", features);
    let lighting = graph.find_pass("lighting").expect("a lighting pass");
    assert_eq!(graph.pass(lighting).kind, PassKind::Compute);
    assert_eq!(in_render_pass(&plan, "lighting"), None);
    // The G-buffer pass ends its render pass: lighting samples what it stored.
    let gbuffer = in_render_pass(&plan, "gbuffer").expect("gbuffer is a raster pass");
    assert!(!gbuffer.iter().any(|s| s == "lighting"), "{gbuffer:?}");
}

#[test]
fn mali_keeps_raster_lighting_in_the_merged_render_pass() {
    let mut features = Config::builtin().features_for("mali");
    assert_eq!(features.lighting, Lighting::Raster, "the [mobile] preset");
    features.path = RenderPath::Deferred;
    features.msaa = 1;
    let (graph, plan) = plan("mali", features);
    let lighting = graph.find_pass("lighting").expect("a lighting pass");
    assert_eq!(graph.pass(lighting).kind, PassKind::Raster);
    let merged = in_render_pass(&plan, "lighting").expect("lighting is a subpass");
    assert_eq!(merged, ["gbuffer", "lighting", "transparents", "tonemap"]);
    let memoryless = tessera_vk::resources::memoryless_set(&graph, &plan);
    for name in [
        "gbuffer albedo",
        "gbuffer normal",
        "gbuffer material",
        "depth",
    ] {
        let id = graph.find_resource(name).expect(name);
        assert!(memoryless[id.index()], "'{name}' is not memoryless");
    }
}

/// The same deferred frame on a tiler with an async-compute queue (a second graphics queue,
/// `--async-queue graphics`): `ssao` and `ssao blur` on the async queue, which `lighting`
/// reads, move before the G-buffer render pass (the wait for them at its first subpass), so
/// the frame has the render passes of the one-queue plan, G-buffer to tone map merged.
#[test]
fn mali_with_an_async_queue_keeps_the_merged_render_pass() {
    let mut features = Config::builtin().features_for("mali");
    features.path = RenderPath::Deferred;
    features.msaa = 1;
    let settings = tessera_render::Settings {
        width: 1920,
        height: 1080,
        features,
        profile: "mali".into(),
        ..tessera_render::Settings::default()
    };
    let graph = tessera_render::frame_graph(&tessera_scene::builtin(), &settings);
    let one_queue = Capabilities::profile("mali").expect("profile");
    let two_queues = Capabilities {
        async_compute: true,
        ..one_queue.clone()
    };
    let single = compile(&graph, &one_queue, &CompileOptions::ALL).expect("compiles");
    let plan = compile(&graph, &two_queues, &CompileOptions::ALL).expect("compiles");
    assert!(
        !plan.queues.async_compute.is_empty(),
        "async passes run there"
    );
    assert_eq!(
        plan.render_passes.len(),
        single.render_passes.len(),
        "{:?}",
        plan.breaks
    );
    let merged = in_render_pass(&plan, "lighting").expect("lighting is a subpass");
    assert_eq!(merged, ["gbuffer", "lighting", "transparents", "tonemap"]);
    // Every wait of the merged render pass is at its first subpass.
    let inside = ["lighting", "transparents", "tonemap"];
    assert!(plan
        .syncs
        .iter()
        .all(|s| !inside.contains(&s.wait.as_str())));
    assert!(plan.syncs.iter().any(|s| s.wait == "gbuffer"));
    if let Err(v) = tessera_graph::check::check(&graph, &two_queues, &CompileOptions::ALL, &plan) {
        panic!("{v:?}");
    }
}

/// `--lighting raster` on desktop is the raster pass, which the compiler may merge there
/// (the desktop profile has no tile budget to respect, so it is a subpass again).
#[test]
fn desktop_raster_lighting_is_still_selectable() {
    let features = Features {
        lighting: Lighting::Raster,
        ..Config::builtin().features_for("desktop")
    };
    let (graph, _) = plan("desktop", features);
    let lighting = graph.find_pass("lighting").expect("a lighting pass");
    assert_eq!(graph.pass(lighting).kind, PassKind::Raster);
}

/// The load op of attachment `name` in the render pass holding `pass`.
fn load_op(plan: &Plan, pass: &str, name: &str) -> tessera_graph::plan::LoadOp {
    let rp =
        render_pass_holding(plan, pass).unwrap_or_else(|| panic!("no render pass holds '{pass}'"));
    rp.attachments
        .iter()
        .find(|a| a.resource.as_str() == name)
        .unwrap_or_else(|| panic!("'{pass}' has no attachment '{name}'"))
        .load_op
}

/// Only depth is cleared before the G-buffer, with either lighting path: the colour targets
/// are declared written where depth is (`coverage`), so their load op is `dont_care`; HDR,
/// which raster lighting adds to at every pixel, is still cleared on that path.
#[test]
fn the_gbuffer_clears_only_depth() {
    use tessera_graph::plan::LoadOp;
    for lighting in [Lighting::Compute, Lighting::Raster] {
        let features = Features {
            lighting,
            ..Config::builtin().features_for("desktop")
        };
        let (_, plan) = plan("desktop", features);
        let mut targets = vec![
            "gbuffer albedo",
            "gbuffer normal",
            "gbuffer material",
            "motion",
        ];
        if lighting == Lighting::Compute {
            targets.push("gbuffer emission");
        } else {
            assert_eq!(load_op(&plan, "gbuffer", "hdr"), LoadOp::Clear);
        }
        for name in targets {
            assert_eq!(
                load_op(&plan, "gbuffer", name),
                LoadOp::DontCare,
                "{lighting:?} {name}"
            );
        }
        assert_eq!(load_op(&plan, "gbuffer", "depth"), LoadOp::Clear);
    }
}

/// The mutation: lighting stripped of its coverage reads the G-buffer's uncovered pixels.
/// The compiler refuses that frame, and the independent checker rejects the real plan
/// against it (`coverage.uncovered_read`); unmutated, the checker accepts the plan.
#[test]
fn lighting_reading_uncovered_pixels_is_rejected() {
    let features = Config::builtin().features_for("desktop");
    let (graph, plan) = plan("desktop", features);
    let caps = Capabilities::profile("desktop").expect("profile");
    let options = CompileOptions::ALL;
    tessera_graph::check::check(&graph, &caps, &options, &plan)
        .unwrap_or_else(|v| panic!("the frame's own plan: {v:#?}"));
    let mut mutated = graph.clone();
    let lighting = graph.find_pass("lighting").expect("lighting");
    let mut stripped = 0;
    for u in &mut mutated.passes[lighting.index()].uses {
        stripped += usize::from(u.coverage.take().is_some());
    }
    assert_eq!(
        stripped, 4,
        "albedo, normal, material and emission were covered reads"
    );
    let e = compile(&mutated, &caps, &options).expect_err("an uncovered read compiles");
    assert!(e.to_string().contains("lighting"), "{e}");
    let v = tessera_graph::check::check(&mutated, &caps, &options, &plan)
        .expect_err("the checker accepts an uncovered read");
    assert!(
        v.iter().any(|x| x.rule == "coverage.uncovered_read"),
        "{v:#?}"
    );
}
