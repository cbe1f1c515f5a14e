//! Cross-queue waits hoisted to the start of a render pass: a deferred frame whose lighting
//! subpass reads the output of async-compute light clustering keeps G-buffer and lighting
//! in one render pass, the clustering moved before it in the order and the wait for it at
//! the G-buffer subpass (`renderpass::cross_queue`). When the clustering reads the G-buffer's
//! depth (raster → async → raster), nothing can move: the render pass splits and the break
//! says which subpass the async pass depends on.

use tessera_graph::plan::Plan;
use tessera_graph::{
    check, compile, Access, Capabilities, CompileOptions, Format, Graph, ImageDesc, PassKind,
    QueueKind,
};

/// `frame constants` (graphics transfer) → `light bounds` → `light clustering` (both async
/// compute) → `lighting`, and `gbuffer` → `lighting` through input attachments and the depth
/// test; `particles` (async compute) reads the constants and nothing else of the frame. With
/// `depth_bounds`, `light clustering` also samples the G-buffer's depth.
fn deferred(depth_bounds: bool) -> Graph {
    let mut g = Graph::new("hoisted_waits");
    let full = |format| ImageDesc::new(format, 1920, 1080);
    let depth = g.image("depth", full(Format::D32_SFLOAT));
    let albedo = g.image("albedo", full(Format::R8G8B8A8_UNORM));
    let normal = g.image("normal", full(Format::A2B10G10R10_UNORM_PACK32));
    let hdr = g.image("hdr", full(Format::B10G11R11_UFLOAT_PACK32));
    let lights = g.buffer("lights", 64 * 1024);
    let bounds = g.buffer("light bounds", 16 * 1024);
    let clusters = g.buffer("light clusters", 1024 * 1024);
    let particles = g.buffer("particles", 64 * 1024);
    g.resource_mut(hdr).output = true;
    g.resource_mut(particles).output = true;
    g.transfer("frame constants")
        .uses(lights, Access::TransferDst)
        .id();
    g.raster("gbuffer")
        .clears(depth, Access::DepthWrite)
        .uses(albedo, Access::ColorWriteAll)
        .uses(normal, Access::ColorWriteAll)
        .id();
    g.pass_builder("light bounds", PassKind::Compute)
        .on_queue(QueueKind::AsyncCompute)
        .uses(lights, Access::StorageRead)
        .uses(bounds, Access::StorageWrite)
        .id();
    g.pass_builder("particles", PassKind::Compute)
        .on_queue(QueueKind::AsyncCompute)
        .uses(lights, Access::StorageRead)
        .uses(particles, Access::StorageWrite)
        .id();
    let mut clustering = g
        .pass_builder("light clustering", PassKind::Compute)
        .on_queue(QueueKind::AsyncCompute)
        .uses(bounds, Access::StorageRead)
        .uses(clusters, Access::StorageWrite);
    if depth_bounds {
        clustering = clustering.uses(depth, Access::Sampled);
    }
    clustering.id();
    g.raster("lighting")
        .uses(albedo, Access::InputAttachment)
        .uses(normal, Access::InputAttachment)
        .uses(depth, Access::DepthRead)
        .uses(clusters, Access::StorageRead)
        .uses(hdr, Access::ColorWriteAll)
        .id();
    g
}

/// A tiler (the mali tile rules) with an async-compute queue.
fn two_queue_tiler() -> Capabilities {
    Capabilities {
        async_compute: true,
        ..Capabilities::profile("mali").expect("the mali profile")
    }
}

fn compile_checked(graph: &Graph, caps: &Capabilities, options: &CompileOptions) -> Plan {
    let plan = compile(graph, caps, options).unwrap_or_else(|e| panic!("{e}"));
    if let Err(v) = check::check(graph, caps, options, &plan) {
        let list: Vec<String> = v.iter().map(ToString::to_string).collect();
        panic!("checker: {}", list.join("\n"));
    }
    plan
}

fn subpasses(plan: &Plan) -> Vec<Vec<&str>> {
    plan.render_passes
        .iter()
        .map(|rp| rp.subpasses.iter().map(|s| s.as_str()).collect())
        .collect()
}

fn position(plan: &Plan, pass: &str) -> usize {
    plan.order
        .iter()
        .position(|p| p == pass)
        .unwrap_or_else(|| panic!("'{pass}' is not ordered"))
}

#[test]
fn independent_async_work_moves_before_the_render_pass_and_the_merge_stays() {
    let graph = deferred(false);
    for caps in [two_queue_tiler(), Capabilities::desktop()] {
        let plan = compile_checked(&graph, &caps, &CompileOptions::ALL);
        assert_eq!(
            plan.queues.async_compute,
            ["light bounds", "light clustering", "particles"]
        );
        assert_eq!(
            subpasses(&plan),
            [["gbuffer", "lighting"]],
            "{}: {:?}",
            caps.profile,
            plan.breaks
        );
        assert!(plan.breaks.is_empty());
        // The clustering, and the bounds it reads, moved before the render pass; the
        // particles, independent of the whole render pass, stay inside it in the order.
        assert_eq!(
            plan.order,
            [
                "frame constants",
                "light bounds",
                "light clustering",
                "gbuffer",
                "particles",
                "lighting"
            ],
            "{}",
            caps.profile
        );
        // The wait for the clustering sits at the render pass's first subpass.
        let waits: Vec<(&str, &str)> = plan
            .syncs
            .iter()
            .filter(|s| s.wait_queue == QueueKind::Graphics)
            .map(|s| (s.signal.as_str(), s.wait.as_str()))
            .collect();
        assert_eq!(waits, [("light clustering", "gbuffer")], "{}", caps.profile);
        let sync = plan
            .syncs
            .iter()
            .find(|s| s.wait == "gbuffer")
            .expect("a wait at the first subpass");
        assert!(sync.resources.iter().any(|r| r == "light clusters"));
        // The graphics batch holding the render pass opens with it and waits before it.
        let batch = plan
            .batches
            .iter()
            .find(|b| b.passes.iter().any(|p| p == "lighting"))
            .expect("a batch holds lighting");
        assert_eq!(batch.queue, QueueKind::Graphics);
        assert_eq!(batch.passes.first().map(|p| p.as_str()), Some("gbuffer"));
        assert!(
            batch
                .waits
                .iter()
                .any(|w| w.queue == QueueKind::AsyncCompute && w.pass == "light clustering"),
            "{:?}",
            batch.waits
        );
    }
}

#[test]
fn async_work_that_reads_a_subpass_output_splits_the_render_pass_and_says_why() {
    let graph = deferred(true);
    let caps = two_queue_tiler();
    let plan = compile_checked(&graph, &caps, &CompileOptions::ALL);
    assert_eq!(subpasses(&plan), [["gbuffer"], ["lighting"]]);
    // Nothing moved before the G-buffer: the clustering runs after it.
    assert!(position(&plan, "light clustering") > position(&plan, "gbuffer"));
    let b = &plan.breaks[0];
    assert_eq!(
        (b.after.as_str(), b.before.as_str()),
        ("gbuffer", "lighting")
    );
    assert!(
        b.reason.contains(
            "'light clustering' on the async_compute queue depends on subpass 'gbuffer' of the \
             render pass, so its wait cannot move to the render pass's start"
        ),
        "{}",
        b.reason
    );
    // gbuffer → light clustering → lighting: a wait after the first render pass on the async
    // queue, and one before the second on the graphics queue.
    let pairs: Vec<(&str, &str)> = plan
        .syncs
        .iter()
        .map(|s| (s.signal.as_str(), s.wait.as_str()))
        .collect();
    assert!(
        pairs.contains(&("gbuffer", "light clustering")),
        "{pairs:?}"
    );
    assert!(
        pairs.contains(&("light clustering", "lighting")),
        "{pairs:?}"
    );
}

#[test]
fn the_dependency_is_named_without_reordering_too() {
    // With `reorder` off nothing moves; the break still names the dependency when there is
    // one, and keeps the old reason when the async pass is independent.
    let options = CompileOptions {
        reorder: false,
        ..CompileOptions::ALL
    };
    let caps = two_queue_tiler();
    let plan = compile_checked(&deferred(true), &caps, &options);
    assert_eq!(subpasses(&plan), [["gbuffer"], ["lighting"]]);
    assert!(
        plan.breaks[0]
            .reason
            .contains("depends on subpass 'gbuffer' of the render pass"),
        "{}",
        plan.breaks[0].reason
    );
    let plan = compile_checked(&deferred(false), &caps, &options);
    assert_eq!(subpasses(&plan), [["gbuffer"], ["lighting"]]);
    assert!(
        plan.breaks[0]
            .reason
            .contains("'lighting' uses 'light clusters' like 'light clustering'")
            && !plan.breaks[0].reason.contains("depends on subpass"),
        "{}",
        plan.breaks[0].reason
    );
}

#[test]
fn with_merging_off_nothing_moves() {
    let graph = deferred(false);
    let caps = two_queue_tiler();
    let options = CompileOptions {
        merge: false,
        ..CompileOptions::ALL
    };
    let plan = compile_checked(&graph, &caps, &options);
    assert_eq!(subpasses(&plan), [["gbuffer"], ["lighting"]]);
    assert_eq!(plan.breaks[0].reason, "merging is off");
    assert!(position(&plan, "light clustering") > position(&plan, "gbuffer"));
    assert!(plan
        .syncs
        .iter()
        .any(|s| s.signal == "light clustering" && s.wait == "lighting"));
}

/// A shadow pass before the G-buffer, sampled by `light bounds`: after the hoist the bounds
/// run between `shadows` and `gbuffer`, so the break between those two names them (they
/// depend on the shadow render pass), exactly as the merge rules run over the finished
/// order say: the order phase writes that break again when it hoists.
#[test]
fn the_break_before_the_render_pass_reads_like_the_merge_over_the_final_order() {
    use tessera_graph::compile::renderpass::merge;
    use tessera_graph::compile::{cull, deps, levels, order, Schedule};

    let mut graph = Graph::new("hoisted_after_shadows");
    let atlas = graph.image(
        "shadow atlas",
        ImageDesc::new(Format::D32_SFLOAT, 2048, 2048),
    );
    graph
        .raster("shadows")
        .clears(atlas, Access::DepthWrite)
        .id();
    let frame = deferred(false);
    for r in &frame.resources {
        graph.add_resource(r.clone());
    }
    for p in &frame.passes {
        let mut p = p.clone();
        for u in &mut p.uses {
            // The frame's resources come after the atlas.
            u.resource = graph
                .find_resource(&frame.resource(u.resource).name)
                .unwrap();
        }
        if p.name == "light bounds" {
            p.uses
                .push(tessera_graph::graph::Use::new(atlas, Access::Sampled));
        }
        graph.passes.push(p);
    }
    let caps = two_queue_tiler();
    let options = CompileOptions::ALL;
    let plan = compile_checked(&graph, &caps, &options);
    assert_eq!(
        subpasses(&plan),
        [vec!["shadows"], vec!["gbuffer", "lighting"]]
    );
    assert!(position(&plan, "light bounds") < position(&plan, "gbuffer"));
    let reason = &plan.breaks[0].reason;
    assert!(
        reason.contains(
            "'light bounds' on the async_compute queue depends on subpass 'shadows' of the \
             render pass"
        ) && reason.contains("extent differs"),
        "{reason}"
    );

    let all = deps::dependencies(&graph);
    let culling = cull::cull(&graph, &all);
    let d = deps::kept_dependencies(&graph, &culling.kept);
    let queue = levels::queues(&graph, &caps, &options);
    let (order, grouped) = order::order(&graph, &d, &culling, &caps, &options, &queue);
    let level = levels::levels(&graph, &d, &order, &culling.kept);
    let schedule = Schedule::new(order, level, queue, culling.kept.clone());
    let expected = merge::group(&graph, &schedule, &caps, &options);
    assert_eq!(grouped.grouping.groups, expected.grouping.groups);
    assert_eq!(grouped.breaks, expected.breaks);
}
