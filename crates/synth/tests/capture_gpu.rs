//! RenderDoc check of the executor (lavapipe in CI, validation and synchronization
//! validation on): frames run through `synth::run_with_capture`, which captures their last
//! frame with RenderDoc's in-app API; `renderdoccmd convert` turns the capture into XML, and
//! every planned render pass must be there as created and begun: same subpass, attachment
//! and dependency counts, the attachments each subpass references (input, colour, resolve,
//! depth/stencil), every attachment's format, samples, load/store ops (stencil too),
//! layouts, the render pass and framebuffer debug names, one debug label per pass named as
//! the plan names it, and debug names on every image, buffer, render pass and framebuffer.
//! Zero validation messages and zero mismatches are asserted as in `exec_gpu`.
//!
//! The comparison (`tessera_verify`) is shown to fail: a plan changed in one place (a load
//! op, a store op, a subpass order, a dependency) against a real capture must give the
//! matching difference.
//!
//! RenderDoc (librenderdoc.so and renderdoccmd) must be installed — `scripts/test.sh`
//! installs it; without it these tests fail saying so, they never skip. Every test of this
//! binary captures, one at a time (RenderDoc captures "the" device of the process).

use std::path::PathBuf;
use std::sync::Mutex;
use tessera_graph::access::Access;
use tessera_graph::plan::{LoadOp, StoreOp};
use tessera_graph::{frame_file, CompileOptions, Format, Graph, ImageDesc};
use tessera_synth::{run_with_capture, ExecConfig, ExecReport};
use tessera_verify::{facts, CaptureFacts};

/// One capture at a time in this process.
static CAPTURING: Mutex<()> = Mutex::new(());

fn assets() -> PathBuf {
    match std::env::var_os("TESSERA_ASSETS") {
        Some(p) => p.into(),
        None => concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets").into(),
    }
}

fn frame(name: &str) -> Graph {
    let p = assets().join("graphs").join(format!("{name}.json"));
    frame_file::load(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .0
}

/// Runs `g` for two frames capturing the last one, checks the run is clean and returns the
/// report with the capture's facts.
fn captured(label: &str, g: &Graph, options: CompileOptions) -> (ExecReport, CaptureFacts) {
    let _one = CAPTURING.lock().unwrap_or_else(|e| e.into_inner());
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("capture_{label}.rdc"));
    let _ = std::fs::remove_file(&out);
    let config = ExecConfig {
        frames: 2,
        options,
        ..ExecConfig::default()
    };
    let r = run_with_capture(g, &config, &out).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(
        (r.validation_messages, r.mismatches),
        (0, 0),
        "{label}: messages {:#?}, mismatches {:#?}",
        r.messages,
        r.mismatch_notes
    );
    assert_eq!(r.capture.as_deref(), Some(out.as_path()), "{label}");
    let xml = tessera_verify::rdc::convert(&out).unwrap_or_else(|e| panic!("{label}: {e}"));
    let facts = facts::parse(&xml).unwrap_or_else(|e| panic!("{label}: {e}"));
    (r, facts)
}

/// The differences between `plan` and the capture.
fn compare(g: &Graph, plan: &tessera_graph::Plan, f: &CaptureFacts) -> Vec<String> {
    tessera_verify::verify(g, plan, f).differences
}

fn assert_matches(label: &str, g: &Graph, r: &ExecReport, f: &CaptureFacts) {
    let diff = compare(g, &r.plan, f);
    assert!(
        diff.is_empty(),
        "{label}: the capture differs from the plan:\n  {}",
        diff.join("\n  ")
    );
}

/// The captured render passes in words: subpasses and each attachment's load/store ops,
/// with the planned store ops the executor recorded as NONE (attachments no subpass writes).
fn summary(r: &ExecReport, f: &CaptureFacts) -> String {
    let mut s = format!("{} render passes", f.begins.len());
    let mut none = 0;
    for (b, rp) in f.begins.iter().zip(&r.plan.render_passes) {
        s += &format!("; {} subpasses:", b.labels.len());
        for (a, planned) in f.render_passes[&b.render_pass]
            .attachments
            .iter()
            .zip(&rp.attachments)
        {
            let store = a.store_op.replace("VK_ATTACHMENT_STORE_OP_", "");
            none += usize::from(store.starts_with("NONE"));
            s += &format!(
                " {}={}/{}",
                planned.resource,
                a.load_op.replace("VK_ATTACHMENT_LOAD_OP_", ""),
                store
            );
        }
    }
    s + &format!(" ({none} planned stores of unwritten attachments recorded as NONE)")
}

#[test]
fn example_frames_record_the_planned_render_passes() {
    let runs = [
        ("tile_deferred", CompileOptions::ALL),
        ("tile_deferred", CompileOptions::NONE),
        ("tile_deferred_halfres", CompileOptions::ALL),
        ("tile_msaa", CompileOptions::ALL),
        ("tile_deferred_depth_input", CompileOptions::ALL),
        ("deferred", CompileOptions::ALL),
    ];
    let mut merged = 0;
    let mut resolves = 0;
    for (name, options) in runs {
        let label = format!(
            "{name}{}",
            if options == CompileOptions::NONE {
                "_naive"
            } else {
                ""
            }
        );
        let g = frame(name);
        let (r, f) = captured(&label, &g, options);
        assert_matches(&label, &g, &r, &f);
        assert!(
            !f.begins.is_empty(),
            "{label}: no render pass in the capture"
        );
        merged += r
            .plan
            .render_passes
            .iter()
            .filter(|p| p.subpasses.len() > 1)
            .count();
        resolves += r
            .plan
            .render_passes
            .iter()
            .flat_map(|p| &p.attachments)
            .filter(|a| a.resolve_target.is_some())
            .count();
        eprintln!("{label}: {}", summary(&r, &f));
    }
    assert!(merged > 0, "no merged render pass was captured");
    assert!(resolves > 0, "no resolve attachment was captured");
}

/// A depth-stencil attachment cleared by one pass and tested by the next: the stencil ops
/// must follow the plan too.
#[test]
fn stencil_ops_follow_the_plan() {
    let mut g = Graph::new("stencil");
    let ds = g.image("ds", ImageDesc::new(Format::D32_SFLOAT_S8_UINT, 32, 32));
    let color = g.image("color", ImageDesc::new(Format::R8G8B8A8_UNORM, 32, 32));
    g.resource_mut(color).output = true;
    g.raster("stencil_write")
        .clears(ds, Access::DepthWrite)
        .id();
    g.raster("stencil_test")
        .uses(ds, Access::DepthRead)
        .clears(color, Access::ColorWrite)
        .id();
    let (r, f) = captured("stencil", &g, CompileOptions::ALL);
    assert_matches("stencil", &g, &r, &f);
    let stencil_ops: Vec<_> = f
        .render_passes
        .values()
        .flat_map(|p| &p.attachments)
        .filter(|a| a.format == "VK_FORMAT_D32_SFLOAT_S8_UINT")
        .map(|a| a.stencil_load_op.clone())
        .collect();
    assert!(
        stencil_ops
            .iter()
            .any(|s| s == "VK_ATTACHMENT_LOAD_OP_CLEAR"),
        "the planned stencil clear is not in the capture: {stencil_ops:?}"
    );
}

/// The comparison fails when the executor records anything else than the plan: each change
/// of the plan below, held against the real capture, must be reported.
#[test]
fn comparison_reports_every_departure_from_the_plan() {
    let g = frame("tile_deferred");
    let (r, f) = captured("tile_deferred_mutated", &g, CompileOptions::ALL);
    assert_matches("tile_deferred", &g, &r, &f);
    let rp = r
        .plan
        .render_passes
        .iter()
        .position(|p| p.subpasses.len() > 1 && !p.dependencies.is_empty())
        .expect("tile_deferred merges subpasses with dependencies");
    type Mutation = (&'static str, fn(&mut tessera_graph::plan::RenderPass));
    let mutations: [Mutation; 6] = [
        ("loadOp", |p| {
            let a = &mut p.attachments[0];
            a.load_op = if a.load_op == LoadOp::Load {
                LoadOp::Clear
            } else {
                LoadOp::Load
            };
        }),
        ("storeOp", |p| {
            for a in &mut p.attachments {
                a.store_op = match a.store_op {
                    StoreOp::Store => StoreOp::DontCare,
                    StoreOp::DontCare => StoreOp::Store,
                };
            }
        }),
        ("debug labels per subpass", |p| p.subpasses.swap(0, 1)),
        ("dependencies", |p| {
            p.dependencies.pop();
        }),
        ("input attachments", |p| {
            // Two subpasses trade places: their references no longer match their passes.
            let last = p.subpasses.len() - 1;
            p.subpasses.swap(1, last);
        }),
        ("finalLayout", |p| {
            p.attachments[0].final_layout = tessera_graph::sync::Layout::GENERAL;
        }),
    ];
    for (field, mutate) in mutations {
        let mut plan = r.plan.clone();
        mutate(&mut plan.render_passes[rp]);
        let diff = compare(&g, &plan, &f);
        assert!(
            diff.iter().any(|d| d.contains(field)),
            "changing the plan's {field} went unnoticed: {diff:#?}"
        );
    }
    let mut fewer = r.plan.clone();
    fewer.render_passes.push(fewer.render_passes[rp].clone());
    assert!(
        compare(&g, &fewer, &f)
            .iter()
            .any(|d| d.contains("render passes begun")),
        "an extra planned render pass went unnoticed"
    );
}
