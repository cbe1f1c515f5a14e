//! Multisampling in the graph: colour and depth/stencil resolves on write-back, their modes,
//! memoryless multisampled attachments on a tiler, and the errors around them.

use std::path::PathBuf;
use tessera_graph::frame_file::{self, Syntax};
use tessera_graph::graph::{Graph, ImageDesc, Origin};
use tessera_graph::plan::{Attachment, LoadOp, Plan, StoreOp};
use tessera_graph::{
    check, compile, Access, Capabilities, CompileOptions, Format, ResolveMode, ResolveModes,
};

fn example(name: &str) -> Graph {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/graphs")
        .join(format!("{name}.json"));
    frame_file::load(&path).unwrap_or_else(|e| panic!("{e}")).0
}

fn mali() -> Capabilities {
    Capabilities::profile("mali").expect("mali")
}

/// Compiles with every optimisation on and requires the checker's approval.
fn checked(graph: &Graph, caps: &Capabilities) -> Plan {
    let options = CompileOptions::ALL;
    let plan = compile(graph, caps, &options).unwrap_or_else(|e| panic!("{e}"));
    if let Err(v) = check::check(graph, caps, &options, &plan) {
        panic!("the checker rejects the plan: {v:#?}");
    }
    plan
}

fn attachment<'p>(plan: &'p Plan, name: &str) -> &'p Attachment {
    plan.render_passes
        .iter()
        .flat_map(|rp| rp.attachments.iter())
        .find(|a| a.resource == name)
        .unwrap_or_else(|| panic!("no attachment '{name}'"))
}

/// An MSAA colour + depth frame resolved into `out` and `depth_1x` (mode `mode`), the
/// resolved depth sampled by a later compute pass.
fn depth_resolve_frame(mode: Option<ResolveMode>) -> Graph {
    let mut g = Graph::new("depth_resolve");
    let (w, h) = (64, 32);
    let depth = g.image(
        "msaa_depth",
        ImageDesc::new(Format::D32_SFLOAT, w, h).samples(4),
    );
    let colour = g.image(
        "msaa_color",
        ImageDesc::new(Format::R8G8B8A8_UNORM, w, h).samples(4),
    );
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, w, h));
    let depth_1x = g.image("depth_1x", ImageDesc::new(Format::D32_SFLOAT, w, h));
    let ao = g.image("ao", ImageDesc::new(Format::R8_UNORM, w, h));
    g.resource_mut(out).origin = Origin::IMPORTED;
    g.resource_mut(ao).output = true;
    let b = g
        .raster("draw")
        .clears(depth, Access::DepthWrite)
        .clears(colour, Access::ColorWrite)
        .resolves(out, colour);
    match mode {
        Some(m) => b.resolves_depth(depth_1x, depth, m),
        None => b.resolves(depth_1x, depth),
    };
    g.compute("ssao")
        .uses(depth_1x, Access::Sampled)
        .uses(ao, Access::StorageWrite);
    g
}

#[test]
fn ms_colour_and_depth_stay_in_tile_memory_on_mali() {
    let g = example("tile_msaa_depth");
    let plan = checked(&g, &mali());
    assert_eq!(plan.render_passes.len(), 1, "{:?}", plan.breaks);
    for name in ["msaa_depth", "msaa_color"] {
        let a = attachment(&plan, name);
        assert!(a.memoryless, "{name} is memoryless: {a:?}");
        assert_eq!((a.load_op, a.store_op), (LoadOp::Clear, StoreOp::DontCare));
        assert_eq!(a.samples, 4);
    }
    let d = attachment(&plan, "msaa_depth");
    assert_eq!(d.resolve_target.as_deref(), Some("depth_1x"));
    assert_eq!(d.resolve_mode, Some(ResolveMode::SampleZero));
    let c = attachment(&plan, "msaa_color");
    assert_eq!(c.resolve_target.as_deref(), Some("swapchain"));
    assert_eq!(c.resolve_mode, None, "a colour resolve averages");
    // The resolve replaces the targets' content: nothing loaded, both stored for later use.
    for name in ["depth_1x", "swapchain"] {
        let a = attachment(&plan, name);
        assert_eq!((a.load_op, a.store_op), (LoadOp::DontCare, StoreOp::Store));
        assert!(!a.memoryless);
    }
    assert_eq!(plan.memory.memoryless_bytes, 1920 * 1080 * 4 * (4 + 4));
}

#[test]
fn ms_depth_is_memoryless_on_mali_without_declaring_it() {
    let plan = checked(&depth_resolve_frame(None), &mali());
    let d = attachment(&plan, "msaa_depth");
    assert!(d.memoryless, "{d:?}");
    assert_eq!((d.load_op, d.store_op), (LoadOp::Clear, StoreOp::DontCare));
    // On desktop (no lazily allocated memory) it is not, and still not stored.
    let plan = checked(&depth_resolve_frame(None), &Capabilities::desktop());
    let d = attachment(&plan, "msaa_depth");
    assert!(!d.memoryless);
    assert_eq!(d.store_op, StoreOp::DontCare);
}

#[test]
fn a_depth_resolve_without_a_mode_uses_sample_zero() {
    let plan = checked(&depth_resolve_frame(None), &mali());
    assert_eq!(
        attachment(&plan, "msaa_depth").resolve_mode,
        Some(ResolveMode::SampleZero)
    );
    let plan = checked(&depth_resolve_frame(Some(ResolveMode::Min)), &mali());
    assert_eq!(
        attachment(&plan, "msaa_depth").resolve_mode,
        Some(ResolveMode::Min)
    );
}

#[test]
fn resolve_mode_is_in_the_plan_json_and_reads_back() {
    let plan = checked(&example("tile_msaa_depth"), &mali());
    let json: serde_json::Value = serde_json::to_value(&plan).expect("serializes");
    let atts: Vec<&serde_json::Value> = json["render_passes"]
        .as_array()
        .expect("render passes")
        .iter()
        .flat_map(|rp| rp["attachments"].as_array().expect("attachments"))
        .collect();
    let by_name = |n: &str| {
        *atts
            .iter()
            .find(|a| a["resource"] == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    assert_eq!(by_name("msaa_depth")["resolve_mode"], "sample_zero");
    assert_eq!(by_name("msaa_depth")["resolve_target"], "depth_1x");
    assert!(by_name("msaa_color").get("resolve_mode").is_none());
    assert_eq!(
        json["device"]["depth_resolve_modes"],
        serde_json::json!(["sample_zero", "min", "max"])
    );
    let back: Plan = serde_json::from_value(json).expect("reads back");
    assert_eq!(back, plan);
}

#[test]
fn an_old_plan_without_the_new_fields_parses() {
    let plan = checked(&example("tile_msaa"), &mali());
    let mut json: serde_json::Value = serde_json::to_value(&plan).expect("serializes");
    json["device"]
        .as_object_mut()
        .expect("device")
        .remove("depth_resolve_modes")
        .expect("written");
    let text = json.to_string();
    assert!(!text.contains("resolve_mode"), "{text}");
    let old: Plan = serde_json::from_str(&text).expect("an old plan parses");
    let device = old.device.expect("device");
    assert_eq!(device.depth_resolve_modes, ResolveModes::SAMPLE_ZERO);
    assert_eq!(old.render_passes, plan.render_passes);
}

/// Frame text with one depth resolve of mode `mode` on a device with `modes`.
fn frame_text(modes: &str, resolve_extra: &str) -> String {
    format!(
        r#"{{"device": {{"profile": "mali"{modes}}},
  "resources": [
    {{"name": "msaa_depth", "kind": "image", "format": "D32_SFLOAT", "width": 8, "height": 8, "samples": 4}},
    {{"name": "msaa_color", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 8, "height": 8, "samples": 4}},
    {{"name": "color_1x", "kind": "image", "format": "R8G8B8A8_UNORM", "width": 8, "height": 8, "output": true}},
    {{"name": "depth_1x", "kind": "image", "format": "D32_SFLOAT", "width": 8, "height": 8, "output": true}}
  ],
  "passes": [
    {{"name": "draw", "kind": "raster", "uses": [
      {{"resource": "msaa_depth", "access": "depth_write", "clear": true}},
      {{"resource": "msaa_color", "access": "color_write", "clear": true}},
      {{"resource": "color_1x", "access": "resolve", "from": "msaa_color"}},
      {resolve_extra}]}}
  ]}}"#
    )
}

/// The compile error of frame text, or the frame-file error.
fn error_of(text: &str) -> String {
    match frame_file::parse(text, Syntax::Json, "frame.json") {
        Err(e) => e.to_string(),
        Ok((g, caps)) => match compile(&g, &caps, &CompileOptions::ALL) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("compiles: {text}"),
        },
    }
}

#[test]
fn frame_files_carry_the_mode_and_the_device_modes() {
    let text = frame_text(
        r#", "depth_resolve_modes": ["sample_zero", "max"]"#,
        r#"{"resource": "depth_1x", "access": "resolve", "from": "msaa_depth", "mode": "max"}"#,
    );
    let (g, caps) = frame_file::parse(&text, Syntax::Json, "frame.json").expect("parses");
    assert_eq!(
        caps.depth_resolve_modes,
        ResolveModes::of(&[ResolveMode::SampleZero, ResolveMode::Max])
    );
    let plan = checked(&g, &caps);
    assert_eq!(
        attachment(&plan, "msaa_depth").resolve_mode,
        Some(ResolveMode::Max)
    );
    // Written back from the graph, the frame keeps the mode and the device's modes.
    let file = frame_file::FrameFile::describe(&g, &caps);
    let again = serde_json::to_string(&file).expect("serializes");
    assert!(again.contains(r#""mode":"max""#), "{again}");
    let (g2, caps2) = frame_file::parse(&again, Syntax::Json, "again.json").expect("parses");
    assert_eq!((g2, caps2), (g, caps));
}

#[test]
fn a_mode_the_device_lacks_is_an_error_naming_the_mode_and_the_supported_ones() {
    let e = error_of(&frame_text(
        r#", "depth_resolve_modes": ["sample_zero"]"#,
        r#"{"resource": "depth_1x", "access": "resolve", "from": "msaa_depth", "mode": "max"}"#,
    ));
    assert_eq!(
        e,
        "pass 'draw' resolves 'msaa_depth' (D32_SFLOAT, 4 samples, 8×8) into 'depth_1x' \
         (D32_SFLOAT, 1 sample, 8×8): the device supports the depth/stencil resolve modes \
         sample_zero, not 'max'"
    );
    // A device without depth resolve refuses even the default mode.
    let e = error_of(&frame_text(
        r#", "depth_resolve_modes": []"#,
        r#"{"resource": "depth_1x", "access": "resolve", "from": "msaa_depth"}"#,
    ));
    assert!(e.contains("modes none, not 'sample_zero'"), "{e}");
}

#[test]
fn a_mode_on_a_colour_resolve_or_another_use_is_an_error_naming_pass_and_resource() {
    let e = error_of(
        &frame_text(
            "",
            r#"{"resource": "depth_1x", "access": "resolve", "from": "msaa_depth"}"#,
        )
        .replace(
            r#""from": "msaa_color"}"#,
            r#""from": "msaa_color", "mode": "min"}"#,
        ),
    );
    assert!(
        e.starts_with("pass 'draw' resolves 'msaa_color'")
            && e.contains("into 'color_1x'")
            && e.contains("a colour resolve averages the samples and takes no mode ('min' given)"),
        "{e}"
    );
    let e = error_of(
        &frame_text(
            "",
            r#"{"resource": "depth_1x", "access": "resolve", "from": "msaa_depth"}"#,
        )
        .replace(
            r#""access": "depth_write", "clear": true}"#,
            r#""access": "depth_write", "clear": true, "mode": "max"}"#,
        ),
    );
    assert!(
        e.contains("'draw'")
            && e.contains("'msaa_depth'")
            && e.contains("a resolve mode (max) on a depth_write use"),
        "{e}"
    );
    // An unknown mode is a parse error that lists the modes.
    let e = error_of(&frame_text(
        "",
        r#"{"resource": "depth_1x", "access": "resolve", "from": "msaa_depth", "mode": "median"}"#,
    ));
    assert!(e.contains("median") && e.contains("sample_zero"), "{e}");
}

#[test]
fn a_depth_resolve_reads_the_passes_own_depth_attachment_once() {
    // The source is not the pass's depth attachment: another multisampled depth image.
    let mut g = depth_resolve_frame(None);
    let other = g.image(
        "other_depth",
        ImageDesc::new(Format::D32_SFLOAT, 64, 32).samples(4),
    );
    let draw = g.find_pass("draw").expect("draw");
    let d1 = g.find_resource("depth_1x").expect("depth_1x");
    for u in &mut g.passes[draw.index()].uses {
        if u.resource == d1 {
            u.from = Some(other);
        }
    }
    let e = compile(&g, &mali(), &CompileOptions::ALL)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("resolves 'other_depth'")
            && e.contains("not otherwise used by the pass")
            && e.contains("the same pass's depth/stencil attachment"),
        "{e}"
    );
    // Two depth resolves in one pass.
    let mut g = depth_resolve_frame(None);
    let second = g.image("depth_again", ImageDesc::new(Format::D32_SFLOAT, 64, 32));
    g.resource_mut(second).output = true;
    let depth = g.find_resource("msaa_depth").expect("msaa_depth");
    let draw = g.find_pass("draw").expect("draw");
    g.passes[draw.index()].uses.push(tessera_graph::Use {
        from: Some(depth),
        ..tessera_graph::Use::new(second, Access::Resolve)
    });
    let e = compile(&g, &mali(), &CompileOptions::ALL)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("into 'depth_again'")
            && e.contains("already resolved into 'depth_1x'")
            && e.contains("a pass has one depth/stencil resolve"),
        "{e}"
    );
    // A colour image resolved into a depth target: formats differ.
    let mut g = depth_resolve_frame(None);
    let colour = g.find_resource("msaa_color").expect("msaa_color");
    let d1 = g.find_resource("depth_1x").expect("depth_1x");
    let draw = g.find_pass("draw").expect("draw");
    for u in &mut g.passes[draw.index()].uses {
        if u.resource == d1 {
            u.from = Some(colour);
        }
    }
    let e = compile(&g, &mali(), &CompileOptions::ALL)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("a resolve target needs the source's format and extent"),
        "{e}"
    );
}

#[test]
fn a_colour_attachment_resolves_into_one_target_per_pass() {
    let mut g = depth_resolve_frame(None);
    let second = g.image("out_again", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    g.resource_mut(second).output = true;
    let colour = g.find_resource("msaa_color").expect("msaa_color");
    let draw = g.find_pass("draw").expect("draw");
    g.passes[draw.index()].uses.push(tessera_graph::Use {
        from: Some(colour),
        ..tessera_graph::Use::new(second, Access::Resolve)
    });
    let e = compile(&g, &mali(), &CompileOptions::ALL)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("into 'out_again'")
            && e.contains("already resolved into 'out'")
            && e.contains("a colour attachment has one resolve target in a pass"),
        "{e}"
    );
}

#[test]
fn naive_resolves_are_separate_and_cost_at_least_three_times_the_plan() {
    let g = example("tile_msaa_depth");
    let plan = checked(&g, &mali());
    let bw = &plan.bandwidth;
    // Every sample of a 4× attachment, and one 1× image, in bytes.
    let ms = 1920 * 1080 * 4 * 4u64;
    let one = 1920 * 1080 * 4u64;
    // Planned: only the two resolve targets are stored (the samples stay in tile memory).
    assert_eq!((bw.load_bytes, bw.store_bytes), (0, 2 * one));
    // Naive: 'transparent' loads both multisampled attachments and the imported swapchain,
    // and each separate resolve loads its source's samples back.
    assert_eq!(bw.naive_load_bytes, 2 * ms + one + 2 * ms);
    // Naive: both passes store both multisampled attachments, 'transparent' both targets.
    assert_eq!(bw.naive_store_bytes, 4 * ms + 2 * one);
    let (planned, naive) = (
        bw.load_bytes + bw.store_bytes,
        bw.naive_load_bytes + bw.naive_store_bytes,
    );
    assert!(naive >= 3 * planned, "naive {naive} vs planned {planned}");
}

/// Two raster passes on one framebuffer: `a` clears multisampled `m` (and resolves it when
/// `resolve_in_a`), `b` uses it with `b_access`, and resolves it into `out` when asked.
fn two_passes(samples_b: u32, b_access: Access, resolve_in_a: bool, resolve_in_b: bool) -> Graph {
    let mut g = Graph::new("two");
    let m = g.image(
        "m",
        ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32).samples(4),
    );
    let first = g.image("first", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    let other = g.image(
        "other",
        ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32).samples(samples_b),
    );
    for r in [first, out, other] {
        g.resource_mut(r).output = true;
    }
    let a = g.raster("a").clears(m, Access::ColorWrite);
    if resolve_in_a {
        a.resolves(first, m);
    }
    let b = g
        .raster("b")
        .uses(m, b_access)
        .uses(other, Access::ColorWriteAll);
    if resolve_in_b {
        b.resolves(out, m);
    }
    g
}

fn the_break(plan: &Plan) -> &str {
    assert_eq!(plan.breaks.len(), 1, "{:?}", plan.breaks);
    &plan.breaks[0].reason
}

#[test]
fn different_sample_counts_break_and_say_why() {
    let plan = checked(&two_passes(1, Access::Sampled, true, false), &mali());
    let reason = the_break(&plan);
    assert!(
        reason.contains("sample count differs: 'b' uses 1 samples, the render pass 4")
            && reason.contains("the subpasses of a render pass share one sample count"),
        "{reason}"
    );
}

#[test]
fn the_tile_budget_counts_every_sample() {
    // 4× RGBA16F is 256 bits per pixel: alone it fits mali's 256, with a second attachment
    // it does not.
    let mut g = Graph::new("budget");
    let hdr = g.image(
        "hdr",
        ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 32).samples(4),
    );
    let mask = g.image("mask", ImageDesc::new(Format::R8_UNORM, 64, 32).samples(4));
    let out = g.image("out", ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 32));
    g.resource_mut(out).output = true;
    let mask_1x = g.image("mask_1x", ImageDesc::new(Format::R8_UNORM, 64, 32));
    g.resource_mut(mask_1x).output = true;
    g.raster("a")
        .clears(hdr, Access::ColorWrite)
        .resolves(out, hdr);
    g.raster("b")
        .clears(mask, Access::ColorWrite)
        .resolves(mask_1x, mask);
    let plan = checked(&g, &mali());
    let reason = the_break(&plan);
    assert!(
        reason.contains(
            "tile storage: colour attachments would need 288 bits per pixel ('hdr' 256 (64 × 4 samples) + 'mask' 32 (8 × 4 samples)), over the device's 256"
        ),
        "{reason}"
    );
    // Without a budget they merge.
    let plan = checked(&g, &Capabilities::desktop());
    assert_eq!(plan.render_passes.len(), 1, "{:?}", plan.breaks);
}

#[test]
fn a_write_after_an_earlier_subpass_resolved_the_source_breaks_the_merge() {
    let plan = checked(&two_passes(4, Access::ColorReadWrite, true, true), &mali());
    let reason = the_break(&plan);
    assert!(
        reason.contains("'b' writes 'm' (color_read_write) after subpass 'a' resolved it")
            && reason.contains("a resolve happens at the end of the subpass that declares it"),
        "{reason}"
    );
    // Reading it after its resolve is fine: one render pass.
    let plan = checked(
        &two_passes(4, Access::InputAttachment, true, false),
        &mali(),
    );
    assert_eq!(plan.render_passes.len(), 1, "{:?}", plan.breaks);
}

#[test]
fn a_multisampled_input_attachment_keeps_one_render_pass() {
    // 'a' writes multisampled 'm' and 'd'; 'b' reads the samples of 'm' as an input
    // attachment, tests 'd', writes multisampled 'lit' and resolves 'lit' and 'd' on
    // write-back: one render pass, and 'm' and 'd' never leave tile memory on mali.
    let mut g = Graph::new("ms_input");
    let ms = |f| ImageDesc::new(f, 64, 32).samples(4);
    let m = g.image("m", ms(Format::R8G8B8A8_UNORM));
    let d = g.image("d", ms(Format::D32_SFLOAT));
    let lit = g.image("lit", ms(Format::R8G8B8A8_UNORM));
    let out = g.image("out", ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32));
    let d_1x = g.image("d_1x", ImageDesc::new(Format::D32_SFLOAT, 64, 32));
    g.resource_mut(out).output = true;
    g.resource_mut(d_1x).output = true;
    g.raster("a")
        .clears(m, Access::ColorWrite)
        .clears(d, Access::DepthWrite);
    g.raster("b")
        .uses(m, Access::InputAttachment)
        .uses(d, Access::DepthRead)
        .clears(lit, Access::ColorWrite)
        .resolves(out, lit)
        .resolves_depth(d_1x, d, ResolveMode::Min);
    let plan = checked(&g, &mali());
    assert_eq!(plan.render_passes.len(), 1, "{:?}", plan.breaks);
    for name in ["m", "d", "lit"] {
        let a = attachment(&plan, name);
        assert!(a.memoryless, "{a:?}");
        assert_eq!((a.load_op, a.store_op), (LoadOp::Clear, StoreOp::DontCare));
    }
    assert_eq!(attachment(&plan, "d").resolve_mode, Some(ResolveMode::Min));
    assert_eq!(
        attachment(&plan, "lit").resolve_target.as_deref(),
        Some("out")
    );
    assert!(
        !plan.render_passes[0].dependencies.is_empty(),
        "the input attachment read depends on 'a'"
    );
}

#[test]
fn a_second_resolve_of_one_source_breaks_the_merge() {
    // 'a' resolves the multisampled depth into 'first', 'b' tests it and resolves it into
    // 'second': an attachment has one resolve target per render pass.
    let mut g = Graph::new("twice");
    let d = g.image("d", ImageDesc::new(Format::D32_SFLOAT, 64, 32).samples(4));
    let c = g.image(
        "c",
        ImageDesc::new(Format::R8G8B8A8_UNORM, 64, 32).samples(4),
    );
    let first = g.image("first", ImageDesc::new(Format::D32_SFLOAT, 64, 32));
    let second = g.image("second", ImageDesc::new(Format::D32_SFLOAT, 64, 32));
    g.resource_mut(first).output = true;
    g.resource_mut(second).output = true;
    g.raster("a")
        .clears(d, Access::DepthWrite)
        .resolves_depth(first, d, ResolveMode::Max);
    g.raster("b")
        .uses(d, Access::DepthRead)
        .clears(c, Access::ColorWrite)
        .side_effects()
        .resolves(second, d);
    let plan = checked(&g, &mali());
    let reason = the_break(&plan);
    assert!(
        reason.contains("'b' resolves 'd' again after subpass 'a' resolved it"),
        "{reason}"
    );
    assert_eq!(
        attachment(&plan, "d").resolve_target.as_deref(),
        Some("first")
    );
}

#[test]
fn the_report_names_depth_resolves_with_their_mode() {
    let plan = checked(&example("tile_msaa_depth"), &mali());
    let text = tessera_graph::report::Report {
        plan: &plan,
        name: "tile_msaa_depth",
    }
    .to_string();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name} in:\n{text}"))
            .to_string()
    };
    assert!(
        line("msaa_depth").ends_with("resolve -> depth_1x (sample_zero)"),
        "{text}"
    );
    assert!(
        line("msaa_color").ends_with("resolve -> swapchain"),
        "{text}"
    );
}
