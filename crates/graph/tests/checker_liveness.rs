//! `rp.load` / `rp.store` follow liveness, in both directions: a load of content nothing
//! reads afterwards is waste, a `DONT_CARE` where a later use reads what the first use keeps
//! is lost content (issue 14, "Loads that follow liveness").
//!
//! Each test edits one load or store operation of a compiled plan (and the bandwidth figure
//! that follows from it) and requires the checker's verdict on exactly that attachment. Tests
//! of unmodified compiled plans say so in their names: they hold once the compiler's loads
//! follow the same liveness.

use tessera_graph::check::{self, Violation};
use tessera_graph::graph::{Graph, ImageDesc};
use tessera_graph::graph::{Import, Origin};
use tessera_graph::plan::{LoadOp, Plan, StoreOp};
use tessera_graph::{compile, Access, Capabilities, CompileOptions, Format};

const W: u32 = 64;
/// Bytes of one 64×64 RGBA8 attachment.
const BYTES: u64 = 64 * 64 * 4;

fn violations(g: &Graph, caps: &Capabilities, o: &CompileOptions, plan: &Plan) -> Vec<Violation> {
    check::check(g, caps, o, plan).err().unwrap_or_default()
}

/// The load/store violations.
fn ops_violations(
    g: &Graph,
    caps: &Capabilities,
    o: &CompileOptions,
    plan: &Plan,
) -> Vec<Violation> {
    let mut v = violations(g, caps, o, plan);
    v.retain(|v| matches!(v.rule, "rp.load" | "rp.store"));
    v
}

/// The attachment `resource` of the render pass holding `pass`.
fn attachment<'p>(
    plan: &'p mut Plan,
    pass: &str,
    resource: &str,
) -> &'p mut tessera_graph::plan::Attachment {
    plan.render_passes
        .iter_mut()
        .find(|rp| rp.subpasses.iter().any(|s| &**s == pass))
        .unwrap_or_else(|| panic!("'{pass}' is in no render pass"))
        .attachments
        .iter_mut()
        .find(|a| &*a.resource == resource)
        .unwrap_or_else(|| panic!("'{resource}' is no attachment of '{pass}'"))
}

/// Sets a load operation and keeps the bandwidth figure consistent with it.
fn set_load(plan: &mut Plan, pass: &str, resource: &str, op: LoadOp) {
    let a = attachment(plan, pass, resource);
    let was = a.load_op;
    a.load_op = op;
    match (was == LoadOp::Load, op == LoadOp::Load) {
        (true, false) => plan.bandwidth.load_bytes -= BYTES,
        (false, true) => plan.bandwidth.load_bytes += BYTES,
        _ => {}
    }
}

/// Sets a store operation and keeps the bandwidth figure consistent with it.
fn set_store(plan: &mut Plan, pass: &str, resource: &str, op: StoreOp) {
    let a = attachment(plan, pass, resource);
    let was = a.store_op;
    a.store_op = op;
    match (was == StoreOp::Store, op == StoreOp::Store) {
        (true, false) => plan.bandwidth.store_bytes -= BYTES,
        (false, true) => plan.bandwidth.store_bytes += BYTES,
        _ => {}
    }
}

/// 'base' clears `c`; 'overlay' draws over part of it (`color_write`, keeping the rest) and
/// writes the output; then `later` decides whether anything needs what 'overlay' kept.
fn frame(c_is_output: bool, later_reads: bool) -> Graph {
    let mut g = Graph::new("liveness");
    let c = g.image("c", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
    g.resource_mut(out).output = true;
    g.resource_mut(c).output = c_is_output;
    g.raster("base").clears(c, Access::ColorWriteAll);
    g.raster("overlay")
        .uses(c, Access::ColorWrite)
        .uses(out, Access::ColorWrite);
    if later_reads {
        let out2 = g.image("out2", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
        g.resource_mut(out2).output = true;
        g.compute("readback")
            .uses(c, Access::Sampled)
            .uses(out2, Access::StorageWrite);
    }
    g
}

fn separate(g: &Graph) -> (Capabilities, CompileOptions, Plan) {
    let caps = Capabilities::desktop();
    let o = CompileOptions::NONE;
    let plan = compile(g, &caps, &o).expect("valid frame");
    assert_eq!(plan.render_passes.len(), 2, "{plan:#?}");
    (caps, o, plan)
}

/// What 'overlay' keeps of `c` is read by nothing and `c` dies with the frame: its load is
/// `DONT_CARE`, and so is 'base''s store. A `LOAD` (or a `STORE`) there is waste.
#[test]
fn a_load_of_dead_content_is_waste() {
    let g = frame(false, false);
    let (caps, o, mut plan) = separate(&g);
    set_load(&mut plan, "overlay", "c", LoadOp::DontCare);
    set_store(&mut plan, "base", "c", StoreOp::DontCare);
    assert_eq!(violations(&g, &caps, &o, &plan), vec![]);

    let mut waste = plan.clone();
    set_load(&mut waste, "overlay", "c", LoadOp::Load);
    let v = ops_violations(&g, &caps, &o, &waste);
    assert!(
        v.iter().any(|v| v.rule == "rp.load"
            && v.detail
                .contains("'c' has load Load and loads content nothing needs")),
        "{v:#?}"
    );
    let mut waste = plan.clone();
    set_store(&mut waste, "base", "c", StoreOp::Store);
    let v = ops_violations(&g, &caps, &o, &waste);
    assert!(
        v.iter().any(|v| v.rule == "rp.store"
            && v.detail
                .contains("'c' has store Store and stores content nothing needs")),
        "{v:#?}"
    );
}

/// When `c` is an output (it survives the frame), or a later pass reads it, what 'overlay'
/// keeps is live: `LOAD`, and 'base' stores it; `DONT_CARE` at either end loses it.
#[test]
fn a_dont_care_of_live_content_loses_it() {
    for (output, later) in [(true, false), (false, true)] {
        let g = frame(output, later);
        let (caps, o, plan) = separate(&g);
        assert_eq!(violations(&g, &caps, &o, &plan), vec![], "{output} {later}");
        assert_eq!(
            attachment(&mut plan.clone(), "overlay", "c").load_op,
            LoadOp::Load
        );
        assert_eq!(
            attachment(&mut plan.clone(), "base", "c").store_op,
            StoreOp::Store
        );

        let mut lost = plan.clone();
        set_load(&mut lost, "overlay", "c", LoadOp::DontCare);
        let v = ops_violations(&g, &caps, &o, &lost);
        assert!(
            v.iter().any(|v| v.rule == "rp.load"
                && v.detail
                    .contains("'c' has load DontCare and loses earlier content")),
            "{v:#?}"
        );
        let mut lost = plan.clone();
        set_store(&mut lost, "base", "c", StoreOp::DontCare);
        let v = ops_violations(&g, &caps, &o, &lost);
        assert!(
            v.iter().any(|v| v.rule == "rp.store"
                && v.detail
                    .contains("'c' has store DontCare and loses its content")),
            "{v:#?}"
        );
    }
}

/// The compiler's own plan of the dead-content frame passes once its loads follow liveness.
#[test]
fn unmodified_dead_content_plan_passes_after_the_compiler_follows_liveness() {
    let g = frame(false, false);
    let (caps, o, plan) = separate(&g);
    assert_eq!(violations(&g, &caps, &o, &plan), vec![]);
}

/// Liveness is walked from the first use, later subpasses of the same render pass included:
/// 'overlay' keeps part of `c` (written by a compute pass before the render pass) and the
/// next subpass, 'shade', reads it as an input attachment, so the load is `LOAD` although
/// nothing after the render pass needs `c` (its store is `DONT_CARE`). Without 'shade''s
/// read, the load is `DONT_CARE`.
#[test]
fn liveness_counts_later_subpasses_of_the_render_pass() {
    for shade_reads in [true, false] {
        let mut g = Graph::new("subpasses");
        let c = g.image("c", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
        let d = g.image("d", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
        g.resource_mut(out).output = true;
        g.compute("fill").uses(c, Access::StorageWrite);
        g.raster("overlay")
            .uses(c, Access::ColorWrite)
            .uses(d, Access::ColorWriteAll);
        if shade_reads {
            g.raster("shade")
                .uses(c, Access::InputAttachment)
                .uses(d, Access::InputAttachment)
                .uses(out, Access::ColorWriteAll);
        } else {
            g.raster("shade")
                .uses(d, Access::InputAttachment)
                .uses(out, Access::ColorWriteAll);
        }
        let caps = Capabilities::profile("mali").expect("known profile");
        let o = CompileOptions::ALL;
        let mut plan = compile(&g, &caps, &o).expect("valid frame");
        assert!(
            plan.render_passes.iter().any(|rp| rp.subpasses.len() == 2),
            "overlay and shade merge: {plan:#?}"
        );
        let want = if shade_reads {
            LoadOp::Load
        } else {
            LoadOp::DontCare
        };
        // The plan the liveness rule calls for (the compiler before that rule loads in both).
        set_load(&mut plan, "overlay", "c", want);
        assert_eq!(
            ops_violations(&g, &caps, &o, &plan),
            vec![],
            "shade reads: {shade_reads}"
        );
        assert_eq!(
            attachment(&mut plan, "overlay", "c").store_op,
            StoreOp::DontCare
        );
        let other = if shade_reads {
            LoadOp::DontCare
        } else {
            LoadOp::Load
        };
        set_load(&mut plan, "overlay", "c", other);
        let v = ops_violations(&g, &caps, &o, &plan);
        assert!(
            v.iter()
                .any(|v| v.rule == "rp.load" && v.detail.contains("'c'")),
            "shade reads: {shade_reads}: {v:#?}"
        );
    }
}

/// An imported image whose first use keeps part of it: loaded when it survives the frame,
/// not when it is discarded on its last use and nothing reads it.
#[test]
fn imported_content_is_live_unless_discarded() {
    for discard in [false, true] {
        let mut g = Graph::new("imported");
        let c = g.image("c", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
        g.resource_mut(c).origin = Origin::Imported(Import {
            discard_on_last_use: discard,
            ..Import::default()
        });
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, W, W));
        g.resource_mut(out).output = true;
        g.raster("overlay")
            .uses(c, Access::ColorWrite)
            .uses(out, Access::ColorWriteAll);
        let caps = Capabilities::desktop();
        let o = CompileOptions::NONE;
        let mut plan = compile(&g, &caps, &o).expect("valid frame");
        let want = if discard {
            LoadOp::DontCare
        } else {
            LoadOp::Load
        };
        set_load(&mut plan, "overlay", "c", want);
        assert_eq!(
            ops_violations(&g, &caps, &o, &plan),
            vec![],
            "discard: {discard}"
        );
        let other = if discard {
            LoadOp::Load
        } else {
            LoadOp::DontCare
        };
        set_load(&mut plan, "overlay", "c", other);
        let v = ops_violations(&g, &caps, &o, &plan);
        assert!(
            v.iter()
                .any(|v| v.rule == "rp.load" && v.detail.contains("'c'")),
            "discard: {discard}: {v:#?}"
        );
    }
}
