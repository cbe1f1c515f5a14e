//! The checker can fail: compile real graphs, break one thing in the plan, and require the
//! violation rule that names it. Also: the example frames pass the checker everywhere.

use tessera_graph::check::{self, Violation};
use tessera_graph::graph::Origin;
use tessera_graph::graph::{Graph, ImageDesc, QueueKind};
use tessera_graph::name::Name;
use tessera_graph::plan::{
    Barrier, Edge, EdgeKind, Plan, QueueTransfer, RenderPass, SubpassDependency, Sync, TransferHalf,
};
use tessera_graph::sync::{AccessMask, Layout, StageMask};
use tessera_graph::{compile, frame_file, Access, Capabilities, CompileOptions, Format};

/// Options with everything off except the async queue, so the order is the declaration order.
const ASYNC: CompileOptions = CompileOptions {
    async_compute: true,
    ..CompileOptions::NONE
};

/// clear (storage write) -> accumulate (storage read-write) on one buffer: the UAV-overlap
/// case; plus a raster/compute chain to the swapchain and a pass nobody needs.
fn frame() -> Graph {
    let mut g = Graph::new("mutants");
    let counts = g.buffer("counts", 4096);
    let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
    let blurred = g.image(
        "blurred",
        ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64),
    );
    let scratch = g.buffer("scratch", 256);
    let swapchain = g.image("swapchain", ImageDesc::new(Format::B8G8R8A8_SRGB, 64, 64));
    g.resource_mut(swapchain).origin = Origin::IMPORTED;
    g.compute("clear").clears(counts, Access::StorageWrite);
    g.compute("accumulate")
        .uses(counts, Access::StorageReadWrite);
    g.raster("draw").clears(hdr, Access::ColorWriteAll);
    g.compute("useless").uses(scratch, Access::StorageWrite);
    g.compute("blur")
        .uses(hdr, Access::Sampled)
        .uses(blurred, Access::StorageWrite);
    g.raster("present")
        .uses(blurred, Access::Sampled)
        .uses(swapchain, Access::ColorWriteAll);
    g.compute("readback")
        .uses(counts, Access::StorageRead)
        .side_effects();
    g
}

/// An async-compute producer read by a graphics consumer.
fn async_frame() -> Graph {
    let mut g = Graph::new("async");
    let ao = g.image("ao", ImageDesc::new(Format::R8_UNORM, 64, 64));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(out).output = true;
    g.compute("ssao")
        .uses(ao, Access::StorageWrite)
        .on_queue(QueueKind::AsyncCompute);
    g.raster("lighting")
        .uses(ao, Access::Sampled)
        .uses(out, Access::ColorWriteAll);
    g
}

fn compiled(g: &Graph, options: &CompileOptions) -> Plan {
    let plan = compile(g, &Capabilities::desktop(), options).expect("the test graph is valid");
    if let Err(v) = check::check(g, &Capabilities::desktop(), options, &plan) {
        panic!("unmutated plan fails the checker: {v:#?}");
    }
    plan
}

fn violations(g: &Graph, options: &CompileOptions, plan: &Plan) -> Vec<Violation> {
    check::check(g, &Capabilities::desktop(), options, plan)
        .err()
        .unwrap_or_default()
}

#[track_caller]
fn assert_caught(g: &Graph, options: &CompileOptions, plan: &Plan, rule: &str, mentions: &str) {
    let v = violations(g, options, plan);
    assert!(
        v.iter()
            .any(|v| v.rule == rule && v.detail.contains(mentions)),
        "expected [{rule}] mentioning '{mentions}', got {v:#?}"
    );
}

fn barrier_index(plan: &Plan, before: &str, resource: &str) -> usize {
    plan.barriers
        .iter()
        .position(|b| &*b.before == before && &*b.resource == resource)
        .unwrap_or_else(|| {
            panic!(
                "no barrier on '{resource}' before '{before}' in {:#?}",
                plan.barriers
            )
        })
}

fn names(list: &[&str]) -> Vec<Name> {
    list.iter().map(|&s| Name::from(s)).collect()
}

#[test]
fn uav_overlap_needs_a_barrier_and_removing_it_is_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let b = &plan.barriers[barrier_index(&plan, "accumulate", "counts")];
    assert!(b.src_stage.contains(StageMask::COMPUTE_SHADER));
    assert!(b.src_access.contains(AccessMask::SHADER_STORAGE_WRITE));
    assert!(b
        .dst_access
        .contains(AccessMask::SHADER_STORAGE_READ | AccessMask::SHADER_STORAGE_WRITE));
    assert_eq!(
        (b.old_layout, b.new_layout),
        (None, None),
        "a buffer has no layout to change"
    );
    let mut broken = plan.clone();
    broken
        .barriers
        .remove(barrier_index(&plan, "accumulate", "counts"));
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &broken,
        "hazard.uncovered",
        "counts",
    );
}

#[test]
fn a_write_made_available_only_by_an_acquire_is_caught() {
    // Vulkan ignores an acquire's source access mask: relabelling the storage-write barrier
    // before 'accumulate' as the acquire half of an ownership transfer, with its stages and
    // access unchanged, leaves the write unavailable.
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let i = barrier_index(&plan, "accumulate", "counts");
    assert!(plan.barriers[i]
        .src_access
        .contains(AccessMask::SHADER_STORAGE_WRITE));
    let mut broken = plan.clone();
    broken.barriers[i].queue_transfer = Some(QueueTransfer {
        src_queue: QueueKind::AsyncCompute,
        dst_queue: QueueKind::Graphics,
        half: TransferHalf::Acquire,
    });
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &broken,
        "hazard.uncovered",
        "counts",
    );
}

#[test]
fn dropped_source_stage_or_access_is_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let i = barrier_index(&plan, "accumulate", "counts");
    let mut no_stage = plan.clone();
    no_stage.barriers[i].src_stage = StageMask::FRAGMENT_SHADER;
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &no_stage,
        "hazard.uncovered",
        "counts",
    );
    let mut no_access = plan.clone();
    no_access.barriers[i].src_access = AccessMask::empty();
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &no_access,
        "hazard.uncovered",
        "counts",
    );
    let mut no_visibility = plan.clone();
    no_visibility.barriers[i].dst_access = AccessMask::SHADER_STORAGE_WRITE;
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &no_visibility,
        "hazard.uncovered",
        "counts",
    );
}

#[test]
fn reordered_dependent_passes_are_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let mut broken = plan.clone();
    let (a, b) = (
        broken.order.iter().position(|p| &**p == "clear").unwrap(),
        broken
            .order
            .iter()
            .position(|p| &**p == "accumulate")
            .unwrap(),
    );
    broken.order.swap(a, b);
    broken.queues.graphics = broken.order.clone();
    assert_caught(&g, &CompileOptions::NONE, &broken, "order.edge", "counts");
}

#[test]
fn culling_mistakes_are_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    assert!(plan.culled.iter().any(|p| &**p == "useless"));
    let mut uncull = plan.clone();
    uncull.culled.retain(|p| &**p != "useless");
    uncull.cull_reasons.retain(|r| &*r.pass != "useless");
    uncull.order.push("useless".into());
    uncull.queues.graphics.push("useless".into());
    let mut levels = uncull.levels.to_lists();
    levels[0].push("useless".into());
    uncull.levels = levels.into();
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &uncull,
        "cull.kept_useless",
        "useless",
    );
    let mut overcull = plan.clone();
    overcull.order.retain(|p| &**p != "draw");
    overcull.culled.push("draw".into());
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &overcull,
        "cull.culled_needed",
        "draw",
    );
    let mut lost = plan.clone();
    lost.order.retain(|p| &**p != "blur");
    assert_caught(&g, &CompileOptions::NONE, &lost, "order.missing", "blur");
}

#[test]
fn corrupted_levels_and_queues_are_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let mut levels = plan.clone();
    let mut lists = levels.levels.to_lists();
    let level = lists
        .iter()
        .position(|l| l.iter().any(|p| &**p == "accumulate"))
        .unwrap();
    lists[level].retain(|p| &**p != "accumulate");
    lists[level + 1].push("accumulate".into());
    levels.levels = lists.into();
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &levels,
        "level.wrong",
        "accumulate",
    );
    let mut queues = plan.clone();
    queues.queues.graphics.retain(|p| &**p != "blur");
    queues.queues.async_compute.push("blur".into());
    assert_caught(&g, &CompileOptions::NONE, &queues, "queue.wrong", "blur");
}

#[test]
fn removed_sync_is_caught() {
    let g = async_frame();
    let plan = compiled(&g, &ASYNC);
    assert_eq!(plan.queues.async_compute, names(&["ssao"]));
    assert!(
        plan.syncs
            .iter()
            .any(|s| &*s.signal == "ssao" && &*s.wait == "lighting"),
        "{:#?}",
        plan.syncs
    );
    let mut broken = plan.clone();
    broken.syncs.clear();
    assert_caught(&g, &ASYNC, &broken, "hazard.unsynced", "ao");
    // A semaphore the other way round does not help.
    broken.syncs.push(Sync {
        signal: "lighting".into(),
        signal_queue: QueueKind::Graphics,
        wait: "ssao".into(),
        wait_queue: QueueKind::AsyncCompute,
        resources: names(&["ao"]).into(),
        value: 1,
    });
    assert_caught(&g, &ASYNC, &broken, "hazard.unsynced", "ao");
}

#[test]
fn previous_frame_hazard_is_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    // readback (last use, a read) -> clear of the next frame (first use, a write).
    let i = barrier_index(&plan, "clear", "counts");
    assert!(plan.barriers[i]
        .src_stage
        .contains(StageMask::COMPUTE_SHADER));
    let mut broken = plan.clone();
    broken.barriers.remove(i);
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &broken,
        "hazard.cross_frame",
        "counts",
    );
}

#[test]
fn duplicate_unjustified_and_misplaced_barriers_are_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let mut dup = plan.clone();
    dup.barriers
        .push(plan.barriers[barrier_index(&plan, "accumulate", "counts")].clone());
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &dup,
        "barrier.duplicate",
        "counts",
    );
    let mut extra = plan.clone();
    extra.barriers.push(Barrier {
        before: "present".into(),
        resource: "counts".into(),
        src_stage: StageMask::ALL_TRANSFER,
        src_access: AccessMask::TRANSFER_WRITE,
        dst_stage: StageMask::ALL_TRANSFER,
        dst_access: AccessMask::TRANSFER_READ,
        old_layout: None,
        new_layout: None,
        queue_transfer: None,
        position: Default::default(),
    });
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &extra,
        "barrier.unjustified",
        "counts",
    );
    let mut culled = plan.clone();
    culled.barriers[0].before = "useless".into();
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &culled,
        "barrier.unknown",
        "useless",
    );
}

#[test]
fn wrong_layouts_are_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let i = barrier_index(&plan, "blur", "hdr");
    assert_eq!(
        plan.barriers[i].new_layout,
        Some(Layout::SHADER_READ_ONLY_OPTIMAL)
    );
    let mut wrong_new = plan.clone();
    wrong_new.barriers[i].new_layout = Some(Layout::GENERAL);
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &wrong_new,
        "layout.mismatch",
        "hdr",
    );
    let mut wrong_old = plan.clone();
    wrong_old.barriers[i].old_layout = Some(Layout::UNDEFINED);
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &wrong_old,
        "layout.mismatch",
        "hdr",
    );
    let mut half = plan.clone();
    half.barriers[i].old_layout = None;
    assert_caught(&g, &CompileOptions::NONE, &half, "layout.malformed", "hdr");
}

#[test]
fn unreal_edges_are_caught() {
    let g = frame();
    let plan = compiled(&g, &CompileOptions::NONE);
    let mut broken = plan.clone();
    broken.edges.push(Edge {
        from: "draw".into(),
        to: "accumulate".into(),
        resource: "counts".into(),
        kind: EdgeKind::Raw,
    });
    assert_caught(&g, &CompileOptions::NONE, &broken, "edge.unreal", "draw");
    let mut wrong_kind = plan.clone();
    let e = wrong_kind
        .edges
        .iter_mut()
        .find(|e| &*e.from == "clear" && &*e.to == "accumulate")
        .expect("clear -> accumulate");
    e.kind = EdgeKind::War;
    assert_caught(
        &g,
        &CompileOptions::NONE,
        &wrong_kind,
        "edge.unreal",
        "clear",
    );
}

/// Two raster passes hand-merged into one render pass: the hazard between them needs a
/// subpass dependency (a chain of them works too); barriers do not count inside. The store
/// of 'c' at the end of 'b' (its last subpass) writes after a's write: the dependency must
/// reach the store's stage too.
#[test]
fn hazards_inside_a_render_pass_need_subpass_dependencies() {
    let mut g = Graph::new("merged");
    let c = g.image("c", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(out).output = true;
    g.raster("a").uses(c, Access::ColorWriteAll);
    g.raster("b")
        .uses(c, Access::InputAttachment)
        .uses(out, Access::ColorWriteAll);
    // The compiled plan is only the material the merged one is made of.
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::NONE).expect("valid");
    let mut merged = plan.clone();
    let mut rp = RenderPass {
        subpasses: names(&["a", "b"]).into(),
        ..RenderPass::default()
    };
    for mut att in merged
        .render_passes
        .iter()
        .flat_map(|r| r.attachments.clone())
    {
        if let Some(first) = rp
            .attachments
            .iter_mut()
            .find(|x| x.resource == att.resource)
        {
            first.final_layout = att.final_layout;
        } else {
            att.final_layout = att.initial_layout;
            rp.attachments.push(att);
        }
    }
    merged.render_passes = vec![rp];
    merged
        .barriers
        .retain(|b| !(&*b.before == "b" && &*b.resource == "c"));
    // The next frame's first transition of 'c' now follows a's write directly (no
    // transition before b any more), as a merging compiler would emit it.
    let first = barrier_index(&merged, "a", "c");
    merged.barriers[first].src_stage |= StageMask::COLOR_ATTACHMENT_OUTPUT;
    merged.barriers[first].src_access |= AccessMask::COLOR_ATTACHMENT_WRITE;
    let hazards = |p: &Plan| -> Vec<Violation> {
        violations(&g, &CompileOptions::NONE, p)
            .into_iter()
            .filter(|v| v.rule.starts_with("hazard."))
            .collect()
    };
    assert!(
        hazards(&merged)
            .iter()
            .any(|v| v.rule == "hazard.subpass" && v.detail.contains("'c'")),
        "{:#?}",
        hazards(&merged)
    );
    let dep = SubpassDependency {
        src_subpass: 0,
        dst_subpass: 1,
        src_stage: StageMask::COLOR_ATTACHMENT_OUTPUT,
        dst_stage: StageMask::FRAGMENT_SHADER | StageMask::COLOR_ATTACHMENT_OUTPUT,
        src_access: AccessMask::COLOR_ATTACHMENT_WRITE,
        dst_access: AccessMask::INPUT_ATTACHMENT_READ | AccessMask::COLOR_ATTACHMENT_WRITE,
        by_region: true,
    };
    let mut covered = merged.clone();
    covered.render_passes[0].dependencies.push(dep.clone());
    assert_eq!(hazards(&covered), vec![]);
    // Only the input-attachment read covered: the store of 'c' at the end of 'b' (kept from
    // a's own render pass) races a's
    // write (write-after-write).
    let mut read_only = merged.clone();
    read_only.render_passes[0]
        .dependencies
        .push(SubpassDependency {
            dst_stage: StageMask::FRAGMENT_SHADER,
            dst_access: AccessMask::INPUT_ATTACHMENT_READ,
            ..dep.clone()
        });
    let found = hazards(&read_only);
    assert!(
        found.iter().any(|v| v.rule == "hazard.subpass"
            && v.detail
                .contains("'a' (color_write_all) -> store Store at the end of 'b'")),
        "{found:#?}"
    );
    assert!(
        !found
            .iter()
            .any(|v| v.detail.contains("-> 'b' (input_attachment)")),
        "{found:#?}"
    );
    let mut wrong_direction = merged.clone();
    wrong_direction.render_passes[0]
        .dependencies
        .push(SubpassDependency {
            src_subpass: 1,
            dst_subpass: 0,
            ..dep.clone()
        });
    assert!(hazards(&wrong_direction)
        .iter()
        .any(|v| v.rule == "hazard.subpass"));
    let mut no_visibility = merged.clone();
    no_visibility.render_passes[0]
        .dependencies
        .push(SubpassDependency {
            dst_access: AccessMask::SHADER_SAMPLED_READ,
            ..dep
        });
    assert!(hazards(&no_visibility)
        .iter()
        .any(|v| v.rule == "hazard.subpass"));
}

/// Execution dependencies chain through barriers of other resources: a write-after-read
/// needs no memory dependency, so two chained barriers cover it.
#[test]
fn barrier_chains_cover_write_after_read() {
    let mut g = Graph::new("chain");
    let a = g.buffer("a", 64);
    let b = g.buffer("b", 64);
    g.compute("w")
        .uses(a, Access::StorageWrite)
        .uses(b, Access::StorageWrite)
        .side_effects();
    g.compute("r").uses(a, Access::StorageRead).side_effects();
    g.transfer("t").uses(b, Access::TransferSrc).side_effects();
    g.transfer("w2").uses(a, Access::TransferDst).side_effects();
    let plan = compiled(&g, &CompileOptions::NONE);
    // Replace the direct r -> w2 barrier on 'a' by a chain: compute -> transfer on 'b'
    // (before t) then transfer -> transfer on 'a' (before w2).
    let i = barrier_index(&plan, "w2", "a");
    let mut chained = plan.clone();
    let direct = chained.barriers[i].clone();
    assert!(direct.src_stage.contains(StageMask::COMPUTE_SHADER));
    chained.barriers[i].src_stage = StageMask::ALL_TRANSFER;
    chained.barriers[i].src_access = AccessMask::empty();
    let hazards = |p: &Plan| -> Vec<Violation> {
        violations(&g, &CompileOptions::NONE, p)
            .into_iter()
            .filter(|v| v.rule.starts_with("hazard."))
            .collect()
    };
    let tb = barrier_index(&plan, "t", "b");
    assert!(
        plan.barriers[tb]
            .src_stage
            .contains(StageMask::COMPUTE_SHADER)
            && plan.barriers[tb]
                .dst_stage
                .contains(StageMask::ALL_TRANSFER)
    );
    // w -> w2 is ordered by the chain (a: compute -> compute, before r, which also makes w's
    // write available), (b: compute -> transfer, before t), (a: transfer -> transfer).
    assert_eq!(hazards(&chained), vec![]);
    // A link that does not chain (fragment stages never meet transfer) breaks the path
    // that makes w's write visible to w2; r -> w2 (write-after-read) stays covered by the
    // barrier on 'b' alone, an execution dependency from compute to transfer.
    chained.barriers[i].src_stage = StageMask::FRAGMENT_SHADER;
    let found = hazards(&chained);
    assert!(
        found
            .iter()
            .any(|v| v.rule == "hazard.uncovered"
                && v.detail.contains("'w' (storage_write) -> 'w2'")),
        "{found:#?}"
    );
    assert!(
        !found
            .iter()
            .any(|v| v.detail.contains("'r' (storage_read) -> 'w2'")),
        "{found:#?}"
    );
}

#[test]
fn example_frames_pass_the_checker_everywhere() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("assets/graphs exists") {
        let path = entry.expect("readable directory").path();
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "toml")
        ) {
            continue;
        }
        let (graph, _) = frame_file::load(&path).unwrap_or_else(|e| panic!("{e}"));
        for profile in Capabilities::PROFILES {
            let caps = Capabilities::profile(profile).expect("known profile");
            for options in [CompileOptions::ALL, CompileOptions::NONE, ASYNC] {
                let plan = compile(&graph, &caps, &options)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                if let Err(v) = check::check(&graph, &caps, &options, &plan) {
                    panic!("{} on {profile} with {options:?}: {v:#?}", path.display());
                }
            }
        }
        seen += 1;
    }
    assert!(seen >= 3, "expected the example frames, found {seen}");
}

/// Three buffers of one size used by three consecutive passes share bytes: `c` reuses
/// `a`'s, `b` reuses `c`'s (and so `a`'s). Only the latest earlier occupant gets an aliasing
/// barrier: `b` waits on `c`'s compute write, not on `a`'s transfer write, which is ordered
/// before it through `c`'s barrier (a chain). The checker accepts the chain and catches a
/// broken link.
#[test]
fn aliasing_barriers_chain_and_a_missing_link_is_caught() {
    const MIB: u64 = 1 << 20;
    let mut g = Graph::new("chain");
    let a = g.buffer("a", 8 * MIB);
    let c = g.buffer("c", 8 * MIB);
    let b = g.buffer("b", 8 * MIB);
    g.transfer("fill")
        .uses(a, Access::TransferDst)
        .side_effects();
    g.compute("middle")
        .uses(c, Access::StorageWrite)
        .side_effects();
    g.compute("last")
        .uses(b, Access::StorageWrite)
        .side_effects();
    let o = CompileOptions::ALL;
    let plan = compiled(&g, &o);
    let m = &plan.memory;
    assert_eq!(m.blocks.len(), 1, "{m:#?}");
    assert!(
        m.blocks[0].placements.iter().all(|p| p.offset == 0),
        "{m:#?}"
    );
    let to_c = &plan.barriers[barrier_index(&plan, "middle", "c")];
    assert!(
        to_c.src_stage.intersects(StageMask::ALL_TRANSFER),
        "{to_c:?}"
    );
    let to_b = &plan.barriers[barrier_index(&plan, "last", "b")];
    assert!(
        to_b.src_stage.contains(StageMask::COMPUTE_SHADER),
        "{to_b:?}"
    );
    assert!(
        !to_b.src_stage.intersects(StageMask::ALL_TRANSFER),
        "only the latest occupant is waited on directly: {to_b:?}"
    );

    // Without c's barrier, neither c nor b is ordered after a.
    let mut broken = plan.clone();
    broken.barriers.remove(barrier_index(&plan, "middle", "c"));
    assert_caught(
        &g,
        &o,
        &broken,
        "memory.alias_barrier",
        "'b' reuses the bytes of 'a'",
    );
    assert_caught(
        &g,
        &o,
        &broken,
        "memory.alias_barrier",
        "'c' reuses the bytes of 'a'",
    );

    // A second link that does not meet the first (b's barrier waits on nothing c's
    // barrier leads to) breaks the chain too.
    let mut broken = plan.clone();
    let k = barrier_index(&plan, "last", "b");
    broken.barriers[k].src_stage = StageMask::ALL_TRANSFER;
    assert_caught(
        &g,
        &o,
        &broken,
        "memory.alias_barrier",
        "'b' reuses the bytes of 'c'",
    );
}
