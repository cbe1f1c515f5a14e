//! The core phases through the public API: dependencies, culling, order, levels, barriers,
//! errors and the compile cache.

#[path = "../benches/synthetic.rs"]
mod synthetic;

use std::sync::Arc;
use tessera_graph::frame_file::FrameFile;
use tessera_graph::plan::{Barrier, EdgeKind};
use tessera_graph::sync::{AccessMask, Layout, StageMask};
use tessera_graph::{
    compile, Access, Capabilities, CompileError, CompileOptions, Compiler, Format, Graph,
    ImageDesc, Import, Origin, QueueKind,
};

fn rgba(g: &mut Graph, name: &str) -> tessera_graph::ResourceId {
    g.image(name, ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64))
}

fn barriers_before<'a>(plan: &'a tessera_graph::Plan, pass: &str) -> Vec<&'a Barrier> {
    plan.barriers.iter().filter(|b| b.before == pass).collect()
}

fn desktop() -> Capabilities {
    Capabilities::desktop()
}

#[test]
fn storage_write_then_accumulate_on_one_buffer_gets_a_barrier() {
    // The UAV-overlap bug: no layout or state change, still a write-after-write hazard.
    let mut g = Graph::new("uav");
    let counts = g.buffer("counts", 256);
    g.resource_mut(counts).output = true;
    g.compute("clear").uses(counts, Access::StorageWrite);
    g.compute("accumulate")
        .uses(counts, Access::StorageReadWrite);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    let b = barriers_before(&plan, "accumulate");
    assert_eq!(b.len(), 1, "{:?}", plan.barriers);
    assert_eq!(b[0].src_stage, StageMask::COMPUTE_SHADER);
    assert_eq!(b[0].src_access, AccessMask::SHADER_STORAGE_WRITE);
    assert_eq!(
        b[0].dst_access,
        AccessMask::SHADER_STORAGE_READ | AccessMask::SHADER_STORAGE_WRITE
    );
    assert_eq!((b[0].old_layout, b[0].new_layout), (None, None));
}

#[test]
fn read_after_read_in_one_layout_needs_no_second_barrier() {
    let mut g = Graph::new("rar");
    let tex = rgba(&mut g, "tex");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("draw").uses(tex, Access::ColorWriteAll);
    g.compute("blur_a")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageWrite);
    g.compute("blur_b")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageReadWrite);
    g.raster("show")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageRead)
        .side_effects();
    let plan = compile(&g, &desktop(), &CompileOptions::NONE).unwrap();
    let tex_barriers: Vec<_> = plan
        .barriers
        .iter()
        .filter(|b| b.resource == "tex")
        .collect();
    // draw's first use (previous frame), blur_a (transition + RAW), show (new stage: fragment).
    let befores: Vec<&str> = tex_barriers.iter().map(|b| b.before.as_str()).collect();
    assert_eq!(befores, ["draw", "blur_a", "show"], "{tex_barriers:#?}");
    let show = tex_barriers[2];
    assert_eq!(
        (show.old_layout, show.new_layout),
        (None, None),
        "same layout, only visibility"
    );
    assert!(show.dst_stage.contains(StageMask::FRAGMENT_SHADER));
    let blur = tex_barriers[1];
    assert_eq!(
        (blur.old_layout, blur.new_layout),
        (
            Some(Layout::COLOR_ATTACHMENT_OPTIMAL),
            Some(Layout::SHADER_READ_ONLY_OPTIMAL)
        )
    );
}

#[test]
fn culling_follows_content_and_reports_reasons() {
    let mut g = Graph::new("cull");
    let a = rgba(&mut g, "a");
    let unused = rgba(&mut g, "unused");
    let history = g.image("history", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
    g.resource_mut(history).origin = Origin::Imported(Import {
        discard_on_last_use: true,
        ..Import::default()
    });
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("base").uses(a, Access::ColorWriteAll);
    g.raster("decal").uses(a, Access::ColorWrite); // keeps base's pixels
    g.raster("dead").uses(unused, Access::ColorWriteAll);
    g.raster("scratch_history")
        .uses(history, Access::ColorWriteAll);
    g.compute("stats").side_effects();
    g.raster("final")
        .uses(a, Access::Sampled)
        .uses(out, Access::ColorWriteAll);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    assert_eq!(plan.order, ["base", "decal", "stats", "final"]);
    assert_eq!(plan.culled, ["dead", "scratch_history"]);
    assert_eq!(plan.cull_reasons.len(), 2);
    assert!(plan.cull_reasons[0].reason.contains("'unused'"));
}

#[test]
fn a_full_overwrite_cuts_the_earlier_writer_loose() {
    let mut g = Graph::new("overwrite");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("first").uses(out, Access::ColorWriteAll);
    g.raster("second").clears(out, Access::ColorWrite);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    // Both write the output, so both are kept, and the write-after-write edge orders them.
    assert_eq!(plan.order, ["first", "second"]);
    assert!(plan
        .edges
        .iter()
        .any(|e| e.from == "first" && e.to == "second" && e.kind == EdgeKind::Waw));
}

#[test]
fn levels_are_longest_paths() {
    let mut g = Graph::new("diamond");
    let [a, b, c, d] = ["a", "b", "c", "d"].map(|n| g.buffer(n, 64));
    g.resource_mut(d).output = true;
    g.compute("top").uses(a, Access::StorageWrite);
    g.compute("left")
        .uses(a, Access::StorageRead)
        .uses(b, Access::StorageWrite);
    g.compute("right")
        .uses(a, Access::StorageRead)
        .uses(c, Access::StorageWrite);
    g.compute("far")
        .uses(b, Access::StorageRead)
        .uses(c, Access::StorageRead)
        .uses(d, Access::StorageWrite);
    g.compute("late_right").uses(c, Access::StorageReadWrite);
    g.compute("join")
        .uses(c, Access::StorageRead)
        .uses(d, Access::StorageReadWrite);
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    let levels: Vec<Vec<&str>> = plan
        .levels
        .iter()
        .map(|l| l.iter().map(|n| n.as_str()).collect())
        .collect();
    assert_eq!(
        levels,
        vec![
            vec!["top"],
            vec!["left", "right"],
            vec!["far"],
            vec!["late_right"],
            vec!["join"]
        ]
    );
}

#[test]
fn async_passes_fold_onto_graphics_without_an_async_queue() {
    let mut g = Graph::new("async");
    let buf = g.buffer("buf", 64);
    g.resource_mut(buf).output = true;
    g.compute("produce")
        .on_queue(QueueKind::AsyncCompute)
        .uses(buf, Access::StorageWrite);
    g.compute("consume").uses(buf, Access::StorageReadWrite);
    let desktop_plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    assert_eq!(desktop_plan.queues.async_compute, ["produce"]);
    assert_eq!(desktop_plan.syncs.len(), 1);
    let mali = compile(
        &g,
        &Capabilities::profile("mali").unwrap(),
        &CompileOptions::ALL,
    )
    .unwrap();
    assert!(mali.queues.async_compute.is_empty());
    assert!(mali.syncs.is_empty());
    assert_eq!(barriers_before(&mali, "consume").len(), 1);
}

#[test]
fn transient_first_write_waits_for_every_use_of_the_previous_frame() {
    // One queue, content not needed: the barrier before the first write waits for the
    // previous frame's write and for both reads since (the phase takes them from the state
    // the frame leaves, without replaying the frame twice).
    let mut g = Graph::new("transient");
    let tex = rgba(&mut g, "tex");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("draw").uses(tex, Access::ColorWriteAll);
    g.compute("blur")
        .uses(tex, Access::Sampled)
        .uses(out, Access::StorageWrite);
    g.raster("show")
        .uses(tex, Access::Sampled)
        .uses(out, Access::ColorReadWrite)
        .side_effects();
    let plan = compile(&g, &desktop(), &CompileOptions::NONE).unwrap();
    let first = barriers_before(&plan, "draw");
    assert_eq!(first.len(), 1, "{first:#?}");
    let b = first[0];
    assert_eq!(b.resource, "tex");
    assert_eq!(
        (b.old_layout, b.new_layout),
        (
            Some(Layout::UNDEFINED),
            Some(Layout::COLOR_ATTACHMENT_OPTIMAL)
        )
    );
    for stage in [
        StageMask::COLOR_ATTACHMENT_OUTPUT,
        StageMask::COMPUTE_SHADER,
        StageMask::FRAGMENT_SHADER,
    ] {
        assert!(b.src_stage.contains(stage), "{b:#?}");
    }
    assert_eq!(b.src_access, AccessMask::COLOR_ATTACHMENT_WRITE);
}

#[test]
fn imported_content_is_ordered_after_the_previous_frame() {
    let mut g = Graph::new("history");
    let h = g.buffer("history", 64);
    g.resource_mut(h).origin = Origin::IMPORTED;
    g.compute("update").uses(h, Access::StorageReadWrite);
    g.compute("read")
        .uses(h, Access::StorageRead)
        .side_effects();
    let plan = compile(&g, &desktop(), &CompileOptions::ALL).unwrap();
    let first = barriers_before(&plan, "update");
    assert_eq!(
        first.len(),
        1,
        "write-after-read against the previous frame's reader"
    );
    assert_eq!(first[0].src_stage, StageMask::COMPUTE_SHADER);
}

#[test]
fn errors_name_pass_resource_and_rule() {
    let caps = desktop();
    let mut g = Graph::new("e");
    let depth = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 8, 8));
    g.raster("p").uses(depth, Access::ColorWriteAll);
    let e = compile(&g, &caps, &CompileOptions::ALL).unwrap_err();
    assert!(matches!(e, CompileError::AccessMismatch { .. }));
    assert_eq!(
        e.to_string(),
        "pass 'p' (raster) uses 'depth' (D32_SFLOAT, 1 sample, 8×8) as color_write_all: colour \
         access on a depth/stencil format"
    );

    let mut g = Graph::new("e");
    let b = g.buffer("b", 4);
    g.compute("p").uses(b, Access::StorageRead);
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::ReadBeforeWrite { .. })
    ));

    let mut g = Graph::new("e");
    let b = g.buffer("b", 4);
    g.compute("p")
        .uses(b, Access::StorageWrite)
        .uses(b, Access::StorageRead);
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::DuplicateUse { .. })
    ));

    let mut g = Graph::new("e");
    g.compute("p");
    g.compute("p");
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::DuplicatePass { .. })
    ));

    let mut g = Graph::new("e");
    g.buffer("b", 0);
    assert!(matches!(
        compile(&g, &caps, &CompileOptions::ALL),
        Err(CompileError::InvalidResource { .. })
    ));

    let mut g = Graph::new("e");
    let targets: Vec<_> = (0..9).map(|i| rgba(&mut g, &format!("c{i}"))).collect();
    let mut p = g.raster("wide");
    for t in targets {
        p = p.uses(t, Access::ColorWriteAll);
    }
    let e = compile(&g, &caps, &CompileOptions::ALL).unwrap_err();
    assert!(e.to_string().contains("max_color_attachments"), "{e}");
}

#[test]
fn a_raster_pass_has_at_most_one_depth_attachment() {
    for second in [Access::DepthWrite, Access::DepthRead] {
        let mut g = Graph::new("two_depths");
        let d = g.image("depth", ImageDesc::new(Format::D32_SFLOAT, 8, 8));
        let s = g.image("shadow", ImageDesc::new(Format::D16_UNORM, 8, 8));
        let c = g.image("color", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
        g.resource_mut(c).output = true;
        g.raster("prepass").clears(d, Access::DepthWrite);
        g.raster("shadows").clears(s, Access::DepthWrite);
        g.raster("shade")
            .uses(d, Access::DepthWrite)
            .uses(s, second)
            .clears(c, Access::ColorWriteAll);
        let e = compile(&g, &desktop(), &CompileOptions::ALL).unwrap_err();
        assert!(matches!(e, CompileError::AccessMismatch { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "pass 'shade' (raster) uses 'shadow' (D16_UNORM, 1 sample, 8×8) as {}: 'depth' \
                 is already its depth/stencil attachment (depth_write): a raster pass has at \
                 most one",
                second.name()
            )
        );
    }
}

#[test]
fn an_unchanged_frame_reuses_the_previous_plan() {
    let caps = desktop();
    let build = |name: &str| {
        let mut g = Graph::new("cache");
        let out = rgba(&mut g, "out");
        g.resource_mut(out).output = true;
        g.raster(name).uses(out, Access::ColorWriteAll);
        g
    };
    let mut compiler = Compiler::new();
    let first = compiler
        .compile(&build("draw"), &caps, &CompileOptions::ALL)
        .unwrap();
    let again = compiler
        .compile(&build("draw"), &caps, &CompileOptions::ALL)
        .unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(compiler.stats(), (1, 1));
    let renamed = compiler
        .compile(&build("paint"), &caps, &CompileOptions::ALL)
        .unwrap();
    assert_eq!(renamed.order, ["paint"]);
    let other_options = compiler
        .compile(&build("paint"), &caps, &CompileOptions::NONE)
        .unwrap();
    assert!(!Arc::ptr_eq(&renamed, &other_options));
    let other_device = compiler
        .compile(
            &build("paint"),
            &Capabilities::profile("mali").unwrap(),
            &CompileOptions::NONE,
        )
        .unwrap();
    assert!(!Arc::ptr_eq(&other_options, &other_device));
    assert_eq!(compiler.stats(), (1, 4));
}

#[test]
fn structural_keys_follow_the_inputs() {
    let caps = desktop();
    let mut g = Graph::new("key");
    let out = rgba(&mut g, "out");
    g.resource_mut(out).output = true;
    g.raster("draw").uses(out, Access::ColorWriteAll);
    let same = g.clone();
    let k = Compiler::key(&g, &caps, &CompileOptions::ALL);
    assert_eq!(k, Compiler::key(&same, &caps, &CompileOptions::ALL));
    assert_ne!(k, Compiler::key(&g, &caps, &CompileOptions::NONE));
    g.resource_mut(out).output = false;
    assert_ne!(k, Compiler::key(&g, &caps, &CompileOptions::ALL));
}

/// A frame of the benchmark's shape at a few hundred passes (far beyond the property
/// tests' sizes) passes the checker, and compiling it again gives the same plan.
#[test]
fn a_large_synthetic_frame_passes_the_checker() {
    let graph = synthetic::synthetic(300);
    let caps = desktop();
    let options = CompileOptions::ALL;
    let plan = compile(&graph, &caps, &options).unwrap();
    assert!(plan.memory.blocks.len() < 300, "aliasing placed the frame");
    if let Err(violations) = tessera_graph::check::check(&graph, &caps, &options, &plan) {
        panic!(
            "{} violations, first: {:?}",
            violations.len(),
            violations.first()
        );
    }
    assert_eq!(compile(&graph, &caps, &options).unwrap(), plan);
}

/// Every compile error says what the frame has (names and values) and what the rule needs,
/// on one line: one frame per message, compared in full.
#[test]
fn every_error_names_the_values_that_break_its_rule() {
    use tessera_graph::graph::{Resource, ResourceKind};
    let caps = desktop();
    let colour = |w, h| ImageDesc::new(Format::R8G8B8A8_UNORM, w, h);
    let mut cases: Vec<(Graph, &str)> = Vec::new();

    // The resolve of issue 14: source and target differ in format.
    let mut g = Graph::new("e");
    let msaa = g.image(
        "color_msaa",
        ImageDesc::new(Format::R8G8B8A8_UNORM, 1920, 1080).samples(4),
    );
    let swapchain = g.image(
        "swapchain",
        ImageDesc::new(Format::B8G8R8A8_SRGB, 1920, 1080),
    );
    g.resource_mut(swapchain).origin = Origin::IMPORTED;
    g.raster("forward")
        .clears(msaa, Access::ColorWriteAll)
        .resolves(swapchain, msaa);
    cases.push((g, "pass 'forward' resolves 'color_msaa' (R8G8B8A8_UNORM, 4 samples, 1920×1080) into 'swapchain' (B8G8R8A8_SRGB, 1 sample, 1920×1080): a resolve target needs the source's format and extent"));

    let mut g = Graph::new("e");
    let a = g.image("a", colour(16, 16));
    let b = g.image("b", colour(16, 16));
    g.raster("p").uses(a, Access::ColorWriteAll).resolves(b, a);
    cases.push((g, "pass 'p' resolves 'a' (R8G8B8A8_UNORM, 1 sample, 16×16) into 'b' (R8G8B8A8_UNORM, 1 sample, 16×16): a resolve goes from a multisampled image into a single-sampled one"));

    let mut g = Graph::new("e");
    let a = g.image("a", colour(16, 16).samples(4));
    let b = g.image("b", colour(16, 16));
    let c = g.image("c", colour(16, 16).samples(4));
    g.resource_mut(a).origin = Origin::IMPORTED;
    g.raster("p")
        .uses(c, Access::ColorWriteAll)
        .uses(a, Access::InputAttachment)
        .resolves(b, a);
    cases.push((g, "pass 'p' resolves 'a' (R8G8B8A8_UNORM, 4 samples, 16×16; used as input_attachment) into 'b' (R8G8B8A8_UNORM, 1 sample, 16×16): the resolve source is a colour attachment written by the same pass"));

    let mut g = Graph::new("e");
    let a = g.image("a", colour(16, 16));
    let b = g.image("b", colour(32, 16));
    g.raster("p")
        .uses(a, Access::ColorWriteAll)
        .uses(b, Access::ColorWriteAll);
    cases.push((g, "pass 'p' (raster) uses 'b' (R8G8B8A8_UNORM, 1 sample, 32×16) as color_write_all: 'a' is 16×16 with 1 sample: every attachment of a raster pass has the same extent and sample count"));

    let mut g = Graph::new("e");
    let a = g.image("a", colour(16, 16));
    g.compute("blur").uses(a, Access::ColorWriteAll);
    cases.push((g, "pass 'blur' (compute) uses 'a' (R8G8B8A8_UNORM, 1 sample, 16×16) as color_write_all: attachment accesses are only allowed in raster passes"));

    let mut g = Graph::new("e");
    let a = g.image("a", colour(16, 16));
    g.compute("p").clears(a, Access::Sampled);
    cases.push((g, "pass 'p' (compute) uses 'a' (R8G8B8A8_UNORM, 1 sample, 16×16) as sampled: a clear on a sampled use: only written attachments and transfer/storage destinations can be cleared"));

    let mut g = Graph::new("e");
    let a = g.image("a", colour(16, 16).samples(4));
    g.compute("p").uses(a, Access::StorageWrite);
    cases.push((g, "pass 'p' (compute) uses 'a' (R8G8B8A8_UNORM, 4 samples, 16×16) as storage_write: a storage_write use of an image of 4 samples: multisampled images are used as attachments, sampled or resolved only"));

    let mut g = Graph::new("e");
    let b = g.buffer("b", 64);
    g.compute("p")
        .uses(b, Access::StorageWrite)
        .uses(b, Access::StorageRead);
    cases.push((g, "pass 'p' uses 'b' twice, as storage_write and as storage_read: a pass uses each resource at most once"));

    let mut g = Graph::new("e");
    let b = g.buffer("b", 64);
    g.compute("reader").uses(b, Access::StorageRead);
    g.compute("writer").uses(b, Access::StorageWrite);
    cases.push((g, "pass 'reader' reads 'b' (storage_read) but no earlier pass writes it and it is not imported (its first writer, 'writer', comes later): a transient resource is written before it is read"));

    let mut g = Graph::new("e");
    g.compute("p").side_effects();
    g.compute("p").side_effects();
    cases.push((g, "pass 'p' is declared twice: pass names must be unique"));

    let mut g = Graph::new("e");
    g.raster("p")
        .on_queue(QueueKind::AsyncCompute)
        .side_effects();
    cases.push((g, "pass 'p': a raster pass on the async_compute queue: raster passes run on the graphics queue"));

    let mut g = Graph::new("e");
    let targets: Vec<_> = (0..9)
        .map(|i| g.image(format!("t{i}"), colour(8, 8)))
        .collect();
    let mut p = g.raster("wide");
    for t in targets {
        p = p.uses(t, Access::ColorWriteAll);
    }
    cases.push((
        g,
        "pass 'wide': 9 colour attachments: the device allows at most 8 (max_color_attachments)",
    ));

    // Resource shapes and flags.
    let resource = |r: Resource| {
        let mut g = Graph::new("e");
        g.add_resource(r);
        g
    };
    let image = |d: ImageDesc| Resource::image("r", d);
    cases.push((
        resource(Resource::buffer("r", 4)).with_twin(),
        "resource 'r' is declared twice: resource names must be unique",
    ));
    cases.push((
        resource(image(colour(0, 1080))),
        "resource 'r': extent 0×1080: width and height must each be between 1 and 65536",
    ));
    cases.push((
        resource(image(colour(8, 8).samples(3))),
        "resource 'r': 3 samples: the sample count must be a power of two from 1 to 64",
    ));
    cases.push((resource(image(colour(1920, 1080).mips(12))), "resource 'r': 12 mips on a 1920×1080 extent: mips must be between 1 and 11 (the full mip chain)"));
    cases.push((
        resource(image(colour(8, 8).samples(4).mips(2))),
        "resource 'r': 4 samples and 2 mips: a multisampled image has exactly one mip",
    ));
    cases.push((
        resource(image(colour(8, 8).layers(4096))),
        "resource 'r': 4096 layers: layers must be between 1 and 2048",
    ));
    cases.push((
        resource(Resource::buffer("r", 0)),
        "resource 'r': a buffer of 0 bytes: a buffer needs at least one byte",
    ));
    let mut r = Resource::buffer("r", 4);
    r.size = Some(0);
    cases.push((
        resource(r),
        "resource 'r': size 0: a size override needs at least one byte",
    ));
    let mut r = image(colour(8, 8));
    (r.origin, r.output) = (Origin::MEMORYLESS, true);
    cases.push((resource(r), "resource 'r': declared memoryless and output: an imported or output resource lives outside the frame and cannot be memoryless"));
    let mut r = Resource::buffer("r", 4);
    r.origin = Origin::MEMORYLESS;
    cases.push((
        resource(r),
        "resource 'r': a buffer declared memoryless: only images (attachments) can be memoryless",
    ));
    let r = Resource {
        kind: ResourceKind::Image(colour(65536, 65536).layers(2048)),
        size: Some((1 << 48) + 1),
        ..image(colour(8, 8))
    };
    cases.push((resource(r), "resource 'r' (R8G8B8A8_UNORM, 1 sample, 65536×65536, 2048 layers) needs 281474976710657 bytes (256.00 TiB): a transient resource needs at most 281474976710656 bytes (256 TiB)"));

    for (g, want) in cases {
        let e = compile(&g, &caps, &CompileOptions::ALL).unwrap_err();
        assert_eq!(e.to_string(), want);
        assert_eq!(e.to_string().lines().count(), 1);
    }

    // Import flags on a transient cannot be built in code (`Origin` has no such variant); a
    // frame file that declares them gets the same words from its loader.
    let file: FrameFile = serde_json::from_str(
        r#"{"resources": [{"name": "r", "kind": "buffer", "size": 4, "discard_on_last_use": true}], "passes": []}"#,
    )
    .unwrap();
    let e = file.to_graph().unwrap_err();
    assert_eq!(e.to_string(), "resource 'r': discard_on_last_use on a transient resource (not imported): clear_on_first_use and discard_on_last_use apply to imported resources only");
}

/// A graph with its first resource declared a second time (test helper).
trait WithTwin {
    fn with_twin(self) -> Self;
}

impl WithTwin for Graph {
    fn with_twin(mut self) -> Self {
        let twin = self.resources[0].clone();
        self.add_resource(twin);
        self
    }
}

/// `memoryless: true` is a requirement on the frame, judged by the default compile's render
/// passes for the device: when they cannot keep the image in tile memory it is an error in
/// every mode and on every device; when they can but this plan cannot (the memoryless
/// optimisation off, or no lazily allocated memory) it is placed in memory and the plan says
/// why. The checker accepts every plan.
#[test]
fn declared_memoryless_is_a_requirement_in_every_mode() {
    let frame = |sampled_later: bool| {
        let mut g = Graph::new("m");
        let x = g.image("x", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
        g.resource_mut(x).origin = Origin::MEMORYLESS;
        let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
        g.resource_mut(out).output = true;
        g.raster("gbuffer").clears(x, Access::ColorWriteAll);
        g.raster("lighting")
            .uses(x, Access::InputAttachment)
            .uses(out, Access::ColorWriteAll);
        if sampled_later {
            let post = g.image("post", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 64));
            g.resource_mut(post).output = true;
            g.compute("post")
                .uses(x, Access::Sampled)
                .uses(post, Access::StorageWrite);
        }
        g
    };
    let mali = Capabilities::profile("mali").unwrap();
    let fallbacks = |p: &tessera_graph::Plan| -> Vec<(String, String)> {
        p.memory
            .memoryless_fallbacks
            .iter()
            .map(|f| (f.resource.to_string(), f.reason.clone()))
            .collect()
    };
    let report =
        |p: &tessera_graph::Plan| tessera_graph::report::Report { plan: p, name: "m" }.to_string();
    let placed = |p: &tessera_graph::Plan| {
        p.memory
            .blocks
            .iter()
            .flat_map(|b| &b.placements)
            .any(|pl| pl.resource == "x")
    };
    let g = frame(false);
    let checked = |caps: &Capabilities, options: &CompileOptions| {
        let plan = compile(&g, caps, options).unwrap();
        tessera_graph::check::check(&g, caps, options, &plan).unwrap_or_else(|v| panic!("{v:?}"));
        plan
    };
    // Optimised on mali: in tile memory, nothing to report.
    let p = checked(&mali, &CompileOptions::ALL);
    assert!(!placed(&p) && p.memory.memoryless_bytes == 64 * 64 * 4);
    assert_eq!(fallbacks(&p), vec![]);
    assert!(!report(&p).contains("declared memoryless"));
    // Unoptimised on mali: stored and loaded between two render passes, placed, and said.
    let p = checked(&mali, &CompileOptions::NONE);
    assert!(placed(&p) && p.memory.memoryless_bytes == 0);
    let off = vec![(
        "x".to_string(),
        "the memoryless optimisation is off".to_string(),
    )];
    assert_eq!(fallbacks(&p), off);
    assert!(
        report(&p).contains(
            "declared memoryless, placed in memory: x (the memoryless optimisation is off)"
        ),
        "{}",
        report(&p)
    );
    // The JSON plan carries it; a plan without fallbacks has no such field.
    let json = serde_json::to_string(&p).unwrap();
    assert!(
        json.contains(r#""memoryless_fallbacks":[{"resource":"x","reason":"#),
        "{json}"
    );
    assert!(
        !serde_json::to_string(&checked(&mali, &CompileOptions::ALL))
            .unwrap()
            .contains("memoryless_fallbacks")
    );
    // Desktop: no lazily allocated memory.
    let p = checked(&desktop(), &CompileOptions::ALL);
    assert!(placed(&p));
    let none = vec![(
        "x".to_string(),
        "the device has no lazily allocated memory".to_string(),
    )];
    assert_eq!(fallbacks(&p), none);
    assert_eq!(fallbacks(&checked(&desktop(), &CompileOptions::NONE)), off);
    // A frame whose structure cannot keep it: the same error in every mode, on every device.
    let g = frame(true);
    for caps in [mali.clone(), desktop()] {
        for options in [
            CompileOptions::ALL,
            CompileOptions::NONE,
            CompileOptions {
                merge: false,
                ..CompileOptions::ALL
            },
        ] {
            let e = compile(&g, &caps, &options).unwrap_err();
            assert_eq!(
                e.to_string(),
                "resource 'x' is declared memoryless but pass 'post' breaks it: it uses 'x' as \
                 sampled, not as an attachment: a memoryless image is used as an attachment only",
                "{} {options:?}",
                caps.profile
            );
        }
    }
}
