//! The checker's resolve rules can fail: compile an MSAA frame with colour and depth
//! resolves, break one thing about its resolves (in the plan, the device or the frame), and
//! require the rule that names it.

use std::path::PathBuf;
use tessera_graph::check::{self, Violation};
use tessera_graph::graph::{Graph, ImageDesc, ResourceKind};
use tessera_graph::plan::{Attachment, Plan, StoreOp};
use tessera_graph::{
    compile, frame_file, Access, Capabilities, CompileOptions, Format, ResolveMode, ResolveModes,
};

/// `assets/graphs/tile_msaa_depth.json` on mali, its plan under `options` (checked clean).
fn base(options: CompileOptions) -> (Graph, Capabilities, Plan) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs/tile_msaa_depth.json");
    let (graph, _) = frame_file::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let caps = Capabilities::profile("mali").expect("mali");
    let plan = compile(&graph, &caps, &options).unwrap_or_else(|e| panic!("{e}"));
    if let Err(v) = check::check(&graph, &caps, &options, &plan) {
        panic!("the unmodified plan is rejected: {v:#?}");
    }
    (graph, caps, plan)
}

fn violations(
    g: &Graph,
    caps: &Capabilities,
    options: CompileOptions,
    plan: &Plan,
) -> Vec<Violation> {
    check::check(g, caps, &options, plan)
        .err()
        .unwrap_or_default()
}

/// The violations of `rule`, failing when there is none.
fn require(v: &[Violation], rule: &str) -> Vec<String> {
    let found: Vec<String> = v
        .iter()
        .filter(|x| x.rule == rule)
        .map(|x| x.detail.clone())
        .collect();
    assert!(!found.is_empty(), "no {rule} among {v:#?}");
    found
}

/// The attachment `name` of render pass `rp`.
fn att<'p>(plan: &'p mut Plan, rp: usize, name: &str) -> &'p mut Attachment {
    plan.render_passes[rp]
        .attachments
        .to_mut()
        .iter_mut()
        .find(|a| a.resource == name)
        .unwrap_or_else(|| panic!("no attachment '{name}' in render pass #{rp}"))
}

#[test]
fn a_mode_other_than_the_frames_or_one_the_device_lacks_is_caught() {
    let options = CompileOptions::ALL;
    let (g, caps, plan) = base(options);
    let mut p = plan.clone();
    att(&mut p, 0, "msaa_depth").resolve_mode = Some(ResolveMode::Min);
    let found = require(
        &violations(&g, &caps, options, &p),
        "resolve.mode_unsupported",
    );
    assert!(
        found[0].contains("Some(Min)") && found[0].contains("Some(SampleZero)"),
        "{found:?}"
    );
    // The plan as compiled, checked for a device without 'sample_zero'.
    let mut narrow = caps.clone();
    narrow.depth_resolve_modes = ResolveModes::of(&[ResolveMode::Min, ResolveMode::Max]);
    let found = require(
        &violations(&g, &narrow, options, &plan),
        "resolve.mode_unsupported",
    );
    assert!(
        found
            .iter()
            .any(|d| d.contains("resolves with sample_zero") && d.contains("min, max")),
        "{found:?}"
    );
    // A mode on the colour attachment (a colour resolve averages).
    let mut p = plan.clone();
    att(&mut p, 0, "msaa_color").resolve_mode = Some(ResolveMode::Average);
    require(
        &violations(&g, &caps, options, &p),
        "resolve.mode_unsupported",
    );
}

#[test]
fn a_resolve_target_of_another_format_is_a_mismatch() {
    let options = CompileOptions::ALL;
    let (g, caps, mut plan) = base(options);
    att(&mut plan, 0, "msaa_depth").resolve_target = Some("swapchain".into());
    let v = violations(&g, &caps, options, &plan);
    let found = require(&v, "resolve.mismatch");
    assert!(
        found[0].contains("'msaa_depth'") && found[0].contains("'swapchain'"),
        "{found:?}"
    );
    // The frame's resolve into depth_1x is no longer in the plan either.
    require(&v, "resolve.missing");
}

#[test]
fn a_resolve_in_the_render_pass_of_another_subpass_is_caught() {
    // Merging off: 'opaque' and 'transparent' are two render passes; the resolve moves to
    // the render pass of 'opaque', which does not resolve.
    let options = CompileOptions::NONE;
    let (g, caps, mut plan) = base(options);
    assert_eq!(plan.render_passes.len(), 2);
    let moved = att(&mut plan, 1, "msaa_depth").resolve_target.take();
    let mode = att(&mut plan, 1, "msaa_depth").resolve_mode.take();
    assert_eq!(moved.as_deref(), Some("depth_1x"));
    let first = att(&mut plan, 0, "msaa_depth");
    first.resolve_target = moved;
    first.resolve_mode = mode;
    let v = violations(&g, &caps, options, &plan);
    let found = require(&v, "resolve.subpass");
    assert!(
        found[0].starts_with("render pass #0 resolves 'msaa_depth' into 'depth_1x'"),
        "{found:?}"
    );
    require(&v, "resolve.missing");
}

#[test]
fn a_frame_resolve_without_its_resolve_target_is_missing() {
    let options = CompileOptions::ALL;
    let (g, caps, mut plan) = base(options);
    let a = att(&mut plan, 0, "msaa_depth");
    a.resolve_target = None;
    a.resolve_mode = None;
    let found = require(&violations(&g, &caps, options, &plan), "resolve.missing");
    assert!(
        found[0].contains("pass 'transparent' resolves 'msaa_depth' into 'depth_1x'"),
        "{found:?}"
    );
}

#[test]
fn storing_resolved_samples_is_a_separate_resolve() {
    let options = CompileOptions::ALL;
    let (g, caps, mut plan) = base(options);
    let a = att(&mut plan, 0, "msaa_color");
    a.store_op = StoreOp::Store;
    a.memoryless = false;
    let found = require(
        &violations(&g, &caps, options, &plan),
        "msaa.separate_resolve",
    );
    assert!(
        found[0].contains("stores multisampled 'msaa_color'") && found[0].contains("'swapchain'"),
        "{found:?}"
    );
}

#[test]
fn a_transfer_pass_reading_rendered_samples_is_a_separate_resolve() {
    // 'copy' reads what 'draw' rendered with transfer_src. The frame compiles with a
    // single-sampled image (validation keeps transfers off multisampled images); the checker
    // is then handed the same frame with the image multisampled, as a frame from elsewhere
    // could be.
    let mut g = Graph::new("separate");
    let img = g.image("img", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 16, 16));
    g.resource_mut(out).output = true;
    g.raster("draw").clears(img, Access::ColorWrite);
    g.transfer("copy")
        .uses(img, Access::TransferSrc)
        .uses(out, Access::TransferDst);
    let caps = Capabilities::desktop();
    let options = CompileOptions::ALL;
    let plan = compile(&g, &caps, &options).unwrap_or_else(|e| panic!("{e}"));
    assert!(check::check(&g, &caps, &options, &plan).is_ok());
    if let ResourceKind::Image(d) = &mut g.resource_mut(img).kind {
        d.samples = 4;
    }
    let found = require(
        &violations(&g, &caps, options, &plan),
        "msaa.separate_resolve",
    );
    assert!(
        found[0].contains("transfer pass 'copy'") && found[0].contains("raster pass 'draw'"),
        "{found:?}"
    );
}

#[test]
fn a_sample_count_changed_in_the_plan_is_caught() {
    let options = CompileOptions::ALL;
    let (g, caps, mut plan) = base(options);
    att(&mut plan, 0, "msaa_color").samples = 1;
    let found = require(&violations(&g, &caps, options, &plan), "rp.attachment");
    assert!(
        found.iter().any(
            |d| d.contains("attachment samples differ from the resource")
                && d.contains("'msaa_color' has 1 samples in the plan, 4 declared")
        ),
        "{found:?}"
    );
}

/// A depth resolve reads its multisampled source at COLOR_ATTACHMENT_OUTPUT with
/// COLOR_ATTACHMENT_READ (where the Vulkan specification puts every resolve), beyond the depth
/// test's stages: the dependency into the resolving subpass names that read, and without it
/// the checker finds the hazard.
#[test]
fn the_dependency_into_a_depth_resolve_covers_its_read() {
    use tessera_graph::sync::{AccessMask, StageMask};
    let options = CompileOptions::ALL;
    let (g, caps, mut plan) = base(options);
    let read = |d: &tessera_graph::plan::SubpassDependency| {
        d.dst_stage.contains(StageMask::COLOR_ATTACHMENT_OUTPUT)
            && d.dst_access.contains(AccessMask::COLOR_ATTACHMENT_READ)
    };
    let deps = &mut plan.render_passes[0].dependencies;
    assert!(
        deps.iter()
            .any(|d| d.src_subpass == 0 && d.dst_subpass == 1 && read(d)),
        "{deps:?}"
    );
    for d in deps.iter_mut() {
        d.dst_access = d.dst_access - AccessMask::COLOR_ATTACHMENT_READ;
    }
    let found = require(&violations(&g, &caps, options, &plan), "rp.dependency");
    assert!(
        found.iter().any(|d| d.contains("'msaa_depth'")),
        "{found:?}"
    );
}

/// The same across render passes: the barrier before the resolving pass waits for the depth
/// writes and makes them visible to the resolve's read.
#[test]
fn the_barrier_before_a_depth_resolve_covers_its_read() {
    use tessera_graph::sync::{AccessMask, StageMask};
    let options = CompileOptions::NONE;
    let (g, caps, mut plan) = base(options);
    let b = plan
        .barriers
        .iter_mut()
        .find(|b| b.before == "transparent" && b.resource == "msaa_depth")
        .expect("a barrier before 'transparent' on msaa_depth");
    assert!(
        b.dst_stage.contains(StageMask::COLOR_ATTACHMENT_OUTPUT)
            && b.dst_access.contains(AccessMask::COLOR_ATTACHMENT_READ),
        "{b:?}"
    );
    b.dst_access = b.dst_access - AccessMask::COLOR_ATTACHMENT_READ;
    let found = require(&violations(&g, &caps, options, &plan), "hazard.uncovered");
    assert!(found.iter().any(|d| d.contains("msaa_depth")), "{found:?}");
}
