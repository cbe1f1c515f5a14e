//! The core phases through the public API: dependencies, culling, order, levels, barriers,
//! errors and the compile cache.

#[path = "../benches/synthetic.rs"]
mod synthetic;

use std::sync::Arc;
use tessera_graph::plan::{Barrier, EdgeKind};
use tessera_graph::sync::{AccessMask, Layout, StageMask};
use tessera_graph::{
    compile, Access, Capabilities, CompileError, CompileOptions, Compiler, Format, Graph,
    ImageDesc, QueueKind,
};

fn rgba(g: &mut Graph, name: &str) -> tessera_graph::ResourceId {
    g.image(name, ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64))
}

fn barriers_before<'a>(plan: &'a tessera_graph::Plan, pass: &str) -> Vec<&'a Barrier> {
    plan.barriers.iter().filter(|b| b.before == pass).collect()
}

fn desktop() -> Capabilities {
    Capabilities::desktop()
}

#[test]
fn storage_write_then_accumulate_on_one_buffer_gets_a_barrier() {
    // The UAV-overlap bug: no layout or state change, still a write-after-write hazard.
    let mut g = Graph::new("uav");
    let counts = g.buffer("counts", 256);
    g.resource_mut(counts).output = true;
    g.compute("clear").uses(counts, Access::StorageWrite);
    g.compute("accumulate")
        .uses(counts, Access::StorageReadWrite);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    let b = barriers_before(&plan, "accumulate");
    assert_eq!(b.len(), 1, "{:?}", plan.barriers);
    assert_eq!(b[0].src_stage, StageMask::COMPUTE_SHADER);
    assert_eq!(b[0].src_access, AccessMask::SHADER_STORAGE_WRITE);
    assert_eq!(
        b[0].dst_access,
        AccessMask::SHADER_STORAGE_READ | AccessMask::SHADER_STORAGE_WRITE
    );
    assert_eq!((b[0].old_layout, b[0].new_layout), (None, None));
}

#[test]
fn read_after_read_in_one_layout_needs_no_second_barrier() {
    let mut g = Graph::new("rar");
    let tex = rgba(&mut g, "tex");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("draw").uses(tex, Access::ColorWriteAll);
    g.compute("blur_a")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageWrite);
    g.compute("blur_b")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageReadWrite);
    g.raster("show")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageRead)
        .side_effects();
    let plan = compile(&g, &desktop(), &CompileOptions::NONE).unwrap();
    let tex_barriers: Vec<_> = plan
        .barriers
        .iter()
        .filter(|b| b.resource == "tex")
        .collect();
    // draw's first use (previous frame), blur_a (transition + RAW), show (new stage: fragment).
    let befores: Vec<&str> = tex_barriers.iter().map(|b| b.before.as_str()).collect();
    assert_eq!(befores, ["draw", "blur_a", "show"], "{tex_barriers:#?}");
    let show = tex_barriers[2];
    assert_eq!(
        (show.old_layout, show.new_layout),
        (None, None),
        "same layout, only visibility"
    );
    assert!(show.dst_stage.contains(StageMask::FRAGMENT_SHADER));
    let blur = tex_barriers[1];
    assert_eq!(
        (blur.old_layout, blur.new_layout),
        (
            Some(Layout::COLOR_ATTACHMENT_OPTIMAL),
            Some(Layout::SHADER_READ_ONLY_OPTIMAL)
        )
    );
}

#[test]
fn culling_follows_content_and_reports_reasons() {
    let mut g = Graph::new("cull");
    let a = rgba(&mut g, "a");
    let unused = rgba(&mut g, "unused");
    let history = g.image("history", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(history).imported = true;
    g.resource_mut(history).discard_on_last_use = true;
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("base").uses(a, Access::ColorWriteAll);
    g.raster("decal").uses(a, Access::ColorWrite); // keeps base's pixels
    g.raster("dead").uses(unused, Access::ColorWriteAll);
    g.raster("scratch_history")
        .uses(history, Access::ColorWriteAll);
    g.compute("stats").side_effects();
    g.raster("final")
        .uses(a, Access::Sampled)
        .uses(out, Access::ColorWriteAll);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    assert_eq!(plan.order, ["base", "decal", "stats", "final"]);
    assert_eq!(plan.culled, ["dead", "scratch_history"]);
    assert_eq!(plan.cull_reasons.len(), 2);
    assert!(plan.cull_reasons[0].reason.contains("'unused'"));
}

#[test]
fn a_full_overwrite_cuts_the_earlier_writer_loose() {
    let mut g = Graph::new("overwrite");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("first").uses(out, Access::ColorWriteAll);
    g.raster("second").clears(out, Access::ColorWrite);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    // Both write the output, so both are kept, and the write-after-write edge orders them.
    assert_eq!(plan.order, ["first", "second"]);
    assert!(plan
        .edges
        .iter()
        .any(|e| e.from == "first" && e.to == "second" && e.kind == EdgeKind::Waw));
}

#[test]
fn levels_are_longest_paths() {
    let mut g = Graph::new("diamond");
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| g.buffer(n, 64));
    g.resource_mut(d).output = true;
    g.compute("top").uses(a, Access::StorageWrite);
    g.compute("left")
        .uses(a, Access::StorageRead)
        .uses(b, Access::StorageWrite);
    g.compute("right")
        .uses(a, Access::StorageRead)
        .uses(c, Access::StorageWrite);
    g.compute("far")
        .uses(b, Access::StorageRead)
        .uses(c, Access::StorageRead)
        .uses(d, Access::StorageWrite);
    g.compute("late_right").uses(c, Access::StorageReadWrite);
    g.compute("join")
        .uses(c, Access::StorageRead)
        .uses(d, Access::StorageReadWrite);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    let levels: Vec<Vec<&str>> = plan
        .levels
        .iter()
        .map(|l| l.iter().map(|n| n.as_str()).collect())
        .collect();
    assert_eq!(
        levels,
        vec![
            vec!["top"],
            vec!["left", "right"],
            vec!["far"],
            vec!["late_right"],
            vec!["join"]
        ]
    );
}

#[test]
fn async_passes_fold_onto_graphics_without_an_async_queue() {
    let mut g = Graph::new("async");
    let buf = g.buffer("buf", 64);
    g.resource_mut(buf).output = true;
    g.compute("produce")
        .on_queue(QueueKind::AsyncCompute)
        .uses(buf, Access::StorageWrite);
    g.compute("consume").uses(buf, Access::StorageReadWrite);
    let desktop_plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    assert_eq!(desktop_plan.queues.async_compute, ["produce"]);
    assert_eq!(desktop_plan.syncs.len(), 1);
    let mali = compile(
        &g,
        &Capabilities::profile("mali").unwrap(),
        &CompileOptions::ALL,
    )
    .unwrap();
    assert!(mali.queues.async_compute.is_empty());
    assert!(mali.syncs.is_empty());
    assert_eq!(barriers_before(&mali, "consume").len(), 1);
}

#[test]
fn transient_first_write_waits_for_every_use_of_the_previous_frame() {
    // One queue, content not needed: the barrier before the first write waits for the
    // previous frame's write and for both reads since (the phase takes them from the state
    // the frame leaves, without replaying the frame twice).
    let mut g = Graph::new("transient");
    let tex = rgba(&mut g, "tex");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("draw").uses(tex, Access::ColorWriteAll);
    g.compute("blur")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageWrite);
    g.raster("show")
        .uses(tex, Access::Sampled)
        .uses(out, Access::ColorReadWrite)
        .side_effects();
    let plan = compile(&g, &desktop(), &CompileOptions::NONE).unwrap();
    let first = barriers_before(&plan, "draw");
    assert_eq!(first.len(), 1, "{first:#?}");
    let b = first[0];
    assert_eq!(b.resource, "tex");
    assert_eq!(
        (b.old_layout, b.new_layout),
        (
            Some(Layout::UNDEFINED),
            Some(Layout::COLOR_ATTACHMENT_OPTIMAL)
        )
    );
    for stage in [
        StageMask::COLOR_ATTACHMENT_OUTPUT,
        StageMask::COMPUTE_SHADER,
        StageMask::FRAGMENT_SHADER,
    ] {
        assert!(b.src_stage.contains(stage), "{b:#?}");
    }
    assert_eq!(b.src_access, AccessMask::COLOR_ATTACHMENT_WRITE);
}

#[test]
fn imported_content_is_ordered_after_the_previous_frame() {
    let mut g = Graph::new("history");
    let h = g.buffer("history", 64);
    g.resource_mut(h).imported = true;
    g.compute("update").uses(h, Access::StorageReadWrite);
    g.compute("read")
        .uses(h, Access::StorageRead)
        .side_effects();
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    let first = barriers_before(&plan, "update");
    assert_eq!(
        first.len(),
        1,
        "write-after-read against the previous frame's reader"
    );
    assert_eq!(first[0].src_stage, StageMask::COMPUTE_SHADER);
}

#[test]
fn errors_name_pass_resource_and_rule() {
    let caps = desktop();
    let mut g = Graph::new("e");
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 8, 8));
    g.raster("p").uses(depth, Access::ColorWriteAll);
    let e = compile(&g, &caps, &CompileOptions::ALL).unwrap_err();
    assert!(matches!(e, CompileError::AccessMismatch { .. }));
    assert_eq!(
        e.to_string(),
        "pass 'p' uses 'depth' as color_write_all: colour access on a depth/stencil format"
    );

    let mut g = Graph::new("e");
    let b = g.buffer("b", 4);
    g.compute("p").uses(b, Access::StorageRead);
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::ReadBeforeWrite { .. })
    ));

    let mut g = Graph::new("e");
    let b = g.buffer("b", 4);
    g.compute("p")
        .uses(b, Access::StorageWrite)
        .uses(b, Access::StorageRead);
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::DuplicateUse { .. })
    ));

    let mut g = Graph::new("e");
    g.compute("p");
    g.compute("p");
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::DuplicatePass { .. })
    ));

    let mut g = Graph::new("e");
    g.buffer("b", 0);
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::InvalidResource { .. })
    ));

    let mut g = Graph::new("e");
    let targets: Vec<_> = (0..9).map(|i| rgba(&mut g, &format!("c{i}"))).collect();
    let mut p = g.raster("wide");
    for t in targets {
        p = p.uses(t, Access::ColorWriteAll);
    }
    let e = compile(&g, &caps, &CompileOptions::ALL).unwrap_err();
    assert!(e.to_string().contains("max_color_attachments"), "{e}");
}

#[test]
fn a_raster_pass_has_at_most_one_depth_attachment() {
    for second in [Access::DepthWrite, Access::DepthRead] {
        let mut g = Graph::new("two_depths");
        let d = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 8, 8));
        let s = g.image("shadow", ImageDesc::new(Format::D16_UNORM, 8, 8));
        let c = g.image("color", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
        g.resource_mut(c).output = true;
        g.raster("prepass").clears(d, Access::DepthWrite);
        g.raster("shadows").clears(s, Access::DepthWrite);
        g.raster("shade")
            .uses(d, Access::DepthWrite)
            .uses(s, second)
            .clears(c, Access::ColorWriteAll);
        let e = compile(&g, &desktop(), &CompileOptions::ALL).unwrap_err();
        assert!(matches!(e, CompileError::AccessMismatch { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "pass 'shade' uses 'shadow' as {}: a raster pass has at most one \
                 depth/stencil attachment, and 'depth' is already one",
                second.name()
            )
        );
    }
}

#[test]
fn an_unchanged_frame_reuses_the_previous_plan() {
    let caps = desktop();
    let build = |name: &str| {
        let mut g = Graph::new("cache");
        let out = rgba(&mut g, "out");
        g.resource_mut(out).output = true;
        g.raster(name).uses(out, Access::ColorWriteAll);
        g
    };
    let mut compiler = Compiler::new();
    let first = compiler
        .compile(&build("draw"), &caps, &CompileOptions::ALL)
        .unwrap();
    let again = compiler
        .compile(&build("draw"), &caps, &CompileOptions::ALL)
        .unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(compiler.stats(), (1, 1));
    let renamed = compiler
        .compile(&build("paint"), &caps, &CompileOptions::ALL)
        .unwrap();
    assert_eq!(renamed.order, ["paint"]);
    let other_options = compiler
        .compile(&build("paint"), &caps, &CompileOptions::NONE)
        .unwrap();
    assert!(!Arc::ptr_eq(&renamed, &other_options));
    let other_device = compiler
        .compile(
            &build("paint"),
            &Capabilities::profile("mali").unwrap(),
            &CompileOptions::NONE,
        )
        .unwrap();
    assert!(!Arc::ptr_eq(&other_options, &other_device));
    assert_eq!(compiler.stats(), (1, 4));
}

#[test]
fn structural_keys_follow_the_inputs() {
    let caps = desktop();
    let mut g = Graph::new("key");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("draw").uses(out, Access::ColorWriteAll);
    let same = g.clone();
    let k = Compiler::key(&g, &caps, &CompileOptions::ALL);
    assert_eq!(k, Compiler::key(&same, &caps, &CompileOptions::ALL));
    assert_ne!(k, Compiler::key(&g, &caps, &CompileOptions::NONE));
    g.resource_mut(out).output = false;
    assert_ne!(k, Compiler::key(&g, &caps, &CompileOptions::ALL));
}

/// A frame of the benchmark's shape at a few hundred passes (far beyond the property
/// tests' sizes) passes the checker, and compiling it again gives the same plan.
#[test]
fn a_large_synthetic_frame_passes_the_checker() {
    let graph = synthetic::synthetic(300);
    let caps = desktop();
    let options = CompileOptions::ALL;
    let plan = compile(&graph, &caps, &options).unwrap();
    assert!(plan.memory.blocks.len() < 300, "aliasing placed the frame");
    if let Err(violations) = tessera_graph::check::check(&graph, &caps, &options, &plan) {
        panic!(
            "{} violations, first: {:?}",
            violations.len(),
            violations.first()
        );
    }
    assert_eq!(compile(&graph, &caps, &options).unwrap(), plan);
}
