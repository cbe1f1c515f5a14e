//! Reading a RenderDoc capture back and holding it against the plan that was run.
//!
//! [`convert`] turns an `.rdc` file into RenderDoc's XML (`renderdoccmd convert -c xml`),
//! which lists every recorded call with its parameters. [`parse`] walks its `<chunk>`
//! elements once, in order, and keeps the facts the plan speaks about: each created render
//! pass (attachment descriptions, subpass and dependency counts, the attachments each subpass
//! references as input, colour, resolve and depth/stencil, dependencies), framebuffers,
//! images and buffers, the debug-utils names given to objects, and the command stream's
//! render-pass begins, subpass steps and debug labels. [`compare`] derives, independently of
//! the executor's code, what the capture must contain for a plan and lists every difference;
//! an empty list means the GPU got exactly the render passes and load/store ops planned.
//!
//! Cost: one pass over the XML (a few hundred kilobytes for the example frames).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use tessera_graph::plan::{LoadOp, StoreOp};
use tessera_graph::{Access, Graph, Plan};

/// One `VkAttachmentDescription(2)` as captured: each field's Vulkan enum name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttachmentFacts {
    pub format: String,
    pub samples: String,
    pub load_op: String,
    pub store_op: String,
    pub stencil_load_op: String,
    pub stencil_store_op: String,
    pub initial_layout: String,
    pub final_layout: String,
}

/// One `vkCreateRenderPass(2)` call.
#[derive(Clone, Debug, Default)]
pub struct RenderPassFacts {
    pub attachment_count: u64,
    pub subpass_count: u64,
    pub dependency_count: u64,
    pub attachments: Vec<AttachmentFacts>,
    /// (srcSubpass, dstSubpass, BY_REGION) per dependency.
    pub dependencies: Vec<(u64, u64, bool)>,
    pub subpasses: Vec<SubpassFacts>,
}

/// One `VkSubpassDescription(2)`: the attachment slots it references.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SubpassFacts {
    pub input: Vec<u64>,
    pub color: Vec<u64>,
    /// Used resolve references (`VK_ATTACHMENT_UNUSED` left out).
    pub resolve: Vec<u64>,
    pub depth: Option<u64>,
}

/// `VK_ATTACHMENT_UNUSED`.
const UNUSED: u64 = u32::MAX as u64;

/// The `attachment` of each reference in the array field `name` of `n`.
fn refs(n: Node<'_>, name: &str) -> Vec<u64> {
    field(n, name)
        .map(|a| {
            a.children()
                .filter(|c| c.has_tag_name("struct"))
                .map(|r| number(field(r, "attachment")))
                .filter(|&a| a != UNUSED)
                .collect()
        })
        .unwrap_or_default()
}

/// One `vkCmdBeginRenderPass(2)` with what was recorded until its end.
#[derive(Clone, Debug, Default)]
pub struct BeginFacts {
    pub render_pass: u64,
    pub framebuffer: u64,
    /// Debug labels begun in each subpass.
    pub labels: Vec<Vec<String>>,
}

/// What a capture says about the frame.
#[derive(Clone, Debug, Default)]
pub struct CaptureFacts {
    pub render_passes: HashMap<u64, RenderPassFacts>,
    /// Framebuffer id -> the render pass it was created with.
    pub framebuffers: HashMap<u64, u64>,
    pub images: Vec<u64>,
    pub buffers: Vec<u64>,
    /// Object id -> its `vkSetDebugUtilsObjectNameEXT` name.
    pub names: HashMap<u64, String>,
    /// Render-pass begins in command order.
    pub begins: Vec<BeginFacts>,
    /// Every `vkCmdBeginDebugUtilsLabelEXT`: (command buffer, label), in command order.
    pub labels: Vec<(u64, String)>,
}

/// Converts `rdc` to XML with `renderdoccmd` and returns the XML. Panics with what to
/// install when `renderdoccmd` is missing: a test must not pass without looking.
pub fn convert(rdc: &Path) -> String {
    let xml = rdc.with_extension("xml");
    let out = Command::new("renderdoccmd")
        .arg("convert")
        .arg("-f")
        .arg(rdc)
        .arg("-o")
        .arg(&xml)
        .args(["-c", "xml"])
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "renderdoccmd is needed to read RenderDoc captures and could not be run ({e}): \
                 install RenderDoc (Debian: apt-get install renderdoc; scripts/test.sh does)"
            )
        });
    assert!(
        out.status.success(),
        "renderdoccmd convert {} failed: {}{}",
        rdc.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&xml).unwrap_or_else(|e| panic!("{}: {e}", xml.display()))
}

type Node<'a> = roxmltree::Node<'a, 'a>;

/// The child element whose `name` attribute is `name`.
fn field<'a>(n: Node<'a>, name: &str) -> Option<Node<'a>> {
    n.children()
        .find(|c| c.is_element() && c.attribute("name") == Some(name))
}

fn text(n: Option<Node<'_>>) -> String {
    n.and_then(|n| n.text())
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn number(n: Option<Node<'_>>) -> u64 {
    text(n).parse().unwrap_or(u64::MAX)
}

/// An enum field's Vulkan name (`string` attribute).
fn enum_name(n: Node<'_>, name: &str) -> String {
    field(n, name)
        .and_then(|f| f.attribute("string"))
        .unwrap_or_default()
        .to_string()
}

/// Reads the facts out of RenderDoc's XML.
pub fn parse(xml: &str) -> Result<CaptureFacts, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("capture XML: {e}"))?;
    let mut f = CaptureFacts::default();
    // The open render pass: index into `begins` and current subpass.
    let mut open: Option<(usize, usize)> = None;
    for chunk in doc.descendants().filter(|n| n.has_tag_name("chunk")) {
        let Some(call) = chunk.attribute("name") else {
            continue;
        };
        match call {
            "vkSetDebugUtilsObjectNameEXT" => {
                let id = number(field(chunk, "Object"));
                f.names.insert(id, text(field(chunk, "ObjectName")));
            }
            "vkCreateRenderPass" | "vkCreateRenderPass2" => {
                let info = field(chunk, "CreateInfo").ok_or("render pass without CreateInfo")?;
                let mut rp = RenderPassFacts {
                    attachment_count: number(field(info, "attachmentCount")),
                    subpass_count: number(field(info, "subpassCount")),
                    dependency_count: number(field(info, "dependencyCount")),
                    ..Default::default()
                };
                if let Some(list) = field(info, "pAttachments") {
                    for a in list.children().filter(|c| c.has_tag_name("struct")) {
                        rp.attachments.push(AttachmentFacts {
                            format: enum_name(a, "format"),
                            samples: enum_name(a, "samples"),
                            load_op: enum_name(a, "loadOp"),
                            store_op: enum_name(a, "storeOp"),
                            stencil_load_op: enum_name(a, "stencilLoadOp"),
                            stencil_store_op: enum_name(a, "stencilStoreOp"),
                            initial_layout: enum_name(a, "initialLayout"),
                            final_layout: enum_name(a, "finalLayout"),
                        });
                    }
                }
                if let Some(list) = field(info, "pSubpasses") {
                    for sp in list.children().filter(|c| c.has_tag_name("struct")) {
                        let depth = field(sp, "pDepthStencilAttachment")
                            .filter(|d| d.has_tag_name("struct"))
                            .map(|d| number(field(d, "attachment")))
                            .filter(|&a| a != UNUSED);
                        rp.subpasses.push(SubpassFacts {
                            input: refs(sp, "pInputAttachments"),
                            color: refs(sp, "pColorAttachments"),
                            resolve: refs(sp, "pResolveAttachments"),
                            depth,
                        });
                    }
                }
                if let Some(list) = field(info, "pDependencies") {
                    for d in list.children().filter(|c| c.has_tag_name("struct")) {
                        let flags = field(d, "dependencyFlags")
                            .and_then(|x| x.attribute("string"))
                            .unwrap_or_default();
                        rp.dependencies.push((
                            number(field(d, "srcSubpass")),
                            number(field(d, "dstSubpass")),
                            flags.contains("VK_DEPENDENCY_BY_REGION_BIT"),
                        ));
                    }
                }
                let id = number(field(chunk, "RenderPass"));
                f.render_passes.insert(id, rp);
            }
            "vkCreateFramebuffer" => {
                let info = field(chunk, "CreateInfo").ok_or("framebuffer without CreateInfo")?;
                f.framebuffers.insert(
                    number(field(chunk, "Framebuffer")),
                    number(field(info, "renderPass")),
                );
            }
            "vkCreateImage" => f.images.push(number(field(chunk, "Image"))),
            "vkCreateBuffer" => f.buffers.push(number(field(chunk, "Buffer"))),
            "vkCmdBeginRenderPass" | "vkCmdBeginRenderPass2" => {
                let begin = field(chunk, "RenderPassBegin").ok_or("begin without info")?;
                f.begins.push(BeginFacts {
                    render_pass: number(field(begin, "renderPass")),
                    framebuffer: number(field(begin, "framebuffer")),
                    labels: vec![Vec::new()],
                });
                open = Some((f.begins.len() - 1, 0));
            }
            "vkCmdNextSubpass" | "vkCmdNextSubpass2" => {
                let (b, s) = open.ok_or("vkCmdNextSubpass outside a render pass")?;
                f.begins[b].labels.push(Vec::new());
                open = Some((b, s + 1));
            }
            "vkCmdEndRenderPass" | "vkCmdEndRenderPass2" => open = None,
            "vkCmdBeginDebugUtilsLabelEXT" => {
                let label = text(field(chunk, "Label").and_then(|l| field(l, "pLabelName")));
                let cmd = number(field(chunk, "commandBuffer"));
                if let Some((b, s)) = open {
                    f.begins[b].labels[s].push(label.clone());
                }
                f.labels.push((cmd, label));
            }
            _ => {}
        }
    }
    Ok(f)
}

/// `VkAttachmentLoadOp` name of a planned load op.
fn vk_load(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Load => "VK_ATTACHMENT_LOAD_OP_LOAD",
        LoadOp::Clear => "VK_ATTACHMENT_LOAD_OP_CLEAR",
        LoadOp::DontCare => "VK_ATTACHMENT_LOAD_OP_DONT_CARE",
    }
}

/// `VkAttachmentStoreOp` name of a planned store op on an attachment that some subpass
/// writes. One no subpass writes must keep its content without a write access: the
/// executor records `VK_ATTACHMENT_STORE_OP_NONE` whatever was planned (a plain store or a
/// don't-care would be a write the plan's hazards do not know about).
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

/// Every difference between what `plan` (compiled from `graph`) asks for and what the
/// capture recorded; empty when they agree.
pub fn compare(graph: &Graph, plan: &Plan, f: &CaptureFacts) -> Vec<String> {
    let mut d = Vec::new();
    if f.begins.len() != plan.render_passes.len() {
        d.push(format!(
            "{} render passes begun in the capture, {} planned",
            f.begins.len(),
            plan.render_passes.len()
        ));
    }
    for (k, (rp, begin)) in plan.render_passes.iter().zip(&f.begins).enumerate() {
        let names = rp
            .subpasses
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let what = format!("render pass {k} [{names}]");
        let Some(c) = f.render_passes.get(&begin.render_pass) else {
            d.push(format!(
                "{what}: its VkRenderPass is not created in the capture"
            ));
            continue;
        };
        let expect_name = format!("render pass [{names}]");
        if f.names.get(&begin.render_pass) != Some(&expect_name) {
            d.push(format!(
                "{what}: debug name {:?}, expected {expect_name:?}",
                f.names.get(&begin.render_pass)
            ));
        }
        let expect_fb = format!("framebuffer [{names}]");
        if f.names.get(&begin.framebuffer) != Some(&expect_fb) {
            d.push(format!(
                "{what}: framebuffer debug name {:?}, expected {expect_fb:?}",
                f.names.get(&begin.framebuffer)
            ));
        }
        if f.framebuffers.get(&begin.framebuffer) != Some(&begin.render_pass) {
            d.push(format!(
                "{what}: the framebuffer begun was not created for this render pass"
            ));
        }
        let counts = (c.subpass_count, c.attachment_count, c.dependency_count);
        let planned = (
            rp.subpasses.len() as u64,
            rp.attachments.len() as u64,
            rp.dependencies.len() as u64,
        );
        if counts != planned {
            d.push(format!(
                "{what}: (subpasses, attachments, dependencies) {counts:?}, planned {planned:?}"
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
            d.push(format!(
                "{what}: dependencies (src, dst, by region) {:?}, planned {deps:?}",
                c.dependencies
            ));
        }
        // Attachments some subpass writes.
        let written =
            |resource: &str| {
                rp.subpasses.iter().any(|s| {
                    graph.find_pass(s).is_some_and(|p| {
                        graph.pass(p).uses.iter().any(|u| {
                            u.access.writes() && &*graph.resource(u.resource).name == resource
                        })
                    })
                })
            };
        if c.attachments.len() != rp.attachments.len() {
            d.push(format!(
                "{what}: {} attachment descriptions, planned {}",
                c.attachments.len(),
                rp.attachments.len()
            ));
        }
        for (a, got) in rp.attachments.iter().zip(&c.attachments) {
            let at = format!("{what}, attachment '{}'", a.resource);
            let format = graph
                .find_resource(&a.resource)
                .and_then(|r| graph.resource(r).image_desc().map(|d| d.format));
            let Some(format) = format else {
                d.push(format!("{at}: not an image of the graph"));
                continue;
            };
            let mut check = |field: &str, got: &str, expect: &str, same: bool| {
                if !same {
                    d.push(format!("{at}: {field} {got}, planned {expect}"));
                }
            };
            let fmt = format!("VK_FORMAT_{}", format.name());
            check("format", &got.format, &fmt, got.format == fmt);
            let samples = format!("VK_SAMPLE_COUNT_{}_BIT", a.samples);
            check("samples", &got.samples, &samples, got.samples == samples);
            let load = vk_load(a.load_op);
            check("loadOp", &got.load_op, load, got.load_op == load);
            let store = vk_store(a.store_op, written(&a.resource));
            check(
                "storeOp",
                &got.store_op,
                store,
                same_store(&got.store_op, store),
            );
            // The stencil aspect follows the planned ops; formats without one don't care.
            let (sload, sstore) = if format.has_stencil() {
                (load, store)
            } else {
                (
                    "VK_ATTACHMENT_LOAD_OP_DONT_CARE",
                    "VK_ATTACHMENT_STORE_OP_DONT_CARE",
                )
            };
            let ok = got.stencil_load_op == sload;
            check("stencilLoadOp", &got.stencil_load_op, sload, ok);
            let ok = same_store(&got.stencil_store_op, sstore);
            check("stencilStoreOp", &got.stencil_store_op, sstore, ok);
            let init = format!("VK_IMAGE_LAYOUT_{}", a.initial_layout);
            let ok = got.initial_layout == init;
            check("initialLayout", &got.initial_layout, &init, ok);
            let fin = format!("VK_IMAGE_LAYOUT_{}", a.final_layout);
            check(
                "finalLayout",
                &got.final_layout,
                &fin,
                got.final_layout == fin,
            );
        }
        // Each subpass references the attachments its pass uses, in the right role.
        let slot_name = |slot: &u64| {
            rp.attachments
                .get(*slot as usize)
                .map_or_else(|| format!("#{slot}"), |a| a.resource.to_string())
        };
        for (j, (name, got)) in rp.subpasses.iter().zip(&c.subpasses).enumerate() {
            let Some(pass) = graph.find_pass(name) else {
                d.push(format!(
                    "{what}: subpass {j} '{name}' is not a pass of the graph"
                ));
                continue;
            };
            let role = |f: fn(Access) -> bool| {
                let mut v: Vec<String> = graph
                    .pass(pass)
                    .uses
                    .iter()
                    .filter(|u| f(u.access))
                    .map(|u| graph.resource(u.resource).name.to_string())
                    .collect();
                v.sort();
                v
            };
            let names = |slots: &[u64]| {
                let mut v: Vec<String> = slots.iter().map(slot_name).collect();
                v.sort();
                v
            };
            let roles = [
                (
                    "input attachments",
                    names(&got.input),
                    role(|a| a == Access::InputAttachment),
                ),
                (
                    "colour attachments",
                    names(&got.color),
                    role(|a| {
                        matches!(
                            a,
                            Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite
                        )
                    }),
                ),
                (
                    "resolve attachments",
                    names(&got.resolve),
                    role(|a| a == Access::Resolve),
                ),
                (
                    "depth/stencil attachment",
                    names(got.depth.as_slice()),
                    role(|a| matches!(a, Access::DepthWrite | Access::DepthRead)),
                ),
            ];
            for (kind, got, expect) in roles {
                if got != expect {
                    d.push(format!(
                        "{what}: subpass {j} '{name}' {kind} {got:?}, its pass uses {expect:?}"
                    ));
                }
            }
        }
        let labels: Vec<Vec<String>> = rp.subpasses.iter().map(|s| vec![s.to_string()]).collect();
        if begin.labels != labels {
            d.push(format!(
                "{what}: debug labels per subpass {:?}, planned {labels:?}",
                begin.labels
            ));
        }
    }
    // Every kept pass has exactly one label, and each command buffer records its labels in
    // plan order.
    let mut planned: Vec<&str> = plan.order.iter().map(|s| &**s).collect();
    let mut got: Vec<&str> = f.labels.iter().map(|(_, l)| l.as_str()).collect();
    planned.sort_unstable();
    got.sort_unstable();
    if planned != got {
        d.push(format!("pass labels {got:?}, planned passes {planned:?}"));
    }
    let position = |l: &str| plan.order.iter().position(|p| &**p == l);
    let mut last: HashMap<u64, usize> = HashMap::new();
    for (cmd, l) in &f.labels {
        let Some(p) = position(l) else { continue };
        if last.get(cmd).is_some_and(|&q| q > p) {
            d.push(format!(
                "label '{l}' recorded after a later pass of the plan"
            ));
        }
        last.insert(*cmd, p);
    }
    // Debug names on every image, buffer, render pass and framebuffer.
    let objects = f
        .images
        .iter()
        .map(|i| ("image", i))
        .chain(f.buffers.iter().map(|b| ("buffer", b)))
        .chain(f.render_passes.keys().map(|r| ("render pass", r)))
        .chain(f.framebuffers.keys().map(|r| ("framebuffer", r)));
    for (kind, id) in objects {
        if f.names.get(id).is_none_or(|n| n.is_empty()) {
            d.push(format!("{kind} {id} has no debug name"));
        }
    }
    // Each attachment's image carries its resource's name.
    for rp in &plan.render_passes {
        for a in &rp.attachments {
            let named = f
                .images
                .iter()
                .any(|i| f.names.get(i).is_some_and(|n| **n == *a.resource));
            if !named {
                d.push(format!("no image named '{}' in the capture", a.resource));
            }
        }
    }
    d
}
