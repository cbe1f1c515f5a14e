//! Golden plans of the tile-memory frames (assets/graphs/tile_*.json) on `mali` and
//! `desktop`, with the properties the article asks of each asserted directly as well.

mod common;

use common::golden::golden_plan;
use tessera_graph::plan::{Attachment, LoadOp, Plan, RenderPass, StoreOp};

const PROFILES: &[&str] = &["mali", "desktop"];

fn attachment<'p>(rp: &'p RenderPass, name: &str) -> &'p Attachment {
    rp.attachments
        .iter()
        .find(|a| a.resource == name)
        .unwrap_or_else(|| panic!("no attachment '{name}'"))
}

fn stored(plan: &Plan) -> Vec<&str> {
    let mut v: Vec<&str> = plan
        .render_passes
        .iter()
        .flat_map(|rp| &rp.attachments)
        .filter(|a| a.store_op == StoreOp::Store)
        .map(|a| a.resource.as_str())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn deferred_is_one_render_pass_storing_only_the_final_image() {
    for &profile in PROFILES {
        let (_, caps, plan) = golden_plan("tile_deferred", profile);
        assert_eq!(plan.render_passes.len(), 1, "{profile}: {:?}", plan.breaks);
        let rp = &plan.render_passes[0];
        assert_eq!(
            rp.subpasses,
            [
                "depth_prepass",
                "gbuffer",
                "lighting",
                "transparents",
                "composite"
            ]
        );
        assert!(plan.breaks.is_empty());
        assert_eq!(stored(&plan), ["swapchain"], "{profile}");
        assert!(
            rp.attachments.iter().all(|a| a.load_op != LoadOp::Load),
            "{profile}: nothing is loaded"
        );
        for a in rp.attachments.iter().filter(|a| a.resource != "swapchain") {
            assert_eq!(
                a.memoryless, caps.lazily_allocated,
                "{profile}: '{}'",
                a.resource
            );
        }
        assert!(!attachment(rp, "swapchain").memoryless);
        assert!(
            rp.dependencies.iter().all(|d| d.by_region),
            "every read is an input attachment or a depth test"
        );
        assert!(
            plan.bandwidth.load_bytes + plan.bandwidth.store_bytes
                < plan.bandwidth.naive_load_bytes + plan.bandwidth.naive_store_bytes
        );
        if caps.lazily_allocated {
            assert!(
                plan.memory.blocks.is_empty(),
                "every intermediate is memoryless on {profile}"
            );
            // Print the figures docs/perf.md quotes (visible with --nocapture).
            println!(
                "tile_deferred on {profile}: planned {} B/frame (load {}, store {}), naive {} B/frame (load {}, store {}), memoryless {} B",
                plan.bandwidth.load_bytes + plan.bandwidth.store_bytes,
                plan.bandwidth.load_bytes,
                plan.bandwidth.store_bytes,
                plan.bandwidth.naive_load_bytes + plan.bandwidth.naive_store_bytes,
                plan.bandwidth.naive_load_bytes,
                plan.bandwidth.naive_store_bytes,
                plan.memory.memoryless_bytes
            );
        }
    }
}

#[test]
fn distortion_sampling_the_composite_breaks_and_stores_it() {
    for &profile in PROFILES {
        let (_, _, plan) = golden_plan("tile_deferred_distortion", profile);
        assert_eq!(plan.render_passes.len(), 2);
        assert_eq!(plan.breaks.len(), 1);
        let b = &plan.breaks[0];
        assert_eq!(
            (b.after.as_str(), b.before.as_str()),
            ("composite", "distortion")
        );
        assert!(
            b.reason.contains("samples 'composited'")
                && b.reason.contains("not an input attachment"),
            "{}",
            b.reason
        );
        let composited = attachment(&plan.render_passes[0], "composited");
        assert_eq!(composited.store_op, StoreOp::Store);
        assert!(!composited.memoryless);
        assert_eq!(stored(&plan), ["composited", "swapchain"]);
    }
}

#[test]
fn half_resolution_pass_in_the_middle_breaks_with_the_extents() {
    for &profile in PROFILES {
        let (_, _, plan) = golden_plan("tile_deferred_halfres", profile);
        let subpasses: Vec<Vec<&str>> = plan
            .render_passes
            .iter()
            .map(|rp| rp.subpasses.iter().map(|n| n.as_str()).collect())
            .collect();
        assert_eq!(
            subpasses,
            [
                vec!["depth_prepass", "gbuffer", "lighting"],
                vec!["fog_half_res"],
                vec!["transparents", "composite"]
            ]
        );
        assert_eq!(plan.breaks.len(), 2);
        for b in &plan.breaks {
            assert!(
                b.reason.contains("extent differs")
                    && b.reason.contains("960x540")
                    && b.reason.contains("1920x1080"),
                "{}",
                b.reason
            );
        }
        // Content crossing the breaks is stored and loaded again.
        assert_eq!(
            attachment(&plan.render_passes[0], "hdr").store_op,
            StoreOp::Store
        );
        assert_eq!(
            attachment(&plan.render_passes[2], "hdr").load_op,
            LoadOp::Load
        );
    }
}

#[test]
fn msaa_resolved_in_the_subpass_stores_only_the_resolve_target() {
    for &profile in PROFILES {
        let (_, caps, plan) = golden_plan("tile_msaa", profile);
        assert_eq!(plan.render_passes.len(), 1);
        let rp = &plan.render_passes[0];
        assert_eq!(stored(&plan), ["swapchain"]);
        let colour = attachment(rp, "msaa_color");
        assert_eq!(
            (colour.samples, colour.resolve_target.as_deref()),
            (4, Some("swapchain"))
        );
        for name in ["msaa_color", "msaa_depth"] {
            assert_eq!(
                attachment(rp, name).memoryless,
                caps.lazily_allocated,
                "{profile}: {name}"
            );
        }
        assert_eq!(
            plan.bandwidth.store_bytes,
            1920 * 1080 * 4,
            "only the single-sampled resolve target is written"
        );
    }
}

#[test]
fn depth_read_as_input_attachment_is_a_hazard_for_its_later_store() {
    use tessera_graph::sync::{AccessMask, StageMask};
    for &profile in PROFILES {
        let (_, caps, plan) = golden_plan("tile_deferred_depth_input", profile);
        assert_eq!(plan.render_passes.len(), 1, "{profile}: {:?}", plan.breaks);
        let rp = &plan.render_passes[0];
        assert_eq!(
            rp.subpasses,
            [
                "depth_prepass",
                "gbuffer",
                "lighting",
                "transparent",
                "composite"
            ]
        );
        let depth = attachment(rp, "depth");
        assert_eq!(depth.store_op, StoreOp::DontCare, "{profile}");
        assert_eq!(depth.memoryless, caps.lazily_allocated, "{profile}");
        // Lighting (subpass 2) reads depth as an input attachment; transparent (3) only tests
        // it, but its store (a write at the end of subpass 3) must wait for that read. No use
        // of subpass 3 hazards with subpass 2, so this dependency is the store's alone.
        let d = rp
            .dependencies
            .iter()
            .find(|d| (d.src_subpass, d.dst_subpass) == (2, 3))
            .unwrap_or_else(|| panic!("{profile}: no dependency 2 -> 3: {:?}", rp.dependencies));
        assert!(d.src_stage.contains(StageMask::FRAGMENT_SHADER), "{d:?}");
        assert_eq!(
            (d.dst_stage, d.dst_access),
            (
                StageMask::LATE_FRAGMENT_TESTS,
                AccessMask::DEPTH_STENCIL_ATTACHMENT_WRITE
            ),
            "{profile}"
        );
        assert!(d.by_region);
    }
}
