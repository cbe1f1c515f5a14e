//! One test per rule of the render pass phase: each fails when its rule is removed.

use crate::access::Access;
use crate::caps::{Capabilities, CompileOptions};
use crate::error::CompileError;
use crate::format::Format;
use crate::graph::{Graph, ImageDesc, Import, Origin, ResourceId};
use crate::plan::{Attachment, LoadOp, Plan, StoreOp};
use crate::{check, compile};

const W: u32 = 64;
const H: u32 = 32;

fn rgba8(g: &mut Graph, name: &str) -> ResourceId {
    g.image(name, ImageDesc::new(Format::R8G8B8A8_UNORM, W, H))
}

fn depth(g: &mut Graph, name: &str) -> ResourceId {
    g.image(name, ImageDesc::new(Format::D32_SFLOAT, W, H))
}

fn output(g: &mut Graph, name: &str) -> ResourceId {
    let id = g.image(name, ImageDesc::new(Format::B8G8R8A8_SRGB, W, H));
    let r = g.resource_mut(id);
    r.origin = Origin::IMPORTED;
    r.output = true;
    id
}

fn plan_with(g: &Graph, caps: &Capabilities, options: CompileOptions) -> Plan {
    let plan = compile(g, caps, &options).unwrap_or_else(|e| panic!("{e}"));
    if let Err(v) = check::check(g, caps, &options, &plan) {
        panic!("checker: {v:?}");
    }
    plan
}

fn plan(g: &Graph, profile: &str) -> Plan {
    plan_with(
        g,
        &Capabilities::profile(profile).expect("profile"),
        CompileOptions::ALL,
    )
}

fn subpasses(p: &Plan) -> Vec<Vec<&str>> {
    p.render_passes
        .iter()
        .map(|rp| rp.subpasses.iter().map(|n| n.as_str()).collect())
        .collect()
}

fn att<'p>(p: &'p Plan, rp: usize, name: &str) -> &'p Attachment {
    p.render_passes[rp]
        .attachments
        .iter()
        .find(|a| a.resource == name)
        .unwrap_or_else(|| panic!("no '{name}' in #{rp}"))
}

fn only_break(p: &Plan) -> &str {
    assert_eq!(p.breaks.len(), 1, "{:?}", p.breaks);
    &p.breaks[0].reason
}

/// `a` writes `x`; `b` reads it with `access` and writes the output.
fn pair(access: Access) -> Graph {
    let mut g = Graph::new("pair");
    let x = rgba8(&mut g, "x");
    let out = output(&mut g, "out");
    g.raster("a").uses(x, Access::ColorWriteAll);
    g.raster("b")
        .uses(x, access)
        .uses(out, Access::ColorWriteAll);
    g
}

#[test]
fn input_attachment_reads_merge() {
    let p = plan(&pair(Access::InputAttachment), "mali");
    assert_eq!(subpasses(&p), [["a", "b"]]);
    assert!(p.breaks.is_empty());
}

#[test]
fn merge_off_gives_one_render_pass_per_raster_pass() {
    let g = pair(Access::InputAttachment);
    let p = plan_with(
        &g,
        &Capabilities::profile("mali").unwrap(),
        CompileOptions {
            merge: false,
            ..CompileOptions::ALL
        },
    );
    assert_eq!(subpasses(&p), [["a"], ["b"]]);
    assert_eq!(only_break(&p), "merging is off");
}

#[test]
fn sampled_read_of_an_earlier_subpass_output_breaks() {
    let p = plan(&pair(Access::Sampled), "mali");
    assert_eq!(subpasses(&p), [["a"], ["b"]]);
    assert_eq!(
        only_break(&p),
        "'b' samples 'x' (sampled, not an input attachment), written by subpass 'a'"
    );
    assert_eq!(
        att(&p, 0, "x").store_op,
        StoreOp::Store,
        "a later render pass samples it"
    );
}

#[test]
fn storage_read_of_an_earlier_subpass_output_breaks() {
    let mut g = Graph::new("storage");
    let buf = g.buffer("buf", 256);
    let x = rgba8(&mut g, "x");
    let out = output(&mut g, "out");
    g.raster("a")
        .uses(x, Access::ColorWriteAll)
        .uses(buf, Access::StorageWrite);
    g.raster("b")
        .uses(buf, Access::StorageRead)
        .uses(x, Access::InputAttachment)
        .uses(out, Access::ColorWriteAll);
    let p = plan(&g, "mali");
    assert!(
        only_break(&p).contains("'b' reads 'buf' as storage_read (not an input attachment)"),
        "{}",
        only_break(&p)
    );
}

#[test]
fn attachment_use_of_a_resource_sampled_in_the_render_pass_breaks() {
    let mut g = Graph::new("feedback");
    let t = g.image("t", ImageDesc::new(Format::R8G8B8A8_UNORM, W, H));
    g.resource_mut(t).origin = Origin::IMPORTED;
    let x = rgba8(&mut g, "x");
    let out = output(&mut g, "out");
    g.raster("a")
        .uses(t, Access::Sampled)
        .uses(x, Access::ColorWriteAll);
    g.raster("b")
        .uses(x, Access::InputAttachment)
        .uses(t, Access::ColorWriteAll)
        .uses(out, Access::ColorWriteAll);
    let p = plan(&g, "desktop");
    assert!(
        only_break(&p).contains(
            "'b' uses 't' as an attachment (color_write_all) but subpass 'a' uses it as sampled"
        ),
        "{}",
        only_break(&p)
    );
}

#[test]
fn different_extent_or_samples_break_and_every_reason_is_listed() {
    let mut g = Graph::new("extent");
    let x = rgba8(&mut g, "x");
    let half = g.image(
        "half",
        ImageDesc::new(Format::R8G8B8A8_UNORM, W / 2, H / 2).samples(4),
    );
    g.resource_mut(half).output = true;
    g.raster("a").uses(x, Access::ColorWriteAll);
    g.raster("b")
        .uses(x, Access::Sampled)
        .uses(half, Access::ColorWriteAll);
    let p = plan(&g, "mali");
    let reason = only_break(&p);
    for part in [
        "extent differs: 'b' renders 32x16, the render pass 64x32",
        "sample count differs: 'b' uses 4 samples, the render pass 1",
        "'b' samples 'x'",
    ] {
        assert!(reason.contains(part), "missing '{part}' in: {reason}");
    }
}

#[test]
fn a_compute_pass_in_between_breaks_without_reorder() {
    let mut g = pair(Access::InputAttachment);
    let buf = g.buffer("buf", 64);
    g.compute("work")
        .uses(buf, Access::StorageWrite)
        .side_effects();
    // Move the compute pass between the raster passes.
    let work = g.passes.pop().unwrap();
    g.passes.insert(1, work);
    let no_reorder = CompileOptions {
        reorder: false,
        ..CompileOptions::ALL
    };
    let p = plan_with(&g, &Capabilities::profile("mali").unwrap(), no_reorder);
    assert_eq!(subpasses(&p), [["a"], ["b"]]);
    assert_eq!(only_break(&p), "compute pass 'work' runs between them");
}

#[test]
fn reorder_moves_independent_passes_out_of_a_mergeable_run() {
    let mut g = pair(Access::InputAttachment);
    let buf = g.buffer("buf", 64);
    let half = g.image("half", ImageDesc::new(Format::R8G8B8A8_UNORM, W / 2, H / 2));
    g.resource_mut(half).output = true;
    g.compute("work")
        .uses(buf, Access::StorageWrite)
        .side_effects();
    g.raster("half_res").uses(half, Access::ColorWriteAll);
    // Declared between the two mergeable passes: a, work, half_res, b.
    let b = g.passes.remove(1);
    g.passes.push(b);
    let p = plan(&g, "mali");
    assert_eq!(p.order, ["a", "b", "work", "half_res"]);
    assert_eq!(subpasses(&p), [vec!["a", "b"], vec!["half_res"]]);
    let declared = plan_with(
        &g,
        &Capabilities::profile("mali").unwrap(),
        CompileOptions {
            reorder: false,
            ..CompileOptions::ALL
        },
    );
    assert_eq!(declared.render_passes.len(), 3);
}

#[test]
fn reorder_never_moves_a_pass_against_an_edge() {
    // 'mid' reads x by sampling (no merge) and 'b' needs mid's output: b cannot jump ahead.
    let mut g = Graph::new("edge");
    let x = rgba8(&mut g, "x");
    let y = rgba8(&mut g, "y");
    let out = output(&mut g, "out");
    g.raster("a").uses(x, Access::ColorWriteAll);
    g.raster("mid")
        .uses(x, Access::Sampled)
        .uses(y, Access::ColorWriteAll);
    g.raster("b")
        .uses(x, Access::InputAttachment)
        .uses(y, Access::Sampled)
        .uses(out, Access::ColorWriteAll);
    let p = plan(&g, "mali");
    assert_eq!(p.order, ["a", "mid", "b"]);
}

#[test]
fn colour_and_input_attachment_limits_break() {
    let mut g = Graph::new("limits");
    let (c1, c2, c3) = (
        rgba8(&mut g, "c1"),
        rgba8(&mut g, "c2"),
        rgba8(&mut g, "c3"),
    );
    let out = output(&mut g, "out");
    g.raster("a")
        .uses(c1, Access::ColorWriteAll)
        .uses(c2, Access::ColorWriteAll);
    g.raster("b")
        .uses(c1, Access::InputAttachment)
        .uses(c3, Access::ColorWriteAll);
    g.raster("c")
        .uses(c2, Access::InputAttachment)
        .uses(c3, Access::ColorReadWrite)
        .uses(out, Access::ColorWriteAll);
    let mut caps = Capabilities::profile("desktop").unwrap();
    assert_eq!(
        plan_with(&g, &caps, CompileOptions::ALL)
            .render_passes
            .len(),
        1
    );
    caps.max_color_attachments = 3;
    let p = plan_with(&g, &caps, CompileOptions::ALL);
    assert_eq!(subpasses(&p), [vec!["a", "b"], vec!["c"]]);
    assert!(
        only_break(&p).contains("4 colour attachments (max_color_attachments 3)"),
        "{}",
        only_break(&p)
    );
    caps.max_color_attachments = 8;
    caps.max_input_attachments = 1;
    let p = plan_with(&g, &caps, CompileOptions::ALL);
    assert_eq!(subpasses(&p), [vec!["a", "b"], vec!["c"]]);
    assert!(
        p.breaks[0]
            .reason
            .contains("2 input attachments (max_input_attachments 1)"),
        "{:?}",
        p.breaks
    );
}

#[test]
fn tile_budget_refuses_merges_over_it_with_the_numbers() {
    let mut g = Graph::new("tile");
    let fat: Vec<ResourceId> = (0..4)
        .map(|i| {
            g.image(
                format!("f{i}"),
                ImageDesc::new(Format::R16G16B16A16_SFLOAT, W, H),
            )
        })
        .collect();
    let out = output(&mut g, "out");
    let mut a = g.raster("a");
    for &f in &fat {
        a = a.uses(f, Access::ColorWriteAll);
    }
    g.raster("b")
        .uses(fat[0], Access::InputAttachment)
        .uses(out, Access::ColorWriteAll);
    let p = plan(&g, "mali");
    assert_eq!(p.render_passes.len(), 2);
    assert!(only_break(&p).contains("288 bits per pixel ('f0' 64 + 'f1' 64 + 'f2' 64 + 'f3' 64 + 'out' 32), over the device's 256"), "{}", only_break(&p));
    assert_eq!(
        plan(&g, "desktop").render_passes.len(),
        1,
        "no tile budget on desktop"
    );
}

#[test]
fn pass_without_attachments_is_not_merged() {
    let mut g = Graph::new("none");
    let buf = g.buffer("buf", 64);
    let x = rgba8(&mut g, "x");
    g.resource_mut(x).output = true;
    g.raster("a").uses(x, Access::ColorWriteAll);
    g.raster("b").uses(buf, Access::StorageWrite).side_effects();
    let p = plan(&g, "mali");
    assert_eq!(only_break(&p), "'b' has no attachments");
}

#[test]
fn load_ops_follow_clears_and_earlier_content() {
    let mut g = Graph::new("loads");
    let (c, all, part) = (
        rgba8(&mut g, "c"),
        rgba8(&mut g, "all"),
        rgba8(&mut g, "part"),
    );
    let out = output(&mut g, "out");
    g.transfer("init")
        .uses(part, Access::TransferDst)
        .uses(all, Access::TransferDst);
    g.raster("r")
        .clears(c, Access::ColorWrite)
        .uses(all, Access::ColorWriteAll)
        .uses(part, Access::ColorWrite);
    g.raster("s")
        .uses(c, Access::Sampled)
        .uses(all, Access::Sampled)
        .uses(part, Access::Sampled)
        .uses(out, Access::ColorWriteAll);
    let p = plan(&g, "mali");
    assert_eq!(att(&p, 0, "c").load_op, LoadOp::Clear);
    assert_eq!(
        att(&p, 0, "all").load_op,
        LoadOp::DontCare,
        "every pixel is written"
    );
    assert_eq!(
        att(&p, 0, "part").load_op,
        LoadOp::Load,
        "partly overwritten earlier content"
    );
    assert_eq!(att(&p, 1, "out").load_op, LoadOp::DontCare);
}

#[test]
fn store_only_what_a_later_pass_or_frame_needs() {
    let mut g = Graph::new("stores");
    let (inner, later, dead) = (
        rgba8(&mut g, "inner"),
        rgba8(&mut g, "later"),
        rgba8(&mut g, "dead"),
    );
    let out = output(&mut g, "out");
    g.raster("a")
        .uses(inner, Access::ColorWriteAll)
        .uses(later, Access::ColorWriteAll)
        .uses(dead, Access::ColorWriteAll);
    g.raster("b")
        .uses(inner, Access::InputAttachment)
        .uses(dead, Access::ColorWriteAll)
        .uses(out, Access::ColorWriteAll);
    g.compute("c")
        .uses(later, Access::Sampled)
        .uses(out, Access::StorageRead)
        .side_effects();
    let p = plan(&g, "desktop");
    assert_eq!(subpasses(&p), [["a", "b"]]);
    assert_eq!(
        att(&p, 0, "inner").store_op,
        StoreOp::DontCare,
        "only read as an input attachment inside"
    );
    assert_eq!(
        att(&p, 0, "later").store_op,
        StoreOp::Store,
        "sampled by a later pass"
    );
    assert_eq!(
        att(&p, 0, "dead").store_op,
        StoreOp::DontCare,
        "nothing reads it"
    );
    assert_eq!(att(&p, 0, "out").store_op, StoreOp::Store, "an output");
}

#[test]
fn later_depth_test_needs_the_stored_depth() {
    let mut g = Graph::new("depth");
    let d = depth(&mut g, "d");
    let x = rgba8(&mut g, "x");
    let out = output(&mut g, "out");
    g.raster("a")
        .clears(d, Access::DepthWrite)
        .uses(x, Access::ColorWriteAll);
    g.raster("blur")
        .uses(x, Access::Sampled)
        .uses(out, Access::ColorWriteAll);
    g.raster("decals")
        .uses(d, Access::DepthWrite)
        .uses(out, Access::ColorReadWrite);
    let p = plan(&g, "desktop");
    assert_eq!(
        att(&p, 0, "d").store_op,
        StoreOp::Store,
        "the later depth test reads it"
    );
    assert_eq!(att(&p, 1, "d").load_op, LoadOp::Load);
}

#[test]
fn imported_resources_follow_their_flags() {
    let build = |clear_first: bool, discard_last: bool| {
        let mut g = Graph::new("imported");
        let h = g.image("history", ImageDesc::new(Format::R8G8B8A8_UNORM, W, H));
        let r = g.resource_mut(h);
        r.origin = Origin::Imported(Import {
            clear_on_first_use: clear_first,
            discard_on_last_use: discard_last,
        });
        g.raster("a").uses(h, Access::ColorWrite).side_effects();
        plan(&g, "mali")
    };
    let p = build(false, false);
    assert_eq!(
        (
            att(&p, 0, "history").load_op,
            att(&p, 0, "history").store_op
        ),
        (LoadOp::Load, StoreOp::Store)
    );
    let p = build(true, true);
    assert_eq!(
        (
            att(&p, 0, "history").load_op,
            att(&p, 0, "history").store_op
        ),
        (LoadOp::DontCare, StoreOp::DontCare)
    );
    assert!(
        !att(&p, 0, "history").memoryless,
        "imported resources are never memoryless"
    );
}

/// Compiled without the checker: the tests of loads that follow liveness hold the compiler
/// to the rule on its own (the checker's `rp.load`/`rp.store` follow the same rule and are
/// held to it by its own tests and by the property tests, which check every plan).
fn compiled(g: &Graph, options: CompileOptions) -> Plan {
    compile(
        g,
        &Capabilities::profile("mali").expect("profile"),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn ops(p: &Plan, rp: usize, name: &str) -> (LoadOp, StoreOp) {
    let a = att(p, rp, name);
    (a.load_op, a.store_op)
}

/// `a` writes `x` and `y` completely (render pass 0); `b` samples `y`, which breaks the render
/// pass, uses `x` with `access` and writes the output (render pass 1). `later` adds a compute
/// pass that samples `x` after them.
fn partial_after_break(access: Access, later: bool) -> Graph {
    let mut g = Graph::new("liveness");
    let (x, y) = (rgba8(&mut g, "x"), rgba8(&mut g, "y"));
    let out = output(&mut g, "out");
    g.raster("a")
        .uses(x, Access::ColorWriteAll)
        .uses(y, Access::ColorWriteAll);
    g.raster("b")
        .uses(y, Access::Sampled)
        .uses(x, access)
        .uses(out, Access::ColorWriteAll);
    if later {
        g.compute("c").uses(x, Access::Sampled).side_effects();
    }
    g
}

#[test]
fn partial_write_of_dead_content_neither_loads_nor_stores() {
    let p = compiled(
        &partial_after_break(Access::ColorWrite, false),
        CompileOptions::ALL,
    );
    assert_eq!(subpasses(&p), [["a"], ["b"]]);
    assert_eq!(
        ops(&p, 1, "x"),
        (LoadOp::DontCare, StoreOp::DontCare),
        "nothing reads what 'b' keeps of 'x'"
    );
    assert_eq!(
        att(&p, 0, "x").store_op,
        StoreOp::DontCare,
        "the producer stores nothing that no one loads"
    );
    assert_eq!(p.bandwidth.load_bytes, 0, "the planned figure follows");
}

#[test]
fn partial_write_loads_exactly_when_a_later_pass_reads_the_content() {
    let p = compiled(
        &partial_after_break(Access::ColorWrite, true),
        CompileOptions::ALL,
    );
    assert_eq!(
        ops(&p, 1, "x"),
        (LoadOp::Load, StoreOp::Store),
        "'c' reads it"
    );
    assert_eq!(att(&p, 0, "x").store_op, StoreOp::Store, "'b' loads it");
    // Without merging the same holds pass by pass; without the reader both go.
    let off = CompileOptions {
        merge: false,
        ..CompileOptions::ALL
    };
    for (later, load, store) in [
        (true, LoadOp::Load, StoreOp::Store),
        (false, LoadOp::DontCare, StoreOp::DontCare),
    ] {
        let p = compiled(&partial_after_break(Access::ColorWrite, later), off);
        assert_eq!(ops(&p, 1, "x"), (load, store), "reader: {later}");
        assert_eq!(att(&p, 0, "x").store_op, store, "reader: {later}");
    }
}

#[test]
fn partial_write_of_what_survives_the_frame_loads() {
    // An output: its content is the frame's result.
    let mut g = partial_after_break(Access::ColorWrite, false);
    let x = g.find_resource("x").unwrap();
    g.resource_mut(x).output = true;
    let p = compiled(&g, CompileOptions::ALL);
    assert_eq!(ops(&p, 1, "x"), (LoadOp::Load, StoreOp::Store));
    assert_eq!(att(&p, 0, "x").store_op, StoreOp::Store);
    // Imported: kept for the next frame unless discarded on its last use.
    let imported = |discard: bool| {
        let mut g = Graph::new("imported");
        let h = g.image("history", ImageDesc::new(Format::R8G8B8A8_UNORM, W, H));
        let r = g.resource_mut(h);
        r.origin = Origin::Imported(Import {
            discard_on_last_use: discard,
            ..Import::default()
        });
        g.raster("a").uses(h, Access::ColorWrite).side_effects();
        compiled(&g, CompileOptions::ALL)
    };
    assert_eq!(
        ops(&imported(false), 0, "history"),
        (LoadOp::Load, StoreOp::Store)
    );
    assert_eq!(
        ops(&imported(true), 0, "history"),
        (LoadOp::DontCare, StoreOp::DontCare),
        "discarded: what the pass keeps is dead"
    );
}

#[test]
fn partial_write_read_by_a_later_subpass_loads() {
    // 'b' partly overwrites 'x', 'c' in the same render pass reads it as an input attachment
    // (or, in the variant, replaces it completely).
    let build = |then: Access| {
        let mut g = partial_after_break(Access::ColorWrite, false);
        let x = g.find_resource("x").unwrap();
        let out2 = output(&mut g, "out2");
        g.raster("c")
            .uses(x, then)
            .uses(out2, Access::ColorWriteAll);
        compiled(&g, CompileOptions::ALL)
    };
    let p = build(Access::InputAttachment);
    assert_eq!(subpasses(&p), [vec!["a"], vec!["b", "c"]]);
    assert_eq!(
        ops(&p, 1, "x"),
        (LoadOp::Load, StoreOp::DontCare),
        "read inside the render pass only"
    );
    assert_eq!(att(&p, 0, "x").store_op, StoreOp::Store);
    let p = build(Access::ColorWriteAll);
    assert_eq!(subpasses(&p), [vec!["a"], vec!["b", "c"]]);
    assert_eq!(
        ops(&p, 1, "x"),
        (LoadOp::DontCare, StoreOp::DontCare),
        "'c' replaces what 'b' kept before anyone reads it"
    );
    assert_eq!(att(&p, 0, "x").store_op, StoreOp::DontCare);
}

/// A blend reads earlier content only into its own result: with nothing reading that result
/// it loads nothing (and the render pass before it stores nothing), like a partial write. A
/// depth test decides which fragments reach the other attachments: it always loads.
#[test]
fn a_first_use_with_a_dead_result_loads_only_for_a_depth_test() {
    for (access, load) in [
        (Access::ColorReadWrite, LoadOp::DontCare),
        (Access::ColorWrite, LoadOp::DontCare),
    ] {
        let p = compiled(&partial_after_break(access, false), CompileOptions::ALL);
        assert_eq!(att(&p, 1, "x").load_op, load, "{access}");
        let stored = if load == LoadOp::Load {
            StoreOp::Store
        } else {
            StoreOp::DontCare
        };
        assert_eq!(att(&p, 0, "x").store_op, stored, "{access}");
    }
    // A depth write without a clear tests against the earlier depth.
    let build = |d_access: Access| {
        let mut g = partial_after_break(Access::ColorWrite, false);
        let d = depth(&mut g, "d");
        let (a, b) = (g.find_pass("a").unwrap(), g.find_pass("b").unwrap());
        g.passes[a.index()].uses.push(crate::graph::Use {
            resource: d,
            access: Access::DepthWrite,
            clear: true,
            from: None,
            resolve_mode: None,
            clear_value: None,
            previous: false,
            coverage: None,
        });
        g.passes[b.index()].uses.push(crate::graph::Use {
            resource: d,
            access: d_access,
            clear: false,
            from: None,
            resolve_mode: None,
            clear_value: None,
            previous: false,
            coverage: None,
        });
        compiled(&g, CompileOptions::ALL)
    };
    for access in [Access::DepthWrite, Access::DepthRead] {
        let p = build(access);
        assert_eq!(
            ops(&p, 1, "d"),
            (LoadOp::Load, StoreOp::DontCare),
            "{access}"
        );
        assert_eq!(att(&p, 0, "d").store_op, StoreOp::Store, "{access}");
    }
}

#[test]
fn partial_write_resolved_in_its_subpass_loads_and_its_producer_stores() {
    // The resolve reads the whole multisampled attachment, kept pixels included.
    let mut g = Graph::new("msaa_partial");
    let c = g.image(
        "c4",
        ImageDesc::new(Format::R8G8B8A8_UNORM, W, H).samples(4),
    );
    let y = g.image(
        "y4",
        ImageDesc::new(Format::R8G8B8A8_UNORM, W, H).samples(4),
    );
    let r = rgba8(&mut g, "resolved");
    g.resource_mut(r).output = true;
    g.raster("a")
        .clears(c, Access::ColorWrite)
        .uses(y, Access::ColorWriteAll);
    g.raster("b")
        .uses(y, Access::Sampled)
        .uses(c, Access::ColorWrite)
        .resolves(r, c);
    let p = compiled(&g, CompileOptions::ALL);
    assert_eq!(subpasses(&p), [["a"], ["b"]]);
    assert_eq!(ops(&p, 1, "c4"), (LoadOp::Load, StoreOp::DontCare));
    assert_eq!(
        att(&p, 0, "c4").store_op,
        StoreOp::Store,
        "'b' loads it: the resolve reads it"
    );
}

fn msaa() -> Graph {
    let mut g = Graph::new("msaa");
    let c = g.image(
        "c4",
        ImageDesc::new(Format::R8G8B8A8_UNORM, W, H).samples(4),
    );
    let d = g.image("d4", ImageDesc::new(Format::D32_SFLOAT, W, H).samples(4));
    let r = rgba8(&mut g, "resolved");
    g.resource_mut(r).output = true;
    g.raster("draw")
        .clears(d, Access::DepthWrite)
        .clears(c, Access::ColorWrite)
        .resolves(r, c);
    g
}

#[test]
fn msaa_resolved_in_its_subpass_is_not_stored() {
    let p = plan(&msaa(), "mali");
    let c = att(&p, 0, "c4");
    assert_eq!(
        (c.store_op, c.resolve_target.as_deref(), c.samples),
        (StoreOp::DontCare, Some("resolved"), 4)
    );
    assert_eq!(att(&p, 0, "resolved").store_op, StoreOp::Store);
    assert_eq!(
        p.bandwidth.store_bytes,
        u64::from(W * H * 4),
        "only the single-sampled target is written"
    );
}

#[test]
fn memoryless_needs_lazy_memory_and_the_option() {
    let g = msaa();
    let mali = plan(&g, "mali");
    assert!(att(&mali, 0, "c4").memoryless && att(&mali, 0, "d4").memoryless);
    assert!(!att(&mali, 0, "resolved").memoryless, "stored");
    let bytes = u64::from(W * H * 4 * 4) * 2;
    assert_eq!(mali.memory.memoryless_bytes, bytes);
    assert!(mali
        .memory
        .blocks
        .iter()
        .flat_map(|b| &b.placements)
        .all(|pl| pl.resource == "resolved"));
    let desktop = plan(&g, "desktop");
    assert!(desktop.render_passes[0]
        .attachments
        .iter()
        .all(|a| !a.memoryless));
    assert_eq!(desktop.memory.memoryless_bytes, 0);
    let off = plan_with(
        &g,
        &Capabilities::profile("mali").unwrap(),
        CompileOptions {
            memoryless: false,
            ..CompileOptions::ALL
        },
    );
    assert!(off.render_passes[0]
        .attachments
        .iter()
        .all(|a| !a.memoryless));
}

#[test]
fn memoryless_needs_the_whole_life_in_one_render_pass() {
    let p = plan(&pair(Access::InputAttachment), "mali");
    assert!(att(&p, 0, "x").memoryless);
    let p = plan(&pair(Access::Sampled), "mali");
    assert!(
        !att(&p, 0, "x").memoryless,
        "sampled by another render pass"
    );
    let g = pair(Access::InputAttachment);
    let p = plan_with(
        &g,
        &Capabilities::profile("mali").unwrap(),
        CompileOptions {
            merge: false,
            ..CompileOptions::ALL
        },
    );
    assert!(
        !att(&p, 0, "x").memoryless,
        "split across two render passes"
    );
}

#[test]
fn declared_memoryless_that_cannot_stay_is_an_error_naming_the_pass() {
    let mut g = pair(Access::Sampled);
    let x = g.find_resource("x").unwrap();
    g.resource_mut(x).origin = Origin::MEMORYLESS;
    for profile in ["mali", "desktop"] {
        match compile(
            &g,
            &Capabilities::profile(profile).unwrap(),
            &CompileOptions::ALL,
        ) {
            Err(CompileError::MemorylessBroken {
                resource,
                pass,
                rule,
            }) => {
                assert_eq!((resource.as_str(), pass.as_str()), ("x", "b"));
                assert!(rule.contains("sampled, not as an attachment"), "{rule}");
            }
            other => panic!("{profile}: expected MemorylessBroken, got {other:?}"),
        }
    }
    // Split by a break: the error carries the break reason.
    let mut g = Graph::new("split");
    let x = rgba8(&mut g, "x");
    g.resource_mut(x).origin = Origin::MEMORYLESS;
    let half = g.image("half", ImageDesc::new(Format::R8G8B8A8_UNORM, W / 2, H / 2));
    g.resource_mut(half).output = true;
    let out = output(&mut g, "out");
    g.raster("a").uses(x, Access::ColorWriteAll);
    g.raster("h").uses(half, Access::ColorWriteAll);
    g.raster("b")
        .uses(x, Access::InputAttachment)
        .uses(out, Access::ColorWriteAll);
    let no_reorder = CompileOptions {
        reorder: false,
        ..CompileOptions::ALL
    };
    // Without reordering the break splits it: the reference compile (reordering on) keeps
    // it in tile memory, so this plan places it in memory and says why.
    let p = compile(&g, &Capabilities::profile("mali").unwrap(), &no_reorder).unwrap();
    let fallback = &p.memory.memoryless_fallbacks;
    assert_eq!(fallback.len(), 1, "{fallback:?}");
    assert_eq!(fallback[0].resource, "x");
    let reason = &fallback[0].reason;
    assert!(
        reason.starts_with("with reorder off, pass 'b' breaks it")
            && reason.contains("outside the render pass of 'a'")
            && reason.contains("extent differs"),
        "{reason}"
    );
    // With reordering the graph keeps it memoryless; with merging off nothing is demanded.
    assert!(att(&plan(&g, "mali"), 0, "x").memoryless);
    assert!(compile(
        &g,
        &Capabilities::profile("mali").unwrap(),
        &CompileOptions {
            merge: false,
            ..CompileOptions::ALL
        }
    )
    .is_ok());
}

#[test]
fn subpass_dependencies_cover_each_hazard_by_region() {
    use crate::sync::{AccessMask, StageMask};
    let mut g = Graph::new("deps");
    let d = depth(&mut g, "d");
    let x = rgba8(&mut g, "x");
    let out = output(&mut g, "out");
    g.raster("a")
        .clears(d, Access::DepthWrite)
        .uses(x, Access::ColorWriteAll);
    g.raster("b")
        .uses(d, Access::DepthRead)
        .uses(x, Access::InputAttachment)
        .uses(out, Access::ColorWriteAll);
    g.raster("c")
        .uses(d, Access::DepthRead)
        .uses(x, Access::ColorWriteAll)
        .uses(out, Access::ColorReadWrite);
    let p = plan(&g, "desktop");
    let deps = &p.render_passes[0].dependencies;
    let dep = |s: u32, t: u32| {
        deps.iter()
            .find(|x| x.src_subpass == s && x.dst_subpass == t)
            .unwrap_or_else(|| panic!("no {s} -> {t}"))
    };
    let raw = dep(0, 1);
    assert!(raw.by_region);
    assert!(raw
        .src_stage
        .contains(StageMask::COLOR_ATTACHMENT_OUTPUT | StageMask::LATE_FRAGMENT_TESTS));
    assert!(raw
        .src_access
        .contains(AccessMask::COLOR_ATTACHMENT_WRITE | AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE));
    assert!(raw
        .dst_access
        .contains(AccessMask::INPUT_ATTACHMENT_READ | AccessMask::DEPTH_STENCIL_ATTACHMENT_READ));
    // x: input-attachment read in b, then overwritten in c: write-after-read, execution only.
    let war = dep(1, 2);
    assert!(war.src_stage.contains(StageMask::FRAGMENT_SHADER));
    assert!(
        !war.src_access.contains(AccessMask::INPUT_ATTACHMENT_READ),
        "reads need no availability"
    );
    // The depth test in c after the one in b (same layout, read-read) adds nothing beyond 0 -> 2.
    assert!(dep(0, 2)
        .dst_stage
        .contains(StageMask::EARLY_FRAGMENT_TESTS));
}

#[test]
fn bandwidth_planned_and_naive() {
    // a writes x (clear) and out; b reads x as input attachment and blends out.
    let mut g = Graph::new("bw");
    let x = rgba8(&mut g, "x");
    let out = output(&mut g, "out");
    g.raster("a")
        .clears(x, Access::ColorWrite)
        .uses(out, Access::ColorWriteAll);
    g.raster("b")
        .uses(x, Access::InputAttachment)
        .uses(out, Access::ColorReadWrite);
    let one = u64::from(W * H * 4);
    let p = plan(&g, "mali");
    assert_eq!(
        (p.bandwidth.load_bytes, p.bandwidth.store_bytes),
        (0, one),
        "out stored once"
    );
    // Naive: a stores x and out (out's imported content is loaded too); b loads and stores both.
    assert_eq!(
        (p.bandwidth.naive_load_bytes, p.bandwidth.naive_store_bytes),
        (3 * one, 4 * one)
    );
}

/// A render pass that uses many resources: a conflict with a resource used early is still
/// found.
#[test]
fn large_render_pass_still_sees_every_resource() {
    let mut g = Graph::new("large");
    let textures: Vec<ResourceId> = (0..30)
        .map(|i| {
            let t = rgba8(&mut g, &format!("t{i}"));
            g.resource_mut(t).origin = Origin::IMPORTED;
            t
        })
        .collect();
    let c = output(&mut g, "c");
    for i in 0..10 {
        let mut b = g.raster(format!("p{i}"));
        for &t in &textures[3 * i..3 * i + 3] {
            b = b.uses(t, Access::Sampled);
        }
        if i == 0 {
            b.clears(c, Access::ColorWrite);
        } else {
            b.uses(c, Access::ColorReadWrite);
        }
    }
    g.raster("late")
        .uses(c, Access::ColorReadWrite)
        .uses(textures[1], Access::ColorWriteAll);
    let p = plan(&g, "desktop");
    let names: Vec<String> = (0..10).map(|i| format!("p{i}")).collect();
    assert_eq!(
        subpasses(&p),
        vec![names.iter().map(|s| s.as_str()).collect(), vec!["late"]]
    );
    assert_eq!(
        only_break(&p),
        "'late' uses 't1' as an attachment (color_write_all) but subpass 'p0' uses it as sampled"
    );
}

#[test]
fn groups_index_each_render_pass_in_order() {
    use super::Groups;
    use crate::graph::PassId;
    let mut g = Groups::with_capacity(0);
    assert!(g.is_empty());
    g.open(PassId(4));
    g.extend_last(PassId(5));
    g.extend_last(PassId(6));
    g.open(PassId(9));
    g.open(PassId(1));
    g.extend_last(PassId(2));
    assert_eq!(g.len(), 3);
    assert_eq!(&g[0], &[PassId(4), PassId(5), PassId(6)]);
    assert_eq!(&g[1], &[PassId(9)]);
    assert_eq!(&g[2], &[PassId(1), PassId(2)]);
    let all: Vec<&[PassId]> = g.iter().collect();
    assert_eq!(all, vec![&g[0], &g[1], &g[2]]);
}

#[test]
fn a_store_waits_for_earlier_reads_of_its_attachment_in_other_subpasses() {
    use crate::sync::{AccessMask, StageMask};
    // d: written in a, read as an input attachment in b, last tested in c. Nothing of c
    // hazards with b but the store of d at the end of c (a write).
    let mut g = Graph::new("store_after_read");
    let d = depth(&mut g, "d");
    let (x, y) = (rgba8(&mut g, "x"), rgba8(&mut g, "y"));
    let out = output(&mut g, "out");
    g.raster("a").clears(d, Access::DepthWrite);
    g.raster("b")
        .uses(d, Access::InputAttachment)
        .clears(x, Access::ColorWrite);
    g.raster("c")
        .uses(d, Access::DepthRead)
        .clears(y, Access::ColorWrite);
    g.raster("e")
        .uses(x, Access::InputAttachment)
        .uses(y, Access::InputAttachment)
        .uses(out, Access::ColorWriteAll);
    let p = plan(&g, "mali");
    assert_eq!(subpasses(&p), [["a", "b", "c", "e"]]);
    assert_eq!(att(&p, 0, "d").store_op, StoreOp::DontCare);
    let deps = &p.render_passes[0].dependencies;
    let store = deps
        .iter()
        .find(|x| (x.src_subpass, x.dst_subpass) == (1, 2))
        .unwrap_or_else(|| panic!("no 1 -> 2 in {deps:?}"));
    assert_eq!(store.src_stage, StageMask::FRAGMENT_SHADER);
    assert_eq!(store.src_access, AccessMask::empty(), "write-after-read");
    assert_eq!(
        (store.dst_stage, store.dst_access),
        (
            StageMask::LATE_FRAGMENT_TESTS,
            AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
        )
    );
    // The write in a before the last use in c: the store's write-after-write joins the
    // read-after-write dependency 0 -> 2.
    let waw = deps
        .iter()
        .find(|x| (x.src_subpass, x.dst_subpass) == (0, 2))
        .unwrap_or_else(|| panic!("no 0 -> 2 in {deps:?}"));
    assert!(waw.dst_access.contains(
        AccessMask::DEPTH_STENCIL_ATTACHMENT_READ | AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
    ));
    assert!(deps.iter().all(|d| d.src_subpass != d.dst_subpass));
}

#[test]
fn after_a_read_only_last_use_the_store_is_the_write_later_passes_wait_for() {
    use crate::sync::{AccessMask, StageMask};
    // d's last use in its render pass is an input-attachment read; its store is the write a
    // later compute read waits for (the barrier's source is the store, not a's depth write).
    let mut g = Graph::new("store_then_sample");
    let d = depth(&mut g, "d");
    let x = rgba8(&mut g, "x");
    let out = output(&mut g, "out");
    g.raster("a").clears(d, Access::DepthWrite);
    g.raster("b")
        .uses(d, Access::InputAttachment)
        .clears(x, Access::ColorWrite);
    g.compute("c")
        .uses(d, Access::Sampled)
        .uses(x, Access::Sampled)
        .uses(out, Access::StorageWrite);
    let p = plan(&g, "desktop");
    let b = p
        .barriers
        .iter()
        .find(|b| b.before == "c" && b.resource == "d")
        .unwrap_or_else(|| panic!("no barrier on d before c: {:?}", p.barriers));
    assert!(b
        .src_stage
        .contains(StageMask::LATE_FRAGMENT_TESTS | StageMask::FRAGMENT_SHADER));
    assert_eq!(b.src_access, AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE);
    assert_eq!(b.dst_stage, StageMask::COMPUTE_SHADER);
}

#[test]
fn a_pass_in_between_that_reads_an_attachment_says_it_leaves_tile_memory() {
    // A bloom chain between the lit colour and tone mapping: it samples the attachment.
    let mut g = pair(Access::InputAttachment);
    let x = g.find_resource("x").unwrap();
    let level = g.buffer("level", 64);
    g.compute("bloom")
        .uses(x, Access::Sampled)
        .uses(level, Access::StorageWrite)
        .side_effects();
    let work = g.passes.pop().unwrap();
    g.passes.insert(1, work);
    let no_reorder = CompileOptions {
        reorder: false,
        ..CompileOptions::ALL
    };
    let p = plan_with(&g, &Capabilities::profile("mali").unwrap(), no_reorder);
    assert_eq!(subpasses(&p), [["a"], ["b"]]);
    assert_eq!(
        only_break(&p),
        "compute pass 'bloom' runs between them and reads 'x' (sampled), an attachment of \
         the render pass, which therefore leaves tile memory"
    );
}
