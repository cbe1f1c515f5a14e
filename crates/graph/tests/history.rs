//! History resources: the compiler's buffering decision, the barriers across the frame
//! boundary of a double-buffered pair, and the checker's rules for them (with mutations
//! that it must catch).

use tessera_graph::check::{self, Violation};
use tessera_graph::graph::{Graph, HistoryRole, ImageDesc, Origin, QueueKind};
use tessera_graph::history::Buffering;
use tessera_graph::plan::Plan;
use tessera_graph::sync::{AccessMask, Layout, StageMask};
use tessera_graph::{compile, frame_file, Access, Capabilities, CompileOptions, Format};

fn desc() -> ImageDesc {
    ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64)
}

/// A TAA-shaped frame: `draw` writes the colour, `taa` reads it and the previous history
/// and writes this frame's history, `show` samples it; plus an exposure-shaped history
/// buffer read by `show` before `adapt` updates it in place.
fn taa_frame(queue: QueueKind) -> Graph {
    let mut g = Graph::new("taa");
    let colour = g.image("colour", desc());
    let history = g.history_image("taa history", desc());
    let exposure = g.history_buffer("exposure", 16);
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(out).output = true;
    g.raster("draw").clears(colour, Access::ColorWriteAll);
    g.compute("taa")
        .uses(colour, Access::Sampled)
        .reads_previous(history, Access::Sampled)
        .uses(history, Access::StorageWrite)
        .on_queue(queue);
    g.raster("show")
        .uses(history, Access::Sampled)
        .reads_previous(exposure, Access::StorageRead)
        .uses(out, Access::ColorWriteAll);
    g.compute("adapt")
        .uses(colour, Access::Sampled)
        .uses(exposure, Access::StorageReadWrite)
        .on_queue(queue);
    g
}

fn compiled(g: &Graph, caps: &Capabilities, options: CompileOptions) -> Plan {
    compile(g, caps, &options).expect("compiles")
}

fn violations(g: &Graph, plan: &Plan) -> Vec<Violation> {
    let lowered = tessera_graph::history::lower(g);
    let caps = plan.device.clone().expect("the plan's device");
    let options = plan.options.expect("the plan's options");
    check::check(&lowered, &caps, &options, plan)
        .err()
        .unwrap_or_default()
}

#[test]
fn the_plan_says_one_or_two_and_why() {
    let g = taa_frame(QueueKind::Graphics);
    let plan = compiled(&g, &Capabilities::desktop(), CompileOptions::ALL);
    assert_eq!(plan.history.len(), 2, "{:#?}", plan.history);
    let taa = &plan.history[0];
    assert_eq!(taa.resource, "taa history");
    assert_eq!(taa.buffering, Buffering::Double);
    assert_eq!(taa.previous.as_deref(), Some("taa history (previous)"));
    assert_eq!(taa.bytes, 2 * desc().estimated_bytes());
    assert!(taa.reason.contains("'taa'"), "{}", taa.reason);
    let exposure = &plan.history[1];
    assert_eq!(exposure.buffering, Buffering::Single);
    assert_eq!(exposure.previous, None);
    assert_eq!(exposure.bytes, 16);
    // Shown by `tessera plan`'s text.
    let text = tessera_graph::report::Report {
        plan: &plan,
        name: "taa",
    }
    .to_string();
    assert!(
        text.contains("history (kept from one frame to the next"),
        "{text}"
    );
    assert!(
        text.contains("double: 'taa history' + 'taa history (previous)'"),
        "{text}"
    );
}

#[test]
fn each_half_enters_in_the_state_its_twin_left() {
    let g = taa_frame(QueueKind::Graphics);
    let plan = compiled(&g, &Capabilities::desktop(), CompileOptions::ALL);
    let barrier = |resource: &str| {
        plan.barriers
            .iter()
            .find(|b| b.before == "taa" && b.resource == resource)
            .unwrap_or_else(|| panic!("a barrier on '{resource}' before taa: {:#?}", plan.barriers))
    };
    // The previous half was written by last frame's taa as a storage image, then sampled
    // by show (which left it in SHADER_READ_ONLY_OPTIMAL): taa's read now waits for that
    // write across the frame boundary, with no transition.
    let prev = barrier("taa history (previous)");
    assert!(
        prev.src_stage.contains(StageMask::COMPUTE_SHADER),
        "{prev:?}"
    );
    assert!(
        prev.src_access.contains(AccessMask::SHADER_STORAGE_WRITE),
        "{prev:?}"
    );
    assert!(
        prev.dst_access.contains(AccessMask::SHADER_SAMPLED_READ),
        "{prev:?}"
    );
    assert_eq!(prev.old_layout, None);
    // This frame's half was last frame's previous half, sampled by taa only: the write
    // waits for that read (and not for show's, which sampled the other image), and its old
    // content is not needed.
    let cur = barrier("taa history");
    assert_eq!(cur.src_stage, StageMask::COMPUTE_SHADER, "{cur:?}");
    assert_eq!(cur.old_layout, Some(Layout::UNDEFINED));
    assert_eq!(cur.new_layout, Some(Layout::GENERAL));
    assert!(
        violations(&g, &plan).is_empty(),
        "{:#?}",
        violations(&g, &plan)
    );
}

#[test]
fn single_buffering_orders_the_previous_reads_before_the_write() {
    let g = taa_frame(QueueKind::Graphics);
    let plan = compiled(&g, &Capabilities::desktop(), CompileOptions::ALL);
    let pos = |p: &str| plan.order.iter().position(|q| q == p).expect("kept");
    assert!(pos("show") < pos("adapt"));
    assert!(plan
        .edges
        .iter()
        .any(|e| e.from == "show" && e.to == "adapt" && e.resource == "exposure"));
}

#[test]
fn history_never_aliases_and_is_never_memoryless() {
    for profile in ["desktop", "mali", "adreno"] {
        let caps = Capabilities::profile(profile).expect("a profile");
        let g = taa_frame(QueueKind::Graphics);
        let plan = compiled(&g, &caps, CompileOptions::ALL);
        for block in &plan.memory.blocks {
            for p in &block.placements {
                assert!(!p.resource.starts_with("taa history"), "{profile}: {p:?}");
                assert!(p.resource != "exposure", "{profile}: {p:?}");
            }
        }
        for rp in &plan.render_passes {
            for a in &rp.attachments {
                if a.resource.starts_with("taa history") {
                    assert!(!a.memoryless, "{profile}");
                }
            }
        }
        assert!(
            violations(&g, &plan).is_empty(),
            "{profile}: {:#?}",
            violations(&g, &plan)
        );
    }
}

#[test]
fn on_two_queues_the_pair_is_shared_and_checks_clean() {
    let g = taa_frame(QueueKind::AsyncCompute);
    let caps = Capabilities::desktop();
    let plan = compiled(&g, &caps, CompileOptions::ALL);
    assert!(
        plan.queues.async_compute.iter().any(|p| p == "taa"),
        "{:?}",
        plan.queues
    );
    for name in ["taa history", "taa history (previous)"] {
        let s = plan.sharing.iter().find(|s| s.resource == name);
        assert!(
            s.is_some(),
            "'{name}' crosses queues between frames: {:#?}",
            plan.sharing
        );
    }
    assert!(
        violations(&g, &plan).is_empty(),
        "{:#?}",
        violations(&g, &plan)
    );
}

#[test]
fn frame_files_declare_history_and_previous_uses() {
    let text = r#"{
      "name": "file",
      "resources": [
        {"name": "colour", "kind": "image", "format": "R16G16B16A16_SFLOAT", "width": 8, "height": 8},
        {"name": "h", "kind": "image", "format": "R16G16B16A16_SFLOAT", "width": 8, "height": 8, "history": true}
      ],
      "passes": [
        {"name": "draw", "kind": "compute", "uses": [{"resource": "colour", "access": "storage_write"}]},
        {"name": "taa", "kind": "compute", "uses": [
          {"resource": "colour", "access": "sampled"},
          {"resource": "h", "access": "sampled", "previous": true},
          {"resource": "h", "access": "storage_write"}]}
      ]
    }"#;
    let file = frame_file::parse(text, frame_file::Syntax::Json, "file.json").expect("parses");
    let g = file.0;
    let twin = g
        .find_resource("h (previous)")
        .expect("lowered when loaded");
    assert!(matches!(
        g.resource(twin).origin,
        Origin::History(HistoryRole::Previous { .. })
    ));
    // Written back in the declared form.
    let described = frame_file::FrameFile::describe(&g, &Capabilities::desktop());
    assert_eq!(described.resources.len(), 2);
    assert!(described.resources[1].history);
    let taa = &described.passes[1];
    assert_eq!(taa.uses[1].resource, "h");
    assert!(taa.uses[1].previous);
    let plan = compiled(&g, &Capabilities::desktop(), CompileOptions::ALL);
    assert!(
        violations(&g, &plan).is_empty(),
        "{:#?}",
        violations(&g, &plan)
    );
}

#[test]
fn bad_history_declarations_get_one_clear_error() {
    let cases: [(&str, &str, &str); 4] = [
        (
            r#"{"name": "h", "kind": "buffer", "size": 16, "history": true, "imported": true}"#,
            r#"{"resource": "h", "access": "storage_write"}"#,
            "history and imported",
        ),
        (
            r#"{"name": "h", "kind": "buffer", "size": 16}"#,
            r#"{"resource": "h", "access": "storage_read", "previous": true}"#,
            "not a history resource",
        ),
        (
            r#"{"name": "h", "kind": "buffer", "size": 16, "history": true}"#,
            r#"{"resource": "h", "access": "storage_write", "previous": true}"#,
            "previous frame's content is read only",
        ),
        (
            r#"{"name": "h", "kind": "buffer", "size": 16, "history": true}"#,
            r#"{"resource": "h", "access": "storage_read", "previous": true}"#,
            "no pass writes",
        ),
    ];
    for (resource, use_, words) in cases {
        let text = format!(
            r#"{{"name": "bad", "resources": [{resource}], "passes": [{{"name": "p", "kind": "compute", "side_effects": true, "uses": [{use_}]}}]}}"#
        );
        let err = frame_file::parse(&text, frame_file::Syntax::Json, "bad.json")
            .map_err(|e| e.to_string())
            .and_then(|(g, _)| {
                compile(&g, &Capabilities::desktop(), &CompileOptions::ALL)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
            .expect_err(words);
        assert!(err.contains(words), "{words}: {err}");
    }
}

#[test]
fn the_double_half_read_before_written_is_an_error() {
    let mut g = Graph::new("stale");
    let h = g.history_image("h", desc());
    g.compute("stale read")
        .uses(h, Access::Sampled)
        .side_effects();
    g.compute("taa")
        .reads_previous(h, Access::Sampled)
        .uses(h, Access::StorageWrite);
    let err = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap_err();
    assert!(err.to_string().contains("two frames old"), "{err}");
}

/// Rules the checker reports for `plan` after `mutate`.
fn rules_after(g: &Graph, mutate: impl Fn(&mut Plan)) -> Vec<&'static str> {
    let mut plan = compiled(g, &Capabilities::desktop(), CompileOptions::ALL);
    assert!(
        violations(g, &plan).is_empty(),
        "{:#?}",
        violations(g, &plan)
    );
    mutate(&mut plan);
    violations(g, &plan).iter().map(|v| v.rule).collect()
}

#[test]
fn the_checker_catches_a_removed_cross_frame_barrier() {
    let g = taa_frame(QueueKind::Graphics);
    // The read of the previous half waits for last frame's write of the other image.
    let rules = rules_after(&g, |p| {
        p.barriers
            .retain(|b| !(b.before == "taa" && b.resource == "taa history (previous)"))
    });
    assert!(rules.contains(&"hazard.cross_frame"), "{rules:?}");
    // This frame's write waits for last frame's read of the same image (write-after-read).
    let rules = rules_after(&g, |p| {
        for b in &mut p.barriers {
            if b.before == "taa" && b.resource == "taa history" {
                b.src_stage = StageMask::empty();
            }
        }
    });
    assert!(rules.contains(&"hazard.cross_frame"), "{rules:?}");
}

#[test]
fn the_checker_catches_a_wrong_history_entry() {
    let g = taa_frame(QueueKind::Graphics);
    let rules = rules_after(&g, |p| p.history[0].buffering = Buffering::Single);
    assert_eq!(rules, ["history.wrong"]);
    let rules = rules_after(&g, |p| p.history[1].bytes = 4);
    assert_eq!(rules, ["history.wrong"]);
    let rules = rules_after(&g, |p| {
        p.history.remove(0);
    });
    assert_eq!(rules, ["history.missing"]);
}

#[test]
fn the_checker_catches_a_previous_read_after_the_write_of_a_single_resource() {
    let g = taa_frame(QueueKind::Graphics);
    let rules = rules_after(&g, |p| {
        // Run 'adapt' (this frame's exposure) before 'show' (the previous one).
        let order: Vec<_> = p.order.iter().copied().collect();
        let (s, a) = (
            order.iter().position(|n| n == "show").unwrap(),
            order.iter().position(|n| n == "adapt").unwrap(),
        );
        let mut order = order;
        order.swap(s, a);
        p.order = order.into_iter().collect();
    });
    assert!(rules.contains(&"history.order"), "{rules:?}");
}

/// Found by `history_props`: the previous half of a pair first used on the async queue in
/// a layout the compute queue cannot leave (last frame's depth attachment) gets its
/// transition routed to graphics after last frame's last use: that barrier is recorded in
/// the previous frame, where the image is this half's twin, so it names the twin.
#[test]
fn a_routed_transition_across_the_frame_boundary_names_the_image_as_it_was() {
    let mut g = Graph::new("routed");
    let h = g.history_image("h", ImageDesc::new(Format::D32_SFLOAT, 32, 32));
    g.transfer("copy")
        .uses(h, Access::TransferDst)
        .reads_previous(h, Access::TransferSrc)
        .on_queue(QueueKind::AsyncCompute);
    g.raster("depth").uses(h, Access::DepthWrite);
    let mut caps = Capabilities::desktop();
    caps.async_compute = true;
    let plan = compiled(&g, &caps, CompileOptions::ALL);
    assert!(
        plan.queues.async_compute.iter().any(|p| p == "copy"),
        "{:?}",
        plan.queues
    );
    let routed = plan
        .barriers
        .iter()
        .find(|b| b.before == "depth" && b.new_layout == Some(Layout::TRANSFER_SRC_OPTIMAL))
        .unwrap_or_else(|| panic!("a routed transition after 'depth': {:#?}", plan.barriers));
    assert_eq!(routed.resource, "h", "{routed:?}");
    assert_eq!(
        routed.old_layout,
        Some(Layout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL)
    );
    assert!(
        violations(&g, &plan).is_empty(),
        "{:#?}",
        violations(&g, &plan)
    );
}

/// Found by `history_props`: when one half of a pair crosses the queues, the other is
/// shared concurrently too, even when no kept pass uses it this frame (its image is the
/// first half's next frame).
#[test]
fn an_unused_half_of_a_pair_that_crosses_queues_is_concurrent() {
    let mut g = Graph::new("unused half");
    let h = g.history_image("h", desc());
    g.compute("write").uses(h, Access::StorageWrite);
    g.compute("async read")
        .uses(h, Access::StorageRead)
        .on_queue(QueueKind::AsyncCompute)
        .side_effects();
    g.compute("culled").reads_previous(h, Access::Sampled);
    let mut caps = Capabilities::desktop();
    caps.async_compute = true;
    let plan = compiled(&g, &caps, CompileOptions::ALL);
    assert_eq!(plan.culled, ["culled"]);
    let s = plan
        .sharing
        .iter()
        .find(|s| s.resource == "h (previous)")
        .unwrap_or_else(|| panic!("'h (previous)' shared: {:#?}", plan.sharing));
    assert_eq!(s.mode, tessera_graph::plan::SharingMode::Concurrent);
    assert!(
        violations(&g, &plan).is_empty(),
        "{:#?}",
        violations(&g, &plan)
    );
}

/// Found by `history_props`: a loaded frame with a double-buffered history resource is
/// written back as the declared form (no `clear_on_first_use`, which this frame's half has
/// as lowered) and loads again into the same graph.
#[test]
fn a_double_buffered_frame_file_round_trips() {
    let g = tessera_graph::history::lower(&taa_frame(QueueKind::Graphics)).into_owned();
    let file = frame_file::FrameFile::describe(&g, &Capabilities::desktop());
    assert!(file
        .resources
        .iter()
        .all(|r| !r.history || !(r.clear_on_first_use || r.discard_on_last_use)));
    let text = serde_json::to_string(&file).expect("serializes");
    let (parsed, _) = frame_file::parse(&text, frame_file::Syntax::Json, "again.json")
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(parsed, g);
}

/// The example frame `assets/graphs/taa.json`: a TAA history read by the pass that writes
/// it (double-buffered) and an exposure read by tonemapping before it is adapted on the
/// async queue (single); its plans check clean on every profile with and without async.
#[test]
fn the_taa_example_frame_has_one_double_and_one_single_history() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/graphs/taa.json");
    let (g, caps) = frame_file::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let plan = compiled(&g, &caps, CompileOptions::ALL);
    let entries: Vec<(&str, Buffering, Option<&str>)> = plan
        .history
        .iter()
        .map(|h| (h.resource.as_str(), h.buffering, h.previous.as_deref()))
        .collect();
    assert_eq!(
        entries,
        [
            (
                "taa_history",
                Buffering::Double,
                Some("taa_history (previous)")
            ),
            ("exposure", Buffering::Single, None),
        ]
    );
    for profile in Capabilities::PROFILES {
        for async_compute in [false, true] {
            let mut caps = Capabilities::profile(profile).expect("a profile");
            caps.async_compute = async_compute;
            for options in [CompileOptions::ALL, CompileOptions::NONE] {
                let plan = compiled(&g, &caps, options);
                assert!(
                    violations(&g, &plan).is_empty(),
                    "{profile} async {async_compute}: {:#?}",
                    violations(&g, &plan)
                );
            }
        }
    }
}

/// Found by the viewer's plan-diff test: a graph loaded from a frame file comes lowered; a
/// previous read added to it after this frame's first use of a single-buffered resource
/// makes it double when compiled. It was kept single, and the plan read this frame's content
/// as the previous frame's (with a reason naming the late read as coming first).
#[test]
fn a_late_previous_read_added_to_a_lowered_graph_doubles_it() {
    let mut g = Graph::new("exposure");
    let e = g.history_buffer("e", 16);
    g.compute("tonemap")
        .reads_previous(e, Access::StorageRead)
        .side_effects();
    g.compute("adapt").uses(e, Access::StorageWrite);
    g.compute("show")
        .uses(e, Access::StorageRead)
        .side_effects();
    let mut g = tessera_graph::history::lower(&g).into_owned();
    assert_eq!(g.resource(e).origin, Origin::History(HistoryRole::Single));
    assert!(matches!(
        tessera_graph::history::lower(&g),
        std::borrow::Cow::Borrowed(_)
    ));
    g.compute("late")
        .reads_previous(e, Access::StorageRead)
        .side_effects();
    let plan = compiled(&g, &Capabilities::desktop(), CompileOptions::ALL);
    assert_eq!(plan.history.len(), 1);
    assert_eq!(
        plan.history[0].buffering,
        Buffering::Double,
        "{:?}",
        plan.history
    );
    assert_eq!(plan.history[0].previous.as_deref(), Some("e (previous)"));
    assert!(
        violations(&g, &plan).is_empty(),
        "{:#?}",
        violations(&g, &plan)
    );
    // The TAA frame's exposure is adapted in place (its first use reads): doubled by a late
    // read, that first use would read content two frames old, an error.
    let mut taa = tessera_graph::history::lower(&taa_frame(QueueKind::Graphics)).into_owned();
    let exposure = taa.find_resource("exposure").expect("declared");
    taa.compute("late")
        .reads_previous(exposure, Access::StorageRead)
        .side_effects();
    let err = compile(&taa, &Capabilities::desktop(), &CompileOptions::ALL).unwrap_err();
    assert!(err.to_string().contains("two frames old"), "{err}");
}
