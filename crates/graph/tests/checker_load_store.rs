//! Load and store operations are accesses, and loads and stores follow liveness: the checker's
//! side of both (issue 14).
//!
//! Mutation tests start from a compiled plan made "saturated" ([`saturate`]: every barrier and
//! subpass dependency waits on every stage and access, and every pair of subpasses of a render
//! pass has a dependency), which the checker must accept whatever the compiler's own masks
//! are; then one thing is broken and the rule that names it must fire. Tests of the
//! unmodified compiled plans say so in their names: they hold once the compiler follows the
//! same model.

mod common;

use common::{capabilities, options, valid_graph};
use proptest::prelude::*;
use tessera_graph::check::{self, Violation};
use tessera_graph::graph::Origin;
use tessera_graph::graph::{Graph, ImageDesc};
use tessera_graph::name::Name;
use tessera_graph::plan::{Barrier, BarrierPosition, LoadOp, Plan, StoreOp, SubpassDependency};
use tessera_graph::sync::{AccessMask, StageMask};
use tessera_graph::{compile, frame_file, Access, Capabilities, CompileOptions, Format};

/// Every stage flag.
fn all_stages() -> StageMask {
    StageMask::DRAW_INDIRECT
        | StageMask::VERTEX_SHADER
        | StageMask::FRAGMENT_SHADER
        | StageMask::EARLY_FRAGMENT_TESTS
        | StageMask::LATE_FRAGMENT_TESTS
        | StageMask::COLOR_ATTACHMENT_OUTPUT
        | StageMask::COMPUTE_SHADER
        | StageMask::ALL_TRANSFER
        | StageMask::ALL_COMMANDS
}

/// Every access flag.
fn all_access() -> AccessMask {
    AccessMask::INDIRECT_COMMAND_READ
        | AccessMask::INPUT_ATTACHMENT_READ
        | AccessMask::SHADER_SAMPLED_READ
        | AccessMask::SHADER_STORAGE_READ
        | AccessMask::SHADER_STORAGE_WRITE
        | AccessMask::COLOR_ATTACHMENT_READ
        | AccessMask::COLOR_ATTACHMENT_WRITE
        | AccessMask::DEPTH_STENCIL_ATTACHMENT_READ
        | AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
        | AccessMask::TRANSFER_READ
        | AccessMask::TRANSFER_WRITE
        | AccessMask::MEMORY_READ
        | AccessMask::MEMORY_WRITE
}

/// A dependency from subpass `src` to `dst` on everything.
fn full_dependency(src: u32, dst: u32) -> SubpassDependency {
    SubpassDependency {
        src_subpass: src,
        dst_subpass: dst,
        src_stage: all_stages(),
        dst_stage: all_stages(),
        src_access: all_access(),
        dst_access: all_access(),
        by_region: false,
    }
}

/// The plan with every barrier and subpass dependency widened to every stage and access, a
/// dependency between every two subpasses, and a barrier (without a layout change) on every
/// resource a pass uses before the pass (before its render pass for a subpass) where the plan
/// has none: whatever the compiler chose, every hazard on one queue is ordered, with the
/// memory made available and visible. (Some added barriers serve no hazard:
/// `barrier.unjustified` is expected of a saturated plan.)
fn saturate(g: &Graph, plan: &Plan) -> Plan {
    let mut p = plan.clone();
    let first_subpass = |name: &str| -> Name {
        p.render_passes
            .iter()
            .find(|rp| rp.subpasses.iter().any(|s| &**s == name))
            .map_or_else(|| Name::from(name), |rp| rp.subpasses[0])
    };
    let mut added = Vec::new();
    for pass in &p.order {
        let Some(id) = g.find_pass(pass) else {
            continue;
        };
        let before = first_subpass(pass);
        for u in &g.pass(id).uses {
            let r = g.resource(u.resource).name;
            let exists = p.barriers.iter().chain(&added).any(|b: &Barrier| {
                b.before == before
                    && b.resource == r
                    && b.queue_transfer.is_none()
                    && b.position == BarrierPosition::Before
            });
            if !exists {
                added.push(Barrier {
                    before,
                    resource: r,
                    src_stage: StageMask::empty(),
                    src_access: AccessMask::empty(),
                    dst_stage: StageMask::empty(),
                    dst_access: AccessMask::empty(),
                    old_layout: None,
                    new_layout: None,
                    queue_transfer: None,
                    position: BarrierPosition::Before,
                });
            }
        }
    }
    p.barriers.extend(added);
    for b in &mut p.barriers {
        b.src_stage = all_stages();
        b.dst_stage = all_stages();
        b.src_access = all_access();
        b.dst_access = all_access();
    }
    for rp in &mut p.render_passes {
        let n = rp.subpasses.len() as u32;
        rp.dependencies = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| full_dependency(i, j)))
            .collect();
    }
    p
}

fn violations(g: &Graph, caps: &Capabilities, o: &CompileOptions, plan: &Plan) -> Vec<Violation> {
    check::check(g, caps, o, plan).err().unwrap_or_default()
}

/// The violations of a saturated plan, less `barrier.unjustified` (see [`saturate`]).
fn saturated_violations(
    g: &Graph,
    caps: &Capabilities,
    o: &CompileOptions,
    plan: &Plan,
) -> Vec<Violation> {
    let mut v = violations(g, caps, o, plan);
    v.retain(|v| v.rule != "barrier.unjustified");
    v
}

/// The frame of issue 14: depth_prepass (depth_write, clear) -> gbuffer (depth_read + three
/// G-buffer targets) -> lighting (G-buffer and depth as input attachments) -> transparent
/// (depth_read, its own colour target) -> composite (input attachments -> swapchain).
fn five_subpasses() -> Graph {
    let mut g = Graph::new("five_subpasses");
    let (w, h) = (64, 64);
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, w, h));
    let albedo = g.image("albedo", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    let normal = g.image("normal", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    let material = g.image("material", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, w, h));
    let glass = g.image("glass", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    let swapchain = g.image("swapchain", ImageDesc::new(Format::B8G8R8A8_SRGB, w, h));
    g.resource_mut(swapchain).origin = Origin::IMPORTED;
    g.raster("depth_prepass").clears(depth, Access::DepthWrite);
    g.raster("gbuffer")
        .uses(depth, Access::DepthRead)
        .uses(albedo, Access::ColorWriteAll)
        .uses(normal, Access::ColorWriteAll)
        .uses(material, Access::ColorWriteAll);
    g.raster("lighting")
        .uses(albedo, Access::InputAttachment)
        .uses(normal, Access::InputAttachment)
        .uses(material, Access::InputAttachment)
        .uses(depth, Access::InputAttachment)
        .uses(hdr, Access::ColorWriteAll);
    g.raster("transparent")
        .uses(depth, Access::DepthRead)
        .clears(glass, Access::ColorReadWrite);
    g.raster("composite")
        .uses(hdr, Access::InputAttachment)
        .uses(glass, Access::InputAttachment)
        .uses(swapchain, Access::ColorWriteAll);
    g
}

fn mali() -> (Capabilities, CompileOptions) {
    (
        Capabilities::profile("mali").expect("known profile"),
        CompileOptions::ALL,
    )
}

fn five_subpass_plan() -> (Graph, Capabilities, CompileOptions, Plan) {
    let g = five_subpasses();
    let (caps, o) = mali();
    let plan = compile(&g, &caps, &o).expect("the frame is valid");
    assert_eq!(plan.render_passes.len(), 1, "all five merge: {plan:#?}");
    let rp = &plan.render_passes[0];
    assert_eq!(rp.subpasses.len(), 5);
    let depth = rp
        .attachments
        .iter()
        .find(|a| &*a.resource == "depth")
        .expect("depth is an attachment");
    assert!(depth.memoryless, "{depth:?}");
    assert_eq!(
        (depth.load_op, depth.store_op),
        (LoadOp::Clear, StoreOp::DontCare)
    );
    (g, caps, o, plan)
}

/// The saturated plan of the five-subpass frame passes; without its 2 -> 3 dependency (the
/// input-attachment read of depth in 'lighting' before depth's store in 'transparent', its
/// last subpass) the write-after-read is caught, and so it is when the dependency's
/// destination lacks the store's stage (`LATE_FRAGMENT_TESTS`).
#[test]
fn a_read_before_the_store_of_a_later_subpass_needs_a_dependency() {
    let (g, caps, o, plan) = five_subpass_plan();
    let full = saturate(&g, &plan);
    assert_eq!(saturated_violations(&g, &caps, &o, &full), vec![]);

    let war = |v: &Violation| {
        v.detail.contains("'depth'")
            && v.detail.contains("'lighting' (input_attachment)")
            && v.detail
                .contains("store DontCare at the end of 'transparent'")
    };
    let mut removed = full.clone();
    removed.render_passes[0]
        .dependencies
        .retain(|d| (d.src_subpass, d.dst_subpass) != (2, 3));
    let v = saturated_violations(&g, &caps, &o, &removed);
    assert!(
        v.iter().any(|v| v.rule == "hazard.subpass" && war(v)),
        "{v:#?}"
    );
    assert!(
        v.iter().any(|v| v.rule == "rp.dependency"
            && v.detail
                .contains("from subpass 2 ('lighting') to 3 ('transparent', store DontCare)")),
        "{v:#?}"
    );
    // Nothing else is wrong with that plan: only the hazards that need 2 -> 3.
    assert!(
        v.iter()
            .all(|v| matches!(v.rule, "hazard.subpass" | "rp.dependency")),
        "{v:#?}"
    );

    let mut late = full.clone();
    for d in &mut late.render_passes[0].dependencies {
        if (d.src_subpass, d.dst_subpass) == (2, 3) {
            d.dst_stage = all_stages() - StageMask::LATE_FRAGMENT_TESTS - StageMask::ALL_COMMANDS;
        }
    }
    let v = saturated_violations(&g, &caps, &o, &late);
    assert!(
        v.iter().any(|v| v.rule == "hazard.subpass" && war(v)),
        "{v:#?}"
    );
}

/// The depth-prepass's clear (a load operation, a write at EARLY_FRAGMENT_TESTS) is what the
/// later subpasses read: a dependency from subpass 0 whose source stages miss it leaves the
/// read-after-write uncovered. And the store of depth at the end of subpass 3 writes after the
/// prepass's write (write-after-write): the dependency into 3 must make it visible there.
#[test]
fn the_load_and_store_operations_of_depth_need_dependencies() {
    let (g, caps, o, plan) = five_subpass_plan();
    let full = saturate(&g, &plan);
    let mut no_visibility = full.clone();
    for d in &mut no_visibility.render_passes[0].dependencies {
        if d.dst_subpass == 3 {
            d.dst_access = d.dst_access
                - AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
                - AccessMask::MEMORY_WRITE;
        }
    }
    let v = saturated_violations(&g, &caps, &o, &no_visibility);
    assert!(
        v.iter().any(|v| v.rule == "hazard.subpass"
            && v.detail.contains(
                "'depth_prepass' (depth_write) -> store DontCare at the end of 'transparent'"
            )),
        "{v:#?}"
    );
}

/// After the merge of the compiler's load/store model, its own plan of the frame passes
/// unmodified (its subpass dependencies cover the store of depth in 'transparent').
#[test]
fn unmodified_five_subpass_plan_passes_after_the_compiler_models_store_ops() {
    let (g, caps, o, plan) = five_subpass_plan();
    assert_eq!(violations(&g, &caps, &o, &plan), vec![]);
}

/// Two render passes (no merging): the barrier after the first must wait for its store (a
/// write at LATE_FRAGMENT_TESTS for depth, even when the render pass only tests against it),
/// and the one before the second must make earlier accesses safe for its load operation.
#[test]
fn barriers_around_render_passes_wait_for_stores_and_guard_loads() {
    let mut g = Graph::new("two_passes");
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 64, 64));
    let color = g.image("color", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 256, 256));
    g.resource_mut(out).output = true;
    g.raster("prepass").clears(depth, Access::DepthWrite);
    g.raster("opaque")
        .uses(depth, Access::DepthRead)
        .clears(color, Access::ColorWriteAll);
    g.compute("post")
        .uses(depth, Access::Sampled)
        .uses(color, Access::Sampled)
        .uses(out, Access::StorageWrite);
    let caps = Capabilities::desktop();
    let o = CompileOptions::NONE;
    let plan = compile(&g, &caps, &o).expect("valid");
    let opaque = plan
        .render_passes
        .iter()
        .find(|rp| rp.subpasses.iter().any(|s| &**s == "opaque"))
        .expect("opaque has a render pass");
    let d = opaque
        .attachments
        .iter()
        .find(|a| &*a.resource == "depth")
        .expect("depth is an attachment of opaque");
    assert_eq!((d.load_op, d.store_op), (LoadOp::Load, StoreOp::Store));
    let full = saturate(&g, &plan);
    assert_eq!(saturated_violations(&g, &caps, &o, &full), vec![]);

    // The barrier before 'post' on depth (after opaque's store) waits on the depth test only.
    let i = full
        .barriers
        .iter()
        .position(|b| &*b.before == "post" && &*b.resource == "depth")
        .expect("a barrier moves depth to a sampled layout");
    let mut tests_only = full.clone();
    tests_only.barriers[i].src_stage = StageMask::EARLY_FRAGMENT_TESTS;
    tests_only.barriers[i].src_access = AccessMask::DEPTH_STENCIL_ATTACHMENT_READ;
    let v = saturated_violations(&g, &caps, &o, &tests_only);
    assert!(
        v.iter().any(|v| v.rule == "hazard.uncovered"
            && v.detail.contains("store Store at the end of 'opaque'")),
        "{v:#?}"
    );

    // The barrier before 'opaque' on color: its CLEAR is a write, after the previous frame's
    // read by 'post' (write-after-read across frames) — its destination must include the load
    // operation's stage.
    let k = full
        .barriers
        .iter()
        .position(|b| &*b.before == "opaque" && &*b.resource == "color")
        .expect("a barrier moves color to an attachment layout");
    let mut no_load_stage = full.clone();
    no_load_stage.barriers[k].dst_stage = StageMask::FRAGMENT_SHADER;
    let v = saturated_violations(&g, &caps, &o, &no_load_stage);
    assert!(
        v.iter()
            .any(|v| v.detail.contains("load Clear at the start of 'opaque'")),
        "{v:#?}"
    );
}

/// Saturated plans of every example frame pass the checker on every profile and option set:
/// the load/store model adds synchronisation requirements only, and every one of them can be
/// met by the plan's own barriers and dependencies.
#[test]
fn saturated_example_plans_pass_the_checker() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs");
    let mut seen = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("assets/graphs exists")
        .map(|e| e.expect("readable directory").path())
        .collect();
    entries.sort();
    for path in entries {
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "toml")
        ) {
            continue;
        }
        let (graph, _) = frame_file::load(&path).unwrap_or_else(|e| panic!("{e}"));
        for profile in Capabilities::PROFILES {
            let caps = Capabilities::profile(profile).expect("known profile");
            let async_only = CompileOptions {
                async_compute: true,
                ..CompileOptions::NONE
            };
            for options in [CompileOptions::ALL, CompileOptions::NONE, async_only] {
                let plan = compile(&graph, &caps, &options)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let v = saturated_violations(&graph, &caps, &options, &saturate(&graph, &plan));
                assert!(
                    v.is_empty(),
                    "{} on {profile} with {options:?}: {v:#?}",
                    path.display()
                );
            }
        }
        seen += 1;
    }
    assert!(seen >= 3, "expected the example frames, found {seen}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Saturated plans of random frames pass the checker on any device and options: every
    /// requirement the load/store model adds can be met by the plan's own barriers and
    /// dependencies, and nothing else in the checker changes its verdict. Excepted: loads of
    /// dead content (`rp.load` "loads content nothing needs"), which the compiler plans until
    /// its loads follow liveness.
    #[test]
    fn saturated_random_plans_pass_the_checker(
        graph in valid_graph(),
        caps in capabilities(),
        options in options(),
    ) {
        let plan = compile(&graph, &caps, &options)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut v = saturated_violations(&graph, &caps, &options, &saturate(&graph, &plan));
        v.retain(|v| !(v.rule == "rp.load" && v.detail.contains("loads content nothing needs")));
        prop_assert!(v.is_empty(), "{v:#?}\n{}", common::describe(&graph));
    }
}

/// An aliasing successor in the same bytes waits for the predecessor's store: 'x' is read
/// last as an input attachment (fragment shader) by 'shade', whose render pass then stores it
/// (a write at COLOR_ATTACHMENT_OUTPUT); 'y', placed over 'x', must not be written before
/// that store ends.
#[test]
fn an_aliasing_successor_waits_for_the_store() {
    let mut g = Graph::new("alias_store");
    let x = g.image("x", ImageDesc::new(Format::R8G8B8A8_UNORM, 256, 256));
    let y = g.image("y", ImageDesc::new(Format::R8G8B8A8_UNORM, 256, 256));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 256, 256));
    let out2 = g.image("out2", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(out).output = true;
    g.resource_mut(out2).output = true;
    g.compute("fill").uses(x, Access::StorageWrite);
    g.raster("shade")
        .uses(x, Access::InputAttachment)
        .uses(out, Access::ColorWriteAll);
    g.compute("second").uses(y, Access::StorageWrite);
    g.compute("use_y")
        .uses(y, Access::Sampled)
        .uses(out2, Access::StorageWrite);
    let caps = Capabilities::profile("adreno").expect("known profile");
    let o = CompileOptions {
        alias: true,
        ..CompileOptions::NONE
    };
    let plan = compile(&g, &caps, &o).expect("valid");
    let shares = plan.memory.blocks.iter().any(|b| {
        let at = |r: &str| b.placements.iter().find(|p| &*p.resource == r);
        matches!((at("x"), at("y")), (Some(p), Some(q)) if p.offset < q.offset + q.size && q.offset < p.offset + p.size)
    });
    assert!(shares, "x and y share bytes: {:#?}", plan.memory);
    let full = saturate(&g, &plan);
    assert_eq!(saturated_violations(&g, &caps, &o, &full), vec![]);
    let i = full
        .barriers
        .iter()
        .position(|b| &*b.before == "second" && &*b.resource == "y")
        .expect("y has a barrier before its first use");
    let mut broken = full.clone();
    // Waits on every stage x's uses run in, but not on its store.
    broken.barriers[i].src_stage = StageMask::COMPUTE_SHADER | StageMask::FRAGMENT_SHADER;
    let v = saturated_violations(&g, &caps, &o, &broken);
    assert!(
        v.iter().any(|v| v.rule == "memory.alias_barrier"
            && v.detail.contains("'y' reuses the bytes of 'x'")
            && v.detail.contains("COLOR_ATTACHMENT_OUTPUT")),
        "{v:#?}"
    );
}

/// Applies edit `m` (at `at`) to a plan: the kinds of damage a hand-edited or foreign plan
/// may carry into the render-pass, load/store and hazard rules.
fn damage(g: &Graph, plan: &mut Plan, m: u8, at: usize) {
    let rps = plan.render_passes.len();
    let names: Vec<Name> = g.resources.iter().map(|r| r.name).collect();
    match m % 10 {
        0 if rps > 0 => {
            let rp = &mut plan.render_passes[at % rps];
            let n = rp.subpasses.len();
            if n > 0 {
                let mut list: Vec<Name> = rp.subpasses.iter().copied().collect();
                list.remove(at % n);
                rp.subpasses = list.into();
            }
        }
        1 if rps > 0 => {
            let rp = &mut plan.render_passes[at % rps];
            rp.dependencies.push(full_dependency(at as u32 % 7, 99));
            rp.dependencies.push(full_dependency(3, 1));
        }
        2 if rps > 0 => {
            let rp = &mut plan.render_passes[at % rps];
            let mut list: Vec<_> = rp.attachments.iter().cloned().collect();
            if let Some(a) = list.first().cloned() {
                list.push(a.clone());
                let mut unknown = a;
                unknown.resource = Name::from("no_such_resource");
                list.push(unknown);
            }
            rp.attachments = list.into();
        }
        3 if rps > 0 && !names.is_empty() => {
            let rp = &mut plan.render_passes[at % rps];
            let mut list: Vec<_> = rp.attachments.iter().cloned().collect();
            if let Some(a) = list.first_mut() {
                a.resource = names[at % names.len()];
            }
            rp.attachments = list.into();
        }
        4 if plan.order.len() > 1 => {
            let n = plan.order.len();
            plan.order.swap(at % n, (at + 1) % n);
        }
        5 if !plan.order.is_empty() => {
            let n = plan.order.len();
            plan.order.remove(at % n);
        }
        6 if rps > 0 => {
            plan.render_passes[at % rps].subpasses = Vec::<Name>::new().into();
        }
        7 if rps > 0 => {
            let copy = plan.render_passes[at % rps].clone();
            plan.render_passes.push(copy);
        }
        8 => plan.render_passes.reverse(),
        _ => {
            if let Some(b) = plan.barriers.first().cloned() {
                let mut b = b;
                b.before = Name::from("no_such_pass");
                plan.barriers.push(b);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The checker never panics on a damaged plan: it reports violations.
    #[test]
    fn damaged_plans_never_panic(
        graph in valid_graph(),
        caps in capabilities(),
        options in options(),
        edits in proptest::collection::vec((any::<u8>(), any::<usize>()), 1..4),
    ) {
        let mut plan = compile(&graph, &caps, &options)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (m, at) in edits {
            damage(&graph, &mut plan, m, at);
        }
        let _ = check::check(&graph, &caps, &options, &plan);
    }
}
