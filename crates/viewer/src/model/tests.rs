//! Page model tests: every number is recomputed here from the plan and the graph (not from
//! the model) and compared.

use super::Page;
use std::path::PathBuf;
use tessera_graph::graph::QueueKind;
use tessera_graph::plan::{BarrierPosition, LoadOp, StoreOp};
use tessera_graph::{
    compile, frame_file, Access, Capabilities, CompileOptions, Format, Graph, ImageDesc, Plan,
};

const FRAMES: &[&str] = &[
    "deferred",
    "postprocess",
    "gpu_culling",
    "tile_deferred",
    "tile_deferred_halfres",
    "tile_deferred_distortion",
    "tile_msaa",
    "async_scenario1",
    "async_scenario2",
    "async_scenario3",
    "taa",
];

fn asset(frame: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/graphs")
        .join(format!("{frame}.json"))
}

/// Compiles an example frame, for its own device or for `profile`.
fn compiled(frame: &str, profile: Option<&str>) -> (Graph, Plan) {
    let (graph, mut caps) = frame_file::load(&asset(frame)).expect("example frame loads");
    if let Some(p) = profile {
        caps = Capabilities::profile(p).expect("known profile");
    }
    let plan = compile(&graph, &caps, &CompileOptions::ALL).expect("example frame compiles");
    (graph, plan)
}

/// Every example frame for its own device and for each profile.
fn all_compiled() -> Vec<(String, Graph, Plan)> {
    let mut out = Vec::new();
    for f in FRAMES {
        let (g, p) = compiled(f, None);
        out.push((f.to_string(), g, p));
        for prof in Capabilities::PROFILES {
            let (g, p) = compiled(f, Some(prof));
            out.push((format!("{f}/{prof}"), g, p));
        }
    }
    out
}

/// Bytes one load or store of a named image moves, from the graph's declaration.
fn op_bytes(graph: &Graph, name: &str) -> u64 {
    let r = graph.resource(graph.find_resource(name).expect("resource"));
    let d = r.image_desc().expect("attachments are images");
    u64::from(d.width)
        * u64::from(d.height)
        * u64::from(d.samples)
        * u64::from(d.format.bytes_per_texel())
}

#[test]
fn attachment_bytes_follow_ops_and_sum_to_plan_bandwidth() {
    for (label, graph, plan) in all_compiled() {
        let page = Page::build(&graph, &plan);
        let (mut load, mut store) = (0u64, 0u64);
        assert_eq!(
            page.render_passes.len(),
            plan.render_passes.len(),
            "{label}"
        );
        for (view, rp) in page.render_passes.iter().zip(&plan.render_passes) {
            assert_eq!(view.attachments.len(), rp.attachments.len(), "{label}");
            for (a, pa) in view.attachments.iter().zip(&rp.attachments) {
                assert_eq!(&a.planned, pa);
                let name = &a.planned.resource;
                let b = op_bytes(&graph, name);
                assert_eq!(a.op_bytes, b, "{label} {name}");
                let l = if pa.load_op == LoadOp::Load { b } else { 0 };
                let s = if pa.store_op == StoreOp::Store { b } else { 0 };
                assert_eq!((a.load_bytes, a.store_bytes), (l, s), "{label} {name}");
                if pa.memoryless {
                    assert_eq!(a.dram_bytes(), 0, "{label}: memoryless {name}");
                }
                load += l;
                store += s;
            }
            assert_eq!(
                view.dram_bytes,
                view.attachments.iter().map(|a| a.dram_bytes()).sum::<u64>()
            );
        }
        assert_eq!(load, plan.bandwidth.load_bytes, "{label}: loads");
        assert_eq!(store, plan.bandwidth.store_bytes, "{label}: stores");
        assert_eq!(page.totals.attachment_bytes, load + store, "{label}");
        assert_eq!(page.totals.planned_bytes, load + store, "{label}");
    }
}

#[test]
fn deferred_on_desktop_moves_only_the_swapchain_store() {
    let (graph, plan) = compiled("deferred", None);
    let page = Page::build(&graph, &plan);
    assert_eq!(page.render_passes.len(), 1);
    let rp = &page.render_passes[0];
    assert_eq!(rp.subpasses.len(), plan.order.len());
    for a in &rp.attachments {
        let expected = if a.planned.resource == "swapchain" {
            1920 * 1080 * 4
        } else {
            0
        };
        assert_eq!(a.dram_bytes(), expected, "{}", a.planned.resource);
    }
    assert_eq!(rp.dram_bytes, 1920 * 1080 * 4);
    // The culled pass keeps its kind and the plan's reason.
    assert_eq!(page.culled.len(), 1);
    assert_eq!(page.culled[0].name, "debug_overlay");
    assert_eq!(page.culled[0].kind, tessera_graph::PassKind::Raster);
    assert_eq!(page.culled[0].reason, plan.cull_reasons[0].reason);
    assert!(page.pass("debug_overlay").is_none());
}

#[test]
fn memoryless_resources_add_up_to_the_plan() {
    let mut seen_memoryless = false;
    for (label, graph, plan) in all_compiled() {
        let page = Page::build(&graph, &plan);
        let memoryless: u64 = page
            .resources
            .iter()
            .filter(|r| r.memoryless)
            .map(|r| r.bytes)
            .sum();
        assert_eq!(memoryless, plan.memory.memoryless_bytes, "{label}");
        assert_eq!(page.totals.memoryless_bytes, memoryless, "{label}");
        for r in page.resources.iter().filter(|r| r.memoryless) {
            seen_memoryless = true;
            assert!(
                r.placement.is_none(),
                "{label}: memoryless {} placed",
                r.name
            );
        }
    }
    assert!(
        seen_memoryless,
        "some example keeps an attachment memoryless"
    );
}

#[test]
fn tile_msaa_resolve_is_the_only_traffic() {
    let (graph, plan) = compiled("tile_msaa", None);
    let page = Page::build(&graph, &plan);
    let atts = &page.render_passes[0].attachments;
    let color = atts
        .iter()
        .find(|a| a.planned.resource == "msaa_color")
        .unwrap();
    assert!(color.planned.memoryless);
    assert_eq!(color.planned.resolve_target.as_deref(), Some("swapchain"));
    assert_eq!(color.op_bytes, 1920 * 1080 * 4 * 4);
    assert_eq!(color.dram_bytes(), 0);
    let swap = atts
        .iter()
        .find(|a| a.planned.resource == "swapchain")
        .unwrap();
    assert_eq!(swap.store_bytes, op_bytes(&graph, "swapchain"));
    assert_eq!(
        page.totals.memoryless_bytes,
        op_bytes(&graph, "msaa_color") + op_bytes(&graph, "msaa_depth")
    );
}

#[test]
fn a_depth_resolve_carries_its_mode_to_the_page() {
    let (graph, plan) = compiled("tile_msaa_depth", None);
    let page = Page::build(&graph, &plan);
    let depth = page.render_passes[0]
        .attachments
        .iter()
        .find(|a| a.planned.resource == "msaa_depth")
        .expect("msaa_depth");
    assert_eq!(depth.planned.resolve_target.as_deref(), Some("depth_1x"));
    let json = serde_json::to_value(depth).expect("serializes");
    assert_eq!(json["resolve_mode"], "sample_zero");
    assert!(include_str!("../html/page.js").contains("a.resolve_mode"));
}

/// A break whose later render pass loads what the earlier one stored, and samples a second
/// image the earlier one wrote.
fn break_graph() -> Graph {
    let mut g = Graph::new("break");
    let x = g.image("x", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    let w = g.image("w", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 32));
    let z = g.image("z", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    g.resource_mut(z).output = true;
    g.raster("a")
        .clears(x, Access::ColorWrite)
        .uses(w, Access::ColorWriteAll)
        .id();
    g.raster("b")
        .uses(x, Access::ColorReadWrite)
        .uses(w, Access::Sampled)
        .id();
    g.raster("c")
        .uses(x, Access::InputAttachment)
        .uses(z, Access::ColorWriteAll)
        .id();
    g
}

#[test]
fn break_cost_is_the_content_handed_over() {
    let graph = break_graph();
    let plan = compile(&graph, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
    let page = Page::build(&graph, &plan);
    let brk = page
        .breaks
        .iter()
        .find(|b| b.after == "a" && b.before == "b")
        .expect("b samples w, so a | b breaks");
    assert!(brk.reason.contains("samples"), "{}", brk.reason);
    let (x, w) = (op_bytes(&graph, "x"), op_bytes(&graph, "w"));
    // a stores x and w; b loads x as an attachment and samples w.
    let mut handed: Vec<_> = brk
        .handovers
        .iter()
        .map(|h| (h.resource.to_string(), h.store_bytes, h.load_bytes))
        .collect();
    handed.sort();
    assert_eq!(
        handed,
        vec![("w".to_string(), w, 0), ("x".to_string(), x, x)]
    );
    assert_eq!(brk.cost_bytes, 2 * x + w);
    assert_eq!(brk.position, page.pass("b").unwrap().position);
    assert_eq!(page.totals.break_bytes, brk.cost_bytes);
}

#[test]
fn break_with_nothing_handed_over_costs_nothing() {
    let (graph, plan) = compiled("async_scenario1", None);
    let page = Page::build(&graph, &plan);
    let gs = page
        .breaks
        .iter()
        .find(|b| b.after == "gbuffer" && b.before == "shadows")
        .expect("extent break");
    assert_eq!(gs.cost_bytes, 0);
    let sl = page
        .breaks
        .iter()
        .find(|b| b.after == "shadows" && b.before == "lighting")
        .expect("sampling break");
    assert_eq!(sl.reasons.len(), 2, "{:?}", sl.reasons);
    assert_eq!(sl.cost_bytes, op_bytes(&graph, "shadow_map"));
}

#[test]
fn pass_rows_follow_the_plan() {
    for (label, graph, plan) in all_compiled() {
        let page = Page::build(&graph, &plan);
        let names: Vec<_> = page.passes.iter().map(|p| p.name).collect();
        assert_eq!(names, plan.order, "{label}");
        for (i, row) in page.passes.iter().enumerate() {
            assert_eq!(row.position as usize, i);
            let on_async = plan.queues.async_compute.contains(&row.name);
            assert_eq!(row.queue == QueueKind::AsyncCompute, on_async, "{label}");
            assert!(
                plan.levels[row.level as usize].contains(&row.name),
                "{label}"
            );
            match (row.render_pass, row.subpass) {
                (Some(r), Some(s)) => {
                    assert_eq!(
                        plan.render_passes[r as usize].subpasses[s as usize],
                        row.name
                    )
                }
                (None, None) => assert!(!plan
                    .render_passes
                    .iter()
                    .any(|rp| rp.subpasses.contains(&row.name))),
                other => panic!("{label}: half a subpass {other:?}"),
            }
            let declared = &graph.passes[graph.find_pass(&row.name).unwrap().index()];
            assert_eq!(row.kind, declared.kind);
            assert_eq!(row.uses.len(), declared.uses.len());
            for b in &row.barriers_before {
                assert_eq!(
                    (&b.before, b.position),
                    (&row.name, BarrierPosition::Before)
                );
            }
            for b in &row.barriers_after {
                assert_eq!((&b.before, b.position), (&row.name, BarrierPosition::After));
            }
            for &k in &row.waits {
                assert_eq!(page.syncs[k as usize].wait, row.name);
            }
            for &k in &row.signals {
                assert_eq!(page.syncs[k as usize].signal, row.name);
            }
        }
        // Every barrier exactly once, in plan order.
        let shown: Vec<_> = page.barriers().cloned().collect();
        assert_eq!(shown.len(), plan.barriers.len(), "{label}");
        for b in &plan.barriers {
            assert!(shown.contains(b), "{label}: barrier missing");
        }
        assert_eq!(page.totals.barriers as usize, plan.barriers.len());
    }
}

#[test]
fn syncs_and_wait_counts_come_from_the_plan() {
    let mut saw_removed = false;
    for (label, graph, plan) in all_compiled() {
        let page = Page::build(&graph, &plan);
        assert_eq!(page.syncs.len(), plan.syncs.len(), "{label}");
        for (v, s) in page.syncs.iter().zip(&plan.syncs) {
            assert_eq!(plan.order[v.signal_position as usize], s.signal);
            assert_eq!(plan.order[v.wait_position as usize], s.wait);
            assert_ne!(
                v.signal_queue, v.wait_queue,
                "{label}: same-queue semaphore"
            );
        }
        let t = &page.totals;
        assert_eq!(
            (t.waits_before, t.waits_removed, t.waits_after),
            (
                plan.sync_stats.candidate_waits,
                plan.sync_stats.removed,
                plan.sync_stats.kept
            )
        );
        assert_eq!(t.waits_after as usize, page.syncs.len(), "{label}");
        saw_removed |= t.waits_removed > 0;
    }
    assert!(saw_removed, "some example has an implied wait removed");
}

#[test]
fn lifetimes_and_placements_match_uses_and_blocks() {
    for (label, graph, plan) in all_compiled() {
        let page = Page::build(&graph, &plan);
        for r in &page.resources {
            let positions: Vec<u32> = plan
                .order
                .iter()
                .enumerate()
                .filter(|(_, n)| {
                    let p = &graph.passes[graph.find_pass(n).unwrap().index()];
                    p.uses
                        .iter()
                        .any(|u| graph.resources[u.resource.index()].name == r.name)
                })
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(r.first, positions[0], "{label} {}", r.name);
            assert_eq!(r.last, *positions.last().unwrap(), "{label} {}", r.name);
            assert_eq!(r.uses.len(), positions.len());
        }
        let placed: usize = plan.memory.blocks.iter().map(|b| b.placements.len()).sum();
        assert_eq!(
            page.resources
                .iter()
                .filter(|r| r.placement.is_some())
                .count(),
            placed,
            "{label}"
        );
        for r in &page.resources {
            if let Some(p) = &r.placement {
                let block = &plan.memory.blocks[p.block as usize];
                let pl = block
                    .placements
                    .iter()
                    .find(|x| x.resource == r.name)
                    .expect("placed where the plan says");
                assert_eq!(
                    (p.offset, p.size, p.first, p.last),
                    (pl.offset, pl.size, pl.first, pl.last)
                );
            }
        }
        for (b, pb) in page.blocks.iter().zip(&plan.memory.blocks) {
            assert_eq!((b.size, b.class), (pb.size, pb.class));
            assert!(b.placements.iter().all(|p| p.last < b.span), "{label}");
        }
    }
}

#[test]
fn totals_are_the_plan_figures_with_rates_at_60_fps() {
    let (graph, plan) = compiled("postprocess", None);
    let page = Page::build(&graph, &plan);
    let t = &page.totals;
    let naive = plan.bandwidth.naive_load_bytes + plan.bandwidth.naive_store_bytes;
    let planned = plan.bandwidth.load_bytes + plan.bandwidth.store_bytes;
    assert_eq!((t.planned_bytes, t.naive_bytes), (planned, naive));
    let mib = 1024.0 * 1024.0;
    assert!((t.planned_mib_per_frame - planned as f64 / mib).abs() < 1e-9);
    assert!((t.planned_mib_per_second - 60.0 * planned as f64 / mib).abs() < 1e-6);
    assert!((t.naive_mib_per_second - 60.0 * naive as f64 / mib).abs() < 1e-6);
    let saved = 100.0 * (naive - planned) as f64 / naive as f64;
    assert!((t.bandwidth_saved_percent - saved).abs() < 1e-9);
    assert_eq!(t.unaliased_bytes, plan.memory.unaliased_bytes);
    assert_eq!(t.aliased_bytes, plan.memory.aliased_bytes);
    assert_eq!(t.lower_bound_bytes, plan.memory.lower_bound_bytes);
    assert!(t.aliased_bytes < t.unaliased_bytes, "postprocess aliases");
    assert_eq!(t.passes as usize, plan.order.len());
    assert_eq!(t.culled as usize, plan.culled.len());
}

#[test]
fn unknown_names_cost_nothing_and_never_panic() {
    let (_, plan) = compiled("tile_msaa", None);
    let page = Page::build(&Graph::new("empty"), &plan);
    assert_eq!(page.passes.len(), plan.order.len());
    assert!(page.resources.is_empty());
    assert_eq!(page.totals.attachment_bytes, 0);
    assert!(page.passes.iter().all(|p| p.uses.is_empty()));
}

/// History resources: the plan's entries with the passes that hand their content to the
/// next frame, and the resource rows marked with their buffering and physical resource.
#[test]
fn history_resources_show_their_buffering_and_next_frame_edges() {
    let (g, plan) = compiled("taa", None);
    let page = Page::build(&g, &plan);
    assert_eq!(page.history.len(), plan.history.len());
    let taa = &page.history[0];
    assert_eq!(taa.resource, "taa_history");
    assert_eq!(taa.buffering, tessera_graph::plan::Buffering::Double);
    assert_eq!(taa.previous.as_deref(), Some("taa_history (previous)"));
    // The TAA pass reads last frame's history and writes this frame's.
    assert_eq!(taa.last_writer.as_deref(), Some("taa_resolve"));
    assert_eq!(taa.first_reader.as_deref(), Some("taa_resolve"));
    assert!(
        taa.physical().contains("swapped each frame"),
        "{}",
        taa.physical()
    );
    let exposure = &page.history[1];
    assert_eq!(exposure.buffering, tessera_graph::plan::Buffering::Single);
    assert_eq!(exposure.last_writer.as_deref(), Some("adapt_exposure"));
    assert_eq!(exposure.first_reader.as_deref(), Some("tonemap"));
    // Both physical resources of the pair are rows, marked A and B.
    let a = page.resource("taa_history").expect("row").history.clone();
    let b = page
        .resource("taa_history (previous)")
        .expect("row of the previous half")
        .history
        .clone();
    assert_eq!(a.as_ref().and_then(|h| h.physical), Some('A'));
    assert_eq!(b.as_ref().and_then(|h| h.physical), Some('B'));
    assert_eq!(
        b.and_then(|h| h.twin).as_deref(),
        Some("taa_history"),
        "B's twin"
    );
    let e = page.resource("exposure").expect("row").history.clone();
    assert_eq!(e.as_ref().map(|h| h.physical), Some(None));
    assert!(page.resource("depth").expect("row").history.is_none());
    // Bytes are the plan's (never placed in transient memory).
    assert_eq!(taa.bytes, plan.history[0].bytes);
    assert!(page.resource("taa_history").unwrap().placement.is_none());
}

/// A graph built in code (history declared, not lowered) gives the same page as the loaded
/// one: the page lowers it to name the resources the plan names.
#[test]
fn a_declared_history_graph_is_lowered_for_the_page() {
    let desc = ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64);
    let mut g = Graph::new("declared");
    let colour = g.image("colour", desc);
    let h = g.history_image("h", desc);
    g.compute("draw").uses(colour, Access::StorageWrite);
    g.compute("taa")
        .uses(colour, Access::Sampled)
        .reads_previous(h, Access::Sampled)
        .uses(h, Access::StorageWrite);
    g.compute("show").uses(h, Access::Sampled).side_effects();
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).expect("compiles");
    let page = Page::build(&g, &plan);
    let lowered = tessera_graph::history::lower(&g).into_owned();
    assert_eq!(page, Page::build(&lowered, &plan));
    assert!(page.resource("h (previous)").is_some());
    assert_eq!(page.history[0].first_reader.as_deref(), Some("taa"));
    assert_eq!(page.history[0].last_writer.as_deref(), Some("taa"));
}

/// The graph of an overlapping frame: a depth prepass, culling on async compute, the opaque
/// pass, and post-processing on async compute into a read-back image (nothing in the frame
/// waits for it: the tail).
fn overlapping() -> (Graph, Plan) {
    let mut g = Graph::new("o");
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 64, 64));
    let tiles = g.buffer("tiles", 1024);
    let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
    let ldr = g.image("ldr", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    let hist = g.buffer("histogram", 256);
    g.resource_mut(ldr).origin = tessera_graph::Origin::Imported(Default::default());
    // First in the plan's order, on async compute: frame N+1's graphics work still starts
    // right after frame N's.
    g.compute("histogram clear")
        .on_queue(QueueKind::AsyncCompute)
        .uses(hist, Access::StorageWrite)
        .id();
    g.raster("prepass").clears(depth, Access::DepthWrite).id();
    g.compute("cull")
        .on_queue(QueueKind::AsyncCompute)
        .uses(depth, Access::Sampled)
        .uses(tiles, Access::StorageWrite)
        .id();
    g.raster("opaque")
        .uses(tiles, Access::StorageRead)
        .uses(depth, Access::DepthRead)
        .clears(hdr, Access::ColorWrite)
        .id();
    g.compute("post")
        .on_queue(QueueKind::AsyncCompute)
        .uses(hdr, Access::Sampled)
        .uses(hist, Access::StorageWrite)
        .uses(ldr, Access::StorageWrite)
        .id();
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
    (g, plan)
}

#[test]
fn two_frames_put_the_next_frames_head_beside_the_tail() {
    let (g, plan) = overlapping();
    let o = plan
        .frame_overlap
        .clone()
        .expect("the plan overlaps frames");
    assert!(!o.tail.is_empty() && !o.head.is_empty(), "{o:?}");
    assert_eq!(
        plan.order[0], "histogram clear",
        "an async pass first: {:?}",
        plan.order
    );
    let page = Page::build(&g, &plan);
    let t = page.two_frames.as_ref().expect("a two-frame view");
    let n = plan.order.len();
    assert_eq!(t.passes.len(), 2 * n, "every pass once per frame");
    // Frame N keeps the single-frame columns.
    for (i, name) in plan.order.iter().enumerate() {
        let e = t.entry(0, name).expect("frame N entry");
        assert_eq!((e.column, e.pass), (i as u32, i as u32));
        assert!(t.entry(1, name).is_some(), "frame N+1 entry of {name}");
    }
    // Frame N+1's graphics lane starts right after frame N's last graphics pass, not after
    // the tail.
    let last_graphics = plan
        .order
        .iter()
        .rposition(|p| plan.queues.graphics.iter().any(|q| q == p))
        .unwrap() as u32;
    assert_eq!(t.next_frame_column, last_graphics + 1);
    let tail_end = o
        .tail
        .iter()
        .map(|p| t.entry(0, p).unwrap().column)
        .max()
        .unwrap();
    for h in o.head.iter() {
        let e = t.entry(1, h).expect("head pass in frame N+1");
        assert!(e.head && e.queue == QueueKind::Graphics);
        assert!(
            e.column <= tail_end,
            "head pass {h} (column {}) beside the tail (ends at column {tail_end})",
            e.column
        );
    }
    for p in o.tail.iter() {
        assert!(t.entry(0, p).unwrap().tail);
    }
    // One queue never runs two passes in one column, and each frame keeps plan order.
    for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
        let mut cols: Vec<u32> = t
            .passes
            .iter()
            .filter(|p| p.queue == q)
            .map(|p| p.column)
            .collect();
        let len = cols.len();
        cols.sort_unstable();
        cols.dedup();
        assert_eq!(cols.len(), len, "{q:?}: a column holds two passes");
    }
    for f in [0, 1] {
        for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
            let cols: Vec<u32> = t
                .passes
                .iter()
                .filter(|p| p.frame == f && p.queue == q)
                .map(|p| p.column)
                .collect();
            assert!(cols.windows(2).all(|w| w[0] < w[1]), "frame {f}: {cols:?}");
        }
        // The frame's own semaphores.
        for s in &plan.syncs {
            let (a, b) = (t.entry(f, &s.signal).unwrap(), t.entry(f, &s.wait).unwrap());
            assert!(a.column < b.column, "frame {f}: {s:?}");
        }
    }
    // Frame N+1 on one queue starts after frame N's last pass there.
    for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
        let last0 = t
            .passes
            .iter()
            .filter(|p| p.frame == 0 && p.queue == q)
            .map(|p| p.column)
            .max();
        let first1 = t
            .passes
            .iter()
            .filter(|p| p.frame == 1 && p.queue == q)
            .map(|p| p.column)
            .min();
        assert!(first1 > last0, "{q:?}");
    }
    // Cross-frame waits: the waiting pass of N+1 comes after the signal of N.
    assert_eq!(t.waits.len(), o.waits.len());
    for w in &t.waits {
        assert!(w.wait_column > w.signal_column, "{w:?}");
    }
    assert_eq!(t.extra_bytes, o.extra_bytes);
    assert_eq!(t.budget_bytes, o.budget_bytes);
    assert_eq!(t.doubled, o.doubled);
    assert_eq!(t.replaced, o.replaced);
}

#[test]
fn no_two_frames_without_frame_overlap() {
    for (name, g, plan) in all_compiled() {
        let page = Page::build(&g, &plan);
        assert_eq!(
            page.two_frames.is_some(),
            plan.frame_overlap.is_some(),
            "{name}"
        );
    }
    let (g, mut plan) = overlapping();
    plan.frame_overlap = None;
    assert!(Page::build(&g, &plan).two_frames.is_none());
}

/// A frame whose next frame waits for the tail: the second raster pass overwrites what the
/// async post pass of the previous frame still reads.
fn overlapping_with_wait() -> (Graph, Plan) {
    let mut g = Graph::new("w");
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 64, 64));
    let hdr = g.image("hdr", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64));
    let ldr = g.image("ldr", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(ldr).origin = tessera_graph::Origin::Imported(Default::default());
    g.raster("prepass").clears(depth, Access::DepthWrite).id();
    g.raster("shade")
        .uses(depth, Access::DepthRead)
        .clears(hdr, Access::ColorWrite)
        .id();
    g.compute("post")
        .on_queue(QueueKind::AsyncCompute)
        .uses(hdr, Access::Sampled)
        .uses(ldr, Access::StorageWrite)
        .id();
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
    (g, plan)
}

#[test]
fn two_frames_place_the_cross_frame_wait_after_its_signal() {
    let (g, plan) = overlapping_with_wait();
    let o = plan
        .frame_overlap
        .clone()
        .expect("the plan overlaps frames");
    let page = Page::build(&g, &plan);
    let t = page.two_frames.as_ref().expect("a two-frame view");
    assert!(!t.waits.is_empty(), "{o:?}");
    for w in &t.waits {
        let s = t.entry(0, &w.signal).expect("signal in frame N");
        let x = t.entry(1, &w.wait).expect("waiter in frame N+1");
        assert_eq!((s.column, x.column), (w.signal_column, w.wait_column));
        assert!(x.column > s.column, "{w:?}");
    }
    assert_eq!(t.head_end, o.head_end);
    assert_eq!(
        t.head_end_column,
        Some(t.entry(1, &o.head_end).unwrap().column)
    );
}

/// A pass skipped because its persistent outputs are still valid is shown apart from the
/// ordinary culled ones (the page's flag, the graph's label).
#[test]
fn skipped_passes_are_shown_apart_from_culled_ones() {
    let mut g = Graph::new("ibl");
    let lut = g.persistent_image(
        "lut",
        ImageDesc::new(Format::R16G16B16A16_SFLOAT, 32, 32),
        true,
    );
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 32, 32));
    g.resource_mut(out).output = true;
    g.compute("bake").uses(lut, Access::StorageWrite);
    g.compute("debug").uses(lut, Access::Sampled);
    g.compute("shade")
        .uses(lut, Access::Sampled)
        .uses(out, Access::StorageWrite);
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).expect("compiles");
    let page = Page::build(&g, &plan);
    let shown: Vec<(&str, bool)> = page
        .culled
        .iter()
        .map(|c| (c.name.as_str(), c.skipped))
        .collect();
    assert_eq!(shown, [("bake", true), ("debug", false)]);
    let dot = crate::dot::dot(&page);
    assert!(
        dot.contains("bake\\nskipped (outputs still valid)"),
        "{dot}"
    );
    assert!(dot.contains("debug\\nculled"), "{dot}");
    let lut = page
        .resources
        .iter()
        .find(|r| r.name == "lut")
        .expect("the LUT");
    assert_eq!(lut.persistent, Some(true));
    let json = serde_json::to_string(&page.culled).unwrap();
    assert_eq!(json.matches("\"skipped\":true").count(), 1, "{json}");
}
