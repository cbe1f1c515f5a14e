//! Transient memory aliasing: a hand-computed example, aliasing barriers across queues, the
//! checker's memory rules (and that it catches broken plans), aliasing off, memory classes,
//! comparison with the article's algorithm and with the exact optimum, and random frames on
//! one and two queues through the checker.

mod frames;

use proptest::prelude::*;
use tessera_graph::access::Access;
use tessera_graph::compile::memory::{article, bound, exact, planner, Problem};
use tessera_graph::graph::Origin;
use tessera_graph::graph::{Graph, ImageDesc, QueueKind};
use tessera_graph::plan::{LifetimeUnit, Plan};
use tessera_graph::sync::StageMask;
use tessera_graph::{check, compile, Capabilities, CompileOptions, Format};

const MIB: u64 = 1 << 20;

fn single_queue() -> Capabilities {
    Capabilities {
        async_compute: false,
        ..Capabilities::desktop()
    }
}

fn rules(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    plan: &Plan,
) -> Vec<&'static str> {
    match check::check(graph, caps, options, plan) {
        Ok(()) => Vec::new(),
        Err(v) => v.into_iter().map(|v| v.rule).collect(),
    }
}

fn problem_of(graph: &Graph, caps: &Capabilities, plan: &Plan) -> Problem {
    Problem::of_plan(graph, caps, plan)
}

/// Buffers A (8 MiB, pass 0), D (2 MiB, passes 0-1), B and C (5 MiB each, pass 1).
///
/// Lower bound: pass 0 holds A + D = 10 MiB, pass 1 holds B + C + D = 12 MiB, so 12 MiB.
/// The article opens an 8 MiB bucket for A; B (no overlap with A) goes at 0; C overlaps B
/// and only 3 MiB are free; D overlaps A and B and nothing is free. A second bucket of 5 MiB
/// takes C, and D does not fit beside it; a third of 2 MiB takes D: 8 + 5 + 2 = 15 MiB.
/// The optimum is 12 MiB: A at 0, B at 0, C at 5, D at 10 (one block).
fn worked_example() -> Graph {
    let mut g = Graph::new("worked");
    let a = g.buffer("A", 8 * MIB);
    let b = g.buffer("B", 5 * MIB);
    let c = g.buffer("C", 5 * MIB);
    let d = g.buffer("D", 2 * MIB);
    g.compute("first")
        .uses(a, Access::StorageWrite)
        .uses(d, Access::StorageWrite)
        .side_effects();
    g.compute("second")
        .uses(d, Access::StorageRead)
        .uses(b, Access::StorageWrite)
        .uses(c, Access::StorageWrite)
        .side_effects();
    g
}

#[test]
fn worked_example_reaches_the_hand_computed_optimum() {
    let g = worked_example();
    let caps = single_queue();
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    let m = &plan.memory;
    assert_eq!(m.lifetime_unit, LifetimeUnit::Order);
    assert_eq!(m.unaliased_bytes, 20 * MIB);
    assert_eq!(m.lower_bound_bytes, 12 * MIB);
    // The planner reaches the lower bound, so the article's algorithm is not run (0).
    assert_eq!(m.article_bytes, 0);
    assert_eq!(m.aliased_bytes, 12 * MIB);
    assert_eq!(m.blocks.len(), 1);
    let problem = problem_of(&g, &caps, &plan);
    assert_eq!(article::pack(&problem).total(), 15 * MIB);
    assert_eq!(article::pack(&problem).blocks.len(), 3);
    let ex = exact::pack(&problem, 1 << 20);
    assert!(ex.proven);
    assert_eq!(ex.packing.total(), 12 * MIB);
    assert_eq!(
        rules(&g, &caps, &CompileOptions::ALL, &plan),
        Vec::<&str>::new()
    );
    // B and C reuse A's bytes: each waits for A's compute write before 'second'.
    for r in ["B", "C"] {
        let bar = plan
            .barriers
            .iter()
            .find(|b| b.resource == r && b.before == "second")
            .expect("aliasing barrier");
        assert!(
            bar.src_stage.contains(StageMask::COMPUTE_SHADER),
            "{r}: {bar:?}"
        );
        assert!(bar.src_access.has_write(), "{r}: {bar:?}");
    }
}

#[test]
fn checker_catches_broken_memory_plans() {
    let g = worked_example();
    let caps = single_queue();
    let o = CompileOptions::ALL;
    let plan = compile(&g, &caps, &o).unwrap();

    let mut p = plan.clone();
    p.barriers.retain(|b| b.resource != "C");
    assert!(rules(&g, &caps, &o, &p).contains(&"memory.alias_barrier"));

    let mut p = plan.clone();
    let pl = &mut p.memory.blocks[0].placements;
    let b_off = pl.iter().find(|x| x.resource == "B").unwrap().offset;
    pl.iter_mut().find(|x| x.resource == "C").unwrap().offset = b_off;
    assert!(rules(&g, &caps, &o, &p).contains(&"memory.overlap"));

    let mut p = plan.clone();
    p.memory.blocks[0].placements.retain(|x| x.resource != "D");
    let r = rules(&g, &caps, &o, &p);
    assert!(
        r.contains(&"memory.unplaced") && r.contains(&"memory.totals"),
        "{r:?}"
    );

    let mut p = plan.clone();
    p.memory.blocks[0].placements[0].offset += 4096;
    assert!(rules(&g, &caps, &o, &p).contains(&"memory.align"));

    let mut p = plan.clone();
    p.memory.lower_bound_bytes -= MIB;
    assert!(rules(&g, &caps, &o, &p).contains(&"memory.totals"));

    let mut p = plan.clone();
    p.memory.lifetime_unit = LifetimeUnit::Level;
    assert!(rules(&g, &caps, &o, &p).contains(&"memory.unit"));

    let mut p = plan.clone();
    p.memory.blocks[0].placements[0].last += 1;
    assert!(rules(&g, &caps, &o, &p).contains(&"memory.lifetime"));

    // Skipping the article's algorithm (article_bytes 0) is only allowed at the lower
    // bound: a block grown by one alignment unit is caught.
    let mut p = plan;
    assert_eq!(p.memory.article_bytes, 0);
    p.memory.blocks[0].size += p.memory.alignment;
    p.memory.aliased_bytes += p.memory.alignment;
    let r = rules(&g, &caps, &o, &p);
    assert_eq!(r, vec!["memory.totals"], "{r:?}");
}

/// X lives on the async queue (levels 0-1), Y on graphics (level 2): Y reuses X's bytes and
/// must wait for X's last async use through a semaphore.
#[test]
fn aliasing_across_queues_is_covered_by_a_sync() {
    let mut g = Graph::new("queues");
    let x = g.buffer("X", 4 * MIB);
    let z = g.buffer("Z", 64 * 1024);
    let y = g.buffer("Y", 4 * MIB);
    g.compute("c0")
        .on_queue(QueueKind::AsyncCompute)
        .uses(x, Access::StorageWrite)
        .side_effects();
    g.compute("c1")
        .on_queue(QueueKind::AsyncCompute)
        .uses(x, Access::StorageRead)
        .uses(z, Access::StorageWrite)
        .side_effects();
    g.compute("g2")
        .uses(z, Access::StorageRead)
        .uses(y, Access::StorageWrite)
        .side_effects();
    let caps = Capabilities::desktop();
    let o = CompileOptions::ALL;
    let plan = compile(&g, &caps, &o).unwrap();
    let m = &plan.memory;
    assert_eq!(m.lifetime_unit, LifetimeUnit::Level);
    assert_eq!(m.aliased_bytes, 4 * MIB + 64 * 1024, "{m:?}");
    let sync = plan
        .syncs
        .iter()
        .find(|s| s.signal == "c1" && s.wait == "g2")
        .expect("sync c1 -> g2");
    assert!(sync.resources.iter().any(|r| r == "Y"), "{sync:?}");
    assert_eq!(rules(&g, &caps, &o, &plan), Vec::<&str>::new());
    let mut p = plan.clone();
    p.syncs.clear();
    assert!(rules(&g, &caps, &o, &p).contains(&"memory.alias_sync"));
}

#[test]
fn reused_image_starts_from_undefined() {
    let mut g = Graph::new("images");
    let f = Format::R16G16B16A16_SFLOAT;
    let a = g.image("a", ImageDesc::new(f, 1920, 1080));
    let b = g.image("b", ImageDesc::new(f, 1920, 1080));
    let c = g.image("c", ImageDesc::new(f, 1920, 1080));
    g.raster("draw")
        .uses(a, Access::ColorWriteAll)
        .side_effects();
    g.compute("blur")
        .uses(a, Access::Sampled)
        .uses(b, Access::StorageWrite)
        .side_effects();
    g.raster("post")
        .uses(b, Access::Sampled)
        .uses(c, Access::ColorWriteAll)
        .side_effects();
    let caps = single_queue();
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    let size = 1920 * 1080 * 8u64;
    assert_eq!(
        plan.memory.lower_bound_bytes,
        2 * size.div_ceil(65536) * 65536
    );
    assert_eq!(plan.memory.aliased_bytes, plan.memory.lower_bound_bytes);
    let bar = plan
        .barriers
        .iter()
        .find(|b| b.resource == "c" && b.before == "post")
        .unwrap();
    assert_eq!(bar.old_layout, Some(tessera_graph::sync::Layout::UNDEFINED));
    assert!(
        bar.src_stage
            .contains(StageMask::COLOR_ATTACHMENT_OUTPUT | StageMask::COMPUTE_SHADER),
        "{bar:?}"
    );
    assert_eq!(
        rules(&g, &caps, &CompileOptions::ALL, &plan),
        Vec::<&str>::new()
    );
    let report = tessera_graph::report::Report {
        plan: &plan,
        name: "images",
    }
    .to_string();
    assert!(
        report.contains("block 0") && report.contains("lower bound"),
        "{report}"
    );
}

#[test]
fn aliasing_off_gives_every_resource_its_own_block() {
    let (g, caps) = frames::frame(11, 40, true);
    let o = CompileOptions {
        alias: false,
        ..CompileOptions::ALL
    };
    let plan = compile(&g, &caps, &o).unwrap();
    assert!(plan.memory.blocks.iter().all(|b| b.placements.len() == 1));
    assert_eq!(plan.memory.aliased_bytes, plan.memory.unaliased_bytes);
    assert_eq!(rules(&g, &caps, &o, &plan), Vec::<&str>::new());
    let on = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    assert!(on.memory.aliased_bytes < plan.memory.aliased_bytes);
    assert_eq!(on.memory.unaliased_bytes, plan.memory.unaliased_bytes);
}

/// On a tiler, the MSAA attachments resolved inside their render pass stay in tile memory:
/// they are counted in `memoryless_bytes` and never placed.
#[test]
fn memoryless_resources_are_not_placed() {
    let mut g = Graph::new("msaa");
    let f = Format::R8G8B8A8_UNORM;
    let color = g.image("color", ImageDesc::new(f, 1920, 1080).samples(4));
    let depth = g.image(
        "depth",
        ImageDesc::new(Format::D32_SFLOAT, 1920, 1080).samples(4),
    );
    let resolved = g.image("resolved", ImageDesc::new(f, 1920, 1080));
    let out = g.image("out", ImageDesc::new(f, 1920, 1080));
    g.resource_mut(color).origin = Origin::MEMORYLESS;
    g.raster("draw")
        .clears(color, Access::ColorWriteAll)
        .clears(depth, Access::DepthWrite)
        .resolves(resolved, color)
        .side_effects();
    g.compute("post")
        .uses(resolved, Access::Sampled)
        .uses(out, Access::StorageWrite)
        .side_effects();
    let caps = Capabilities::profile("mali").unwrap();
    let o = CompileOptions::ALL;
    let plan = compile(&g, &caps, &o).unwrap();
    let memoryless: Vec<&str> = plan
        .render_passes
        .iter()
        .flat_map(|rp| {
            rp.attachments
                .iter()
                .filter(|a| a.memoryless)
                .map(|a| a.resource.as_str())
        })
        .collect();
    assert!(memoryless.contains(&"color"), "{memoryless:?}");
    let placed: Vec<&str> = plan
        .memory
        .blocks
        .iter()
        .flat_map(|b| b.placements.iter().map(|p| p.resource.as_str()))
        .collect();
    for m in &memoryless {
        assert!(!placed.contains(m), "memoryless '{m}' is placed");
    }
    let expected: u64 = memoryless
        .iter()
        .map(|m| g.resource(g.find_resource(m).unwrap()).bytes())
        .sum();
    assert_eq!(plan.memory.memoryless_bytes, expected);
    assert!(placed.contains(&"resolved") && placed.contains(&"out"));
    assert_eq!(rules(&g, &caps, &o, &plan), Vec::<&str>::new());
}

#[test]
fn memory_classes_never_share_a_block() {
    let (g, mut caps) = frames::frame(21, 60, false);
    caps.memory_classes.buffer = 1;
    caps.memory_classes.color_attachment = 2;
    caps.memory_classes.depth_attachment = 2;
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    assert!(
        plan.memory.blocks.iter().any(|b| b.class == 1)
            && plan.memory.blocks.iter().any(|b| b.class == 2)
    );
    for b in &plan.memory.blocks {
        for p in &b.placements {
            let r = g.resource(g.find_resource(&p.resource).unwrap());
            assert_eq!(
                r.image_desc().is_none(),
                b.class == 1,
                "{} in class {}",
                p.resource,
                b.class
            );
        }
    }
    assert_eq!(
        rules(&g, &caps, &CompileOptions::ALL, &plan),
        Vec::<&str>::new()
    );
}

/// Tessera's planner is never worse than the article's algorithm (300 seeded frames, one
/// and two queues, 5-200 resources), and both keep every placement rule.
#[test]
fn planner_is_never_worse_than_the_article() {
    let mut strictly_better = 0;
    for seed in 0..300u64 {
        let n = 5 + (seed as usize * 37) % 196;
        let (g, caps) = frames::frame(1000 + seed, n, seed % 2 == 0);
        // One frame's placement (overlapping frames may move resources apart on purpose).
        let one_frame = CompileOptions {
            overlap_frames: false,
            ..CompileOptions::ALL
        };
        let plan = compile(&g, &caps, &one_frame).unwrap();
        let problem = problem_of(&g, &caps, &plan);
        let a = article::pack(&problem);
        let t = planner::pack(&problem);
        assert_eq!(a.violation(&problem), None, "seed {seed}");
        assert_eq!(t.violation(&problem), None, "seed {seed}");
        assert!(
            t.total() <= a.total(),
            "seed {seed}: planner {} > article {}",
            t.total(),
            a.total()
        );
        assert!(t.total() >= bound::lower_bound(&problem), "seed {seed}");
        assert_eq!(plan.memory.aliased_bytes, t.total());
        strictly_better += usize::from(t.total() < a.total());
    }
    assert!(
        strictly_better > 30,
        "the planner should beat the article often, not only tie: {strictly_better}"
    );
}

/// Exact optimum for small frames (≤ 12 resources): the planner's distance to it.
#[test]
fn planner_is_close_to_the_exact_optimum_on_small_frames() {
    let (mut sum, mut worst, mut optimal, mut cases) = (0.0f64, 1.0f64, 0, 0);
    for seed in 0..80u64 {
        let n = 5 + (seed as usize % 8);
        let (g, caps) = frames::frame(5000 + seed, n, seed % 2 == 1);
        let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
        let problem = problem_of(&g, &caps, &plan);
        assert!(problem.items.len() <= 12);
        let ex = exact::pack(&problem, 2_000_000);
        if !ex.proven {
            continue;
        }
        cases += 1;
        let (e, t, a, lb) = (
            ex.packing.total(),
            planner::pack(&problem).total(),
            article::pack(&problem).total(),
            bound::lower_bound(&problem),
        );
        assert_eq!(ex.packing.violation(&problem), None, "seed {seed}");
        assert!(
            lb <= e && e <= t && t <= a,
            "seed {seed}: lb {lb} exact {e} planner {t} article {a}"
        );
        let r = t as f64 / e as f64;
        sum += r;
        worst = worst.max(r);
        optimal += usize::from(t == e);
    }
    println!("small frames: {cases} solved exactly, planner optimal on {optimal}, mean planner/optimum {:.4}, worst {worst:.4}", sum / cases as f64);
    assert!(
        cases >= 60,
        "the exact search should finish on most small frames ({cases})"
    );
    assert!(
        sum / cases as f64 <= 1.01,
        "mean planner/optimum {:.4}",
        sum / cases as f64
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Random frames on one and two queues: the plan passes the checker (no overlapping
    /// placements, aliasing barriers and syncs present), with aliasing on and off.
    #[test]
    fn random_frames_pass_the_memory_checker(seed in any::<u64>(), n in 5usize..120, two_queues in any::<bool>(), alias in any::<bool>()) {
        let (g, caps) = frames::frame(seed, n, two_queues);
        let o = CompileOptions { alias, ..CompileOptions::ALL };
        let plan = compile(&g, &caps, &o).unwrap();
        let r = check::check(&g, &caps, &o, &plan);
        prop_assert!(r.is_ok(), "seed {}: {:?}", seed, r.err());
        assert_placements_within_blocks(&plan);
        let by_level = plan.memory.lifetime_unit == LifetimeUnit::Level;
        prop_assert_eq!(by_level, !plan.queues.async_compute.is_empty());
    }
}

/// A JSON frame: `resources` (JSON objects, without the brackets) used in a chain of compute
/// passes, `writes` each written by a pass of its own that reads the one before, the last
/// read by a pass that writes a small output buffer; `device` is the device field.
fn chain_frame(device: &str, resources: &[&str], writes: &[(&str, &str)]) -> String {
    let mut passes = Vec::new();
    let mut before: Option<(&str, &str)> = None;
    for (i, &(name, access)) in writes.iter().enumerate() {
        let read = before.map_or(String::new(), |(b, a)| {
            let read = if a == "storage_write" {
                "storage_read"
            } else {
                "sampled"
            };
            format!(r#", {{"resource": "{b}", "access": "{read}"}}"#)
        });
        passes.push(format!(
            r#"{{"name": "p{i}", "kind": "compute", "uses": [{{"resource": "{name}", "access": "storage_write"}}{read}]}}"#
        ));
        before = Some((name, access));
    }
    let (last, access) = before.expect("one written resource");
    let read = if access == "storage_write" {
        "storage_read"
    } else {
        "sampled"
    };
    passes.push(format!(
        r#"{{"name": "finish", "kind": "compute", "uses": [{{"resource": "{last}", "access": "{read}"}}, {{"resource": "out", "access": "storage_write"}}]}}"#
    ));
    format!(
        r#"{{"name": "hostile", "device": {device}, "resources": [{}, {{"name": "out", "kind": "buffer", "size": 256, "output": true}}], "passes": [{}]}}"#,
        resources.join(", "),
        passes.join(", ")
    )
}

fn parse_frame(text: &str) -> (Graph, Capabilities) {
    tessera_graph::frame_file::parse(text, tessera_graph::frame_file::Syntax::Json, "hostile")
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

const HUGE_IMAGE: &str = r#""kind": "image", "format": "R32G32B32A32_SFLOAT", "width": 65536, "height": 65536, "layers": 2048"#;

/// The frames whose memory overflowed silently (issue 14) are errors naming the resource and
/// the bytes, in every mode, and nothing panics on the way (these run in debug builds too).
#[test]
fn hostile_memory_frames_are_errors_naming_resource_and_size() {
    let two63 = 1u64 << 63;
    let huge = format!(r#"{{"name": "a", {HUGE_IMAGE}}}"#);
    let huge_b = format!(r#"{{"name": "b", {HUGE_IMAGE}}}"#);
    let cases: Vec<(String, &str, u64, &str)> = vec![
        (
            chain_frame(
                r#""desktop""#,
                &[
                    r#"{"name": "a", "kind": "buffer", "size": 9223372036854775808}"#,
                    r#"{"name": "b", "kind": "buffer", "size": 9223372036854775808}"#,
                ],
                &[("a", "storage_write"), ("b", "storage_write")],
            ),
            "a",
            two63,
            "needs 9223372036854775808 bytes (8 EiB): a transient resource needs at most 281474976710656 bytes (256 TiB)",
        ),
        (
            chain_frame(
                r#""desktop""#,
                &[r#"{"name": "a", "kind": "buffer", "size": 18446744073709551615}"#],
                &[("a", "storage_write")],
            ),
            "a",
            u64::MAX,
            "needs 18446744073709551615 bytes",
        ),
        (
            chain_frame(
                r#"{"profile": "desktop", "placement_alignment": 9223372036854775808}"#,
                &[
                    r#"{"name": "a", "kind": "buffer", "size": 4096}"#,
                    r#"{"name": "b", "kind": "buffer", "size": 4096}"#,
                ],
                &[("a", "storage_write"), ("b", "storage_write")],
            ),
            "a",
            two63,
            "needs 4096 bytes, 9223372036854775808 once rounded up to the placement alignment of 9223372036854775808 bytes",
        ),
        (
            chain_frame(
                r#""desktop""#,
                &[&huge, &huge_b],
                &[("a", "sampled"), ("b", "sampled")],
            ),
            "out",
            (1 << 48) + 65536,
            "brings the transient resources declared up to it to 281474976776192 bytes (256.00 TiB, the largest 'a' with 128 TiB)",
        ),
    ];
    for (text, resource, bytes, says) in cases {
        let (g, caps) = parse_frame(&text);
        for options in [CompileOptions::ALL, CompileOptions::NONE] {
            let e = compile(&g, &caps, &options).expect_err(&text);
            let message = e.to_string();
            match &e {
                tessera_graph::CompileError::MemoryLimit {
                    resource: r,
                    bytes: b,
                    ..
                } => {
                    assert_eq!((r.as_str(), *b), (resource, bytes), "{message}");
                }
                other => panic!("not a memory error: {other}"),
            }
            assert!(
                message.starts_with(&format!("resource '{resource}' ")),
                "{message}"
            );
            assert!(message.contains(says), "{message}");
        }
    }
}

/// Placements of `plan` lie inside their blocks (checked arithmetic), are aligned, and never
/// overlap in bytes while their lifetimes overlap; the totals add up without overflow.
fn assert_placements_within_blocks(plan: &Plan) {
    let m = &plan.memory;
    let mut total = 0u64;
    for (b, block) in m.blocks.iter().enumerate() {
        total = total.checked_add(block.size).expect("blocks add up");
        for (k, p) in block.placements.iter().enumerate() {
            let end = p.offset.checked_add(p.size).expect("end fits");
            assert!(
                end <= block.size,
                "'{}' ends at {end} past block {b} of {}",
                p.resource,
                block.size
            );
            assert_eq!(p.offset % m.alignment, 0, "'{}' misaligned", p.resource);
            for q in &block.placements[..k] {
                let bytes = p.offset < q.offset + q.size && q.offset < end;
                let alive = p.first <= q.last && q.first <= p.last;
                assert!(
                    !(bytes && alive),
                    "'{}' and '{}' overlap",
                    q.resource,
                    p.resource
                );
            }
        }
    }
    assert_eq!(total, m.aliased_bytes);
    assert!(
        m.aliased_bytes <= m.unaliased_bytes,
        "aliasing never costs bytes"
    );
    assert!(m.lower_bound_bytes <= m.aliased_bytes);
}

/// Frames at the limit compile into plans the checker accepts: two 2^47-byte images (the
/// limit exactly), and blocks larger than 2^31 units of a small alignment, which the planner
/// places in coarser units.
#[test]
fn frames_at_the_memory_limit_plan_correctly() {
    let two31 = 1u64 << 31;
    let buffers: Vec<String> = (0..3)
        .map(|i| {
            format!(
                r#"{{"name": "g{i}", "kind": "buffer", "size": {}}}"#,
                two31 + 64 * i
            )
        })
        .collect();
    let buffer_refs: Vec<&str> = buffers.iter().map(String::as_str).collect();
    let huge = [
        format!(r#"{{"name": "a", "output": true, {HUGE_IMAGE}}}"#),
        format!(r#"{{"name": "b", "output": true, {HUGE_IMAGE}}}"#),
    ];
    let frames = [
        // Exactly 2^48 bytes at 64 KiB (the output buffer is imported here: not counted).
        chain_frame(
            r#""desktop""#,
            &[&huge[0], &huge[1]],
            &[("a", "sampled"), ("b", "sampled")],
        )
        .replace(
            r#""size": 256, "output": true"#,
            r#""size": 256, "imported": true"#,
        ),
        // 2^48 bytes at an alignment of 256: 2^40 units.
        chain_frame(
            r#"{"profile": "desktop", "placement_alignment": 256, "buffer_image_granularity": 1}"#,
            &[&huge[0], &huge[1]],
            &[("a", "sampled"), ("b", "sampled")],
        )
        .replace(
            r#""size": 256, "output": true"#,
            r#""size": 256, "imported": true"#,
        ),
        // Three buffers of 2 GiB each, byte-aligned, alive together.
        chain_frame(
            r#"{"profile": "mali", "placement_alignment": 1, "buffer_image_granularity": 1}"#,
            &buffer_refs,
            &[
                ("g0", "storage_write"),
                ("g1", "storage_write"),
                ("g2", "storage_write"),
            ],
        ),
    ];
    for text in &frames {
        let (g, caps) = parse_frame(text);
        for options in [CompileOptions::ALL, CompileOptions::NONE] {
            let plan = compile(&g, &caps, &options).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(
                rules(&g, &caps, &options, &plan),
                Vec::<&str>::new(),
                "{text}"
            );
            assert_placements_within_blocks(&plan);
            let placed: usize = plan.memory.blocks.iter().map(|b| b.placements.len()).sum();
            let transient = g.resources.iter().filter(|r| !r.is_imported()).count();
            assert_eq!(placed, transient, "every transient is placed: {text}");
        }
    }
    // One byte over the limit is an error.
    let over = frames[0].replace(
        r#""layers": 2048}"#,
        r#""layers": 2048, "size": 140737488355329}"#,
    );
    let (g, caps) = parse_frame(&over);
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(tessera_graph::CompileError::MemoryLimit { .. })
    ));
}
