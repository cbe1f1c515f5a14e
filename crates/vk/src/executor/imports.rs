//! A frame's imported resources: the renderer's images and buffers that replace the
//! executor's objects for one frame (checked against the graph), and the framebuffers that
//! involve them (cached by their views for the plan's lifetime).

use super::device_state::DeviceState;
use super::history::HistoryFrame;
use super::plan_state::PlanState;
use crate::device::Gpu;
use crate::render;
use crate::resources::{BufferRes, ImageRes, ImportedImage, Res};
use crate::{conv, VkError};
use ash::vk;
use tessera_graph::graph::ResourceKind;
use tessera_graph::ResourceId;

/// What the renderer hands in for one frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameImports<'a> {
    /// Imported images of the graph, replacing the executor's (or required: `per_frame`).
    pub images: &'a [(ResourceId, ImportedImage)],
    /// Imported buffers of the graph (their size must be at least the graph's).
    pub buffers: &'a [(ResourceId, vk::Buffer)],
    /// Binary semaphores (acquire) waited by the first submit that uses a handed-in
    /// resource (the first submit when none is handed in).
    pub wait: &'a [vk::Semaphore],
    /// Binary semaphores (render finished) signalled by the last submit that uses a
    /// handed-in resource (the last graphics submit when none is handed in).
    pub signal: &'a [vk::Semaphore],
}

impl FrameImports<'_> {
    /// Nothing handed in.
    pub const NONE: FrameImports<'static> = FrameImports {
        images: &[],
        buffers: &[],
        wait: &[],
        signal: &[],
    };
}

/// This frame's object per resource and which were handed in.
pub(crate) fn resolve(
    plan: &PlanState,
    imports: &FrameImports<'_>,
    history: &HistoryFrame,
    frame: u64,
) -> Result<(Vec<Res>, Vec<bool>), VkError> {
    let g = &plan.graph;
    let mut res = plan.resources.res.clone();
    // Odd frames use the second copy of each doubled resource (overlapping frames).
    if let Some(twins) = plan.twins.as_ref().filter(|_| frame % 2 == 1) {
        for (i, _) in plan.doubled.iter().enumerate().filter(|(_, &d)| d) {
            res[i] = twins.res[i];
        }
    }
    for &(i, object) in &history.objects {
        res[i] = object;
    }
    let mut handed = vec![false; res.len()];
    let check = |r: ResourceId, what: &str, handed: &[bool]| -> Result<usize, VkError> {
        let i = r.index();
        let Some(decl) = g.resources.get(i) else {
            return Err(VkError::Setup(format!(
                "an imported {what} names resource #{i}, which the graph does not have"
            )));
        };
        if !decl.is_imported() {
            return Err(VkError::Setup(format!(
                "'{}' is handed in as an import, but the graph does not import it",
                decl.name
            )));
        }
        if handed[i] {
            return Err(VkError::Setup(format!(
                "'{}' is handed in twice",
                decl.name
            )));
        }
        Ok(i)
    };
    for (r, im) in imports.images {
        let i = check(*r, "image", &handed)?;
        let decl = &g.resources[i];
        let ResourceKind::Image(desc) = decl.kind else {
            return Err(VkError::Setup(format!(
                "'{}' is a buffer, handed in as an image",
                decl.name
            )));
        };
        let want = vk::Extent2D {
            width: desc.width.max(1),
            height: desc.height.max(1),
        };
        if im.format != conv::format(desc.format) || im.extent != want {
            return Err(VkError::Setup(format!(
                "'{}' is handed in as {:?} {}x{}, the graph declares {} {}x{}",
                decl.name,
                im.format,
                im.extent.width,
                im.extent.height,
                desc.format,
                want.width,
                want.height
            )));
        }
        res[i] = Res::Image(ImageRes {
            image: im.image,
            attachment_view: im.view,
            shader_view: im.view,
            mip_views: [vk::ImageView::null(); crate::resources::MAX_MIP_VIEWS],
            cube: false,
            format: desc.format,
            extent: want,
            samples: desc.samples,
            mips: desc.mips.max(1),
            layers: desc.layers.max(1),
            memoryless: false,
            viewable: true,
        });
        handed[i] = true;
    }
    for (r, b) in imports.buffers {
        let i = check(*r, "buffer", &handed)?;
        let decl = &g.resources[i];
        let ResourceKind::Buffer { size } = decl.kind else {
            return Err(VkError::Setup(format!(
                "'{}' is an image, handed in as a buffer",
                decl.name
            )));
        };
        res[i] = Res::Buffer(BufferRes {
            buffer: *b,
            size: size.max(4),
        });
        handed[i] = true;
    }
    if let Some(i) = (0..res.len()).find(|&i| res[i].is_null() && !handed[i]) {
        return Err(VkError::MissingImport {
            name: g.resources[i].name.to_string(),
        });
    }
    Ok((res, handed))
}

/// The framebuffer of each render pass this frame: the plan's own, or the cached one for
/// the views handed in.
pub(crate) fn framebuffers(
    plan: &mut PlanState,
    gpu: &Gpu,
    dev: &mut DeviceState,
    res: &[Res],
    handed: &[bool],
) -> Result<Vec<vk::Framebuffer>, VkError> {
    let mut out = Vec::with_capacity(plan.built.len());
    for k in 0..plan.built.len() {
        let b = &plan.built[k];
        // A doubled attachment is another image every other frame, as a handed-in one is.
        let per_frame = |i: usize| handed[i] || plan.doubled.get(i).copied().unwrap_or(false);
        if !b.attachments.iter().any(|&i| per_frame(i)) && b.framebuffer != vk::Framebuffer::null()
        {
            out.push(b.framebuffer);
            continue;
        }
        let views: Vec<vk::ImageView> = b
            .attachments
            .iter()
            .map(|&i| match res[i] {
                Res::Image(im) => im.attachment_view,
                Res::Buffer(_) => vk::ImageView::null(),
            })
            .collect();
        let key = (k, views);
        if let Some(&f) = plan.fb_cache.get(&key) {
            out.push(f);
            continue;
        }
        // Named as the plan's own framebuffers: RenderDoc users (and `tessera
        // verify-capture`) find the render pass by its subpasses, whoever made the views.
        let subpasses = plan
            .run
            .render_passes
            .get(k)
            .map(|rp| rp.subpasses.join(", "))
            .unwrap_or_default();
        let name = format!("framebuffer [{subpasses}]");
        let f = render::framebuffer(gpu, b.render_pass, &key.1, b.extent, &name)?;
        dev.framebuffers_created += 1;
        plan.fb_cache.insert(key, f);
        out.push(f);
    }
    Ok(out)
}
