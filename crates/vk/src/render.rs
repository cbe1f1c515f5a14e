//! `VkRenderPass` objects from the plan's render passes, cached by a key (the description,
//! formats and samples: device lifetime), and `VkFramebuffer`s (plan lifetime, made by the
//! executor with [`framebuffer`]).
//!
//! Each subpass gets its colour, depth, input and resolve references (a depth/stencil
//! resolve chained as `VkSubpassDescriptionDepthStencilResolve`) from its pass's uses
//! (layout = the use's layout), attachments used before and after a subpass but not in it
//! are preserved, and the plan's dependencies become `VkSubpassDependency2` with a chained
//! `VkMemoryBarrier2` carrying the synchronization2 masks.

use crate::device::Gpu;
use crate::{conv, VkError};
use ash::vk;
use std::collections::HashMap;
use tessera_graph::access::Access;
use tessera_graph::plan::RenderPass;
use tessera_graph::{Graph, ResolveMode};

/// Render passes, cached by key (the plan render pass with its attachment descriptions:
/// load/store operations, layouts, formats, samples; never extents), so an identical render
/// pass in a rebuilt plan (a resize) keeps its handle and the pipelines made for it.
#[derive(Debug, Default)]
pub struct RenderPassCache {
    passes: HashMap<String, vk::RenderPass>,
    /// Render passes created so far (cache misses).
    pub created: u64,
}

impl RenderPassCache {
    /// Finds (or creates) the `VkRenderPass` of a plan render pass; returns it with the
    /// resource index of each attachment, in attachment order. Formats and samples come from
    /// the graph's image descriptions.
    pub fn render_pass(
        &mut self,
        gpu: &Gpu,
        graph: &Graph,
        rp: &RenderPass,
    ) -> Result<(vk::RenderPass, Vec<usize>), VkError> {
        let index_of = |name: &str| {
            graph.find_resource(name).map(|r| r.index()).ok_or_else(|| {
                VkError::Setup(format!("render pass names unknown resource '{name}'"))
            })
        };
        // Attachments no subpass writes keep their content with STORE_OP_NONE (Vulkan 1.3):
        // a STORE or DONT_CARE store would be a write the plan's hazards do not know about
        // (keeping content the plan lets go is always allowed).
        let mut written = std::collections::HashSet::new();
        for name in &rp.subpasses {
            if let Some(pid) = graph.find_pass(name) {
                for u in &graph.pass(pid).uses {
                    if u.access.writes() {
                        written.insert(u.resource.index());
                    }
                }
            }
        }
        let store = |i: usize, op: tessera_graph::plan::StoreOp| {
            if !written.contains(&i) {
                vk::AttachmentStoreOp::NONE
            } else {
                conv::store_op(op)
            }
        };
        let mut att_res = Vec::new();
        let mut descs = Vec::new();
        for a in &rp.attachments {
            let i = index_of(&a.resource)?;
            let im = graph.resources[i].image_desc().ok_or_else(|| {
                VkError::Setup(format!("attachment '{}' is not an image", a.resource))
            })?;
            let samples = conv::samples(im.samples)
                .ok_or_else(|| VkError::Unsupported(format!("{} samples", im.samples)))?;
            let stencil = im.format.has_stencil();
            descs.push(
                vk::AttachmentDescription2::default()
                    .format(conv::format(im.format))
                    .samples(samples)
                    .load_op(conv::load_op(a.load_op))
                    .store_op(store(i, a.store_op))
                    .stencil_load_op(if stencil {
                        conv::load_op(a.load_op)
                    } else {
                        vk::AttachmentLoadOp::DONT_CARE
                    })
                    .stencil_store_op(if stencil {
                        store(i, a.store_op)
                    } else {
                        vk::AttachmentStoreOp::DONT_CARE
                    })
                    .initial_layout(conv::layout(a.initial_layout))
                    .final_layout(conv::layout(a.final_layout)),
            );
            att_res.push(i);
        }
        let slot_of = |r: usize| att_res.iter().position(|&x| x == r).map(|s| s as u32);
        // Per subpass: (colour, resolve, depth, input, preserve) references.
        let mut refs: Vec<SubpassRefs> = Vec::new();
        let mut used_in: Vec<Vec<bool>> = Vec::new();
        for name in &rp.subpasses {
            let pid = graph
                .find_pass(name)
                .ok_or_else(|| VkError::Setup(format!("unknown subpass '{name}'")))?;
            let pass = graph.pass(pid);
            let mut s = SubpassRefs::default();
            let mut used = vec![false; att_res.len()];
            for u in &pass.uses {
                if !u.access.is_attachment() {
                    continue;
                }
                let r = graph.resource(u.resource);
                let Some(slot) = slot_of(u.resource.index()) else {
                    return Err(VkError::Setup(format!(
                        "subpass '{name}' uses '{}' which is not an attachment of its render pass",
                        r.name
                    )));
                };
                used[slot as usize] = true;
                let layout = u
                    .access
                    .scope(pass.kind, r.target())
                    .layout
                    .map(conv::layout)
                    .unwrap_or(vk::ImageLayout::GENERAL);
                let fmt = r.image_desc().map(|d| d.format);
                let aspect = fmt
                    .map(conv::aspects)
                    .unwrap_or(vk::ImageAspectFlags::COLOR);
                let reference = |aspect| {
                    vk::AttachmentReference2::default()
                        .attachment(slot)
                        .layout(layout)
                        .aspect_mask(aspect)
                };
                match u.access {
                    Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite => s
                        .color
                        .push((u.resource.index(), reference(vk::ImageAspectFlags::COLOR))),
                    Access::DepthWrite | Access::DepthRead => s.depth = Some(reference(aspect)),
                    Access::InputAttachment => {
                        let a = if fmt.is_some_and(|f| f.has_depth()) {
                            vk::ImageAspectFlags::DEPTH
                        } else {
                            aspect
                        };
                        s.input.push(reference(a))
                    }
                    // A depth/stencil target is the subpass's depth resolve (one per pass,
                    // the graph's validation), in the mode the use names (`sample_zero` when
                    // it names none).
                    Access::Resolve if fmt.is_some_and(|f| f.is_depth_stencil()) => {
                        let mode = u.resolve_mode.unwrap_or(ResolveMode::SampleZero);
                        s.depth_resolve = Some((reference(aspect), conv::resolve_mode(mode)));
                    }
                    Access::Resolve => {
                        if let Some(from) = u.from {
                            s.resolve_from
                                .push((from.index(), reference(vk::ImageAspectFlags::COLOR)));
                        }
                    }
                    _ => {}
                }
            }
            refs.push(s);
            used_in.push(used);
        }
        for (k, s) in refs.iter_mut().enumerate() {
            for slot in 0..att_res.len() {
                let before = used_in[..k].iter().any(|u| u[slot]);
                let after = used_in[k + 1..].iter().any(|u| u[slot]);
                if before && after && !used_in[k][slot] {
                    s.preserve.push(slot as u32);
                }
            }
            s.finish();
        }
        // Depth/stencil resolves chain onto their subpass descriptions (Vulkan 1.2); the
        // stencil aspect, where the format has one, is resolved with sample zero (the mode
        // every device supports for stencil).
        let mut depth_resolves: Vec<Option<vk::SubpassDescriptionDepthStencilResolve>> = refs
            .iter()
            .map(|s| {
                s.depth_resolve.as_ref().map(|(r, mode)| {
                    vk::SubpassDescriptionDepthStencilResolve::default()
                        .depth_resolve_mode(*mode)
                        .stencil_resolve_mode(
                            if r.aspect_mask.contains(vk::ImageAspectFlags::STENCIL) {
                                vk::ResolveModeFlags::SAMPLE_ZERO
                            } else {
                                vk::ResolveModeFlags::NONE
                            },
                        )
                        .depth_stencil_resolve_attachment(r)
                })
            })
            .collect();
        let subpasses: Vec<vk::SubpassDescription2> = refs
            .iter()
            .zip(depth_resolves.iter_mut())
            .map(|(s, depth_resolve)| {
                let mut d = vk::SubpassDescription2::default()
                    .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                    .color_attachments(&s.color_refs)
                    .input_attachments(&s.input)
                    .preserve_attachments(&s.preserve);
                if s.resolve_refs
                    .iter()
                    .any(|r| r.attachment != vk::ATTACHMENT_UNUSED)
                {
                    d = d.resolve_attachments(&s.resolve_refs);
                }
                if let Some(ds) = &s.depth {
                    d = d.depth_stencil_attachment(ds);
                }
                if let Some(resolve) = depth_resolve {
                    d = d.push_next(resolve);
                }
                d
            })
            .collect();
        let mut barriers: Vec<vk::MemoryBarrier2> = rp
            .dependencies
            .iter()
            .map(|dep| {
                vk::MemoryBarrier2::default()
                    .src_stage_mask(conv::stages(dep.src_stage))
                    .src_access_mask(conv::accesses(dep.src_access))
                    .dst_stage_mask(conv::stages(dep.dst_stage))
                    .dst_access_mask(conv::accesses(dep.dst_access))
            })
            .collect();
        let dependencies: Vec<vk::SubpassDependency2> = rp
            .dependencies
            .iter()
            .zip(barriers.iter_mut())
            .map(|(dep, b)| {
                vk::SubpassDependency2::default()
                    .src_subpass(dep.src_subpass)
                    .dst_subpass(dep.dst_subpass)
                    .dependency_flags(if dep.by_region {
                        vk::DependencyFlags::BY_REGION
                    } else {
                        vk::DependencyFlags::empty()
                    })
                    .push_next(b)
            })
            .collect();
        let key = format!("{rp:?}|{descs:?}");
        let render_pass = match self.passes.get(&key) {
            Some(&r) => r,
            None => {
                let info = vk::RenderPassCreateInfo2::default()
                    .attachments(&descs)
                    .subpasses(&subpasses)
                    .dependencies(&dependencies);
                // SAFETY: every array in `info` is a local alive across the call.
                let r = unsafe { gpu.device.create_render_pass2(&info, None) }?;
                gpu.name(r, &format!("render pass [{}]", rp.subpasses.join(", ")));
                self.passes.insert(key, r);
                self.created += 1;
                r
            }
        };
        Ok((render_pass, att_res))
    }

    /// Destroys every cached object (device idle).
    pub fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: the device is idle; the objects belong to it.
        unsafe {
            for (_, r) in self.passes.drain() {
                gpu.device.destroy_render_pass(r, None);
            }
        }
    }
}

/// The render area of attachments (resource indices): the smallest extent among them, from
/// the graph's image descriptions (1×1 without attachments).
pub fn render_area(graph: &Graph, attachments: &[usize]) -> vk::Extent2D {
    let mut extent = vk::Extent2D {
        width: u32::MAX,
        height: u32::MAX,
    };
    for d in attachments
        .iter()
        .filter_map(|&i| graph.resources[i].image_desc())
    {
        extent.width = extent.width.min(d.width.max(1));
        extent.height = extent.height.min(d.height.max(1));
    }
    if extent.width == u32::MAX {
        extent = vk::Extent2D {
            width: 1,
            height: 1,
        };
    }
    extent
}

/// A framebuffer of `render_pass` over `views` (attachment order) and `extent`, named `name`.
pub fn framebuffer(
    gpu: &Gpu,
    render_pass: vk::RenderPass,
    views: &[vk::ImageView],
    extent: vk::Extent2D,
    name: &str,
) -> Result<vk::Framebuffer, VkError> {
    let info = vk::FramebufferCreateInfo::default()
        .render_pass(render_pass)
        .attachments(views)
        .width(extent.width)
        .height(extent.height)
        .layers(1);
    // SAFETY: views and render pass are live objects of this device; the create info is
    // complete.
    let f = unsafe { gpu.device.create_framebuffer(&info, None) }?;
    gpu.name(f, name);
    Ok(f)
}

#[derive(Default)]
struct SubpassRefs<'a> {
    color: Vec<(usize, vk::AttachmentReference2<'a>)>,
    resolve_from: Vec<(usize, vk::AttachmentReference2<'a>)>,
    depth: Option<vk::AttachmentReference2<'a>>,
    /// The depth/stencil resolve target and its depth mode.
    depth_resolve: Option<(vk::AttachmentReference2<'a>, vk::ResolveModeFlags)>,
    input: Vec<vk::AttachmentReference2<'a>>,
    preserve: Vec<u32>,
    color_refs: Vec<vk::AttachmentReference2<'a>>,
    resolve_refs: Vec<vk::AttachmentReference2<'a>>,
}

impl SubpassRefs<'_> {
    /// Lines the resolve references up with the colour references they resolve.
    fn finish(&mut self) {
        self.color_refs = self.color.iter().map(|(_, r)| *r).collect();
        self.resolve_refs = self
            .color
            .iter()
            .map(|(res, _)| {
                self.resolve_from
                    .iter()
                    .find(|(from, _)| from == res)
                    .map(|(_, r)| *r)
                    .unwrap_or(
                        vk::AttachmentReference2::default()
                            .attachment(vk::ATTACHMENT_UNUSED)
                            .layout(vk::ImageLayout::UNDEFINED),
                    )
            })
            .collect();
    }
}
