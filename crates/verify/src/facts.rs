//! The facts a plan speaks about, read out of RenderDoc's XML in one pass over its chunks.
//!
//! Kept, in command order: each created render pass (attachment descriptions, subpass and
//! dependency counts, the attachments each subpass references as input, colour, resolve,
//! depth/stencil and depth/stencil resolve (with its mode), dependencies), framebuffers, images with the usage they were created
//! with, buffers, the debug-utils names given to objects, and the command stream's
//! render-pass begins, subpass steps and debug labels. Cost: one pass over the XML.

use crate::VerifyError;
use std::collections::HashMap;

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
    /// The depth/stencil resolve target (`VkSubpassDescriptionDepthStencilResolve` chained
    /// onto the subpass), if any.
    pub depth_resolve: Option<u64>,
    /// Its depth resolve mode (`VK_RESOLVE_MODE_..._BIT`); empty without a depth resolve.
    pub depth_resolve_mode: String,
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
    /// Render pass id -> its create info.
    pub render_passes: HashMap<u64, RenderPassFacts>,
    /// Framebuffer id -> the render pass it was created with.
    pub framebuffers: HashMap<u64, u64>,
    /// Framebuffer id -> its attachments' image views, in attachment order.
    pub framebuffer_views: HashMap<u64, Vec<u64>>,
    /// Image view id -> its image.
    pub view_images: HashMap<u64, u64>,
    /// Images created with `vkCreateImage`.
    pub images: Vec<u64>,
    /// Images of swapchains (`vkGetSwapchainImagesKHR`): not created by the application,
    /// so not named by it either.
    pub swapchain_images: Vec<u64>,
    /// Image id -> the usage flags it was created with, as RenderDoc spells them
    /// (`VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | ...`).
    pub image_usage: HashMap<u64, String>,
    /// Buffers created with `vkCreateBuffer`.
    pub buffers: Vec<u64>,
    /// Object id -> its `vkSetDebugUtilsObjectNameEXT` name.
    pub names: HashMap<u64, String>,
    /// Render-pass begins in command order.
    pub begins: Vec<BeginFacts>,
    /// Every `vkCmdBeginDebugUtilsLabelEXT`: (command buffer, label), in command order.
    pub labels: Vec<(u64, String)>,
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
pub fn parse(xml: &str) -> Result<CaptureFacts, VerifyError> {
    let doc = roxmltree::Document::parse(xml)
        .map_err(|e| VerifyError::Xml(format!("capture XML: {e}")))?;
    let bad = |what: &str| VerifyError::Xml(format!("capture XML: {what}"));
    let mut f = CaptureFacts::default();
    // Swapchain id -> the usage its images have.
    let mut swapchain_usage: HashMap<u64, String> = HashMap::new();
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
                let info = field(chunk, "CreateInfo")
                    .ok_or_else(|| bad("a render pass without CreateInfo"))?;
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
                        let ds_resolve = field(sp, "pNext").filter(|n| {
                            n.attribute("typename")
                                == Some("VkSubpassDescriptionDepthStencilResolve")
                        });
                        let depth_resolve = ds_resolve
                            .and_then(|n| field(n, "pDepthStencilResolveAttachment"))
                            .filter(|d| d.has_tag_name("struct"))
                            .map(|d| number(field(d, "attachment")))
                            .filter(|&a| a != UNUSED);
                        rp.subpasses.push(SubpassFacts {
                            input: refs(sp, "pInputAttachments"),
                            color: refs(sp, "pColorAttachments"),
                            resolve: refs(sp, "pResolveAttachments"),
                            depth,
                            depth_resolve,
                            depth_resolve_mode: depth_resolve
                                .and(ds_resolve)
                                .map(|n| enum_name(n, "depthResolveMode"))
                                .unwrap_or_default(),
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
                let info = field(chunk, "CreateInfo")
                    .ok_or_else(|| bad("a framebuffer without CreateInfo"))?;
                let id = number(field(chunk, "Framebuffer"));
                f.framebuffers.insert(id, number(field(info, "renderPass")));
                let views = field(info, "pAttachments")
                    .map(|list| {
                        list.children()
                            .filter(|c| c.is_element())
                            .map(|c| number(Some(c)))
                            .collect()
                    })
                    .unwrap_or_default();
                f.framebuffer_views.insert(id, views);
            }
            "vkCreateSwapchainKHR" => {
                let usage = field(chunk, "CreateInfo")
                    .and_then(|info| field(info, "imageUsage"))
                    .and_then(|u| u.attribute("string"))
                    .unwrap_or_default();
                swapchain_usage.insert(number(field(chunk, "SwapChain")), usage.to_string());
            }
            "vkGetSwapchainImagesKHR" => {
                let image = number(field(chunk, "SwapchainImage"));
                let usage = swapchain_usage
                    .get(&number(field(chunk, "Swapchain")))
                    .cloned()
                    .unwrap_or_default();
                f.image_usage.insert(image, usage);
                f.swapchain_images.push(image);
            }
            "vkCreateImageView" => {
                let image = field(chunk, "CreateInfo").and_then(|info| field(info, "image"));
                f.view_images
                    .insert(number(field(chunk, "View")), number(image));
            }
            "vkCreateImage" => {
                let id = number(field(chunk, "Image"));
                let usage = field(chunk, "CreateInfo")
                    .and_then(|info| field(info, "usage"))
                    .and_then(|u| u.attribute("string"))
                    .unwrap_or_default();
                f.image_usage.insert(id, usage.to_string());
                f.images.push(id);
            }
            "vkCreateBuffer" => f.buffers.push(number(field(chunk, "Buffer"))),
            "vkCmdBeginRenderPass" | "vkCmdBeginRenderPass2" => {
                let begin = field(chunk, "RenderPassBegin")
                    .ok_or_else(|| bad("a render-pass begin without RenderPassBegin"))?;
                f.begins.push(BeginFacts {
                    render_pass: number(field(begin, "renderPass")),
                    framebuffer: number(field(begin, "framebuffer")),
                    labels: vec![Vec::new()],
                });
                open = Some((f.begins.len() - 1, 0));
            }
            "vkCmdNextSubpass" | "vkCmdNextSubpass2" => {
                let (b, s) = open.ok_or_else(|| bad("vkCmdNextSubpass outside a render pass"))?;
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

impl CaptureFacts {
    /// The image behind attachment `index` of `framebuffer`, if the capture says.
    pub fn framebuffer_image(&self, framebuffer: u64, index: usize) -> Option<u64> {
        let view = self.framebuffer_views.get(&framebuffer)?.get(index)?;
        self.view_images.get(view).copied()
    }
}
