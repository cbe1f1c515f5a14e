//! Overlapping frames (`Plan::frame_overlap`): frame N's async tail beside frame N+1's first
//! graphics passes. The compiler's window, doubled and re-placed resources and cross-frame
//! waits; the checker's `overlap.*` rules, each caught by a mutation; random graphs.

mod common;

use common::valid_graph;
use proptest::prelude::*;
use tessera_graph::check::{self, Violation};
use tessera_graph::compile::overlap::tail_to_async;
use tessera_graph::graph::{Origin, PerFrameImport};
use tessera_graph::plan::Plan;
use tessera_graph::{
    compile, Access, Capabilities, CompileOptions, Format, Graph, ImageDesc, QueueKind,
};

/// `constants` (transfer) → `gbuffer` (raster: depth, albedo) → `cull` (async, reads depth)
/// → `light` (raster: tiles, albedo → hdr) → `post` (async: hdr, depth and the constants into
/// an imported read-back image). With `stats`, `constants` and `post` both write an imported
/// buffer (one object every frame: nothing can double it).
fn frame(stats: bool) -> Graph {
    let mut g = Graph::new("overlap");
    let full = |format| ImageDesc::new(format, 1280, 720);
    let constants = g.buffer("constants", 4096);
    let depth = g.image("depth", full(Format::D32_SFLOAT));
    let albedo = g.image("albedo", full(Format::R8G8B8A8_UNORM));
    let tiles = g.buffer("tiles", 64 * 1024);
    // Wide and large, so that doubling depth fits a quarter of the frame's memory.
    let hdr = g.image(
        "hdr",
        ImageDesc::new(Format::R32G32B32A32_SFLOAT, 2560, 1440),
    );
    let ldr = g.image("ldr", full(Format::R8G8B8A8_UNORM));
    g.resource_mut(ldr).origin = Origin::IMPORTED;
    let counters = g.buffer("stats", 256);
    g.resource_mut(counters).origin = Origin::IMPORTED;
    let mut c = g.transfer("constants").uses(constants, Access::TransferDst);
    if stats {
        c = c.uses(counters, Access::TransferDst);
    }
    c.id();
    g.raster("gbuffer")
        .uses(constants, Access::Uniform)
        .clears(depth, Access::DepthWrite)
        .clears(albedo, Access::ColorWriteAll)
        .id();
    g.compute("cull")
        .on_queue(QueueKind::AsyncCompute)
        .uses(depth, Access::Sampled)
        .uses(tiles, Access::StorageWrite)
        .id();
    g.raster("light")
        .uses(tiles, Access::StorageRead)
        .uses(albedo, Access::Sampled)
        .clears(hdr, Access::ColorWriteAll)
        .id();
    let mut p = g
        .compute("post")
        .on_queue(QueueKind::AsyncCompute)
        .uses(constants, Access::Uniform)
        .uses(hdr, Access::Sampled)
        .uses(depth, Access::Sampled)
        .uses(ldr, Access::StorageWrite);
    if stats {
        p = p.uses(counters, Access::StorageReadWrite);
    }
    p.id();
    g
}

/// Proptest cases: `PROPTEST_CASES` or `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn plan_of(g: &Graph) -> Plan {
    compile(g, &Capabilities::desktop(), &CompileOptions::ALL).expect("compiles")
}

fn rules(g: &Graph, plan: &Plan) -> Vec<Violation> {
    check::check(g, &Capabilities::desktop(), &CompileOptions::ALL, plan)
        .err()
        .unwrap_or_default()
}

fn has(v: &[Violation], rule: &str, word: &str) -> bool {
    v.iter().any(|x| x.rule == rule && x.detail.contains(word))
}

#[test]
fn the_tail_runs_beside_the_next_frames_first_passes() {
    let g = frame(false);
    let plan = plan_of(&g);
    let o = plan
        .frame_overlap
        .as_ref()
        .expect("two queues: frames overlap");
    assert_eq!(o.tail, ["post"]);
    // `light` waits for `cull` in its own frame: the head ends there with no extra wait.
    assert_eq!(o.head, ["constants", "gbuffer"]);
    assert_eq!(o.head_end, "light");
    assert!(o.waits.is_empty(), "{:?}", o.waits);
    // `post` reads the constants and the depth the next frame's head writes: both exist twice.
    let doubled: Vec<&str> = o.doubled.iter().map(|d| d.resource.as_str()).collect();
    assert!(
        doubled.contains(&"constants") && doubled.contains(&"depth"),
        "{doubled:?}"
    );
    assert_eq!(o.twin_blocks.len(), o.doubled.len());
    assert!(o.extra_bytes <= o.budget_bytes);
    assert_eq!(rules(&g, &plan), Vec::new());
}

#[test]
fn an_import_both_frames_write_ends_the_head_with_one_wait() {
    let g = frame(true);
    let plan = plan_of(&g);
    let o = plan.frame_overlap.as_ref().unwrap();
    assert!(o.head.is_empty(), "{:?}", o.head);
    assert_eq!(o.waits.len(), 1);
    let w = &o.waits[0];
    assert_eq!((w.wait.as_str(), w.signal.as_str()), ("constants", "post"));
    assert!(
        w.resources.iter().any(|r| r == "stats"),
        "{:?}",
        w.resources
    );
    assert!(w.reason.contains("cannot exist twice"), "{}", w.reason);
    // The wait starts a graphics batch (the executor waits there for the previous frame).
    assert!(plan
        .batches
        .iter()
        .any(|b| b.queue == QueueKind::Graphics && b.passes.first() == Some(&w.wait)));
    assert_eq!(rules(&g, &plan), Vec::new());
}

#[test]
fn a_removed_cross_frame_wait_is_a_hazard() {
    let g = frame(true);
    let mut plan = plan_of(&g);
    plan.frame_overlap.as_mut().unwrap().waits.clear();
    let v = rules(&g, &plan);
    assert!(has(&v, "overlap.hazard", "'stats'"), "{v:?}");
}

#[test]
fn a_resource_no_longer_doubled_is_a_hazard() {
    let g = frame(false);
    let mut plan = plan_of(&g);
    let o = plan.frame_overlap.as_mut().unwrap();
    let i = o
        .doubled
        .iter()
        .position(|d| d.resource == "depth")
        .unwrap();
    o.doubled.remove(i);
    let v = rules(&g, &plan);
    assert!(has(&v, "overlap.hazard", "'depth'"), "{v:?}");
}

#[test]
fn tail_memory_under_a_head_resource_is_reported() {
    let g = frame(false);
    let mut plan = plan_of(&g);
    // Move `hdr` (the tail's) onto `albedo` (the head's), which `light` reads while writing
    // `hdr` in one frame too: the memory rules complain, and so must the overlap rule.
    let find = |plan: &Plan, name: &str| {
        plan.memory
            .blocks
            .iter()
            .enumerate()
            .find_map(|(b, block)| {
                block
                    .placements
                    .iter()
                    .position(|p| p.resource == name)
                    .map(|i| (b, i))
            })
            .unwrap()
    };
    let (ab, ai) = find(&plan, "albedo");
    let albedo = plan.memory.blocks[ab].placements[ai].clone();
    let (hb, hi) = find(&plan, "hdr");
    let mut hdr = plan.memory.blocks[hb].placements.remove(hi);
    hdr.offset = albedo.offset;
    plan.memory.blocks[ab].placements.push(hdr);
    let v = rules(&g, &plan);
    assert!(has(&v, "overlap.alias", "'hdr'"), "{v:?}");
}

#[test]
fn a_tail_listed_wrong_is_reported() {
    let g = frame(false);
    let mut plan = plan_of(&g);
    plan.frame_overlap
        .as_mut()
        .unwrap()
        .tail
        .push("cull".into());
    assert!(has(&rules(&g, &plan), "overlap.tail", "cull"));
}

#[test]
fn frames_do_not_overlap_on_one_queue_or_with_the_switch_off() {
    let g = frame(false);
    let one_queue = Capabilities {
        async_compute: false,
        ..Capabilities::desktop()
    };
    let plan = compile(&g, &one_queue, &CompileOptions::ALL).unwrap();
    assert!(plan.frame_overlap.is_none());
    let off = CompileOptions {
        overlap_frames: false,
        ..CompileOptions::ALL
    };
    let plan = compile(&g, &Capabilities::desktop(), &off).unwrap();
    assert!(plan.frame_overlap.is_none());
}

#[test]
fn a_tight_budget_ends_the_head_with_a_wait_that_says_why() {
    // A big depth image both frames use: doubling it costs more than a quarter of the
    // frame's transient memory.
    let mut g = Graph::new("budget");
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 4096, 4096));
    let small = g.image("small", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(out).origin = Origin::IMPORTED;
    g.raster("draw").clears(depth, Access::DepthWrite).id();
    g.raster("small").clears(small, Access::ColorWriteAll).id();
    g.compute("post")
        .on_queue(QueueKind::AsyncCompute)
        .uses(depth, Access::Sampled)
        .uses(small, Access::Sampled)
        .uses(out, Access::StorageWrite)
        .id();
    let plan = plan_of(&g);
    let o = plan.frame_overlap.as_ref().unwrap();
    assert!(o.doubled.is_empty());
    assert_eq!(o.waits.len(), 1, "{o:?}");
    assert!(
        o.waits[0].reason.contains("budget"),
        "{}",
        o.waits[0].reason
    );
    assert_eq!(rules(&g, &plan), Vec::new());
}

#[test]
fn the_post_chain_after_the_last_raster_pass_moves_to_the_async_queue() {
    let mut g = Graph::new("tail");
    let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
    let mid = g.image("mid", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
    let ldr = g.image("ldr", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    let ui = g.image("ui", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    let swap = g.image("swapchain", ImageDesc::new(Format::B8G8R8A8_SRGB, 64, 64));
    g.resource_mut(ldr).output = true;
    g.resource_mut(ui).output = true;
    g.resource_mut(swap).origin = Origin::ImportedPerFrame(PerFrameImport::default());
    let pre = g.compute("pre").uses(mid, Access::StorageWrite).id();
    let draw = g
        .raster("draw")
        .uses(mid, Access::Sampled)
        .clears(hdr, Access::ColorWriteAll)
        .id();
    let tone = g
        .compute("tonemap")
        .uses(hdr, Access::Sampled)
        .uses(ldr, Access::StorageWrite)
        .id();
    let copy = g
        .transfer("copy")
        .uses(ldr, Access::TransferSrc)
        .uses(ui, Access::TransferDst)
        .id();
    let present = g
        .transfer("present")
        .uses(ui, Access::TransferSrc)
        .uses(swap, Access::TransferDst)
        .id();
    let mut tailed = g.clone();
    assert_eq!(
        tail_to_async(&mut tailed),
        0,
        "everything feeds the presented image"
    );
    // Without the presentation, the chain after the raster pass moves.
    g.passes.truncate(present.index());
    assert_eq!(tail_to_async(&mut g), 2);
    let q = |p: tessera_graph::PassId| g.pass(p).queue;
    assert_eq!(q(pre), QueueKind::Graphics, "feeds a raster pass");
    assert_eq!(q(draw), QueueKind::Graphics);
    assert_eq!(
        (q(tone), q(copy)),
        (QueueKind::AsyncCompute, QueueKind::AsyncCompute)
    );
    let plan = plan_of(&g);
    assert_eq!(plan.frame_overlap.unwrap().tail, ["tonemap", "copy"]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128), ..ProptestConfig::default() })]

    /// Random graphs with their post-raster work moved to the async queue: every plan with
    /// overlap passes the checker, and overlaps whenever the async queue has work.
    #[test]
    fn random_two_queue_graphs_overlap_and_check(mut graph in valid_graph()) {
        tail_to_async(&mut graph);
        let caps = Capabilities::desktop();
        let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("valid graphs compile");
        prop_assert_eq!(
            plan.frame_overlap.is_some(),
            !plan.queues.async_compute.is_empty()
        );
        if let Err(v) = check::check(&graph, &caps, &CompileOptions::ALL, &plan) {
            prop_assert!(false, "{:?}", v);
        }
    }
}
