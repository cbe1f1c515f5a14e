//! The mobile frame against the tile budgets of the two Mali generations, without a device:
//! the G-buffer (albedo, normal, material) and the HDR target fit in the smaller budget
//! (Bifrost, 128 bits of colour per pixel), so G-buffer -> lighting -> transparents stay one
//! render pass on every Mali; on Valhall (256 bits) tone mapping joins them, and on Bifrost
//! the plan's break reason says that it would not fit and by how much.

use tessera_graph::{compile, Capabilities, CompileOptions, Plan};
use tessera_render::config::Config;
use tessera_render::{frame_graph, Settings};
use tessera_vk::device_class::{BIFROST_TILE_BITS, VALHALL_TILE_BITS};

fn mobile_plan(tile_bits: u32) -> Plan {
    // The deferred mobile frame (the preset's own path is forward, `forward_plan.rs`).
    let features = tessera_render::features::Features {
        path: tessera_render::features::RenderPath::Deferred,
        msaa: 1,
        ..Config::builtin().features_for("mali")
    };
    let settings = Settings {
        width: 320,
        height: 180,
        features,
        profile: "mali".into(),
        ..Settings::default()
    };
    let graph = frame_graph(&tessera_scene::builtin(), &settings);
    let caps = Capabilities {
        tile_bits_per_pixel: tile_bits,
        ..Capabilities::profile("mali").expect("the mali profile")
    };
    compile(&graph, &caps, &CompileOptions::ALL).expect("the mobile frame compiles")
}

fn render_passes(plan: &Plan) -> Vec<Vec<String>> {
    plan.render_passes
        .iter()
        .map(|rp| rp.subpasses.iter().map(|s| s.to_string()).collect())
        .collect()
}

fn has(plan: &Plan, subpasses: &[&str]) -> bool {
    render_passes(plan)
        .iter()
        .any(|rp| rp.iter().map(String::as_str).eq(subpasses.iter().copied()))
}

#[test]
fn valhall_keeps_gbuffer_to_tonemap_in_one_render_pass() {
    let plan = mobile_plan(VALHALL_TILE_BITS);
    assert!(
        has(&plan, &["gbuffer", "lighting", "transparents", "tonemap"]),
        "{:#?}",
        render_passes(&plan)
    );
    assert!(
        !plan
            .breaks
            .iter()
            .any(|b| b.reason.contains("tile storage")),
        "no break for the tile budget at 256 bits: {:#?}",
        plan.breaks
    );
}

#[test]
fn bifrost_keeps_the_gbuffer_merged_and_says_why_tone_mapping_splits() {
    let plan = mobile_plan(BIFROST_TILE_BITS);
    assert!(
        has(&plan, &["gbuffer", "lighting", "transparents"]),
        "the G-buffer fits 128 bits: {:#?}",
        render_passes(&plan)
    );
    assert!(has(&plan, &["tonemap"]), "{:#?}", render_passes(&plan));
    let split = plan
        .breaks
        .iter()
        .find(|b| b.after.as_str() == "transparents" && b.before.as_str() == "tonemap")
        .expect("a break between transparents and tonemap");
    let reason = split.reason.to_string();
    assert!(
        reason.contains("tile storage") && reason.contains("128"),
        "{reason}"
    );
    for part in [
        "gbuffer albedo",
        "gbuffer normal",
        "gbuffer material",
        "hdr",
    ] {
        assert!(reason.contains(part), "{part}: {reason}");
    }
}

#[test]
fn without_a_budget_nothing_splits_for_tile_storage() {
    let plan = mobile_plan(0);
    assert!(has(
        &plan,
        &["gbuffer", "lighting", "transparents", "tonemap"]
    ));
}
