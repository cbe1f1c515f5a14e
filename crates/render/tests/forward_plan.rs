//! The mobile forward frame's plan at 1920×1080 on the Mali profile, without a device: the
//! multisampled HDR colour and depth stay in tile memory (memoryless) and only their resolve
//! leaves it, so MSAA costs tile bandwidth only where a single-sampled pass must read the
//! resolved HDR; the depth SSAO reads is resolved only when SSAO is on.

use tessera_graph::{compile, Capabilities, CompileOptions, Plan, ResolveMode};
use tessera_render::config::Config;
use tessera_render::features::{Features, RenderPath, Ssao};
use tessera_render::{frame_graph, Settings};

const W: u32 = 1920;
const H: u32 = 1080;

/// The `[mobile]` preset (forward, 4×) with `msaa` and `ssao`.
fn features(msaa: u32, ssao: Ssao) -> Features {
    Features {
        msaa,
        ssao,
        ..Config::builtin().features_for("mali")
    }
}

fn plan(features: Features) -> Plan {
    let settings = Settings {
        width: W,
        height: H,
        features,
        profile: "mali".into(),
        ..Settings::default()
    };
    let graph = frame_graph(&tessera_scene::builtin(), &settings);
    let caps = Capabilities::profile("mali").expect("the mali profile");
    compile(&graph, &caps, &CompileOptions::ALL).expect("the forward frame compiles")
}

/// The render pass holding `pass` and its subpass names.
fn render_pass_of<'p>(plan: &'p Plan, pass: &str) -> &'p tessera_graph::plan::RenderPass {
    plan.render_passes
        .iter()
        .find(|rp| rp.subpasses.iter().any(|s| s.as_str() == pass))
        .unwrap_or_else(|| panic!("no render pass holds '{pass}'"))
}

fn traffic(plan: &Plan) -> u64 {
    plan.bandwidth.load_bytes + plan.bandwidth.store_bytes
}

#[test]
fn the_mobile_preset_is_forward_at_4x() {
    let f = Config::builtin().features_for("mali");
    assert_eq!((f.path, f.msaa), (RenderPath::Forward, 4));
}

#[test]
fn multisampled_colour_and_depth_are_memoryless_and_resolved_on_write_back() {
    let p = plan(features(4, Ssao::Prepass));
    let rp = render_pass_of(&p, "forward opaque");
    let names: Vec<&str> = rp.subpasses.iter().map(|s| s.as_str()).collect();
    assert_eq!(names, ["forward opaque", "transparents"], "{p:#?}");
    let att = |name: &str| {
        rp.attachments
            .iter()
            .find(|a| a.resource.as_str() == name)
            .unwrap_or_else(|| panic!("no attachment '{name}': {:#?}", rp.attachments))
    };
    for ms in ["hdr ms", "depth ms"] {
        let a = att(ms);
        assert_eq!(a.samples, 4, "{a:?}");
        assert!(a.memoryless, "{ms} stays in tile memory: {a:?}");
    }
    assert_eq!(
        att("hdr ms").resolve_target.as_ref().map(|n| n.as_str()),
        Some("hdr")
    );
    let hdr = att("hdr");
    assert_eq!((hdr.samples, hdr.memoryless), (1, false), "{hdr:?}");
}

#[test]
fn at_1x_there_is_no_multisampled_image_and_no_resolve() {
    let p = plan(features(1, Ssao::Prepass));
    for rp in &p.render_passes {
        for a in &rp.attachments {
            assert_eq!(a.samples, 1, "{a:?}");
            assert!(a.resolve_target.is_none(), "{a:?}");
        }
    }
    let rp = render_pass_of(&p, "forward opaque");
    let names: Vec<&str> = rp.subpasses.iter().map(|s| s.as_str()).collect();
    assert_eq!(names, ["forward opaque", "transparents", "tonemap"]);
}

/// With SSAO the prepass's multisampled depth stays in tile memory and only its resolve
/// (`max`: the nearest sample with reversed Z) is stored for SSAO to read; without SSAO there
/// is no prepass and no depth resolve.
#[test]
fn the_depth_is_resolved_only_for_ssao() {
    let with = plan(features(4, Ssao::Prepass));
    let rp = render_pass_of(&with, "forward depth prepass");
    let ms = rp
        .attachments
        .iter()
        .find(|a| a.resource.as_str() == "ssao depth ms")
        .expect("a multisampled prepass depth");
    assert_eq!(ms.samples, 4, "{ms:?}");
    assert!(ms.memoryless, "{ms:?}");
    assert_eq!(
        ms.resolve_target.as_ref().map(|n| n.as_str()),
        Some("ssao depth")
    );
    assert_eq!(ms.resolve_mode, Some(ResolveMode::Max), "{ms:?}");
    let without = plan(features(4, Ssao::Off));
    assert!(!without
        .order
        .iter()
        .any(|p| p.as_str() == "forward depth prepass"));
    // No depth is resolved without SSAO: the only resolve is the HDR colour's.
    let resolves: Vec<String> = without
        .render_passes
        .iter()
        .flat_map(|rp| &rp.attachments)
        .filter(|a| a.resolve_target.is_some())
        .map(|a| a.resource.to_string())
        .collect();
    assert_eq!(resolves, ["hdr ms"]);
}

/// Measured (1920×1080, mali, SSAO prepass): 4× moves 100,098,048 B, 1× 83,509,248 B (1.199×),
/// the difference exactly the resolved HDR stored by the geometry render pass and loaded by
/// tone mapping (2 × 8,294,400 B): the multisampled attachments themselves cost nothing. At 1×
/// tone mapping joins the geometry render pass and HDR never leaves the tile; at 4× the
/// compiler keeps one sample count per render pass, so the single-sampled tone-mapping
/// subpass cannot read the resolve in tile memory.
#[test]
fn msaa_adds_tile_traffic_only_for_the_resolved_hdr() {
    let (p4, p1) = (
        plan(features(4, Ssao::Prepass)),
        plan(features(1, Ssao::Prepass)),
    );
    let (t4, t1) = (traffic(&p4), traffic(&p1));
    let hdr = u64::from(W * H) * 4;
    eprintln!(
        "tile traffic: 4x {t4} B, 1x {t1} B ({:.3}x); naive at 4x {} B",
        t4 as f64 / t1 as f64,
        p4.bandwidth.naive_load_bytes + p4.bandwidth.naive_store_bytes
    );
    assert_eq!(
        t4 - t1,
        2 * hdr,
        "4x: {:?}\n1x: {:?}",
        p4.bandwidth,
        p1.bandwidth
    );
    assert!(t4 as f64 <= 1.2 * t1 as f64, "4x {t4} B against 1x {t1} B");
}

/// The naive baseline at 4× (no merging, every attachment stored, each resolve a separate
/// one: the samples stored, loaded back, the target stored) is at least 3× the planned
/// traffic: measured 406,990,848 B against 100,098,048 B (4.07×).
#[test]
fn the_naive_baseline_at_4x_is_at_least_3x_the_plan() {
    let p = plan(features(4, Ssao::Prepass));
    let naive = p.bandwidth.naive_load_bytes + p.bandwidth.naive_store_bytes;
    let planned = traffic(&p);
    assert!(
        naive >= 3 * planned,
        "naive {naive} B, planned {planned} B ({:.2}x)",
        naive as f64 / planned as f64
    );
}
