//! Descriptor sets of this frame slot, written from what a pass declared
//! ([`declared_sets`]), and the generic pipelines' dispatch and full-screen draw whose set 0
//! is the declaration ([`dispatch`], [`draw_screen`]).
//!
//! A declared image binding is in the layout the compiler's own rule gives its use in this
//! pass (`Access::scope`, the rule behind the plan's barriers and render-pass layouts), so
//! a body cannot name a layout the plan does not put the image in.

use super::generic::SetTypes;
use super::pass::PassContext;
use crate::builder::{BindingKind, Bound, Filter};
use crate::RenderError;
use ash::vk;
use tessera_graph::access::Target;

/// The descriptor type of a declared binding.
fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        BindingKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        BindingKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        BindingKind::Sampled(_) => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        BindingKind::InputAttachment => vk::DescriptorType::INPUT_ATTACHMENT,
    }
}

/// The descriptor types of set `set` as the pass declared them, binding 0 up: the
/// `bindings` of a generic pipeline ([`super::generic::ShaderPipelines`]). The set must be
/// declared without gaps.
pub fn declared_types(pc: &PassContext<'_, '_, '_>, set: u32) -> Result<SetTypes, RenderError> {
    let bindings = pc.bindings();
    let mut types = SetTypes::default();
    // Binding i is the one declared with number i (found without sorting or allocating:
    // a set has a handful of bindings).
    loop {
        let i = types.len();
        let mut of_set = bindings.iter().filter(|b| b.set == set);
        let Some(next) = of_set
            .clone()
            .map(|b| b.binding)
            .filter(|&b| b as usize >= i)
            .min()
        else {
            let declared = bindings.iter().filter(|b| b.set == set).count();
            if declared != types.len() {
                return Err(RenderError::Frame(format!(
                    "pass '{}': set {set} declares a binding twice (a generic pipeline's set \
                     has one of each)",
                    pc.pass.name
                )));
            }
            return Ok(types);
        };
        if next as usize != i {
            return Err(RenderError::Frame(format!(
                "pass '{}': set {set} declares binding {next} where {i} is next (a generic \
                 pipeline's set has no gaps)",
                pc.pass.name
            )));
        }
        let b = of_set
            .find(|b| b.binding == next)
            .expect("the binding just found");
        if !types.push(descriptor_type(b.kind)) {
            return Err(RenderError::Frame(format!(
                "pass '{}': set {set} has more than {} bindings (a generic pipeline's most)",
                pc.pass.name,
                SetTypes::MAX
            )));
        }
    }
}

/// One declared binding's Vulkan objects.
enum Info {
    Buffer([vk::DescriptorBufferInfo; 1]),
    Image([vk::DescriptorImageInfo; 1]),
}

/// The sampler of `filter` (the renderer's, device lifetime).
fn sampler(pc: &PassContext<'_, '_, '_>, filter: Filter) -> Result<vk::Sampler, RenderError> {
    let p = pc.pipelines()?.borrow();
    Ok(match filter {
        Filter::Linear => p.shaders.linear,
        Filter::Nearest => p.shaders.nearest,
        Filter::ShadowCompare => p.shadow_sampler,
    })
}

/// Fresh sets of this frame slot, one per layout (set i of `layouts[i]`), written with
/// every binding the pass declared. A null layout stands for a set the body writes itself
/// (a material's textures): its entry is a null set. A binding in a set past `layouts`, or
/// in a null one, is an error.
pub fn declared_sets(
    pc: &mut PassContext<'_, '_, '_>,
    layouts: &[vk::DescriptorSetLayout],
) -> Result<Vec<vk::DescriptorSet>, RenderError> {
    declared_sets_at(pc, layouts, None)
}

/// [`declared_sets`], with every storage image of a cube map bound as its mip `mip` alone
/// when `mip` is given (a pass that writes one mip per dispatch).
fn declared_sets_at(
    pc: &mut PassContext<'_, '_, '_>,
    layouts: &[vk::DescriptorSetLayout],
    mip: Option<u32>,
) -> Result<Vec<vk::DescriptorSet>, RenderError> {
    let bindings = pc.bindings();
    let unwritable = |set: u32| {
        layouts
            .get(set as usize)
            .is_none_or(|l| *l == vk::DescriptorSetLayout::null())
    };
    if let Some(b) = bindings.iter().find(|b| unwritable(b.set)) {
        return Err(RenderError::Frame(format!(
            "pass '{}' declares a binding in set {}, which its pipeline's {} layout(s) do \
             not leave to the declaration",
            pc.pass.name,
            b.set,
            layouts.len()
        )));
    }
    let sets = layouts
        .iter()
        .map(|&l| {
            if l == vk::DescriptorSetLayout::null() {
                Ok(vk::DescriptorSet::null())
            } else {
                pc.frame.descriptor_set(l)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut infos = Vec::with_capacity(bindings.len());
    for b in bindings {
        infos.push(match b.resource {
            Bound::Buffer(buffer) => Info::Buffer([vk::DescriptorBufferInfo {
                buffer: pc.buffer(buffer)?,
                offset: 0,
                range: vk::WHOLE_SIZE,
            }]),
            Bound::Image(image) => {
                let res = pc.image(image)?;
                let layout = b
                    .access
                    .scope(pc.pass.kind, Target::Image(res.format))
                    .layout
                    .map_or(vk::ImageLayout::GENERAL, tessera_vk::conv::layout);
                let (view, sampler) = match (b.kind, mip) {
                    (BindingKind::InputAttachment, _) => (res.attachment_view, vk::Sampler::null()),
                    (BindingKind::Sampled(f), _) => (res.shader_view, sampler(pc, f)?),
                    (BindingKind::StorageImage, Some(m)) if res.cube => {
                        let view = res.mip_view(m).ok_or_else(|| {
                            RenderError::Frame(format!(
                                "pass '{}': mip {m} of a cube map of {} mips has no view",
                                pc.pass.name, res.mips
                            ))
                        })?;
                        (view, vk::Sampler::null())
                    }
                    _ => (res.shader_view, vk::Sampler::null()),
                };
                Info::Image([vk::DescriptorImageInfo {
                    sampler,
                    image_view: view,
                    image_layout: layout,
                }])
            }
        });
    }
    let writes: Vec<vk::WriteDescriptorSet> = bindings
        .iter()
        .zip(&infos)
        .map(|(b, info)| {
            let w = vk::WriteDescriptorSet::default()
                .dst_set(sets[b.set as usize])
                .dst_binding(b.binding)
                .descriptor_type(descriptor_type(b.kind));
            match info {
                Info::Buffer(i) => w.buffer_info(i),
                Info::Image(i) => w.image_info(i),
            }
        })
        .collect();
    // SAFETY: sets allocated for this frame slot, not yet bound; the objects are live for
    // the frame, each image in the layout the plan gives its use in this pass.
    unsafe { pc.gpu.device.update_descriptor_sets(&writes, &[]) };
    Ok(sets)
}

/// Records a dispatch of `groups` workgroups of the generic compute pipeline of `shader`,
/// its set 0 written from the pass's declaration, with `push` as push constants.
pub fn dispatch(
    pc: &mut PassContext<'_, '_, '_>,
    shader: &'static str,
    push: &[u8],
    groups: [u32; 3],
) -> Result<(), RenderError> {
    dispatch_at(pc, shader, push, groups, None)
}

/// [`dispatch`] writing mip `mip` of the pass's storage cube map (bound as that mip's view).
pub fn dispatch_mip(
    pc: &mut PassContext<'_, '_, '_>,
    shader: &'static str,
    push: &[u8],
    groups: [u32; 3],
    mip: u32,
) -> Result<(), RenderError> {
    dispatch_at(pc, shader, push, groups, Some(mip))
}

fn dispatch_at(
    pc: &mut PassContext<'_, '_, '_>,
    shader: &'static str,
    push: &[u8],
    groups: [u32; 3],
    mip: Option<u32>,
) -> Result<(), RenderError> {
    let types = declared_types(pc, 0)?;
    let pipeline =
        pc.pipelines()?
            .borrow_mut()
            .shaders
            .compute(pc.gpu, shader, &types, push.len() as u32)?;
    let sets = declared_sets_at(pc, &[pipeline.set_layout], mip)?;
    pipeline.dispatch(pc, sets[0], push, groups);
    Ok(())
}

/// Workgroups of `local`×`local` covering `extent`.
pub fn groups(extent: vk::Extent2D, local: u32) -> [u32; 3] {
    [
        extent.width.div_ceil(local),
        extent.height.div_ceil(local),
        1,
    ]
}

/// Draws the full-screen triangle with the generic pipeline of fragment shader `shader`
/// writing `colors` attachments of this subpass, its set 0 written from the pass's
/// declaration, with `push` as push constants.
pub fn draw_screen(
    pc: &mut PassContext<'_, '_, '_>,
    shader: &'static str,
    push: &[u8],
    colors: u32,
) -> Result<(), RenderError> {
    let (rp, sp, extent) = pc.subpass()?;
    let types = declared_types(pc, 0)?;
    let pipeline = pc.pipelines()?.borrow_mut().shaders.screen(
        pc.gpu,
        shader,
        &types,
        push.len() as u32,
        (rp, sp),
        colors,
        pc.samples(),
    )?;
    let sets = declared_sets(pc, &[pipeline.set_layout])?;
    pipeline.draw_fullscreen(pc, extent, sets[0], push);
    Ok(())
}
