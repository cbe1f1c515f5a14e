//! A frame that ends on a swapchain image (imported, `per_frame`, exits in `present`), clear
//! values, and the vertex/index/uniform buffer accesses: what the compiler emits, what the
//! frame files say, what validation refuses, and what the checker reports when a correct
//! plan is broken (issue 15, the graph's part of "the executor, shaped for a live renderer").

mod common;

use common::golden::golden_plan;
use common::text::{frame_file_of, write};
use tessera_graph::check::{self, Violation};
use tessera_graph::frame_file::{self, Syntax};
use tessera_graph::graph::{Graph, ImageDesc};
use tessera_graph::plan::{Barrier, BarrierPosition, ExternalSync, LoadOp, Plan, StoreOp};
use tessera_graph::sync::{AccessMask, Layout, StageMask};
use tessera_graph::{
    compile, Access, Capabilities, ClearValue, CompileError, CompileOptions, Format, Origin,
    PassKind, PerFrameExit, PerFrameImport, QueueKind, ResourceId,
};

const PROFILES: &[&str] = &["desktop", "mali"];

fn barriers_on<'p>(plan: &'p Plan, resource: &str) -> Vec<&'p Barrier> {
    plan.barriers
        .iter()
        .filter(|b| b.resource == resource)
        .collect()
}

fn rules(graph: &Graph, caps: &Capabilities, plan: &Plan) -> Vec<&'static str> {
    match check::check(graph, caps, &CompileOptions::ALL, plan) {
        Ok(()) => Vec::new(),
        Err(v) => v.iter().map(|x: &Violation| x.rule).collect(),
    }
}

/// G-buffer, lighting and tone map into a swapchain image, built with the builder API.
/// `per_frame` off turns the swapchain into an ordinary imported output (for contrast).
fn swapchain_frame(per_frame: bool) -> (Graph, ResourceId) {
    let mut g = Graph::new("swapchain");
    let desc = |f| ImageDesc::new(f, 640, 360);
    let depth = g.image("depth", desc(Format::D32_SFLOAT));
    let albedo = g.image("albedo", desc(Format::R8G8B8A8_SRGB));
    let hdr = g.image("hdr", desc(Format::R16G16B16A16_SFLOAT));
    let swapchain = g.image("swapchain", desc(Format::B8G8R8A8_SRGB));
    {
        let r = g.resource_mut(swapchain);
        if per_frame {
            r.origin = Origin::PRESENTED;
        } else {
            r.origin = Origin::IMPORTED;
            r.output = true;
        }
    }
    g.raster("gbuffer")
        .clears_to(
            depth,
            Access::DepthWrite,
            ClearValue::DepthStencil {
                depth: 0.0,
                stencil: 7,
            },
        )
        .clears_to(
            albedo,
            Access::ColorWrite,
            ClearValue::Color([0.25, 0.5, 0.75, 1.0]),
        );
    g.raster("lighting")
        .uses(depth, Access::InputAttachment)
        .uses(albedo, Access::InputAttachment)
        .clears(hdr, Access::ColorWrite);
    g.raster("tonemap")
        .uses(hdr, Access::InputAttachment)
        .uses(swapchain, Access::ColorWriteAll);
    (g, swapchain)
}

#[test]
fn a_presented_swapchain_image_enters_undefined_and_leaves_in_present_src() {
    for &profile in PROFILES {
        let caps = Capabilities::profile(profile).unwrap();
        let (g, _) = swapchain_frame(true);
        let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
        assert_eq!(rules(&g, &caps, &plan), Vec::<&str>::new(), "{profile}");
        let rp = plan
            .render_passes
            .iter()
            .find(|rp| rp.subpasses.iter().any(|s| s == "tonemap"))
            .unwrap();
        if profile == "mali" {
            assert_eq!(rp.subpasses, ["gbuffer", "lighting", "tonemap"]);
        }
        let a = rp
            .attachments
            .iter()
            .find(|a| a.resource == "swapchain")
            .unwrap();
        assert_eq!((a.load_op, a.store_op), (LoadOp::DontCare, StoreOp::Store));
        assert_eq!(a.final_layout, Layout::COLOR_ATTACHMENT_OPTIMAL);
        let bs = barriers_on(&plan, "swapchain");
        assert_eq!(bs.len(), 2, "{profile}: {bs:?}");
        // The first: from UNDEFINED, waiting on nothing but the stage where the acquire
        // semaphore is waited on.
        let first = bs[0];
        assert_eq!(first.before, rp.subpasses[0]);
        assert_eq!(
            (first.old_layout, first.new_layout),
            (
                Some(Layout::UNDEFINED),
                Some(Layout::COLOR_ATTACHMENT_OPTIMAL)
            )
        );
        assert_eq!(first.src_stage, StageMask::COLOR_ATTACHMENT_OUTPUT);
        assert_eq!(first.src_access, AccessMask::empty());
        // The last: after tonemap's render pass, to PRESENT_SRC_KHR, waiting for the store.
        let last = bs[1];
        assert_eq!(last.position, BarrierPosition::After);
        assert_eq!(last.before, *rp.subpasses.last().unwrap());
        assert_eq!(
            (last.old_layout, last.new_layout),
            (
                Some(Layout::COLOR_ATTACHMENT_OPTIMAL),
                Some(Layout::PRESENT_SRC_KHR)
            )
        );
        assert_eq!(last.src_stage, StageMask::COLOR_ATTACHMENT_OUTPUT);
        assert_eq!(last.src_access, AccessMask::COLOR_ATTACHMENT_WRITE);
        assert_eq!(
            (last.dst_stage, last.dst_access),
            (StageMask::empty(), AccessMask::empty())
        );
        assert_eq!(
            plan.external,
            [ExternalSync {
                resource: "swapchain".into(),
                queue: QueueKind::Graphics,
                first_pass: "tonemap".into(),
                wait_stages: StageMask::COLOR_ATTACHMENT_OUTPUT,
                last_pass: "tonemap".into(),
                last_queue: QueueKind::Graphics,
                exit_layout: Some(Layout::PRESENT_SRC_KHR),
            }]
        );
    }
}

#[test]
fn the_text_report_lists_the_external_entries() {
    let (g, _) = swapchain_frame(true);
    let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
    let text = tessera_graph::report::Report {
        plan: &plan,
        name: "swapchain",
    }
    .to_string();
    assert!(
        text.contains("swapchain: wait before 'tonemap' (graphics) at COLOR_ATTACHMENT_OUTPUT; signal after 'tonemap' (graphics), leaves in PRESENT_SRC_KHR"),
        "{text}"
    );
}

#[test]
fn an_ordinary_imported_output_waits_on_the_previous_frame_and_has_no_external_entry() {
    let caps = Capabilities::desktop();
    let (g, _) = swapchain_frame(false);
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    assert_eq!(rules(&g, &caps, &plan), Vec::<&str>::new());
    assert!(plan.external.is_empty());
    let bs = barriers_on(&plan, "swapchain");
    assert!(bs
        .iter()
        .all(|b| b.new_layout != Some(Layout::PRESENT_SRC_KHR)));
    // Its first barrier waits for the previous frame's write of the same image.
    assert!(
        bs.iter()
            .any(|b| b.src_access.contains(AccessMask::COLOR_ATTACHMENT_WRITE)),
        "{bs:?}"
    );
}

#[test]
fn clear_values_reach_the_plan_and_default_otherwise() {
    let caps = Capabilities::profile("mali").unwrap();
    let (g, _) = swapchain_frame(true);
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    let attachment = |name: &str| {
        plan.render_passes
            .iter()
            .flat_map(|rp| rp.attachments.iter())
            .find(|a| a.resource == name)
            .unwrap()
    };
    assert_eq!(
        attachment("depth").clear_value,
        Some(ClearValue::DepthStencil {
            depth: 0.0,
            stencil: 7
        })
    );
    assert_eq!(
        attachment("albedo").clear_value,
        Some(ClearValue::Color([0.25, 0.5, 0.75, 1.0]))
    );
    assert_eq!(
        attachment("hdr").clear_value,
        Some(ClearValue::Color([0.0; 4]))
    );
    assert_eq!(attachment("swapchain").clear_value, None);
    let json = serde_json::to_value(&plan).unwrap();
    let atts = &json["render_passes"][0]["attachments"];
    let depth = atts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["resource"] == "depth")
        .unwrap();
    assert_eq!(
        depth["clear_value"],
        serde_json::json!({"depth": 0.0, "stencil": 7})
    );
    // The default follows the format.
    let u = &g.passes[1].uses[2];
    assert_eq!(
        u.clear_value_or_default(Format::D32_SFLOAT),
        ClearValue::DepthStencil {
            depth: 1.0,
            stencil: 0
        }
    );
    // Bit patterns: -0.0 is another clear value than 0.0 (the compile cache must see it).
    assert_ne!(ClearValue::Color([-0.0; 4]), ClearValue::Color([0.0; 4]));
}

/// compute writes `buffer` (as storage), then `access` reads it in a raster pass.
fn read_after_compute(access: Access) -> Plan {
    let mut g = Graph::new("buffers");
    let buffer = g.buffer("buffer", 4096);
    let colour = g.image("colour", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(colour).output = true;
    g.compute("write").uses(buffer, Access::StorageWrite);
    g.raster("draw")
        .uses(buffer, access)
        .clears(colour, Access::ColorWrite);
    let caps = Capabilities::desktop();
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    assert_eq!(rules(&g, &caps, &plan), Vec::<&str>::new(), "{access}");
    plan
}

#[test]
fn vertex_index_and_uniform_reads_wait_for_a_compute_write_at_their_stages() {
    for (access, stages, accesses) in [
        (
            Access::IndexBuffer,
            StageMask::INDEX_INPUT,
            AccessMask::INDEX_READ,
        ),
        (
            Access::VertexBuffer,
            StageMask::VERTEX_INPUT,
            AccessMask::VERTEX_ATTRIBUTE_READ,
        ),
        (
            Access::Uniform,
            StageMask::VERTEX_SHADER | StageMask::FRAGMENT_SHADER,
            AccessMask::UNIFORM_READ,
        ),
    ] {
        let plan = read_after_compute(access);
        let b = plan
            .barriers
            .iter()
            .find(|b| b.resource == "buffer" && b.before == "draw")
            .unwrap_or_else(|| panic!("{access}: no barrier before the draw"));
        assert_eq!(
            (b.src_stage, b.src_access),
            (StageMask::COMPUTE_SHADER, AccessMask::SHADER_STORAGE_WRITE),
            "{access}"
        );
        assert_eq!((b.dst_stage, b.dst_access), (stages, accesses), "{access}");
        assert_eq!(b.old_layout, None);
    }
    // In a compute pass a uniform is read by the compute shader.
    let s = Access::Uniform.scope(PassKind::Compute, tessera_graph::access::Target::Buffer);
    assert_eq!(
        (s.stages, s.access),
        (StageMask::COMPUTE_SHADER, AccessMask::UNIFORM_READ)
    );
}

#[test]
fn the_present_example_matches_its_goldens() {
    for &profile in PROFILES {
        let (_, _, plan) = golden_plan("present", profile);
        assert_eq!(plan.external.len(), 1, "{profile}");
        assert_eq!(plan.external[0].resource, "swapchain");
        let culled_indices = barriers_on(&plan, "indices");
        assert!(
            culled_indices
                .iter()
                .any(|b| b.before == "gbuffer" && b.dst_stage == StageMask::INDEX_INPUT),
            "{profile}: {culled_indices:?}"
        );
    }
}

#[test]
fn frame_files_round_trip_the_new_fields() {
    let (g, _) = frame_file::load(&common::golden::frame_path("present")).unwrap();
    let sc = g.resource(g.find_resource("swapchain").unwrap());
    assert!(sc.is_per_frame() && sc.is_presented() && sc.is_imported());
    let gbuffer = g.pass(g.find_pass("gbuffer").unwrap());
    assert!(gbuffer.uses.iter().any(|u| u.access == Access::IndexBuffer));
    assert!(gbuffer
        .uses
        .iter()
        .any(|u| u.clear_value == Some(ClearValue::Color([0.1, 0.2, 0.3, 1.0]))));
    for (built, _) in [swapchain_frame(true), swapchain_frame(false)] {
        for syntax in [Syntax::Json, Syntax::Toml] {
            let text = write(&frame_file_of(&built, &Capabilities::desktop()), syntax);
            let (back, _) = frame_file::parse(&text, syntax, "t")
                .unwrap_or_else(|e| panic!("{syntax:?}: {e}\n{text}"));
            assert_eq!(back, built, "{syntax:?}:\n{text}");
        }
    }
    let text = write(
        &frame_file_of(&swapchain_frame(true).0, &Capabilities::desktop()),
        Syntax::Json,
    );
    for needle in [
        r#""exit": "present""#,
        r#""per_frame": true"#,
        r#""clear_value": {"#,
    ] {
        assert!(text.contains(needle), "{needle}:\n{text}");
    }
}

/// The error of compiling the present example with `edit` applied to its JSON text.
fn error_of(edit: impl Fn(&mut serde_json::Value)) -> String {
    let path = common::golden::frame_path("present");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut v);
    let parsed = frame_file::parse(&v.to_string(), Syntax::Json, "f");
    let err = match parsed {
        Err(e) => e.to_string(),
        Ok((g, caps)) => match compile(&g, &caps, &CompileOptions::ALL) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("compiled: {v}"),
        },
    };
    err
}

fn resource<'v>(v: &'v mut serde_json::Value, name: &str) -> &'v mut serde_json::Value {
    v["resources"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["name"] == name)
        .unwrap()
}

fn use_of<'v>(v: &'v mut serde_json::Value, pass: &str, res: &str) -> &'v mut serde_json::Value {
    let p = v["passes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|p| p["name"] == pass)
        .unwrap();
    p["uses"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|u| u["resource"] == res)
        .unwrap()
}

#[test]
fn misuse_is_one_clear_error_naming_what_and_where() {
    use serde_json::json;
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(Edit, &[&str])> = vec![
        (
            Box::new(|v| use_of(v, "lighting", "albedo")["access"] = json!("uniform")),
            &[
                "'lighting'",
                "'albedo'",
                "uniform",
                "for buffers, not images",
            ],
        ),
        (
            Box::new(|v| use_of(v, "cull", "indices")["access"] = json!("index_buffer")),
            &["'cull'", "'indices'", "only read by raster passes"],
        ),
        (
            Box::new(|v| use_of(v, "gbuffer", "albedo")["clear"] = json!(false)),
            &["'gbuffer'", "'albedo'", "clear_value without clear"],
        ),
        (
            Box::new(|v| use_of(v, "gbuffer", "albedo")["clear_value"] = json!({"depth": 1.0})),
            &[
                "'gbuffer'",
                "'albedo'",
                "depth/stencil clear_value on a colour",
            ],
        ),
        (
            Box::new(|v| use_of(v, "gbuffer", "depth")["clear_value"] = json!([1, 2, 3, 4])),
            &["'gbuffer'", "'depth'", "colour clear_value on a depth"],
        ),
        (
            Box::new(|v| use_of(v, "gbuffer", "depth")["clear_value"] = json!([1, 2, 3])),
            &["clear_value", "[r, g, b, a]"],
        ),
        (
            Box::new(|v| resource(v, "hdr")["exit"] = json!("present")),
            &["'hdr'", "transient", "imported resources only"],
        ),
        (
            Box::new(|v| resource(v, "camera")["per_frame"] = json!(true)),
            &["'cull'", "'camera'", "per_frame", "holds nothing"],
        ),
        (
            Box::new(|v| resource(v, "vertices")["exit"] = json!("present")),
            &["'vertices'", "only images are presented"],
        ),
        (
            Box::new(|v| resource(v, "swapchain")["per_frame"] = json!(false)),
            &["'swapchain'", "without per_frame"],
        ),
        (
            Box::new(|v| resource(v, "swapchain")["discard_on_last_use"] = json!(true)),
            &["'swapchain'", "discard_on_last_use"],
        ),
        (
            Box::new(|v| resource(v, "swapchain")["exit"] = json!("presnt")),
            &["unknown variant `presnt`", "present"],
        ),
    ];
    for (edit, needles) in cases {
        let e = error_of(edit);
        for n in needles {
            assert!(e.contains(n), "{n}: {e}");
        }
    }
    // The async queue: presented images stay on graphics.
    let mut g = Graph::new("async");
    let sc = g.image("sc", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
    g.resource_mut(sc).origin = Origin::PRESENTED;
    g.compute("fill")
        .on_queue(QueueKind::AsyncCompute)
        .uses(sc, Access::StorageWrite);
    let e = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap_err();
    assert!(matches!(e, CompileError::AccessMismatch { .. }), "{e}");
    assert!(e.to_string().contains("graphics queue"), "{e}");
}

/// The compiled plan of the swapchain frame on `profile`, which the checker accepts.
fn correct(profile: &str) -> (Graph, Capabilities, Plan) {
    let caps = Capabilities::profile(profile).unwrap();
    let (g, _) = swapchain_frame(true);
    let plan = compile(&g, &caps, &CompileOptions::ALL).unwrap();
    assert_eq!(rules(&g, &caps, &plan), Vec::<&str>::new());
    (g, caps, plan)
}

fn index_of(plan: &Plan, resource: &str, new: Layout) -> usize {
    plan.barriers
        .iter()
        .position(|b| b.resource == resource && b.new_layout == Some(new))
        .unwrap()
}

#[test]
fn the_checker_reports_a_present_image_that_does_not_end_in_present_src() {
    for &profile in PROFILES {
        let (g, caps, plan) = correct(profile);
        let i = index_of(&plan, "swapchain", Layout::PRESENT_SRC_KHR);
        let mut dropped = plan.clone();
        dropped.barriers.remove(i);
        assert!(
            rules(&g, &caps, &dropped).contains(&"layout.present"),
            "{profile}"
        );
        let mut elsewhere = plan.clone();
        elsewhere.barriers[i].new_layout = Some(Layout::TRANSFER_SRC_OPTIMAL);
        assert!(rules(&g, &caps, &elsewhere).contains(&"layout.present"));
        // Present before the store: the transition does not wait for the render pass.
        let mut early = plan.clone();
        early.barriers[i].src_stage = StageMask::empty();
        early.barriers[i].src_access = AccessMask::empty();
        assert!(
            rules(&g, &caps, &early).contains(&"hazard.uncovered"),
            "{:?}",
            rules(&g, &caps, &early)
        );
    }
}

#[test]
fn the_checker_reports_a_per_frame_first_barrier_that_does_not_chain_after_the_acquire() {
    for &profile in PROFILES {
        let (g, caps, plan) = correct(profile);
        let i = index_of(&plan, "swapchain", Layout::COLOR_ATTACHMENT_OPTIMAL);
        // Waiting on what the previous frame's present would have been (nothing of this
        // image's stages) does not chain after the semaphore wait.
        let mut wrong = plan.clone();
        wrong.barriers[i].src_stage = StageMask::FRAGMENT_SHADER;
        assert!(
            rules(&g, &caps, &wrong).contains(&"external.chain"),
            "{profile}"
        );
        // No barrier: the render pass would transition from UNDEFINED on its own.
        let mut missing = plan.clone();
        missing.barriers.remove(i);
        for rp in &mut missing.render_passes {
            for a in rp.attachments.iter_mut() {
                if a.resource == "swapchain" {
                    a.initial_layout = Layout::UNDEFINED;
                }
            }
        }
        let found = rules(&g, &caps, &missing);
        assert!(found.contains(&"external.chain"), "{found:?}");
    }
}

#[test]
fn the_checker_reports_a_wrong_or_missing_clear_value() {
    let (g, caps, plan) = correct("mali");
    let at = |plan: &Plan, name: &str| {
        plan.render_passes
            .iter()
            .enumerate()
            .find_map(|(i, rp)| {
                let j = rp.attachments.iter().position(|a| a.resource == name)?;
                Some((i, j))
            })
            .unwrap()
    };
    for (name, value) in [
        ("albedo", Some(ClearValue::Color([0.0; 4]))),
        ("albedo", None),
        ("hdr", Some(ClearValue::Color([1.0; 4]))),
        ("swapchain", Some(ClearValue::Color([0.0; 4]))),
    ] {
        let mut p = plan.clone();
        let (i, j) = at(&p, name);
        p.render_passes[i].attachments[j].clear_value = value;
        assert_eq!(rules(&g, &caps, &p), ["rp.clear_value"], "{name} {value:?}");
    }
}

#[test]
fn the_checker_reports_missing_and_wrong_external_entries() {
    let (g, caps, plan) = correct("mali");
    let mut missing = plan.clone();
    missing.external.clear();
    assert_eq!(rules(&g, &caps, &missing), ["external.missing"]);
    let mut wrong = plan.clone();
    wrong.external[0].wait_stages = StageMask::ALL_COMMANDS;
    assert_eq!(rules(&g, &caps, &wrong), ["external.wrong"]);
    let mut wrong = plan.clone();
    wrong.external[0].exit_layout = None;
    assert_eq!(rules(&g, &caps, &wrong), ["external.wrong"]);
    let mut twice = plan.clone();
    twice.external.push(twice.external[0].clone());
    assert_eq!(rules(&g, &caps, &twice), ["external.duplicate"]);
    let mut extra = plan.clone();
    extra.external.push(ExternalSync {
        resource: "hdr".into(),
        ..plan.external[0].clone()
    });
    assert_eq!(rules(&g, &caps, &extra), ["external.unexpected"]);
}

/// `default` cases, or `PROPTEST_CASES` for a deeper run.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `graph` with the new vocabulary sprinkled over it, by the bits of `seed`, keeping it valid:
/// imported images whose first use (in declaration order) does not read become `per_frame`,
/// and, when only graphics passes use them and they are not discarded, exit in `present`;
/// buffer reads of storage become vertex, index or uniform reads; clears get clear values.
fn decorate(mut g: Graph, seed: u64) -> Graph {
    let bit = |k: usize| seed.rotate_left(k as u32 % 64) & 1 != 0;
    for r in 0..g.resources.len() {
        let users: Vec<usize> = (0..g.passes.len())
            .filter(|&p| g.passes[p].uses.iter().any(|u| u.resource.index() == r))
            .collect();
        let res = &g.resources[r];
        let first_reads = users.first().is_some_and(|&p| {
            let u = g.passes[p].uses.iter().find(|u| u.resource.index() == r);
            u.is_some_and(|u| u.access.reads(u.clear))
        });
        if !res.is_imported() || first_reads || !bit(r) {
            continue;
        }
        let on_graphics = users
            .iter()
            .all(|&p| g.passes[p].queue == QueueKind::Graphics);
        let image = res.image_desc().is_some();
        let present = image && on_graphics && !res.discard_on_last_use() && bit(r + 17);
        let clear_on_first_use = res.clear_on_first_use();
        let exit = if present {
            PerFrameExit::Present
        } else if res.discard_on_last_use() {
            PerFrameExit::Discard
        } else {
            PerFrameExit::Keep
        };
        g.resources[r].origin = Origin::ImportedPerFrame(PerFrameImport {
            clear_on_first_use,
            exit,
        });
    }
    for (pi, p) in g.passes.iter_mut().enumerate() {
        let kind = p.kind;
        for (ui, u) in p.uses.iter_mut().enumerate() {
            let k = pi * 7 + ui;
            let r = &g.resources[u.resource.index()];
            if u.access == Access::StorageRead && r.image_desc().is_none() {
                u.access = match (kind, k % 3) {
                    (PassKind::Raster, 0) => Access::VertexBuffer,
                    (PassKind::Raster, 1) => Access::IndexBuffer,
                    _ => Access::Uniform,
                };
            }
            if let (true, Some(d)) = (u.clear && bit(k + 5), r.image_desc()) {
                u.clear_value = Some(if d.format.is_depth_stencil() {
                    ClearValue::DepthStencil {
                        depth: (k % 2) as f32,
                        stencil: k as u32 % 256,
                    }
                } else {
                    ClearValue::Color([k as f32 / 8.0, 0.5, 0.25, 1.0])
                });
            }
        }
    }
    g
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: cases(128), ..Default::default() })]

    /// Random graphs with per_frame and presented images, vertex/index/uniform reads and
    /// clear values compile on every device and option set, and the checker accepts them.
    #[test]
    fn decorated_random_graphs_pass_the_checker(
        graph in common::valid_graph(),
        seed in proptest::prelude::any::<u64>(),
        caps in common::capabilities(),
        options in common::options(),
    ) {
        let g = decorate(graph, seed);
        let plan = compile(&g, &caps, &options)
            .map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{}", common::describe(&g))))?;
        if let Err(v) = check::check(&g, &caps, &options, &plan) {
            let list: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            return Err(proptest::test_runner::TestCaseError::fail(format!(
                "{}\n{}\nplan: {}", list.join("\n"), common::describe(&g),
                serde_json::to_string(&plan).unwrap_or_default())));
        }
        // Every clear value of a first use that clears reaches its attachment.
        for rp in &plan.render_passes {
            for a in rp.attachments.iter() {
                proptest::prop_assert_eq!(a.clear_value.is_some(), a.load_op == LoadOp::Clear);
            }
        }
    }
}

/// The decorated graphs of the property above do reach every new feature (so that it tests
/// something): presented and per_frame images with external entries and present barriers,
/// every new buffer access, and clear values in the plan.
#[test]
fn decoration_reaches_every_feature() {
    let mut seen = [0usize; 7];
    for seed in 0..96u64 {
        let g = decorate(
            common::sample(&common::valid_graph(), seed),
            seed.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        let plan = compile(&g, &Capabilities::desktop(), &CompileOptions::ALL).unwrap();
        let uses = || g.passes.iter().flat_map(|p| p.uses.iter());
        seen[0] += plan
            .barriers
            .iter()
            .filter(|b| b.new_layout == Some(Layout::PRESENT_SRC_KHR))
            .count();
        seen[1] += plan.external.len();
        seen[2] += uses().filter(|u| u.access == Access::VertexBuffer).count();
        seen[3] += uses().filter(|u| u.access == Access::IndexBuffer).count();
        seen[4] += uses().filter(|u| u.access == Access::Uniform).count();
        seen[5] += plan
            .render_passes
            .iter()
            .flat_map(|rp| rp.attachments.iter())
            .filter(|a| {
                a.clear_value
                    .is_some_and(|v| v != ClearValue::Color([0.0; 4]))
            })
            .count();
        seen[6] += g.resources.iter().filter(|r| r.is_per_frame()).count();
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}
