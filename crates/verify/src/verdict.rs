//! What a capture must contain for a plan, and every way it does not.
//!
//! The plan's render passes are matched, in order, with the capture's render-pass begins.
//! For each: the `VkRenderPass` begun was created with the planned subpass, attachment and
//! dependency counts, each attachment's format, samples, load/store ops (stencil too) and
//! layouts, and each subpass references exactly the attachments its pass uses, in the right
//! role (input, colour, resolve, depth/stencil, depth/stencil resolve and its mode); the
//! render pass, its framebuffer and the
//! labels of its subpasses carry the plan's names. Then: every kept pass has one debug label,
//! recorded in plan order on its command buffer; every image, buffer, render pass and
//! framebuffer has a debug name, and every transient resource of the plan (placed in a
//! memory block, or memoryless) the name the frame gives it.
//!
//! Memoryless attachments under RenderDoc: the capture records the usage the application
//! asked for, so a memoryless attachment must have been created with
//! `TRANSIENT_ATTACHMENT`, and its ops must keep it in tile memory (no `LOAD`, a `DONT_CARE`
//! store). What RenderDoc did to it for its own capture (ordinary memory, transfer usage,
//! another size) is noted, not reported. Expected store ops follow the one rule the Vulkan
//! spec leaves open: an attachment no subpass writes is recorded with `STORE_OP_NONE`,
//! whatever was planned, since a store or don't-care would be a write the plan's hazards
//! do not know about.
//!
//! Cost: linear in the capture's facts and the plan's attachments.

use crate::facts::{AttachmentFacts, BeginFacts, CaptureFacts, RenderPassFacts, SubpassFacts};
use std::collections::HashMap;
use tessera_graph::plan::{LoadOp, RenderPass, StoreOp};
use tessera_graph::{Access, Graph, Plan, ResolveMode};

/// The result of holding a capture against its plan.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    /// One row per planned render pass, in plan order.
    pub render_passes: Vec<RenderPassRow>,
    /// Kept passes of the plan, and how many of them have their label in the capture.
    pub labels: (usize, usize),
    /// Transient resources of the plan, and how many of them carry their name.
    pub transient_names: (usize, usize),
    /// Every difference, each naming its render pass (and attachment or subpass).
    pub differences: Vec<String>,
    /// What was accounted for instead of being reported (RenderDoc's own changes).
    pub notes: Vec<String>,
}

impl Verdict {
    /// True when the capture has exactly what the plan says.
    pub fn passed(&self) -> bool {
        self.differences.is_empty()
    }
}

/// One planned render pass as found in the capture.
#[derive(Clone, Debug, Default)]
pub struct RenderPassRow {
    /// Its subpasses (pass names), in order.
    pub subpasses: Vec<String>,
    /// Subpasses the capture's render pass has (`None`: not begun or not created).
    pub captured_subpasses: Option<u64>,
    /// Its attachments.
    pub attachments: Vec<AttachmentRow>,
    /// Differences about this render pass.
    pub differences: usize,
}

/// One attachment: planned and captured ops, short names (`CLEAR`, `STORE`, `NONE`).
#[derive(Clone, Debug, Default)]
pub struct AttachmentRow {
    /// The resource.
    pub resource: String,
    /// Planned load op, as recorded.
    pub load: &'static str,
    /// Planned store op, as recorded (`NONE` when no subpass writes it).
    pub store: &'static str,
    /// Captured (load, store), when the capture has this attachment.
    pub captured: Option<(String, String)>,
    /// The plan keeps it in tile memory.
    pub memoryless: bool,
    /// No difference about this attachment.
    pub ok: bool,
}

/// `VkAttachmentLoadOp` of a planned load op.
fn vk_load(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Load => "VK_ATTACHMENT_LOAD_OP_LOAD",
        LoadOp::Clear => "VK_ATTACHMENT_LOAD_OP_CLEAR",
        LoadOp::DontCare => "VK_ATTACHMENT_LOAD_OP_DONT_CARE",
    }
}

/// `VkAttachmentStoreOp` of a planned store op on an attachment some subpass writes
/// (`written`), else `NONE`.
fn vk_store(op: StoreOp, written: bool) -> &'static str {
    match (op, written) {
        (_, false) => "VK_ATTACHMENT_STORE_OP_NONE",
        (StoreOp::Store, true) => "VK_ATTACHMENT_STORE_OP_STORE",
        (StoreOp::DontCare, true) => "VK_ATTACHMENT_STORE_OP_DONT_CARE",
    }
}

/// Store-op names are equal up to RenderDoc's spelling of NONE (`_NONE`, `_NONE_KHR`, ...).
fn same_store(captured: &str, expected: &str) -> bool {
    captured == expected
        || (expected == "VK_ATTACHMENT_STORE_OP_NONE"
            && captured.starts_with("VK_ATTACHMENT_STORE_OP_NONE"))
}

/// An op without its enum prefix and vendor suffix: `CLEAR`, `DONT_CARE`, `NONE`.
pub fn short_op(name: &str) -> String {
    let s = name
        .trim_start_matches("VK_ATTACHMENT_LOAD_OP_")
        .trim_start_matches("VK_ATTACHMENT_STORE_OP_");
    match s.strip_prefix("NONE") {
        Some(_) => "NONE".into(),
        None => s.to_string(),
    }
}

const TRANSIENT: &str = "VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT";

/// Holds the capture's `facts` against `plan`, compiled from `graph`.
pub fn verify(graph: &Graph, plan: &Plan, facts: &CaptureFacts) -> Verdict {
    let mut v = Verdict::default();
    if facts.begins.len() != plan.render_passes.len() {
        v.differences.push(format!(
            "{} render passes begun in the capture, {} planned",
            facts.begins.len(),
            plan.render_passes.len()
        ));
    }
    for (k, rp) in plan.render_passes.iter().enumerate() {
        let row = render_pass(graph, k, rp, facts.begins.get(k), facts, &mut v);
        v.render_passes.push(row);
    }
    labels(plan, facts, &mut v);
    names(graph, plan, facts, &mut v);
    let memoryless = plan
        .render_passes
        .iter()
        .flat_map(|rp| rp.attachments.iter())
        .filter(|a| a.memoryless)
        .count();
    if memoryless > 0 {
        v.notes.push(format!(
            "{memoryless} memoryless attachments: checked by the usage they were created with \
             (TRANSIENT_ATTACHMENT) and by their load/store ops; RenderDoc captures them as \
             ordinary images (it removes that usage and adds transfer usage), so their memory \
             types and sizes are not compared"
        ));
    }
    let unwritten = v
        .render_passes
        .iter()
        .flat_map(|rp| rp.attachments.iter())
        .filter(|a| a.store == "VK_ATTACHMENT_STORE_OP_NONE")
        .count();
    if unwritten > 0 {
        v.notes.push(format!(
            "{unwritten} attachments no subpass writes are expected with STORE_OP_NONE, \
             whatever store op was planned (the executor never adds a write the plan's \
             hazards do not know about)"
        ));
    }
    v
}

/// `render pass K [a, b]`, the place every difference about a render pass starts with.
fn place(k: usize, rp: &RenderPass) -> String {
    let names: Vec<&str> = rp.subpasses.iter().map(|s| s.as_str()).collect();
    format!("render pass {k} [{}]", names.join(", "))
}

fn render_pass(
    graph: &Graph,
    k: usize,
    rp: &RenderPass,
    begin: Option<&BeginFacts>,
    facts: &CaptureFacts,
    v: &mut Verdict,
) -> RenderPassRow {
    let before = v.differences.len();
    let what = place(k, rp);
    let names: Vec<String> = rp.subpasses.iter().map(|s| s.to_string()).collect();
    let written = |resource: &str| {
        names.iter().any(|s| {
            graph.find_pass(s).is_some_and(|p| {
                graph
                    .pass(p)
                    .uses
                    .iter()
                    .any(|u| u.access.writes() && &*graph.resource(u.resource).name == resource)
            })
        })
    };
    let mut row = RenderPassRow {
        subpasses: names.clone(),
        captured_subpasses: None,
        attachments: rp
            .attachments
            .iter()
            .map(|a| AttachmentRow {
                resource: a.resource.to_string(),
                load: vk_load(a.load_op),
                store: vk_store(a.store_op, written(&a.resource)),
                captured: None,
                memoryless: a.memoryless,
                ok: false,
            })
            .collect(),
        differences: 0,
    };
    let created = begin.and_then(|b| facts.render_passes.get(&b.render_pass).map(|c| (b, c)));
    let Some((begin, c)) = created else {
        v.differences.push(match begin {
            None => format!("{what}: not begun in the capture"),
            Some(_) => format!("{what}: its VkRenderPass is not created in the capture"),
        });
        row.differences = v.differences.len() - before;
        return row;
    };
    row.captured_subpasses = Some(c.subpass_count);
    object_names(&what, &names, begin, facts, v);
    counts(&what, rp, c, v);
    for (i, a) in rp.attachments.iter().enumerate() {
        let at = format!("{what}, attachment '{}'", a.resource);
        let got = c.attachments.get(i);
        let n = v.differences.len();
        match got {
            Some(got) => {
                attachment(graph, &at, a, &row.attachments[i], got, v);
                memoryless(&at, i, a, got, begin, facts, v);
                row.attachments[i].captured =
                    Some((short_op(&got.load_op), short_op(&got.store_op)));
            }
            None => v
                .differences
                .push(format!("{at}: missing from the captured render pass")),
        }
        row.attachments[i].ok = v.differences.len() == n;
    }
    subpasses(graph, &what, rp, c, v);
    resolve_targets(&what, rp, c, v);
    for (j, labels) in begin.labels.iter().enumerate().skip(rp.subpasses.len()) {
        v.differences.push(format!(
            "{what}: the capture has a subpass {j} (labelled {labels:?}) the plan does not"
        ));
    }
    let labels: Vec<Vec<String>> = names.iter().map(|s| vec![s.clone()]).collect();
    if begin.labels != labels {
        v.differences.push(format!(
            "{what}: debug labels per subpass {:?}, planned {labels:?}",
            begin.labels
        ));
    }
    row.differences = v.differences.len() - before;
    row
}

/// The render pass and framebuffer begun carry the plan's names, and belong together.
fn object_names(
    what: &str,
    names: &[String],
    begin: &BeginFacts,
    facts: &CaptureFacts,
    v: &mut Verdict,
) {
    let list = names.join(", ");
    for (kind, id) in [
        ("render pass", begin.render_pass),
        ("framebuffer", begin.framebuffer),
    ] {
        let expected = format!("{kind} [{list}]");
        match facts.names.get(&id) {
            Some(name) if *name == expected => {}
            Some(name) => v.differences.push(format!(
                "{what}: {kind} debug name {name:?}, expected {expected:?}"
            )),
            None => v.differences.push(format!(
                "{what}: the {kind} has no debug name, expected {expected:?}"
            )),
        }
    }
    if facts.framebuffers.get(&begin.framebuffer) != Some(&begin.render_pass) {
        v.differences.push(format!(
            "{what}: the framebuffer begun was not created for this render pass"
        ));
    }
}

/// Subpass, attachment and dependency counts, and the dependencies themselves.
fn counts(what: &str, rp: &RenderPass, c: &RenderPassFacts, v: &mut Verdict) {
    let captured = (c.subpass_count, c.attachment_count, c.dependency_count);
    let planned = (
        rp.subpasses.len() as u64,
        rp.attachments.len() as u64,
        rp.dependencies.len() as u64,
    );
    if captured != planned {
        v.differences.push(format!(
            "{what}: (subpasses, attachments, dependencies) {captured:?} in the capture, planned {planned:?}"
        ));
    }
    let deps: Vec<(u64, u64, bool)> = rp
        .dependencies
        .iter()
        .map(|x| {
            (
                u64::from(x.src_subpass),
                u64::from(x.dst_subpass),
                x.by_region,
            )
        })
        .collect();
    if c.dependencies != deps {
        v.differences.push(format!(
            "{what}: dependencies (src, dst, by region) {:?}, planned {deps:?}",
            c.dependencies
        ));
    }
}

/// One attachment description against the plan.
fn attachment(
    graph: &Graph,
    at: &str,
    a: &tessera_graph::plan::Attachment,
    row: &AttachmentRow,
    got: &AttachmentFacts,
    v: &mut Verdict,
) {
    let format = graph
        .find_resource(&a.resource)
        .and_then(|r| graph.resource(r).image_desc().map(|d| d.format));
    let Some(format) = format else {
        v.differences
            .push(format!("{at}: not an image of the frame"));
        return;
    };
    let mut check = |field: &str, got: &str, expected: &str, same: bool| {
        if !same {
            v.differences
                .push(format!("{at}: {field} {got}, planned {expected}"));
        }
    };
    let fmt = format!("VK_FORMAT_{}", format.name());
    check("format", &got.format, &fmt, got.format == fmt);
    let samples = format!("VK_SAMPLE_COUNT_{}_BIT", a.samples);
    check("samples", &got.samples, &samples, got.samples == samples);
    check("loadOp", &got.load_op, row.load, got.load_op == row.load);
    let same = same_store(&got.store_op, row.store);
    check("storeOp", &got.store_op, row.store, same);
    // The stencil aspect follows the planned ops; formats without one don't care.
    let (sload, sstore) = if format.has_stencil() {
        (row.load, row.store)
    } else {
        (
            "VK_ATTACHMENT_LOAD_OP_DONT_CARE",
            "VK_ATTACHMENT_STORE_OP_DONT_CARE",
        )
    };
    let same = got.stencil_load_op == sload;
    check("stencilLoadOp", &got.stencil_load_op, sload, same);
    let same = same_store(&got.stencil_store_op, sstore);
    check("stencilStoreOp", &got.stencil_store_op, sstore, same);
    let init = format!("VK_IMAGE_LAYOUT_{}", a.initial_layout);
    let same = got.initial_layout == init;
    check("initialLayout", &got.initial_layout, &init, same);
    let fin = format!("VK_IMAGE_LAYOUT_{}", a.final_layout);
    check(
        "finalLayout",
        &got.final_layout,
        &fin,
        got.final_layout == fin,
    );
}

/// A memoryless attachment stays in tile memory: created `TRANSIENT_ATTACHMENT`, never
/// loaded, never stored; an ordinary one is not transient.
fn memoryless(
    at: &str,
    index: usize,
    a: &tessera_graph::plan::Attachment,
    got: &AttachmentFacts,
    begin: &BeginFacts,
    facts: &CaptureFacts,
    v: &mut Verdict,
) {
    let image = facts
        .framebuffer_image(begin.framebuffer, index)
        .or_else(|| named_object(&facts.images, &a.resource, facts));
    let usage = image.and_then(|i| facts.image_usage.get(&i));
    let transient = usage.map(|u| u.contains(TRANSIENT));
    if a.memoryless {
        if got.load_op == "VK_ATTACHMENT_LOAD_OP_LOAD" {
            v.differences.push(format!(
                "{at}: memoryless but loaded (VK_ATTACHMENT_LOAD_OP_LOAD reads it from memory)"
            ));
        }
        if got.store_op != "VK_ATTACHMENT_STORE_OP_DONT_CARE" {
            v.differences.push(format!(
                "{at}: memoryless but stored ({}): only DONT_CARE keeps it in tile memory",
                got.store_op
            ));
        }
        if transient == Some(false) {
            v.differences.push(format!(
                "{at}: memoryless but its image was created without TRANSIENT_ATTACHMENT usage"
            ));
        }
    } else if transient == Some(true) {
        v.differences.push(format!(
            "{at}: created with TRANSIENT_ATTACHMENT usage, but the plan keeps it in memory"
        ));
    }
    if usage.is_none() {
        v.differences.push(format!(
            "{at}: no image of this name is created in the capture"
        ));
    }
}

/// The object among `ids` (the capture's images or buffers) that the capture names `name`.
fn named_object(ids: &[u64], name: &str, facts: &CaptureFacts) -> Option<u64> {
    ids.iter()
        .copied()
        .find(|i| facts.names.get(i).is_some_and(|n| n == name))
}

/// Each subpass references the attachments its pass uses, in the right role.
fn subpasses(graph: &Graph, what: &str, rp: &RenderPass, c: &RenderPassFacts, v: &mut Verdict) {
    let slot_name = |slot: &u64| {
        rp.attachments
            .get(*slot as usize)
            .map_or_else(|| format!("#{slot}"), |a| a.resource.to_string())
    };
    let sorted_names = |slots: &[u64]| {
        let mut v: Vec<String> = slots.iter().map(slot_name).collect();
        v.sort();
        v
    };
    let empty = SubpassFacts::default();
    for (j, name) in rp.subpasses.iter().enumerate() {
        let Some(pass) = graph.find_pass(name) else {
            v.differences.push(format!(
                "{what}: subpass {j} '{name}' is not a pass of the frame"
            ));
            continue;
        };
        let got = c.subpasses.get(j).unwrap_or(&empty);
        let uses = |f: &dyn Fn(&tessera_graph::graph::Use) -> bool| {
            let mut v: Vec<String> = graph
                .pass(pass)
                .uses
                .iter()
                .filter(|u| f(u))
                .map(|u| graph.resource(u.resource).name.to_string())
                .collect();
            v.sort();
            v
        };
        // Resolves into a depth/stencil image are the subpass's depth/stencil resolve, the
        // others its colour resolves.
        let resolves = |depth: bool| {
            uses(&|u| u.access == Access::Resolve && is_depth(graph, u.resource) == depth)
        };
        let roles = [
            (
                "input attachments",
                sorted_names(&got.input),
                uses(&|u| u.access == Access::InputAttachment),
            ),
            (
                "colour attachments",
                sorted_names(&got.color),
                uses(&|u| {
                    matches!(
                        u.access,
                        Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite
                    )
                }),
            ),
            (
                "resolve attachments",
                sorted_names(&got.resolve),
                resolves(false),
            ),
            (
                "depth/stencil resolve attachment",
                sorted_names(got.depth_resolve.as_slice()),
                resolves(true),
            ),
            (
                "depth/stencil attachment",
                sorted_names(got.depth.as_slice()),
                uses(&|u| matches!(u.access, Access::DepthWrite | Access::DepthRead)),
            ),
        ];
        for (kind, got, expected) in roles {
            if got != expected {
                v.differences.push(format!(
                    "{what}: subpass {j} '{name}' {kind} {got:?} in the capture, its pass uses {expected:?}"
                ));
            }
        }
        depth_resolve_mode(graph, what, (j, name), rp, got, v);
    }
}

/// The render pass resolves on write-back into exactly the images the plan names as
/// resolve targets of its multisampled attachments (colour and depth/stencil alike).
fn resolve_targets(what: &str, rp: &RenderPass, c: &RenderPassFacts, v: &mut Verdict) {
    let mut planned: Vec<String> = rp
        .attachments
        .iter()
        .filter_map(|a| a.resolve_target.as_ref().map(|t| t.to_string()))
        .collect();
    let mut got: Vec<String> = c
        .subpasses
        .iter()
        .flat_map(|s| s.resolve.iter().chain(s.depth_resolve.as_slice()))
        .map(|&slot| {
            rp.attachments
                .get(slot as usize)
                .map_or_else(|| format!("#{slot}"), |a| a.resource.to_string())
        })
        .collect();
    planned.sort();
    got.sort();
    if planned != got {
        v.differences.push(format!(
            "{what}: resolves on write-back into {got:?} in the capture, planned {planned:?}"
        ));
    }
}

/// True when `resource` is a depth/stencil image.
fn is_depth(graph: &Graph, resource: tessera_graph::graph::ResourceId) -> bool {
    graph
        .resource(resource)
        .image_desc()
        .is_some_and(|d| d.format.is_depth_stencil())
}

/// A subpass that resolves depth on write-back does it in the planned mode: the one on the
/// multisampled depth attachment of the plan (`sample_zero` where the plan names none).
fn depth_resolve_mode(
    graph: &Graph,
    what: &str,
    (j, name): (usize, &str),
    rp: &RenderPass,
    got: &SubpassFacts,
    v: &mut Verdict,
) {
    let Some(pass) = graph.find_pass(name) else {
        return;
    };
    let resolve = graph
        .pass(pass)
        .uses
        .iter()
        .find(|u| u.access == Access::Resolve && is_depth(graph, u.resource));
    let Some(u) = resolve else { return };
    let source = u.from.map(|f| graph.resource(f).name.to_string());
    let planned = rp
        .attachments
        .iter()
        .find(|a| Some(a.resource.to_string()) == source)
        .and_then(|a| a.resolve_mode)
        .unwrap_or(ResolveMode::SampleZero);
    let expected = format!("VK_RESOLVE_MODE_{}_BIT", planned.name().to_uppercase());
    if got.depth_resolve.is_some() && got.depth_resolve_mode != expected {
        v.differences.push(format!(
            "{what}: subpass {j} '{name}' resolves depth with {} in the capture, planned {expected}",
            got.depth_resolve_mode
        ));
    }
}

/// Every kept pass has exactly one label, and each command buffer records its labels in
/// plan order.
fn labels(plan: &Plan, facts: &CaptureFacts, v: &mut Verdict) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, l) in &facts.labels {
        *count.entry(l.as_str()).or_default() += 1;
    }
    let mut found = 0;
    for p in plan.order.iter() {
        match count.get(p.as_str()).copied().unwrap_or(0) {
            0 => v.differences.push(format!(
                "pass '{p}' of the plan has no debug label in the capture"
            )),
            1 => found += 1,
            n => v
                .differences
                .push(format!("pass '{p}' is labelled {n} times in the capture")),
        }
    }
    v.labels = (plan.order.len(), found);
    for l in count.keys() {
        if !plan.order.iter().any(|p| p.as_str() == *l) {
            v.differences.push(format!(
                "the capture labels '{l}', which is not a pass of the plan"
            ));
        }
    }
    let position = |l: &str| plan.order.iter().position(|p| p.as_str() == l);
    let mut last: HashMap<u64, usize> = HashMap::new();
    for (cmd, l) in &facts.labels {
        let Some(p) = position(l) else { continue };
        if last.get(cmd).is_some_and(|&q| q > p) {
            v.differences.push(format!(
                "label '{l}' is recorded after a later pass of the plan"
            ));
        }
        last.insert(*cmd, p);
    }
}

/// Debug names: on every object the plan speaks about, and on every transient resource.
fn names(graph: &Graph, plan: &Plan, facts: &CaptureFacts, v: &mut Verdict) {
    let objects = facts
        .images
        .iter()
        .map(|i| ("image", i))
        .chain(facts.buffers.iter().map(|b| ("buffer", b)))
        .chain(facts.render_passes.keys().map(|r| ("render pass", r)))
        .chain(facts.framebuffers.keys().map(|r| ("framebuffer", r)));
    for (kind, id) in objects {
        if facts.names.get(id).is_none_or(|n| n.is_empty()) {
            v.differences
                .push(format!("{kind} {id} of the capture has no debug name"));
        }
    }
    let mut transient: Vec<&str> = plan
        .memory
        .blocks
        .iter()
        .flat_map(|b| b.placements.iter().map(|p| p.resource.as_str()))
        .chain(
            plan.render_passes
                .iter()
                .flat_map(|rp| rp.attachments.iter())
                .filter(|a| a.memoryless)
                .map(|a| a.resource.as_str()),
        )
        .collect();
    transient.sort_unstable();
    transient.dedup();
    let mut named = 0;
    for name in &transient {
        let is_buffer = graph
            .find_resource(name)
            .is_some_and(|r| graph.resource(r).image_desc().is_none());
        let (kind, list) = if is_buffer {
            ("buffer", &facts.buffers)
        } else {
            ("image", &facts.images)
        };
        if named_object(list, name, facts).is_some() {
            named += 1;
        } else {
            v.differences.push(format!(
                "transient {kind} '{name}': no {kind} of that name in the capture"
            ));
        }
    }
    v.transient_names = (transient.len(), named);
}
