//! Resources of a compiled frame: one `VkImage`/`VkBuffer` per graph resource, memory as
//! planned, views, and the staging ring.
//!
//! Memory: each plan block is ONE gpu-allocator allocation whose requirements combine its
//! members' (`memtype::block_requirements`); every placement is bound at
//! `allocation.offset() + placement.offset`. Memoryless attachments get `TRANSIENT_ATTACHMENT`
//! usage and, where the device has one, a lazily allocated memory type allocated by hand;
//! otherwise their own ordinary allocation. Imported resources (never placed) get their own
//! allocation, except those the renderer hands in every frame (not created at all). Resources
//! live as long as their plan in the executor.

use crate::device::Gpu;
use crate::memtype::{self, MemorylessBacking};
use crate::{conv, VkError};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use tessera_graph::graph::ResourceKind;
use tessera_graph::{Format, Graph, Plan};

/// An image with its views.
#[derive(Clone, Copy, Debug)]
pub struct ImageRes {
    /// The image.
    pub image: vk::Image,
    /// View of mip 0, layer 0 with every aspect (framebuffers).
    pub attachment_view: vk::ImageView,
    /// View of mip 0, layer 0 with the depth (or colour) aspect only (descriptors); of a
    /// cube map, a cube view of every mip.
    pub shader_view: vk::ImageView,
    /// Of a cube map, a cube view of each mip alone (the first [`MAX_MIP_VIEWS`]; null
    /// past `mips`): what a pass writing one mip binds as its storage image.
    pub mip_views: [vk::ImageView; MAX_MIP_VIEWS],
    /// A cube map (six layers sampled through a cube view).
    pub cube: bool,
    /// Format.
    pub format: Format,
    /// Extent of mip 0.
    pub extent: vk::Extent2D,
    /// Samples.
    pub samples: u32,
    /// Mips.
    pub mips: u32,
    /// Layers.
    pub layers: u32,
    /// Lives only in tile memory (no transfers possible).
    pub memoryless: bool,
    /// Has a usage that allows views (not only transfers); views are null otherwise.
    pub viewable: bool,
}

/// Mips of a cube map with a view each ([`ImageRes::mip_views`]).
pub const MAX_MIP_VIEWS: usize = 8;

impl ImageRes {
    /// The view of mip `mip` alone ([`ImageRes::mip_views`]); `None` past the views made.
    pub fn mip_view(&self, mip: u32) -> Option<vk::ImageView> {
        self.mip_views
            .get(mip as usize)
            .copied()
            .filter(|v| *v != vk::ImageView::null())
    }

    /// The subresource range covering the whole image.
    pub fn range(&self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: conv::aspects(self.format),
            base_mip_level: 0,
            level_count: self.mips,
            base_array_layer: 0,
            layer_count: self.layers,
        }
    }
}

/// A buffer.
#[derive(Clone, Copy, Debug)]
pub struct BufferRes {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Size in bytes.
    pub size: u64,
}

/// The Vulkan object behind a graph resource.
#[derive(Clone, Copy, Debug)]
pub enum Res {
    /// An image.
    Image(ImageRes),
    /// A buffer.
    Buffer(BufferRes),
}

impl Res {
    /// An image the plan keeps in tile memory.
    pub fn memoryless(&self) -> bool {
        matches!(self, Res::Image(i) if i.memoryless)
    }

    /// A placeholder with null handles: an import the renderer hands in every frame (the
    /// executor creates nothing for it).
    pub fn is_null(&self) -> bool {
        match self {
            Res::Image(i) => i.image == vk::Image::null(),
            Res::Buffer(b) => b.buffer == vk::Buffer::null(),
        }
    }
}

enum Memory {
    /// An allocation of the allocator, with the memory type bits and the linearity it was
    /// asked for (what a later plan's requirement must equal to take it over).
    Managed(Allocation, u32, bool),
    /// A lazily allocated `vkAllocateMemory` of its own: the memory, its bytes and the
    /// property flags of its type.
    Direct(vk::DeviceMemory, u64, vk::MemoryPropertyFlags),
}

/// Memory of a retired plan's resources ([`Resources::retire`]), offered to the next plan's
/// [`Resources::bind_reusing`]: an allocation is taken over by a requirement with the same
/// memory type bits and linearity that it fits, at its alignment, without being more than a
/// quarter larger. Whatever no requirement took is freed ([`SpareMemory::free`]). A re-plan
/// whose blocks did not grow (a feature toggled, a window made a little smaller) so makes
/// no `vkAllocateMemory` / `vkFreeMemory` for them, which cost in proportion to the bytes
/// on some drivers (lavapipe maps and unmaps them).
#[derive(Default)]
pub struct SpareMemory {
    spare: Vec<(Allocation, u32, bool)>,
    /// Allocations taken over since creation.
    pub reused: u64,
}

impl std::fmt::Debug for SpareMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpareMemory")
            .field("spare", &self.spare.len())
            .field("reused", &self.reused)
            .finish()
    }
}

impl SpareMemory {
    /// The spare allocation that best fits `req` (the smallest that fits), taken out.
    fn take(&mut self, req: &vk::MemoryRequirements, linear: bool) -> Option<Allocation> {
        let fits = |(a, bits, lin): &(Allocation, u32, bool)| {
            *bits == req.memory_type_bits
                && *lin == linear
                && a.size() >= req.size
                && a.size() - req.size <= req.size / 4
                && (req.alignment == 0 || a.offset() % req.alignment == 0)
        };
        let i = (0..self.spare.len())
            .filter(|&i| fits(&self.spare[i]))
            .min_by_key(|&i| self.spare[i].0.size())?;
        self.reused += 1;
        Some(self.spare.swap_remove(i).0)
    }

    /// Allocations on offer.
    pub fn len(&self) -> usize {
        self.spare.len()
    }

    /// Whether none is on offer.
    pub fn is_empty(&self) -> bool {
        self.spare.is_empty()
    }

    /// Frees every allocation on offer.
    pub fn free(&mut self, gpu: &Gpu) {
        for (a, _, _) in self.spare.drain(..) {
            free_managed(gpu, a);
        }
    }
}

impl Drop for SpareMemory {
    fn drop(&mut self) {
        if !self.spare.is_empty() {
            log::error!(
                "{} spare allocation(s) dropped without being freed",
                self.spare.len()
            );
        }
    }
}

fn free_managed(gpu: &Gpu, a: Allocation) {
    if let Some(al) = &gpu.allocator {
        if let Ok(mut al) = al.lock() {
            let _ = al.free(a);
        }
    }
}

/// Every resource of a frame with its memory.
pub struct Resources {
    /// Indexed by resource id.
    pub res: Vec<Res>,
    memory: Vec<Memory>,
    /// Number of plan blocks allocated.
    pub blocks: usize,
    /// Memoryless attachments bound to ordinary memory: no lazily allocated memory type
    /// allows them (none on the device, or RenderDoc changed their requirements).
    pub memoryless_fallbacks: Vec<String>,
}

impl std::fmt::Debug for Resources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resources")
            .field("res", &self.res.len())
            .field("allocations", &self.memory.len())
            .finish()
    }
}

/// Usage of each resource: the union over its uses, plus transfers for readback and
/// initialisation (not for memoryless attachments).
pub fn usages(
    graph: &Graph,
    memoryless: &[bool],
) -> Vec<(vk::ImageUsageFlags, vk::BufferUsageFlags)> {
    let mut out =
        vec![(vk::ImageUsageFlags::empty(), vk::BufferUsageFlags::empty()); graph.resources.len()];
    for p in &graph.passes {
        for u in &p.uses {
            let o = &mut out[u.resource.index()];
            let format = graph.resource(u.resource).image_desc().map(|d| d.format);
            o.0 |= match format {
                Some(f) => conv::image_usage_for(u.access, f),
                None => conv::image_usage(u.access),
            };
            // A depth image read as an input attachment or sampled sits in a depth read-only
            // layout, which Vulkan only allows on images with depth attachment usage.
            let depth = format.is_some_and(|f| f.is_depth_stencil());
            let read_only = matches!(
                u.access,
                tessera_graph::Access::InputAttachment | tessera_graph::Access::Sampled
            );
            if depth && read_only {
                o.0 |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
            }
            o.1 |= conv::buffer_usage(u.access);
        }
    }
    // The two objects of a double-buffered history pair swap roles every frame: each needs
    // the usages of both halves.
    for (i, r) in graph.resources.iter().enumerate() {
        if let Some(twin) = r.history_twin() {
            let (a, b) = (out[i], out[twin.index()]);
            out[i] = (a.0 | b.0, a.1 | b.1);
        }
    }
    for (i, o) in out.iter_mut().enumerate() {
        // A persistent image rests in SHADER_READ_ONLY_OPTIMAL between frames (sampled usage).
        if graph.resources[i].is_kept_across_plans() && graph.resources[i].image_desc().is_some() {
            o.0 |= vk::ImageUsageFlags::SAMPLED;
        }
        if memoryless[i] {
            o.0 |= vk::ImageUsageFlags::TRANSIENT_ATTACHMENT;
        } else {
            o.0 |= vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
            o.1 |= vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
        }
    }
    out
}

/// Resources flagged memoryless by the plan's render passes.
pub fn memoryless_set(graph: &Graph, plan: &Plan) -> Vec<bool> {
    let mut out = vec![false; graph.resources.len()];
    for rp in &plan.render_passes {
        for a in &rp.attachments {
            if a.memoryless {
                if let Some(id) = graph.find_resource(&a.resource) {
                    out[id.index()] = true;
                }
            }
        }
    }
    out
}

/// Unbound objects and their requirements, before memory is decided.
#[derive(Debug)]
pub struct Unbound {
    /// The objects (views not created yet: they need memory).
    pub res: Vec<Res>,
    /// Memory requirements of each.
    pub requirements: Vec<vk::MemoryRequirements>,
    /// Whether each was created `CONCURRENT` (else `EXCLUSIVE`).
    pub concurrent: Vec<bool>,
}

/// Which resources are created `CONCURRENT`: those the plan shares `concurrent` between the
/// two logical queues, when those run on different families (`families`: graphics, async
/// compute). Everything else is `EXCLUSIVE`: resources of one queue, resources the plan
/// hands over with ownership transfers, and all resources when one family runs both queues
/// (`CONCURRENT` needs two distinct families).
pub fn concurrent_set(graph: &Graph, plan: &Plan, families: [u32; 2]) -> Vec<bool> {
    let mut out = vec![false; graph.resources.len()];
    if families[0] == families[1] {
        return out;
    }
    for s in &plan.sharing {
        if s.mode == tessera_graph::plan::SharingMode::Concurrent {
            if let Some(r) = graph.find_resource(&s.resource) {
                out[r.index()] = true;
            }
        }
    }
    out
}

/// Creates every resource of `graph` without memory, so the real sizes can go into the
/// graph before the final compile. `memoryless` marks attachments that get
/// `TRANSIENT_ATTACHMENT` usage; `concurrent` (from [`concurrent_set`]) those shared
/// `CONCURRENT` between the two `families` (graphics, async compute). Resources marked in
/// `external` (imports handed in every frame) are not created: they get a placeholder with
/// null handles ([`Res::is_null`]) and their estimated size as requirement.
pub fn create_unbound(
    gpu: &Gpu,
    graph: &Graph,
    memoryless: &[bool],
    concurrent: &[bool],
    families: [u32; 2],
    external: &[bool],
) -> Result<Unbound, VkError> {
    let d = &gpu.device;
    let usage = usages(graph, memoryless);
    let mut out = Unbound {
        res: Vec::new(),
        requirements: Vec::new(),
        concurrent: concurrent.to_vec(),
    };
    out.concurrent.resize(graph.resources.len(), false);
    let conc = out.concurrent.clone();
    let sharing_of = |i: usize| {
        if conc[i] && families[0] != families[1] {
            vk::SharingMode::CONCURRENT
        } else {
            vk::SharingMode::EXCLUSIVE
        }
    };
    let fail = |out: &Unbound, e: VkError| {
        destroy_objects(gpu, &out.res);
        Err(e)
    };
    for (i, r) in graph.resources.iter().enumerate() {
        if external.get(i).copied().unwrap_or(false) {
            out.requirements.push(vk::MemoryRequirements {
                size: r.bytes(),
                alignment: 1,
                memory_type_bits: !0,
            });
            out.res.push(placeholder(&r.kind));
            continue;
        }
        match &r.kind {
            ResourceKind::Image(desc) => {
                let sharing = sharing_of(i);
                let Some(samples) = conv::samples(desc.samples) else {
                    return fail(
                        &out,
                        VkError::Unsupported(format!("{}: {} samples", r.name, desc.samples)),
                    );
                };
                let mut info = vk::ImageCreateInfo::default()
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(conv::format(desc.format))
                    .extent(vk::Extent3D {
                        width: desc.width.max(1),
                        height: desc.height.max(1),
                        depth: 1,
                    })
                    .mip_levels(desc.mips.max(1))
                    .array_layers(desc.layers.max(1))
                    .samples(samples)
                    .tiling(vk::ImageTiling::OPTIMAL)
                    .usage(usage[i].0)
                    .sharing_mode(sharing)
                    .initial_layout(vk::ImageLayout::UNDEFINED);
                if desc.cube {
                    info = info.flags(vk::ImageCreateFlags::CUBE_COMPATIBLE);
                }
                if sharing == vk::SharingMode::CONCURRENT {
                    info = info.queue_family_indices(&families);
                }
                if memoryless[i] {
                    info = info.usage(
                        usage[i].0
                            & (vk::ImageUsageFlags::COLOR_ATTACHMENT
                                | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                                | vk::ImageUsageFlags::INPUT_ATTACHMENT
                                | vk::ImageUsageFlags::TRANSIENT_ATTACHMENT),
                    );
                }
                // SAFETY: `info` is complete and points at locals alive across the call.
                let image = match unsafe { d.create_image(&info, None) } {
                    Ok(i) => i,
                    Err(e) => return fail(&out, e.into()),
                };
                gpu.name(image, &r.name);
                // SAFETY: `image` was just created on this device.
                out.requirements
                    .push(unsafe { d.get_image_memory_requirements(image) });
                out.res.push(Res::Image(ImageRes {
                    image,
                    attachment_view: vk::ImageView::null(),
                    shader_view: vk::ImageView::null(),
                    mip_views: [vk::ImageView::null(); MAX_MIP_VIEWS],
                    cube: desc.cube,
                    format: desc.format,
                    extent: vk::Extent2D {
                        width: desc.width.max(1),
                        height: desc.height.max(1),
                    },
                    samples: desc.samples,
                    mips: desc.mips.max(1),
                    layers: desc.layers.max(1),
                    memoryless: memoryless[i],
                    viewable: usage[i].0.intersects(
                        vk::ImageUsageFlags::SAMPLED
                            | vk::ImageUsageFlags::STORAGE
                            | vk::ImageUsageFlags::COLOR_ATTACHMENT
                            | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                            | vk::ImageUsageFlags::INPUT_ATTACHMENT,
                    ),
                }));
            }
            ResourceKind::Buffer { size } => {
                let sharing = sharing_of(i);
                let mut info = vk::BufferCreateInfo::default()
                    .size((*size).max(4))
                    .usage(usage[i].1)
                    .sharing_mode(sharing);
                if sharing == vk::SharingMode::CONCURRENT {
                    info = info.queue_family_indices(&families);
                }
                // SAFETY: as above.
                let buffer = match unsafe { d.create_buffer(&info, None) } {
                    Ok(b) => b,
                    Err(e) => return fail(&out, e.into()),
                };
                gpu.name(buffer, &r.name);
                // SAFETY: `buffer` was just created on this device.
                out.requirements
                    .push(unsafe { d.get_buffer_memory_requirements(buffer) });
                out.res.push(Res::Buffer(BufferRes {
                    buffer,
                    size: (*size).max(4),
                }));
            }
        }
    }
    Ok(out)
}

/// The null-handle stand-in of a resource the executor does not create.
fn placeholder(kind: &ResourceKind) -> Res {
    match kind {
        ResourceKind::Image(desc) => Res::Image(ImageRes {
            image: vk::Image::null(),
            attachment_view: vk::ImageView::null(),
            shader_view: vk::ImageView::null(),
            mip_views: [vk::ImageView::null(); MAX_MIP_VIEWS],
            cube: desc.cube,
            format: desc.format,
            extent: vk::Extent2D {
                width: desc.width.max(1),
                height: desc.height.max(1),
            },
            samples: desc.samples,
            mips: desc.mips.max(1),
            layers: desc.layers.max(1),
            memoryless: false,
            viewable: false,
        }),
        ResourceKind::Buffer { size } => Res::Buffer(BufferRes {
            buffer: vk::Buffer::null(),
            size: (*size).max(4),
        }),
    }
}

/// Creates `im`'s views (bound to memory): the attachment and shader views of mip 0, layer
/// 0; of a cube map, a cube shader view of every mip and one per mip.
pub fn create_views(gpu: &Gpu, im: &mut ImageRes, name: &str) -> Result<(), VkError> {
    let d = &gpu.device;
    let all = conv::aspects(im.format);
    let view = |aspect: vk::ImageAspectFlags, cube: bool, mips: (u32, u32)| {
        let info = vk::ImageViewCreateInfo::default()
            .image(im.image)
            .view_type(if cube {
                vk::ImageViewType::CUBE
            } else {
                vk::ImageViewType::TYPE_2D
            })
            .format(conv::format(im.format))
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: mips.0,
                level_count: mips.1,
                base_array_layer: 0,
                layer_count: if cube { 6 } else { 1 },
            });
        // SAFETY: the image is bound to memory; `info` is complete.
        unsafe { d.create_image_view(&info, None) }
    };
    im.attachment_view = view(all, false, (0, 1))?;
    gpu.name(im.attachment_view, &format!("{name} (attachment)"));
    let shader_aspect = if im.format.has_depth() {
        vk::ImageAspectFlags::DEPTH
    } else {
        all
    };
    if im.cube {
        im.shader_view = view(shader_aspect, true, (0, im.mips))?;
        for m in 0..im.mips.min(MAX_MIP_VIEWS as u32) {
            let v = view(shader_aspect, true, (m, 1))?;
            gpu.name(v, &format!("{name} (mip {m})"));
            im.mip_views[m as usize] = v;
        }
    } else {
        im.shader_view = view(shader_aspect, false, (0, 1))?;
    }
    gpu.name(im.shader_view, &format!("{name} (shader)"));
    Ok(())
}

fn destroy_objects(gpu: &Gpu, res: &[Res]) {
    for r in res.iter().filter(|r| !r.is_null()) {
        // SAFETY: the objects belong to this device and no submitted work uses them (callers
        // wait for idle first).
        unsafe {
            match r {
                Res::Image(i) => {
                    let views = [i.attachment_view, i.shader_view];
                    for &v in views.iter().chain(&i.mip_views) {
                        if v != vk::ImageView::null() {
                            gpu.device.destroy_image_view(v, None);
                        }
                    }
                    gpu.device.destroy_image(i.image, None);
                }
                Res::Buffer(b) => gpu.device.destroy_buffer(b.buffer, None),
            }
        }
    }
}

impl Resources {
    /// Takes ownership of unbound objects (to destroy them).
    pub fn from_unbound(u: Unbound) -> Resources {
        Resources {
            res: u.res,
            memory: Vec::new(),
            blocks: 0,
            memoryless_fallbacks: Vec::new(),
        }
    }

    /// Binds memory as `plan.memory` says and creates the views.
    pub fn bind(
        gpu: &Gpu,
        graph: &Graph,
        plan: &Plan,
        unbound: Unbound,
    ) -> Result<Resources, VkError> {
        Self::bind_reusing(gpu, graph, plan, unbound, &mut SpareMemory::default())
    }

    /// [`Resources::bind`], taking over allocations of `spare` that fit before asking the
    /// allocator (what `spare` still holds afterwards is the caller's to free).
    pub fn bind_reusing(
        gpu: &Gpu,
        graph: &Graph,
        plan: &Plan,
        unbound: Unbound,
        spare: &mut SpareMemory,
    ) -> Result<Resources, VkError> {
        let mut me = Resources {
            res: unbound.res,
            memory: Vec::new(),
            blocks: 0,
            memoryless_fallbacks: Vec::new(),
        };
        match me.bind_inner(gpu, graph, plan, &unbound.requirements, spare) {
            Ok(()) => Ok(me),
            Err(e) => {
                me.destroy(gpu);
                Err(e)
            }
        }
    }

    fn bind_inner(
        &mut self,
        gpu: &Gpu,
        graph: &Graph,
        plan: &Plan,
        reqs: &[vk::MemoryRequirements],
        spare: &mut SpareMemory,
    ) -> Result<(), VkError> {
        let d = &gpu.device;
        let mut bound = vec![false; self.res.len()];
        let id_of = |name: &str| {
            graph
                .find_resource(name)
                .map(|r| r.index())
                .ok_or_else(|| VkError::Setup(format!("plan names unknown resource '{name}'")))
        };
        for (bi, block) in plan.memory.blocks.iter().enumerate() {
            let mut members = Vec::new();
            let mut has_image = false;
            for p in &block.placements {
                let i = id_of(&p.resource)?;
                if reqs[i].alignment > 0 && p.offset % reqs[i].alignment != 0 {
                    return Err(VkError::Unsupported(format!(
                        "placement of '{}' at {} breaks its alignment {}",
                        p.resource, p.offset, reqs[i].alignment
                    )));
                }
                if reqs[i].size > p.size {
                    return Err(VkError::Setup(format!(
                        "placement of '{}' has {} bytes, the resource needs {}",
                        p.resource, p.size, reqs[i].size
                    )));
                }
                has_image |= matches!(self.res[i], Res::Image(_));
                members.push((p.offset, reqs[i]));
            }
            let Some(req) = memtype::block_requirements(gpu.memory_types(), &members) else {
                return Err(VkError::Unsupported(format!(
                    "memory block {bi} mixes resources with no common device-local memory type"
                )));
            };
            let alloc = self.allocate(gpu, &format!("block {bi}"), req, !has_image, spare)?;
            let (memory, base) = (alloc.0, alloc.1);
            for p in &block.placements {
                let i = id_of(&p.resource)?;
                // SAFETY: the object is unbound, `memory` is a live allocation of a type its
                // requirements allow, and offset + size lies inside the allocation.
                unsafe {
                    match &self.res[i] {
                        Res::Image(im) => d.bind_image_memory(im.image, memory, base + p.offset)?,
                        Res::Buffer(b) => {
                            d.bind_buffer_memory(b.buffer, memory, base + p.offset)?
                        }
                    }
                }
                bound[i] = true;
            }
            self.blocks += 1;
        }
        for i in 0..self.res.len() {
            if bound[i] || self.res[i].is_null() {
                continue;
            }
            let name = graph.resources[i].name.to_string();
            let lazy = match &self.res[i] {
                Res::Image(im) if im.memoryless => {
                    memtype::memoryless_backing(gpu.memory_types(), reqs[i].memory_type_bits)
                }
                _ => MemorylessBacking::Ordinary,
            };
            if matches!(lazy, MemorylessBacking::Ordinary) && self.res[i].memoryless() {
                self.note_fallback(gpu, &name, reqs[i].memory_type_bits);
            }
            let (memory, offset) = match lazy {
                MemorylessBacking::Lazy { type_index } => {
                    let info = vk::MemoryAllocateInfo::default()
                        .allocation_size(reqs[i].size)
                        .memory_type_index(type_index);
                    // SAFETY: a plain allocation of a type the image allows.
                    let m = unsafe { d.allocate_memory(&info, None) }?;
                    gpu.direct_allocations.fetch_add(1, Ordering::SeqCst);
                    let flags = gpu.memory_types()[type_index as usize].property_flags;
                    self.memory.push(Memory::Direct(m, reqs[i].size, flags));
                    (m, 0)
                }
                MemorylessBacking::Ordinary => {
                    let linear = matches!(self.res[i], Res::Buffer(_));
                    let a = self.allocate(gpu, &name, reqs[i], linear, spare)?;
                    (a.0, a.1)
                }
            };
            // SAFETY: as for blocks: unbound object, fitting live memory.
            unsafe {
                match &self.res[i] {
                    Res::Image(im) => d.bind_image_memory(im.image, memory, offset)?,
                    Res::Buffer(b) => d.bind_buffer_memory(b.buffer, memory, offset)?,
                }
            }
        }
        for (i, r) in self.res.iter_mut().enumerate() {
            if let Res::Image(im) = r {
                if im.viewable && im.image != vk::Image::null() {
                    create_views(gpu, im, &graph.resources[i].name)?;
                }
            }
        }
        Ok(())
    }

    /// The allocations made for the frame's resources, and their bytes per memory type
    /// (the type's property flags, e.g. `DEVICE_LOCAL | LAZILY_ALLOCATED`).
    pub fn allocation_summary(&self) -> (u64, Vec<(String, u64)>) {
        let mut bytes: Vec<(String, u64)> = Vec::new();
        for m in &self.memory {
            let (flags, size) = match m {
                Memory::Managed(a, _, _) => (a.memory_properties(), a.size()),
                Memory::Direct(_, size, flags) => (*flags, *size),
            };
            let key = format!("{flags:?}");
            match bytes.iter_mut().find(|(k, _)| *k == key) {
                Some((_, b)) => *b += size,
                None => bytes.push((key, size)),
            }
        }
        (self.memory.len() as u64, bytes)
    }

    /// Says why the memoryless attachment `name` is bound to ordinary memory.
    fn note_fallback(&mut self, gpu: &Gpu, name: &str, type_bits: u32) {
        if !memtype::has_lazily_allocated(gpu.memory_types()) {
            log::info!(
                "'{name}' is planned memoryless but the device has no lazily allocated memory: \
                 bound to ordinary memory (its load/store ops still keep it in tile memory)"
            );
        } else if gpu.renderdoc_attached() {
            // Expected under RenderDoc (verify-capture notes it): not a fault.
            log::info!(
                "RenderDoc is attached and captures '{name}' as an ordinary image (no \
                 TRANSIENT_ATTACHMENT, memory type bits {type_bits:#x} allow no lazily \
                 allocated type): bound to ordinary memory for this run"
            );
        } else {
            log::warn!(
                "'{name}' is planned memoryless but its memory type bits {type_bits:#x} allow \
                 no lazily allocated type: bound to ordinary memory"
            );
        }
        self.memoryless_fallbacks.push(name.to_string());
    }

    fn allocate(
        &mut self,
        gpu: &Gpu,
        name: &str,
        req: vk::MemoryRequirements,
        linear: bool,
        spare: &mut SpareMemory,
    ) -> Result<(vk::DeviceMemory, u64), VkError> {
        if let Some(alloc) = spare.take(&req, linear) {
            // SAFETY: the allocation is alive until `destroy` frees it; nothing of the
            // retired plan is bound to it any more (its objects were destroyed).
            let out = (unsafe { alloc.memory() }, alloc.offset());
            self.memory
                .push(Memory::Managed(alloc, req.memory_type_bits, linear));
            return Ok(out);
        }
        let Some(a) = &gpu.allocator else {
            return Err(VkError::Setup("allocator gone".into()));
        };
        let mut a = a
            .lock()
            .map_err(|_| VkError::Setup("allocator lock poisoned".into()))?;
        let alloc = a.allocate(&AllocationCreateDesc {
            name,
            requirements: req,
            location: MemoryLocation::GpuOnly,
            linear,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })?;
        // SAFETY: the allocation is alive until `destroy` frees it.
        let out = (unsafe { alloc.memory() }, alloc.offset());
        self.memory
            .push(Memory::Managed(alloc, req.memory_type_bits, linear));
        Ok(out)
    }

    /// The image of a resource, if it is one.
    pub fn image(&self, i: usize) -> Option<&ImageRes> {
        match self.res.get(i) {
            Some(Res::Image(im)) => Some(im),
            _ => None,
        }
    }

    /// The buffer of a resource, if it is one.
    pub fn buffer(&self, i: usize) -> Option<&BufferRes> {
        match self.res.get(i) {
            Some(Res::Buffer(b)) => Some(b),
            _ => None,
        }
    }

    /// Destroys every object and frees the memory (the device must be idle).
    pub fn destroy(&mut self, gpu: &Gpu) {
        let mut none = SpareMemory::default();
        self.retire_into(gpu, &mut none, false);
    }

    /// Destroys every object and puts the allocator's allocations on offer in `spare` for
    /// the next plan (lazily allocated memory is freed); the device must be idle.
    pub fn retire(&mut self, gpu: &Gpu, spare: &mut SpareMemory) {
        self.retire_into(gpu, spare, true);
    }

    fn retire_into(&mut self, gpu: &Gpu, spare: &mut SpareMemory, keep: bool) {
        destroy_objects(gpu, &self.res);
        self.res.clear();
        for m in self.memory.drain(..) {
            match m {
                Memory::Managed(a, bits, linear) if keep => spare.spare.push((a, bits, linear)),
                Memory::Managed(a, _, _) => free_managed(gpu, a),
                Memory::Direct(m, _, _) => {
                    // SAFETY: nothing bound to it is alive any more.
                    unsafe { gpu.device.free_memory(m, None) };
                    gpu.direct_allocations.fetch_sub(1, Ordering::SeqCst);
                }
            }
        }
    }
}

/// A persistent host-visible buffer used as a ring for uploads (and readbacks): allocated
/// once, sub-allocated with a moving head, never one staging buffer per upload.
pub struct StagingRing {
    /// The buffer.
    pub buffer: vk::Buffer,
    alloc: Option<Allocation>,
    size: u64,
    head: u64,
    /// Bytes handed out since creation (wrapping included).
    pub bytes_staged: u64,
}

impl std::fmt::Debug for StagingRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagingRing")
            .field("size", &self.size)
            .field("head", &self.head)
            .finish()
    }
}

/// A buffer in host-visible memory (`GpuToCpu`: mapped, cached for reads), usable from the
/// queues of both `families` (`CONCURRENT` when they differ), named `name`: the staging ring
/// and the read-back buffers. On error nothing is left behind.
pub fn host_buffer(
    gpu: &Gpu,
    size: u64,
    usage: vk::BufferUsageFlags,
    families: [u32; 2],
    name: &str,
) -> Result<(vk::Buffer, Allocation), VkError> {
    let mut info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(usage)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    if families[0] != families[1] {
        info = info
            .sharing_mode(vk::SharingMode::CONCURRENT)
            .queue_family_indices(&families);
    }
    // SAFETY: complete create info.
    let buffer = unsafe { gpu.device.create_buffer(&info, None) }?;
    gpu.name(buffer, name);
    // SAFETY: just created.
    let req = unsafe { gpu.device.get_buffer_memory_requirements(buffer) };
    let alloc = gpu
        .allocator
        .as_ref()
        .ok_or_else(|| VkError::Setup("allocator gone".into()))
        .and_then(|a| {
            a.lock()
                .map_err(|_| VkError::Setup("allocator lock poisoned".into()))?
                .allocate(&AllocationCreateDesc {
                    name,
                    requirements: req,
                    location: MemoryLocation::GpuToCpu,
                    linear: true,
                    allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                })
                .map_err(VkError::from)
        });
    let alloc = match alloc {
        Ok(a) => a,
        Err(e) => {
            // SAFETY: unbound, unused.
            unsafe { gpu.device.destroy_buffer(buffer, None) };
            return Err(e);
        }
    };
    // SAFETY: fresh allocation of a type the buffer allows, inside its bounds.
    if let Err(e) = unsafe {
        gpu.device
            .bind_buffer_memory(buffer, alloc.memory(), alloc.offset())
    } {
        // SAFETY: unbound, unused.
        unsafe { gpu.device.destroy_buffer(buffer, None) };
        if let Some(Ok(mut allocator)) = gpu.allocator.as_ref().map(|a| a.lock()) {
            let _ = allocator.free(alloc);
        }
        return Err(e.into());
    }
    Ok((buffer, alloc))
}

impl StagingRing {
    /// A ring of `size` bytes in host-visible memory, usable from the queues of both
    /// `families` (`CONCURRENT` when they differ).
    pub fn new(gpu: &Gpu, size: u64, families: [u32; 2]) -> Result<StagingRing, VkError> {
        let usage = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
        let (buffer, alloc) = host_buffer(gpu, size, usage, families, "staging ring")?;
        Ok(StagingRing {
            buffer,
            alloc: Some(alloc),
            size,
            head: 0,
            bytes_staged: 0,
        })
    }

    /// Reserves `len` bytes aligned to 16 and returns their offset; wraps to the start when
    /// the tail is too short. The caller must have waited for earlier users of the region
    /// (`Executor::once_on`, its only user, waits for its one-time work's fence).
    pub fn reserve(&mut self, len: u64) -> Option<u64> {
        let (at, head) = ring_reserve(self.head, self.size, len)?;
        self.head = head;
        self.bytes_staged += len;
        Some(at)
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The mapped bytes of the ring.
    pub fn bytes_mut(&mut self) -> Option<&mut [u8]> {
        self.alloc.as_mut()?.mapped_slice_mut()
    }

    /// Invalidates nothing (host-coherent or cached memory is read after a fence wait);
    /// returns the mapped bytes for reading.
    pub fn bytes(&self) -> Option<&[u8]> {
        self.alloc.as_ref()?.mapped_slice()
    }

    /// Frees the ring (device idle).
    pub fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: unused by the GPU (device idle).
        unsafe { gpu.device.destroy_buffer(self.buffer, None) };
        if let (Some(a), Some(al)) = (self.alloc.take(), &gpu.allocator) {
            if let Ok(mut al) = al.lock() {
                let _ = al.free(a);
            }
        }
    }
}

/// An image the renderer owns, handed in for one frame. Defined with the resources (the
/// executor re-exports it) so that [`OwnedImage::imported`] needs nothing of the executor.
#[derive(Clone, Copy, Debug)]
pub struct ImportedImage {
    /// The image.
    pub image: vk::Image,
    /// A view of mip 0, layer 0 with every aspect (framebuffers and descriptors).
    pub view: vk::ImageView,
    /// Its format (must be the graph's).
    pub format: vk::Format,
    /// Its extent (must be the graph's, with real sizes).
    pub extent: vk::Extent2D,
}

/// An image the renderer owns (textures, imported outputs): one allocation, one view of
/// every mip (colour) or of the depth aspect.
pub struct OwnedImage {
    /// The image.
    pub image: vk::Image,
    /// A view of all its mips, layer 0.
    pub view: vk::ImageView,
    /// Format.
    pub format: vk::Format,
    /// Extent of mip 0.
    pub extent: vk::Extent2D,
    /// Mip levels.
    pub mips: u32,
    alloc: Option<Allocation>,
}

impl std::fmt::Debug for OwnedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedImage")
            .field("image", &self.image)
            .field("format", &self.format)
            .field("extent", &self.extent)
            .finish_non_exhaustive()
    }
}

impl OwnedImage {
    /// Creates a 2D image in device-local memory with a view (EXCLUSIVE, optimal tiling,
    /// `UNDEFINED`), named `name`. On error nothing is left behind.
    pub fn new(
        gpu: &Gpu,
        format: vk::Format,
        extent: vk::Extent2D,
        mips: u32,
        usage: vk::ImageUsageFlags,
        name: &str,
    ) -> Result<OwnedImage, VkError> {
        let d = &gpu.device;
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width: extent.width.max(1),
                height: extent.height.max(1),
                depth: 1,
            })
            .mip_levels(mips.max(1))
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: complete create info.
        let image = unsafe { d.create_image(&info, None) }?;
        gpu.name(image, name);
        let mut me = OwnedImage {
            image,
            view: vk::ImageView::null(),
            format,
            extent,
            mips: mips.max(1),
            alloc: None,
        };
        match me.bind(gpu, usage, name) {
            Ok(()) => Ok(me),
            Err(e) => {
                me.destroy(gpu);
                Err(e)
            }
        }
    }

    fn bind(&mut self, gpu: &Gpu, usage: vk::ImageUsageFlags, name: &str) -> Result<(), VkError> {
        let d = &gpu.device;
        // SAFETY: a live image of this device.
        let req = unsafe { d.get_image_memory_requirements(self.image) };
        let alloc = gpu
            .allocator
            .as_ref()
            .ok_or_else(|| VkError::Setup("allocator gone".into()))?
            .lock()
            .map_err(|_| VkError::Setup("allocator lock poisoned".into()))?
            .allocate(&AllocationCreateDesc {
                name,
                requirements: req,
                location: MemoryLocation::GpuOnly,
                linear: false,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })?;
        // SAFETY: fresh allocation of a type the image allows, inside its bounds.
        let bound = unsafe { d.bind_image_memory(self.image, alloc.memory(), alloc.offset()) };
        self.alloc = Some(alloc);
        bound?;
        // Every aspect for attachments; the depth aspect alone for a sampled depth image.
        let aspect = match Format::ALL
            .iter()
            .find(|f| conv::format(**f) == self.format)
        {
            Some(f) if usage.contains(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT) => {
                conv::aspects(*f)
            }
            Some(f) if f.has_depth() => vk::ImageAspectFlags::DEPTH,
            _ => vk::ImageAspectFlags::COLOR,
        };
        let viewable = usage.intersects(
            vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::COLOR_ATTACHMENT
                | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
                | vk::ImageUsageFlags::INPUT_ATTACHMENT,
        );
        if viewable {
            let info = vk::ImageViewCreateInfo::default()
                .image(self.image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(self.format)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: aspect,
                    base_mip_level: 0,
                    level_count: self.mips,
                    base_array_layer: 0,
                    layer_count: 1,
                });
            // SAFETY: the image is bound; complete create info.
            self.view = unsafe { d.create_image_view(&info, None) }?;
            gpu.name(self.view, name);
        }
        Ok(())
    }

    /// As a frame import.
    pub fn imported(&self) -> ImportedImage {
        ImportedImage {
            image: self.image,
            view: self.view,
            format: self.format,
            extent: self.extent,
        }
    }

    /// Destroys the image (no work in flight uses it).
    pub fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: no work in flight uses the view or image (the caller's contract).
        unsafe {
            if self.view != vk::ImageView::null() {
                gpu.device.destroy_image_view(self.view, None);
            }
            gpu.device.destroy_image(self.image, None);
        }
        self.view = vk::ImageView::null();
        self.image = vk::Image::null();
        if let (Some(a), Some(al)) = (self.alloc.take(), &gpu.allocator) {
            if let Ok(mut al) = al.lock() {
                let _ = al.free(a);
            }
        }
    }
}

/// A buffer the renderer owns: device-local, or host-visible and mapped.
pub struct OwnedBuffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Size in bytes.
    pub size: u64,
    alloc: Option<Allocation>,
}

impl std::fmt::Debug for OwnedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedBuffer")
            .field("buffer", &self.buffer)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl OwnedBuffer {
    /// Creates a buffer of `size` bytes (EXCLUSIVE) in device-local memory, or host-visible
    /// mapped memory (`host`: read-back friendly), named `name`. On error nothing is left.
    pub fn new(
        gpu: &Gpu,
        size: u64,
        usage: vk::BufferUsageFlags,
        host: bool,
        name: &str,
    ) -> Result<OwnedBuffer, VkError> {
        let g = gpu.graphics.family;
        OwnedBuffer::shared(gpu, size, usage, host, name, [g, g])
    }

    /// [`OwnedBuffer::new`] for the queues of both `families` (graphics, async compute):
    /// `CONCURRENT` when they differ, as the plan shares every buffer used on both queues.
    pub fn shared(
        gpu: &Gpu,
        size: u64,
        usage: vk::BufferUsageFlags,
        host: bool,
        name: &str,
        families: [u32; 2],
    ) -> Result<OwnedBuffer, VkError> {
        let d = &gpu.device;
        let info = vk::BufferCreateInfo::default()
            .size(size.max(4))
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let info = if families[0] != families[1] {
            info.sharing_mode(vk::SharingMode::CONCURRENT)
                .queue_family_indices(&families)
        } else {
            info
        };
        // SAFETY: complete create info.
        let buffer = unsafe { d.create_buffer(&info, None) }?;
        gpu.name(buffer, name);
        // SAFETY: just created.
        let req = unsafe { d.get_buffer_memory_requirements(buffer) };
        let alloc = gpu
            .allocator
            .as_ref()
            .ok_or_else(|| VkError::Setup("allocator gone".into()))
            .and_then(|a| {
                a.lock()
                    .map_err(|_| VkError::Setup("allocator lock poisoned".into()))?
                    .allocate(&AllocationCreateDesc {
                        name,
                        requirements: req,
                        location: if host {
                            MemoryLocation::GpuToCpu
                        } else {
                            MemoryLocation::GpuOnly
                        },
                        linear: true,
                        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                    })
                    .map_err(VkError::from)
            });
        let mut me = OwnedBuffer {
            buffer,
            size: size.max(4),
            alloc: None,
        };
        match alloc {
            Ok(a) => {
                // SAFETY: fresh allocation of a type the buffer allows, inside its bounds.
                let r = unsafe { d.bind_buffer_memory(buffer, a.memory(), a.offset()) };
                me.alloc = Some(a);
                if let Err(e) = r {
                    me.destroy(gpu);
                    return Err(e.into());
                }
                Ok(me)
            }
            Err(e) => {
                me.destroy(gpu);
                Err(e)
            }
        }
    }

    /// The mapped bytes (host-visible buffers; read them after the work that wrote them is
    /// complete).
    pub fn mapped(&self) -> Option<&[u8]> {
        self.alloc.as_ref()?.mapped_slice()
    }

    /// Destroys the buffer (no work in flight uses it).
    pub fn destroy(&mut self, gpu: &Gpu) {
        // SAFETY: no work in flight uses it (the caller's contract).
        unsafe { gpu.device.destroy_buffer(self.buffer, None) };
        self.buffer = vk::Buffer::null();
        if let (Some(a), Some(al)) = (self.alloc.take(), &gpu.allocator) {
            if let Ok(mut al) = al.lock() {
                let _ = al.free(a);
            }
        }
    }
}

/// Index of resources by name for a graph.
pub fn index_by_name(graph: &Graph) -> HashMap<String, usize> {
    graph
        .resources
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.to_string(), i))
        .collect()
}

/// Ring arithmetic: where `len` bytes (rounded up to 16) go with the head at `head` in a
/// ring of `size` bytes, and the new head; `None` when `len` exceeds the ring.
pub fn ring_reserve(head: u64, size: u64, len: u64) -> Option<(u64, u64)> {
    let len = len.div_ceil(16) * 16;
    if len > size {
        return None;
    }
    let at = if head + len > size { 0 } else { head };
    Some((at, at + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_wraps_and_aligns() {
        assert_eq!(ring_reserve(0, 64, 10), Some((0, 16)));
        assert_eq!(ring_reserve(16, 64, 20), Some((16, 48)));
        assert_eq!(ring_reserve(48, 64, 30), Some((0, 32)));
        assert_eq!(ring_reserve(0, 64, 65), None);
    }
}
