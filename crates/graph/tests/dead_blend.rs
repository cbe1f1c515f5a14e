//! A blend (`color_read_write`) reads earlier content only into its own result: when nothing
//! reads that result, the render pass does not load for it (and the render pass before it
//! does not store for it); when something does, both stay. A depth test is no such case: it
//! decides which fragments reach the other attachments, so a depth write still loads.

use tessera_graph::check;
use tessera_graph::graph::{Graph, ImageDesc};
use tessera_graph::plan::{LoadOp, Plan, StoreOp};
use tessera_graph::{compile, Access, Capabilities, CompileOptions, Format};

/// `fill` writes `target` whole; `blend` blends into it and writes the output `out`; with
/// `read_after`, `post` samples `target` into the output `out2`. Unmerged, so the two uses
/// of `target` sit in different render passes.
fn frame(read_after: bool, access: Access, format: Format) -> Graph {
    let mut g = Graph::new("dead_blend");
    let d = |f| ImageDesc::new(f, 64, 64);
    let target = g.image("target", d(format));
    let out = g.image("out", d(Format::R8G8B8A8_UNORM));
    g.resource_mut(out).output = true;
    let first = if format.is_depth_stencil() {
        Access::DepthWrite
    } else {
        Access::ColorWriteAll
    };
    g.raster("fill").clears(target, first);
    g.raster("blend")
        .uses(target, access)
        .uses(out, Access::ColorWriteAll);
    if read_after {
        let out2 = g.image("out2", d(Format::R8G8B8A8_UNORM));
        g.resource_mut(out2).output = true;
        g.raster("post")
            .uses(target, Access::Sampled)
            .uses(out2, Access::ColorWriteAll);
    }
    g
}

fn options() -> CompileOptions {
    CompileOptions {
        merge: false,
        ..CompileOptions::ALL
    }
}

/// (store of `target` in the render pass of `fill`, load of `target` in that of `blend`).
fn ops(g: &Graph, plan: &Plan) -> (StoreOp, LoadOp) {
    let att = |pass: &str| {
        plan.render_passes
            .iter()
            .find(|rp| rp.subpasses.iter().any(|s| s.as_str() == pass))
            .and_then(|rp| {
                rp.attachments
                    .iter()
                    .find(|a| a.resource.as_str() == "target")
            })
            .unwrap_or_else(|| panic!("'{pass}' has 'target' as an attachment: {plan:#?}"))
            .clone()
    };
    assert!(g.find_resource("target").is_some());
    (att("fill").store_op, att("blend").load_op)
}

fn compiled(g: &Graph, profile: &str) -> (Capabilities, Plan) {
    let caps = Capabilities::profile(profile).expect("known profile");
    let plan = compile(g, &caps, &options()).expect("valid frame");
    if let Err(v) = check::check(g, &caps, &options(), &plan) {
        panic!("{profile}: the checker rejects the plan: {v:#?}");
    }
    (caps, plan)
}

#[test]
fn a_blend_whose_result_nothing_reads_neither_loads_nor_keeps_the_store_before_it() {
    for profile in ["desktop", "mali"] {
        let g = frame(false, Access::ColorReadWrite, Format::R8G8B8A8_UNORM);
        let (caps, plan) = compiled(&g, profile);
        assert_eq!(
            ops(&g, &plan),
            (StoreOp::DontCare, LoadOp::DontCare),
            "{profile}"
        );
        // The checker models the same rule: a LOAD there is waste, and says why.
        let mut loaded = plan.clone();
        for rp in &mut loaded.render_passes {
            for a in rp.attachments.iter_mut() {
                if a.resource.as_str() == "target" && a.load_op == LoadOp::DontCare {
                    a.load_op = LoadOp::Load;
                }
            }
        }
        let v = check::check(&g, &caps, &options(), &loaded).unwrap_err();
        let load = v
            .iter()
            .find(|v| v.rule == "rp.load")
            .unwrap_or_else(|| panic!("{v:#?}"));
        assert!(
            load.detail.contains("loads content nothing needs")
                && load.detail.contains("blends into earlier content"),
            "{load}"
        );
    }
}

#[test]
fn a_blend_whose_result_is_read_loads_and_the_render_pass_before_it_stores() {
    for profile in ["desktop", "mali"] {
        let g = frame(true, Access::ColorReadWrite, Format::R8G8B8A8_UNORM);
        let (_, plan) = compiled(&g, profile);
        assert_eq!(ops(&g, &plan), (StoreOp::Store, LoadOp::Load), "{profile}");
    }
}

#[test]
fn a_depth_test_whose_depth_nothing_reads_still_loads() {
    for profile in ["desktop", "mali"] {
        let g = frame(false, Access::DepthWrite, Format::D32_SFLOAT);
        let (_, plan) = compiled(&g, profile);
        assert_eq!(ops(&g, &plan), (StoreOp::Store, LoadOp::Load), "{profile}");
    }
}
