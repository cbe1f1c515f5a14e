//! Persistent resources (`Origin::Persistent`): their writers are skipped while the content
//! is valid and run (as roots) when it is not; the plan lists the skipped passes, counts the
//! bytes, never aliases them, leaves them at rest; the checker accepts both plans and
//! catches tampered ones; the frame file and plan JSON carry them.

use tessera_graph::check::{self, Violation};
use tessera_graph::graph::{Graph, ImageDesc, Origin, QueueKind, PERSISTENT_REST_LAYOUT};
use tessera_graph::plan::{Plan, SharingMode};
use tessera_graph::sync::{Layout, StageMask};
use tessera_graph::{compile, frame_file, Access, Capabilities, CompileOptions, Format};

fn lut_desc() -> ImageDesc {
    ImageDesc::new(Format::R16G16B16A16_SFLOAT, 32, 32)
}

/// An IBL-shaped frame: `bake lut` writes the persistent `lut` (storage), `bake irradiance`
/// the persistent buffer `irradiance`; `shade` samples the LUT and reads the buffer into a
/// transient colour that `show` writes to the output.
fn ibl_frame(valid: bool, queue: QueueKind) -> Graph {
    let mut g = Graph::new("ibl");
    let lut = g.persistent_image("lut", lut_desc(), valid);
    let irradiance = g.persistent_buffer("irradiance", 4096, valid);
    let colour = g.image("colour", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(out).output = true;
    g.compute("bake lut")
        .uses(lut, Access::StorageWrite)
        .on_queue(queue);
    g.compute("bake irradiance")
        .uses(irradiance, Access::StorageWrite)
        .on_queue(queue);
    g.raster("shade")
        .uses(lut, Access::Sampled)
        .uses(irradiance, Access::StorageRead)
        .clears(colour, Access::ColorWriteAll);
    g.compute("show")
        .uses(colour, Access::Sampled)
        .uses(out, Access::StorageWrite);
    g
}

fn violations(g: &Graph, plan: &Plan) -> Vec<Violation> {
    let caps = plan.device.clone().expect("the plan's device");
    let options = plan.options.expect("the plan's options");
    check::check(g, &caps, &options, plan)
        .err()
        .unwrap_or_default()
}

fn rules(v: &[Violation]) -> Vec<&'static str> {
    v.iter().map(|v| v.rule).collect()
}

const OPTIONS: [CompileOptions; 2] = [CompileOptions::ALL, CompileOptions::NONE];

#[test]
fn valid_content_skips_its_writers_and_keeps_its_readers() {
    for options in OPTIONS {
        for queue in [QueueKind::Graphics, QueueKind::AsyncCompute] {
            let g = ibl_frame(true, queue);
            let plan = compile(&g, &Capabilities::desktop(), &options).expect("compiles");
            assert_eq!(plan.skipped, ["bake lut", "bake irradiance"], "{plan:#?}");
            assert_eq!(plan.culled, plan.skipped);
            for r in &plan.cull_reasons {
                assert!(r.reason.contains("still valid"), "{}", r.reason);
            }
            assert!(plan.cull_reasons[0].reason.contains("'lut'"));
            assert!(plan.cull_reasons[1].reason.contains("'irradiance'"));
            assert_eq!(plan.order.to_vec(), ["shade", "show"]);
            assert_eq!(violations(&g, &plan), [], "{options:?} {queue:?}");
            // `tessera plan`'s text lists them apart from the culled passes.
            let text = tessera_graph::report::Report {
                plan: &plan,
                name: "ibl",
            }
            .to_string();
            assert!(
                text.contains("2 culled (2 skipped: outputs still valid)"),
                "{text}"
            );
            assert!(
                text.contains("skipped (outputs still valid):\n  bake lut\n  bake irradiance\n"),
                "{text}"
            );
            assert!(!text.contains("\nculled:"), "{text}");
            assert!(text.contains("lut: valid"), "{text}");
        }
    }
}

#[test]
fn invalid_content_runs_its_writers_even_unread() {
    for options in OPTIONS {
        for queue in [QueueKind::Graphics, QueueKind::AsyncCompute] {
            let g = ibl_frame(false, queue);
            let plan = compile(&g, &Capabilities::desktop(), &options).expect("compiles");
            assert!(
                plan.skipped.is_empty() && plan.culled.is_empty(),
                "{plan:#?}"
            );
            assert_eq!(violations(&g, &plan), [], "{options:?} {queue:?}");
            // With no reader at all the writers still run: the content is for later frames.
            let mut g = Graph::new("bake only");
            let lut = g.persistent_image("lut", lut_desc(), false);
            g.compute("bake")
                .uses(lut, Access::StorageWrite)
                .on_queue(queue);
            let plan = compile(&g, &Capabilities::desktop(), &options).expect("compiles");
            assert_eq!(plan.order.to_vec(), ["bake"]);
            assert!(plan.skipped.is_empty());
            assert_eq!(violations(&g, &plan), []);
            // The same writer of valid content is skipped, and nothing is left to do.
            g.resource_mut(lut).origin = Origin::Persistent { valid: true };
            let plan = compile(&g, &Capabilities::desktop(), &options).expect("compiles");
            assert_eq!(plan.skipped, ["bake"]);
            assert_eq!(violations(&g, &plan), []);
        }
    }
}

#[test]
fn a_writer_of_valid_content_that_feeds_a_kept_pass_otherwise_is_kept() {
    let mut g = ibl_frame(true, QueueKind::AsyncCompute);
    let lut = g.find_resource("lut").unwrap();
    let scratch = g.image("scratch", lut_desc());
    // `bake lut` also writes a transient that `shade` reads: it runs (and rewrites `lut`).
    let bake = g.find_pass("bake lut").unwrap();
    g.passes[bake.index()]
        .uses
        .push(tessera_graph::graph::Use::new(
            scratch,
            Access::StorageWrite,
        ));
    let shade = g.find_pass("shade").unwrap();
    g.passes[shade.index()]
        .uses
        .push(tessera_graph::graph::Use::new(scratch, Access::Sampled));
    for options in OPTIONS {
        let plan = compile(&g, &Capabilities::desktop(), &options).expect("compiles");
        assert_eq!(plan.skipped, ["bake irradiance"], "{options:?}");
        assert!(plan.order.iter().any(|p| p == "bake lut"));
        assert_eq!(violations(&g, &plan), [], "{options:?}");
        let _ = lut;
    }
}

#[test]
fn memory_counts_persistent_bytes_and_never_aliases_them() {
    for valid in [false, true] {
        let g = ibl_frame(valid, QueueKind::AsyncCompute);
        let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).expect("compiles");
        let entries: Vec<(&str, bool, u64)> = plan
            .persistent
            .iter()
            .map(|p| (p.resource.as_str(), p.valid, p.bytes))
            .collect();
        assert_eq!(
            entries,
            [
                ("lut", valid, lut_desc().estimated_bytes()),
                ("irradiance", valid, 4096)
            ]
        );
        for block in &plan.memory.blocks {
            for p in &block.placements {
                assert!(
                    p.resource != "lut" && p.resource != "irradiance",
                    "a persistent resource placed in a shared block: {block:#?}"
                );
            }
        }
    }
}

/// The barriers of a frame on one queue: the first use of each persistent resource waits for
/// everything before it (whatever plan the previous frame ran), a written image goes back
/// to its resting layout after its last use.
#[test]
fn persistent_resources_enter_and_leave_at_rest() {
    let g = ibl_frame(false, QueueKind::Graphics);
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::NONE).expect("compiles");
    let lut: Vec<_> = plan
        .barriers
        .iter()
        .filter(|b| b.resource == "lut")
        .collect();
    let first = lut.first().expect("a barrier on the LUT");
    assert_eq!(first.before, "bake lut");
    assert!(
        first.src_stage.contains(StageMask::ALL_COMMANDS),
        "{first:?}"
    );
    assert_eq!(first.old_layout, Some(PERSISTENT_REST_LAYOUT));
    assert_eq!(first.new_layout, Some(Layout::GENERAL));
    // The sampled read transitions it back, so no exit barrier is needed after `shade`, but
    // it is still made visible to the resting stages by one recorded after it.
    let last = lut.last().unwrap();
    assert_eq!(
        last.new_layout.unwrap_or(PERSISTENT_REST_LAYOUT),
        PERSISTENT_REST_LAYOUT
    );
    // A frame that only writes: the exit barrier after the writer moves it to rest.
    let mut g = Graph::new("bake only");
    let l = g.persistent_image("lut", lut_desc(), false);
    g.compute("bake").uses(l, Access::StorageWrite);
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::NONE).expect("compiles");
    let exit = plan.barriers.last().expect("an exit barrier");
    assert_eq!(
        (exit.before.as_str(), exit.old_layout, exit.new_layout),
        ("bake", Some(Layout::GENERAL), Some(PERSISTENT_REST_LAYOUT))
    );
    assert!(exit
        .dst_stage
        .contains(StageMask::FRAGMENT_SHADER | StageMask::COMPUTE_SHADER));
    assert_eq!(violations(&g, &plan), []);
}

#[test]
fn written_on_async_and_read_on_graphics_is_shared_concurrently() {
    let g = ibl_frame(false, QueueKind::AsyncCompute);
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).expect("compiles");
    let lut = plan
        .sharing
        .iter()
        .find(|s| s.resource == "lut")
        .expect("shared");
    assert_eq!(lut.mode, SharingMode::Concurrent);
    assert!(lut.reason.contains("persistent"), "{}", lut.reason);
    let mut tampered = plan.clone();
    for s in &mut tampered.sharing {
        s.mode = SharingMode::Exclusive;
    }
    assert!(rules(&violations(&g, &tampered)).contains(&"sharing.persistent"));
}

#[test]
fn the_checker_rejects_tampered_culling() {
    // A writer of invalid content dropped from the plan.
    let g = ibl_frame(false, QueueKind::Graphics);
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::NONE).expect("compiles");
    let valid = compile(
        &ibl_frame(true, QueueKind::Graphics),
        &Capabilities::desktop(),
        &CompileOptions::NONE,
    )
    .expect("compiles");
    // The valid frame's plan against the invalid frame's graph: its writers are skipped.
    let found = rules(&violations(&g, &valid));
    assert!(found.contains(&"cull.skipped_stale"), "{found:?}");
    // The invalid frame's plan against the valid graph: its writers run for nothing.
    let found = rules(&violations(&ibl_frame(true, QueueKind::Graphics), &plan));
    assert!(found.contains(&"cull.kept_valid"), "{found:?}");
    // A plan whose `skipped` list is wrong.
    let mut tampered = valid.clone();
    tampered.skipped.pop();
    let found = rules(&violations(
        &ibl_frame(true, QueueKind::Graphics),
        &tampered,
    ));
    assert_eq!(found, ["cull.skipped"]);
    // The first use's wait for all earlier work narrowed: the previous frame's plan is
    // unknown, so that is a violation.
    let mut narrowed = plan.clone();
    let first = narrowed
        .barriers
        .iter_mut()
        .find(|b| b.resource == "lut")
        .expect("the LUT's first barrier");
    first.src_stage = StageMask::COMPUTE_SHADER;
    let found = rules(&violations(&g, &narrowed));
    assert!(found.contains(&"persistent.entry"), "{found:?}");
    // An exit transition removed: the image would not rest.
    let mut g = Graph::new("bake only");
    let l = g.persistent_image("lut", lut_desc(), false);
    g.compute("bake").uses(l, Access::StorageWrite);
    let mut plan = compile(&g, &Capabilities::desktop(), &CompileOptions::NONE).expect("compiles");
    plan.barriers.pop();
    assert!(rules(&violations(&g, &plan)).contains(&"layout.persistent_rest"));
}

#[test]
fn plan_json_round_trips_the_new_fields() {
    let plan = compile(
        &ibl_frame(true, QueueKind::AsyncCompute),
        &Capabilities::desktop(),
        &CompileOptions::ALL,
    )
    .expect("compiles");
    let json = serde_json::to_string(&plan).unwrap();
    assert!(
        json.contains("\"skipped\":[\"bake lut\",\"bake irradiance\"]"),
        "{json}"
    );
    assert!(
        json.contains("\"persistent\":[{\"resource\":\"lut\",\"valid\":true"),
        "{json}"
    );
    let back: Plan = serde_json::from_str(&json).unwrap();
    assert_eq!(back, plan);
    // A plan without the fields (older) reads with them empty.
    let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
    value.as_object_mut().unwrap().remove("skipped");
    value.as_object_mut().unwrap().remove("persistent");
    let old: Plan = serde_json::from_value(value).unwrap();
    assert!(old.skipped.is_empty() && old.persistent.is_empty());
}

#[test]
fn frame_files_declare_persistent_resources() {
    let text = r#"{
        "resources": [
            {"name": "lut", "kind": "image", "format": "R16G16B16A16_SFLOAT", "width": 32, "height": 32, "persistent": true, "valid": true},
            {"name": "sh", "kind": "buffer", "size": 256, "persistent": true},
            {"name": "out", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 32, "height": 32, "output": true}
        ],
        "passes": [
            {"name": "bake", "kind": "compute", "queue": "async_compute", "uses": [{"resource": "lut", "access": "storage_write"}]},
            {"name": "project", "kind": "compute", "uses": [{"resource": "sh", "access": "storage_write"}]},
            {"name": "shade", "kind": "compute", "uses": [
                {"resource": "lut", "access": "sampled"},
                {"resource": "sh", "access": "storage_read"},
                {"resource": "out", "access": "storage_write"}]}
        ]
    }"#;
    let (g, caps) = frame_file::parse(text, frame_file::Syntax::Json, "ibl.json").expect("parses");
    let lut = g.find_resource("lut").unwrap();
    let sh = g.find_resource("sh").unwrap();
    assert_eq!(g.resource(lut).origin, Origin::Persistent { valid: true });
    assert_eq!(g.resource(sh).origin, Origin::Persistent { valid: false });
    let plan = compile(&g, &caps, &CompileOptions::ALL).expect("compiles");
    assert_eq!(plan.skipped, ["bake"]);
    assert_eq!(violations(&g, &plan), []);
    // Described and loaded again: the same graph.
    let described = frame_file::FrameFile::describe(&g, &caps);
    let json = serde_json::to_string(&described).unwrap();
    let (again, _) = frame_file::parse(&json, frame_file::Syntax::Json, "again.json").unwrap();
    assert_eq!(again, g);
    // Bad combinations are refused with words that say why.
    for (flags, says) in [
        (r#""valid": true"#, "valid without persistent"),
        (
            r#""persistent": true, "imported": true"#,
            "persistent and imported",
        ),
        (
            r#""persistent": true, "history": true"#,
            "persistent and history",
        ),
        (
            r#""persistent": true, "output": true"#,
            "persistent and output",
        ),
        (r#""persistent": "yes""#, "invalid type"),
    ] {
        let text = format!(
            r#"{{"resources": [{{"name": "x", "kind": "buffer", "size": 16, {flags}}}], "passes": []}}"#
        );
        let err = frame_file::parse(&text, frame_file::Syntax::Json, "bad.json")
            .expect_err(flags)
            .to_string();
        assert!(err.contains(says), "{flags}: {err}");
    }
}

#[test]
fn a_persistent_output_is_refused_in_code_too() {
    let mut g = Graph::new("bad");
    let b = g.persistent_buffer("b", 16, false);
    g.resource_mut(b).output = true;
    g.compute("w").uses(b, Access::StorageWrite);
    let err = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap_err();
    assert!(err.to_string().contains("persistent output"), "{err}");
}

/// A persistent image rendered by a raster pass (a sky cubemap's faces drawn) and sampled by
/// a later raster pass and a compute pass: every device profile and option set gives a plan
/// the checker accepts, stale and valid, and the image always ends at rest.
#[test]
fn raster_written_persistent_images_check_on_every_profile() {
    let frame = |valid: bool| {
        let mut g = Graph::new("sky");
        let sky = g.persistent_image(
            "sky",
            ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64).layers(6),
            valid,
        );
        let colour = g.image("colour", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
        g.resource_mut(out).output = true;
        g.raster("draw sky").clears(sky, Access::ColorWriteAll);
        g.raster("shade")
            .uses(sky, Access::Sampled)
            .clears(colour, Access::ColorWriteAll);
        g.compute("post")
            .uses(colour, Access::Sampled)
            .uses(sky, Access::Sampled)
            .uses(out, Access::StorageWrite)
            .on_queue(QueueKind::AsyncCompute);
        g
    };
    for profile in Capabilities::PROFILES {
        let caps = Capabilities::profile(profile).unwrap();
        for options in OPTIONS {
            for valid in [false, true] {
                let g = frame(valid);
                let plan = compile(&g, &caps, &options).expect("compiles");
                assert_eq!(plan.skipped.len(), usize::from(valid), "{profile}");
                assert_eq!(
                    violations(&g, &plan),
                    [],
                    "{profile} {options:?} valid {valid}"
                );
                let last = plan
                    .barriers
                    .iter()
                    .rev()
                    .find(|b| b.resource == "sky" && b.new_layout.is_some());
                if let Some(b) = last {
                    assert_eq!(b.new_layout, Some(PERSISTENT_REST_LAYOUT), "{profile}");
                }
                assert!(plan
                    .render_passes
                    .iter()
                    .flat_map(|rp| &rp.attachments)
                    .all(|a| a.resource != "sky" || !a.memoryless));
            }
        }
    }
}

/// The example frame `assets/graphs/ibl.json`: the stale sky, prefiltered and irradiance
/// resources are baked on the async queue; the valid BRDF LUT's writer is skipped.
#[test]
fn the_ibl_example_skips_the_valid_lut() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs/ibl.json");
    let (g, caps) = frame_file::load(&path).expect("the example loads");
    let plan = compile(&g, &caps, &CompileOptions::ALL).expect("compiles");
    assert_eq!(plan.skipped, ["brdf lut"]);
    assert_eq!(
        plan.queues.async_compute.to_vec(),
        ["sky", "prefilter", "irradiance"]
    );
    assert_eq!(violations(&g, &plan), []);
    let sharing: Vec<&str> = plan.sharing.iter().map(|s| s.resource.as_str()).collect();
    assert!(
        sharing.contains(&"sky") && sharing.contains(&"prefiltered"),
        "{sharing:?}"
    );
}
