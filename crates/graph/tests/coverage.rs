//! Coverage (issue 34): a colour write covered by a depth image writes only the pixels the
//! depth image covers and leaves the others undefined, so it is neither cleared nor loaded,
//! and every read of what it leaves declares the same coverage. The compiler's validation,
//! its load operations, the frame file and the checker's `coverage.*` rules, each shown to
//! fail without the feature.

mod common;

use common::golden::{frame_path, golden_plan};
use tessera_graph::check::{self, Violation};
use tessera_graph::frame_file::{self, FrameFile};
use tessera_graph::graph::Origin;
use tessera_graph::graph::{Graph, ImageDesc, ResourceId};
use tessera_graph::plan::{LoadOp, Plan, StoreOp};
use tessera_graph::{compile, Access, Capabilities, CompileOptions, Format, PassKind};

/// `assets/graphs/gbuffer_covered.json` and its device.
fn example() -> (Graph, Capabilities) {
    frame_file::load(&frame_path("gbuffer_covered")).unwrap_or_else(|e| panic!("{e}"))
}

/// The load and store operations of attachment `name` in the plan's first render pass that
/// has it.
fn ops(plan: &Plan, name: &str) -> (LoadOp, StoreOp) {
    plan.render_passes
        .iter()
        .flat_map(|rp| rp.attachments.iter())
        .find(|a| a.resource == name)
        .map(|a| (a.load_op, a.store_op))
        .unwrap_or_else(|| panic!("no attachment '{name}'"))
}

/// The use of `resource` by pass `pass`, to change.
fn use_mut<'g>(g: &'g mut Graph, pass: &str, resource: &str) -> &'g mut tessera_graph::Use {
    let (p, r) = (
        g.find_pass(pass).unwrap(),
        g.find_resource(resource).unwrap(),
    );
    g.passes[p.index()]
        .uses
        .iter_mut()
        .find(|u| u.resource == r)
        .unwrap_or_else(|| panic!("'{pass}' does not use '{resource}'"))
}

fn compile_err(g: &Graph) -> String {
    match compile(g, &Capabilities::desktop(), &CompileOptions::ALL) {
        Ok(_) => panic!("the graph compiles"),
        Err(e) => e.to_string(),
    }
}

fn rules(v: &[Violation]) -> Vec<&'static str> {
    v.iter().map(|x| x.rule).collect()
}

#[test]
fn example_plans_are_golden_and_covered_targets_are_neither_cleared_nor_loaded() {
    for profile in ["mali", "desktop"] {
        let (_, _, plan) = golden_plan("gbuffer_covered", profile);
        for target in ["albedo", "normal", "material", "motion"] {
            assert_eq!(
                ops(&plan, target).0,
                LoadOp::DontCare,
                "{profile}: {target}"
            );
        }
        // Read only inside the render pass: nothing leaves the tile.
        assert_eq!(ops(&plan, "albedo").1, StoreOp::DontCare, "{profile}");
    }
}

#[test]
fn a_cleared_target_loads_with_clear_a_covered_one_dont_care() {
    let (mut g, caps) = example();
    for pass in ["gbuffer", "lighting"] {
        use_mut(&mut g, pass, "albedo").coverage = None;
    }
    use_mut(&mut g, "gbuffer", "albedo").clear = true;
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ops(&plan, "albedo").0, LoadOp::Clear);
    assert_eq!(ops(&plan, "normal").0, LoadOp::DontCare);
}

/// Over content an earlier pass wrote in full, a partial write loads it; the same write
/// covered replaces it (`DONT_CARE`), and the checker agrees: it rejects `LOAD` there as
/// waste and accepts `DONT_CARE`.
#[test]
fn a_covered_write_over_earlier_content_does_not_load_it() {
    let build = |covered: bool| {
        let mut g = Graph::new("over");
        let desc = |f| ImageDesc::new(f, 64, 64);
        let depth = g.image("depth", desc(Format::D32_SFLOAT));
        let c = g.image("c", desc(Format::R8G8B8A8_UNORM));
        let out = g.image("out", desc(Format::R8G8B8A8_UNORM));
        g.resource_mut(out).output = true;
        g.compute("fill").uses(c, Access::StorageWrite).id();
        let write = g.raster("draw").clears(depth, Access::DepthWrite);
        let write = if covered {
            write.covered(c, Access::ColorWrite, depth)
        } else {
            write.uses(c, Access::ColorWrite)
        };
        write.id();
        let read = g.raster("read").uses(depth, Access::InputAttachment);
        let read = if covered {
            read.covered(c, Access::InputAttachment, depth)
        } else {
            read.uses(c, Access::InputAttachment)
        };
        read.uses(out, Access::ColorWriteAll).id();
        g
    };
    let (caps, options) = (Capabilities::profile("mali").unwrap(), CompileOptions::ALL);
    let partial = compile(&build(false), &caps, &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ops(&partial, "c").0, LoadOp::Load);
    let g = build(true);
    let plan = compile(&g, &caps, &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ops(&plan, "c").0, LoadOp::DontCare);
    check::check(&g, &caps, &options, &plan).unwrap_or_else(|v| panic!("{v:#?}"));
    let mut loads = plan.clone();
    for rp in &mut loads.render_passes {
        for a in rp
            .attachments
            .to_mut()
            .iter_mut()
            .filter(|a| a.resource == "c")
        {
            a.load_op = LoadOp::Load;
        }
    }
    let v = check::check(&g, &caps, &options, &loads).unwrap_err();
    assert!(rules(&v).contains(&"rp.load"), "{v:#?}");
}

/// Mutation, exhaustively: the example's frame with any subset of its covered writes and of
/// its covered reads stripped of their coverage. The compiler accepts exactly the frames
/// where every read of covered content is covered, and the checker accepts their plans;
/// against the plan of the unmodified frame, the checker reports one
/// `coverage.uncovered_read` per read that lost its coverage while its writer kept it.
#[test]
fn the_checker_and_the_compiler_agree_on_every_uncovered_read() {
    let (g, caps) = example();
    let options = CompileOptions::ALL;
    let plan = compile(&g, &caps, &options).unwrap_or_else(|e| panic!("{e}"));
    let targets = ["albedo", "normal", "material", "motion"];
    let reader = |t: &str| {
        if t == "motion" {
            "resolve_motion"
        } else {
            "lighting"
        }
    };
    for writers in 0u32..16 {
        for readers in 0u32..16 {
            let mut m = g.clone();
            let mut uncovered = 0;
            for (i, t) in targets.iter().enumerate() {
                let (w, r) = (writers & (1 << i) != 0, readers & (1 << i) != 0);
                if w {
                    use_mut(&mut m, "gbuffer", t).coverage = None;
                }
                if r {
                    use_mut(&mut m, reader(t), t).coverage = None;
                }
                uncovered += usize::from(r && !w);
            }
            let v = check::check(&m, &caps, &options, &plan)
                .err()
                .unwrap_or_default();
            let found = v
                .iter()
                .filter(|x| x.rule == "coverage.uncovered_read")
                .count();
            assert_eq!(found, uncovered, "{writers:04b}/{readers:04b}: {v:#?}");
            match compile(&m, &caps, &options) {
                Ok(p) => {
                    assert_eq!(uncovered, 0, "{writers:04b}/{readers:04b} compiles");
                    check::check(&m, &caps, &options, &p)
                        .unwrap_or_else(|v| panic!("{writers:04b}/{readers:04b}: {v:#?}"));
                }
                Err(e) => assert!(uncovered > 0, "{writers:04b}/{readers:04b}: {e}"),
            }
        }
    }
    let mut m = g.clone();
    use_mut(&mut m, "lighting", "albedo").coverage = None;
    let v = check::check(&m, &caps, &options, &plan).unwrap_err();
    assert!(
        v[0].detail.contains("'lighting' reads 'albedo'")
            && v[0]
                .detail
                .contains("'gbuffer' wrote it covered by 'depth'"),
        "{v:#?}"
    );
}

/// A later full-screen pass that samples a covered target without coverage is refused, with
/// the pass, the resource, the writer and the fix named.
#[test]
fn a_later_sampled_read_without_coverage_is_refused() {
    let (mut g, _) = example();
    let (motion, hdr) = (
        g.find_resource("motion").unwrap(),
        g.find_resource("hdr").unwrap(),
    );
    let out = g.image(
        "blurred",
        ImageDesc::new(Format::R8G8B8A8_UNORM, 1920, 1080),
    );
    g.resource_mut(out).output = true;
    g.raster("motion_blur")
        .uses(motion, Access::Sampled)
        .uses(hdr, Access::Sampled)
        .uses(out, Access::ColorWriteAll)
        .id();
    let e = compile_err(&g);
    for part in [
        "pass 'motion_blur'",
        "'motion'",
        "as sampled",
        "'gbuffer' wrote covered by 'depth'",
        "declares no coverage",
        "\"coverage\": \"depth\"",
    ] {
        assert!(e.contains(part), "{part}: {e}");
    }
}

/// Each declaration rule, broken once, is refused with its reason.
#[test]
fn malformed_coverage_is_refused() {
    let (base, _) = example();
    let id = |g: &Graph, n: &str| g.find_resource(n).unwrap();
    type Break = fn(&mut Graph, fn(&Graph, &str) -> ResourceId);
    let cases: [(&str, Break, &str); 7] = [
        (
            "a colour image as coverage",
            |g, id| use_mut(g, "gbuffer", "albedo").coverage = Some(id(g, "hdr")),
            "not a depth/stencil image",
        ),
        (
            "coverage with a clear",
            |g, _| use_mut(g, "gbuffer", "albedo").clear = true,
            "on a use that clears",
        ),
        (
            "a covered write in a pass without the depth attachment",
            |g, _| {
                let other = g.image("depth2", ImageDesc::new(Format::D32_SFLOAT, 1920, 1080));
                use_mut(g, "gbuffer", "albedo").coverage = Some(other);
            },
            "whose depth attachment is not 'depth2'",
        ),
        (
            "a covered read in a pass that does not read the depth",
            |g, id| {
                let d = id(g, "depth");
                let p = g.find_pass("resolve_motion").unwrap().index();
                g.passes[p].uses.retain(|u| u.resource != d);
            },
            "does not read 'depth'",
        ),
        (
            "coverage on a write that is not a colour write",
            |g, id| {
                let d = id(g, "depth");
                let img = g.image("scratch", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
                g.compute("fill")
                    .covered(img, Access::StorageWrite, d)
                    .side_effects()
                    .id();
            },
            "only colour writes (color_write, color_write_all) and reads take coverage",
        ),
        (
            "a read with another depth image",
            |g, _| {
                let other = g.image("depth2", ImageDesc::new(Format::D32_SFLOAT, 1920, 1080));
                g.resource_mut(other).origin = Origin::IMPORTED;
                let p = g.find_pass("lighting").unwrap().index();
                g.passes[p]
                    .uses
                    .push(tessera_graph::Use::new(other, Access::Sampled));
                use_mut(g, "lighting", "albedo").coverage = Some(other);
            },
            "declares coverage by 'depth2'",
        ),
        (
            "covered content that survives the frame",
            |g, id| {
                let m = id(g, "motion");
                g.resource_mut(m).output = true;
            },
            "survives the frame",
        ),
    ];
    for (what, break_it, expected) in cases {
        let mut g = base.clone();
        break_it(&mut g, id);
        let e = compile_err(&g);
        assert!(e.contains(expected), "{what}: {e}");
    }
}

/// The depth image written again between the covered write and the covered read no longer
/// says which pixels were written: the compiler refuses it, and the checker, given the frame
/// with the rewrite and the plan of one without it, reports `coverage.stale_depth`.
#[test]
fn a_depth_rewritten_before_the_covered_read_is_refused() {
    let mut g = Graph::new("stale");
    let desc = |f| ImageDesc::new(f, 64, 64);
    let depth = g.image("depth", desc(Format::D32_SFLOAT));
    let c = g.image("c", desc(Format::R8G8B8A8_UNORM));
    let out = g.image("out", desc(Format::R8G8B8A8_UNORM));
    g.resource_mut(out).output = true;
    g.raster("draw")
        .clears(depth, Access::DepthWrite)
        .covered(c, Access::ColorWrite, depth)
        .id();
    g.raster("decals").uses(depth, Access::DepthWrite).id();
    g.raster("read")
        .uses(depth, Access::Sampled)
        .covered(c, Access::Sampled, depth)
        .uses(out, Access::ColorWriteAll)
        .id();
    let e = compile_err(&g);
    assert!(e.contains("'depth' was written again by 'decals'"), "{e}");
    // The checker's own rule, on a plan compiled with the rewrite declared elsewhere: the
    // same frame with 'decals' writing another image compiles; point it back at depth.
    let mut ok = g.clone();
    let other = ok.image("other", desc(Format::D32_SFLOAT));
    let p = ok.find_pass("decals").unwrap().index();
    ok.passes[p].uses[0].resource = other;
    ok.passes[p].uses[0].clear = true;
    ok.passes[p].side_effects = true;
    let (caps, options) = (Capabilities::desktop(), CompileOptions::NONE);
    let plan = compile(&ok, &caps, &options).unwrap_or_else(|e| panic!("{e}"));
    check::check(&ok, &caps, &options, &plan).unwrap_or_else(|v| panic!("{v:#?}"));
    let mut stale = ok.clone();
    stale.passes[p].uses[0].resource = depth;
    let v = check::check(&stale, &caps, &options, &plan).unwrap_err();
    assert!(rules(&v).contains(&"coverage.stale_depth"), "{v:#?}");
}

/// The frame file carries `coverage` both ways; a use without it writes no key, so frames
/// and plans without coverage read and write as before.
#[test]
fn frame_files_round_trip_coverage_and_omit_it_when_absent() {
    let (g, caps) = example();
    let albedo = use_mut(&mut g.clone(), "lighting", "albedo").coverage;
    assert_eq!(albedo, g.find_resource("depth"));
    assert_eq!(use_mut(&mut g.clone(), "lighting", "hdr").coverage, None);
    let text = serde_json::to_string_pretty(&FrameFile::describe(&g, &caps)).unwrap();
    assert_eq!(text.matches("\"coverage\": \"depth\"").count(), 8, "{text}");
    let (back, _) = frame_file::parse(&text, frame_file::Syntax::Json, "described")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, g);
    // A frame without coverage describes without the key.
    let (plain, caps) = frame_file::load(&frame_path("tile_deferred")).unwrap();
    let text = serde_json::to_string(&FrameFile::describe(&plain, &caps)).unwrap();
    assert!(!text.contains("coverage"), "{text}");
    // An unknown resource as coverage is an error naming it.
    let bad = std::fs::read_to_string(frame_path("gbuffer_covered"))
        .unwrap()
        .replacen("\"coverage\": \"depth\"", "\"coverage\": \"dpeth\"", 1);
    let e = frame_file::parse(&bad, frame_file::Syntax::Json, "bad").unwrap_err();
    assert!(e.to_string().contains("dpeth"), "{e}");
}

/// `g` with coverage added: a colour write without clear in a raster pass whose depth
/// attachment is `D` becomes covered by `D` when its bit of `mask` is set, and a later read of
/// what it left declares `D`, its pass sampling `D` where it does not use it yet (walking
/// declaration order; a write that replaces the content ends it). Reads in transfer passes,
/// and in passes that write `D` without reading it, stay uncovered.
fn with_coverage(g: &Graph, mask: u64) -> Graph {
    let mut g = g.clone();
    let mut covered: Vec<Option<ResourceId>> = vec![None; g.resources.len()];
    let mut bit = 0u32;
    for pass in &mut g.passes {
        let depth = pass
            .uses
            .iter()
            .find(|u| matches!(u.access, Access::DepthWrite | Access::DepthRead))
            .map(|u| u.resource);
        // A covered read's pass reads `D` too: sampled, where it does not use `D` yet (a
        // transfer pass cannot sample; its reads stay uncovered).
        let mut samples = Vec::new();
        for k in 0..pass.uses.len() {
            let u = pass.uses[k];
            let Some(d) = covered[u.resource.index()] else {
                continue;
            };
            if !u.access.reads(u.clear) || u.previous {
                continue;
            }
            let d_use = pass.uses.iter().chain(&samples).find(|v| v.resource == d);
            let reads_d = match d_use {
                Some(v) => v.access.reads(v.clear),
                None if pass.kind != PassKind::Transfer => {
                    samples.push(tessera_graph::Use::new(d, Access::Sampled));
                    true
                }
                None => false,
            };
            if reads_d {
                pass.uses[k].coverage = Some(d);
            }
        }
        pass.uses.extend(samples);
        for u in &mut pass.uses {
            let colour = matches!(u.access, Access::ColorWrite | Access::ColorWriteAll);
            if let (Some(d), true, false) = (depth, colour, u.clear) {
                bit = (bit + 1) % 64;
                if mask & (1 << bit) != 0 {
                    u.coverage = Some(d);
                }
            }
            let r = u.resource.index();
            if u.covered_write() {
                covered[r] = u.coverage;
            } else if u.access.writes() && !u.keeps_content() {
                covered[r] = None;
            }
        }
    }
    g
}

/// Random valid frames with coverage added on random devices and options: adding coverage
/// never causes an error other than a coverage rule's, and every frame that compiles has a
/// plan the checker accepts whose loads and stores follow liveness (`common::liveness`, a
/// covered write replacing its content), covered writes over earlier content included.
#[test]
fn random_frames_with_coverage_compile_to_checked_plans() {
    let (mut compiled, mut covered_writes, mut refused, mut skipped) = (0, 0, 0, 0);
    for seed in 0..3000u64 {
        let graph = common::sample(&common::valid_graph(), seed);
        let caps = common::sample(&common::capabilities(), seed);
        let options = common::sample(&common::options(), seed);
        let mask = common::sample(&proptest::num::u64::ANY, seed);
        // Only frames whose plan passes the checker without coverage say anything here
        // (seed 2892's does not: two colour resolves of one source in one pass, `rp.merge`).
        let base = compile(&graph, &caps, &options).unwrap_or_else(|e| panic!("{e}"));
        if check::check(&graph, &caps, &options, &base).is_err() {
            skipped += 1;
            continue;
        }
        let g = with_coverage(&graph, mask);
        let writes = g
            .passes
            .iter()
            .flat_map(|p| &p.uses)
            .filter(|u| u.covered_write())
            .count();
        match compile(&g, &caps, &options) {
            Ok(plan) => {
                compiled += 1;
                covered_writes += writes;
                if let Err(v) = check::check(&g, &caps, &options, &plan) {
                    panic!("seed {seed}: {v:#?}\n{}", common::describe(&g));
                }
                let walk = common::liveness::walk(&g, &plan);
                assert!(walk.wrong.is_empty(), "seed {seed}: {:#?}", walk.wrong);
            }
            Err(e) => {
                refused += 1;
                let e = e.to_string();
                assert!(
                    e.contains("cover"),
                    "seed {seed}: not a coverage error: {e}"
                );
            }
        }
    }
    assert!(
        compiled > 1500 && covered_writes > 60 && refused > 0 && skipped < 10,
        "the generator covers too little: {compiled} compiled with {covered_writes} covered writes, {refused} refused, {skipped} skipped"
    );
}
