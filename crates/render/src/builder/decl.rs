//! What a pass declares: its uses of the frame's resources, and the descriptor bindings the
//! shader-visible ones become.
//!
//! Every use a shader reads or writes through a descriptor (uniform and storage buffers,
//! sampled, storage and input-attachment images) also takes a binding: the next free one
//! of the *current set* (set 0 until [`PassDecl::in_set`] picks another), or the one
//! [`PassDecl::at_binding`] names. The body then writes its descriptor sets from these
//! bindings, in the layouts the plan puts each image in for the pass
//! (`crate::gpu::descriptors`), so it states only what the graph does not know: the
//! pipeline, push constants and draws (kajiya's `SimpleRenderPass` works the same way).

use tessera_graph::graph::ResourceId;
use tessera_graph::{Access, ClearValue, QueueKind, ResolveMode};

/// An image of the frame's graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageRef(ResourceId);

/// A buffer of the frame's graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferRef(ResourceId);

impl ImageRef {
    pub(crate) fn new(id: ResourceId) -> Self {
        ImageRef(id)
    }

    /// The graph's id of the image (for the executor's lookups).
    pub(crate) fn id(self) -> ResourceId {
        self.0
    }
}

impl BufferRef {
    pub(crate) fn new(id: ResourceId) -> Self {
        BufferRef(id)
    }

    /// The graph's id of the buffer (for the executor's lookups).
    pub(crate) fn id(self) -> ResourceId {
        self.0
    }
}

/// How a sampled image is filtered (clamped to its edge in every case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Bilinear.
    Linear,
    /// The nearest texel (depth, data images).
    Nearest,
    /// Depth comparison (`sampler2DShadow`): the shadow cascades.
    ShadowCompare,
}

/// The descriptor a declared use becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// A uniform buffer (whole).
    UniformBuffer,
    /// A storage buffer (whole).
    StorageBuffer,
    /// A storage image (`GENERAL`).
    StorageImage,
    /// A combined image sampler.
    Sampled(Filter),
    /// An input attachment (`subpassLoad`).
    InputAttachment,
}

/// A frame resource behind a binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// An image.
    Image(ImageRef),
    /// A buffer.
    Buffer(BufferRef),
}

/// One descriptor binding a pass declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    /// The descriptor set.
    pub set: u32,
    /// The binding in that set.
    pub binding: u32,
    /// What descriptor it is.
    pub kind: BindingKind,
    /// The resource.
    pub resource: Bound,
    /// The use behind it (an image's layout follows from it, as for the plan's barriers).
    pub access: Access,
    /// Reads the previous frame's content of a history resource (bound to the physical
    /// resource holding it this frame).
    pub previous: bool,
}

/// One use a [`PassDecl`] collected.
#[derive(Clone, Copy, Debug)]
pub(super) struct DeclUse {
    pub(super) resource: ResourceId,
    pub(super) access: Access,
    pub(super) clear: Option<ClearValue>,
    pub(super) previous: bool,
    /// For a resolve: the multisampled attachment resolved into `resource`.
    pub(super) from: Option<ResourceId>,
    /// For a depth resolve: how the samples combine.
    pub(super) resolve_mode: Option<ResolveMode>,
    /// Coverage by this depth/stencil image ([`PassDecl::covered_by`]).
    pub(super) coverage: Option<ResourceId>,
}

/// The uses of the pass being declared.
#[derive(Debug)]
pub struct PassDecl {
    pub(super) uses: Vec<DeclUse>,
    pub(super) bindings: Vec<Binding>,
    pub(super) queue: QueueKind,
    pub(super) side_effects: bool,
    set: u32,
    /// The next free binding of each set so far.
    next_binding: Vec<u32>,
    /// The depth image the image uses declared next are covered by ([`Self::covered_by`]).
    covered_by: Option<ResourceId>,
}

impl Default for PassDecl {
    fn default() -> Self {
        PassDecl {
            // A pass of the frame has a handful of uses and bindings.
            uses: Vec::with_capacity(8),
            bindings: Vec::with_capacity(8),
            queue: QueueKind::Graphics,
            side_effects: false,
            set: 0,
            next_binding: vec![0],
            covered_by: None,
        }
    }
}

impl PassDecl {
    fn push(&mut self, resource: ResourceId, access: Access, clear: Option<ClearValue>) {
        let coverage = self
            .coverage_of(resource, access)
            .filter(|_| clear.is_none());
        self.uses.push(DeclUse {
            resource,
            access,
            clear,
            previous: false,
            from: None,
            resolve_mode: None,
            coverage,
        });
    }

    /// The coverage a use of image `resource` as `access` declared now takes: the current
    /// [`Self::covered_by`] image, except on that image's own use, on depth attachments and
    /// resolves (which coverage does not describe); the caller leaves it off cleared uses
    /// (a clear defines every pixel).
    fn coverage_of(&self, resource: ResourceId, access: Access) -> Option<ResourceId> {
        let described = !matches!(
            access,
            Access::DepthWrite | Access::DepthRead | Access::Resolve
        );
        self.covered_by.filter(|&d| d != resource && described)
    }

    /// A use that a shader reaches through a descriptor: the use, and the next binding of
    /// the current set.
    fn push_bound(&mut self, resource: Bound, access: Access, kind: BindingKind) {
        self.push_bound_from(resource, access, kind, false);
    }

    /// [`Self::push_bound`], of the previous frame's content when `previous`.
    fn push_bound_from(
        &mut self,
        resource: Bound,
        access: Access,
        kind: BindingKind,
        previous: bool,
    ) {
        let (id, coverage) = match resource {
            Bound::Image(i) => (i.0, self.coverage_of(i.0, access).filter(|_| !previous)),
            Bound::Buffer(b) => (b.0, None),
        };
        self.uses.push(DeclUse {
            resource: id,
            access,
            clear: None,
            previous,
            from: None,
            resolve_mode: None,
            coverage,
        });
        let set = self.set as usize;
        let binding = self.next_binding[set];
        self.next_binding[set] = binding + 1;
        self.bindings.push(Binding {
            set: self.set,
            binding,
            kind,
            resource,
            access,
            previous,
        });
    }

    /// The shader-visible uses declared next go to descriptor set `set` (from its next free
    /// binding).
    pub fn in_set(&mut self, set: u32) -> &mut Self {
        let needed = set as usize + 1;
        if self.next_binding.len() < needed {
            self.next_binding.resize(needed, 0);
        }
        self.set = set;
        self
    }

    /// The next shader-visible use takes `binding` of the current set (a shader variant
    /// whose layout leaves a gap).
    pub fn at_binding(&mut self, binding: u32) -> &mut Self {
        self.next_binding[self.set as usize] = binding;
        self
    }

    /// The image uses declared next (colour writes and reads, until [`Self::everywhere`])
    /// are covered by `depth`, this pass's depth attachment for a colour write
    /// (`Use::coverage`): a colour write ([`Self::color`], [`Self::color_partial`]) writes
    /// every pixel `depth` covers and leaves the others undefined, so the graph neither
    /// clears nor loads it; a read ([`Self::input`], [`Self::sampled`], ...) reads only
    /// covered pixels, and the pass reads `depth` too. The graph rejects a read of covered
    /// content without the same coverage. The use of `depth` itself, cleared uses, resolves
    /// and buffers take no coverage.
    pub fn covered_by(&mut self, depth: ImageRef) -> &mut Self {
        self.covered_by = Some(depth.0);
        self
    }

    /// The uses declared next are not covered (the default; ends [`Self::covered_by`]).
    pub fn everywhere(&mut self) -> &mut Self {
        self.covered_by = None;
        self
    }

    /// Writes a colour attachment where fragments are drawn, keeping the other pixels (or,
    /// after [`Self::covered_by`], leaving the uncovered ones undefined).
    pub fn color_partial(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::ColorWrite, None);
        self
    }

    /// Writes every pixel of a colour attachment.
    pub fn color(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::ColorWriteAll, None);
        self
    }

    /// Clears a colour attachment to `rgba`, then writes it (pixels may stay cleared).
    pub fn color_cleared(&mut self, image: ImageRef, rgba: [f32; 4]) -> &mut Self {
        self.push(image.0, Access::ColorWrite, Some(ClearValue::Color(rgba)));
        self
    }

    /// Reads and writes a colour attachment (blending).
    pub fn blend(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::ColorReadWrite, None);
        self
    }

    /// Clears a depth attachment to `depth`, then tests and writes it.
    pub fn depth_cleared(&mut self, image: ImageRef, depth: f32) -> &mut Self {
        let clear = ClearValue::DepthStencil { depth, stencil: 0 };
        self.push(image.0, Access::DepthWrite, Some(clear));
        self
    }

    /// Resolves the multisampled colour attachment `from` (written by this pass or an earlier
    /// subpass of its render pass) into the single-sampled `target` when the subpass ends:
    /// on a tiler the samples are averaged on write-back, so only `target` leaves the tile.
    pub fn resolve(&mut self, target: ImageRef, from: ImageRef) -> &mut Self {
        self.uses.push(DeclUse {
            resource: target.0,
            access: Access::Resolve,
            clear: None,
            previous: false,
            from: Some(from.0),
            resolve_mode: None,
            coverage: None,
        });
        self
    }

    /// Resolves this pass's multisampled depth attachment `from` into the single-sampled
    /// `target` with `mode` as the subpass ends (`VK_KHR_depth_stencil_resolve`): a later pass
    /// that samples the depth reads `target`, while `from` can stay in tile memory.
    pub fn resolve_depth(
        &mut self,
        target: ImageRef,
        from: ImageRef,
        mode: ResolveMode,
    ) -> &mut Self {
        self.uses.push(DeclUse {
            resource: target.0,
            access: Access::Resolve,
            clear: None,
            previous: false,
            from: Some(from.0),
            resolve_mode: Some(mode),
            coverage: None,
        });
        self
    }

    /// Tests against a depth attachment without writing it.
    pub fn depth_read(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::DepthRead, None);
        self
    }

    /// Reads the same pixel of `image` (`subpassLoad`); takes a binding.
    pub fn input(&mut self, image: ImageRef) -> &mut Self {
        let kind = BindingKind::InputAttachment;
        self.push_bound(Bound::Image(image), Access::InputAttachment, kind);
        self
    }

    /// Samples `image` anywhere, filtered bilinearly; takes a binding.
    pub fn sampled(&mut self, image: ImageRef) -> &mut Self {
        self.sampled_with(image, Filter::Linear)
    }

    /// Samples `image` anywhere with `filter`; takes a binding.
    pub fn sampled_with(&mut self, image: ImageRef, filter: Filter) -> &mut Self {
        let kind = BindingKind::Sampled(filter);
        self.push_bound(Bound::Image(image), Access::Sampled, kind);
        self
    }

    /// Samples the previous frame's content of the history image `image`, filtered
    /// bilinearly; takes a binding.
    pub fn sampled_previous(&mut self, image: ImageRef) -> &mut Self {
        self.sampled_previous_with(image, Filter::Linear)
    }

    /// Samples the previous frame's content of the history image `image` with `filter`;
    /// takes a binding.
    pub fn sampled_previous_with(&mut self, image: ImageRef, filter: Filter) -> &mut Self {
        let kind = BindingKind::Sampled(filter);
        self.push_bound_from(Bound::Image(image), Access::Sampled, kind, true);
        self
    }

    /// Reads the previous frame's content of the history buffer `buffer` as a storage
    /// buffer; takes a binding.
    pub fn storage_read_previous(&mut self, buffer: BufferRef) -> &mut Self {
        let kind = BindingKind::StorageBuffer;
        self.push_bound_from(Bound::Buffer(buffer), Access::StorageRead, kind, true);
        self
    }

    /// Reads `buffer` as vertex attributes.
    pub fn vertices(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::VertexBuffer, None);
        self
    }

    /// Reads `buffer` as indices.
    pub fn indices(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::IndexBuffer, None);
        self
    }

    /// Reads `buffer` as a uniform buffer; takes a binding.
    pub fn uniform(&mut self, buffer: BufferRef) -> &mut Self {
        let kind = BindingKind::UniformBuffer;
        self.push_bound(Bound::Buffer(buffer), Access::Uniform, kind);
        self
    }

    /// Reads `buffer` as a storage buffer; takes a binding.
    pub fn storage_read(&mut self, buffer: BufferRef) -> &mut Self {
        let kind = BindingKind::StorageBuffer;
        self.push_bound(Bound::Buffer(buffer), Access::StorageRead, kind);
        self
    }

    /// Writes `buffer` from a shader (storage); parts may stay untouched. Takes a binding.
    pub fn storage_write(&mut self, buffer: BufferRef) -> &mut Self {
        let kind = BindingKind::StorageBuffer;
        self.push_bound(Bound::Buffer(buffer), Access::StorageWrite, kind);
        self
    }

    /// Reads and writes `buffer` from a shader (atomics, accumulation, a temporal value);
    /// takes a binding.
    pub fn storage_read_write(&mut self, buffer: BufferRef) -> &mut Self {
        let kind = BindingKind::StorageBuffer;
        self.push_bound(Bound::Buffer(buffer), Access::StorageReadWrite, kind);
        self
    }

    /// Reads `image` as a storage image (`imageLoad`, layout `GENERAL`); takes a binding.
    pub fn image_load(&mut self, image: ImageRef) -> &mut Self {
        let kind = BindingKind::StorageImage;
        self.push_bound(Bound::Image(image), Access::StorageRead, kind);
        self
    }

    /// Writes `image` as a storage image (`imageStore`, layout `GENERAL`); takes a
    /// binding.
    pub fn image_store(&mut self, image: ImageRef) -> &mut Self {
        let kind = BindingKind::StorageImage;
        self.push_bound(Bound::Image(image), Access::StorageWrite, kind);
        self
    }

    /// Copies from `image`.
    pub fn copy_from(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::TransferSrc, None);
        self
    }

    /// Copies into `buffer`.
    pub fn copy_to(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::TransferDst, None);
        self
    }

    /// Copies (or blits) into `image` (layout `TRANSFER_DST_OPTIMAL`).
    pub fn copy_into(&mut self, image: ImageRef) -> &mut Self {
        self.push(image.0, Access::TransferDst, None);
        self
    }

    /// Clears `buffer` (`vkCmdFillBuffer`) before a pass accumulates into it.
    pub fn fill(&mut self, buffer: BufferRef) -> &mut Self {
        self.push(buffer.0, Access::TransferDst, None);
        self
    }

    /// Asks for the async-compute queue (compute passes).
    pub fn async_compute(&mut self) -> &mut Self {
        self.queue = QueueKind::AsyncCompute;
        self
    }

    /// Never culled: the pass writes something the graph does not see (a read-back).
    pub fn side_effects(&mut self) -> &mut Self {
        self.side_effects = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Six resources: ids 0..6 in declaration order.
    fn ids() -> Vec<ResourceId> {
        let mut g = tessera_graph::Graph::new("decl");
        (0..6).map(|i| g.buffer(format!("r{i}"), 16)).collect()
    }

    fn image(i: usize) -> ImageRef {
        ImageRef(ids()[i])
    }

    fn buffer(i: usize) -> BufferRef {
        BufferRef(ids()[i])
    }

    fn slots(d: &PassDecl) -> Vec<(u32, u32, BindingKind)> {
        d.bindings
            .iter()
            .map(|b| (b.set, b.binding, b.kind))
            .collect()
    }

    #[test]
    fn shader_visible_uses_take_bindings_in_order_and_attachments_none() {
        let mut d = PassDecl::default();
        d.uniform(buffer(0))
            .color(image(1))
            .sampled_with(image(2), Filter::Nearest)
            .vertices(buffer(3))
            .image_store(image(4));
        assert_eq!(d.uses.len(), 5, "every use is declared");
        assert_eq!(
            slots(&d),
            vec![
                (0, 0, BindingKind::UniformBuffer),
                (0, 1, BindingKind::Sampled(Filter::Nearest)),
                (0, 2, BindingKind::StorageImage),
            ]
        );
    }

    #[test]
    fn sets_resume_their_numbering_and_gaps_are_kept() {
        let mut d = PassDecl::default();
        d.in_set(1)
            .input(image(0))
            .input(image(1))
            .in_set(0)
            .uniform(buffer(2))
            .in_set(2)
            .sampled_with(image(3), Filter::ShadowCompare)
            .in_set(1)
            .input(image(4))
            .in_set(0)
            .at_binding(3)
            .sampled(image(5));
        assert_eq!(
            slots(&d),
            vec![
                (1, 0, BindingKind::InputAttachment),
                (1, 1, BindingKind::InputAttachment),
                (0, 0, BindingKind::UniformBuffer),
                (2, 0, BindingKind::Sampled(Filter::ShadowCompare)),
                (1, 2, BindingKind::InputAttachment),
                (0, 3, BindingKind::Sampled(Filter::Linear)),
            ]
        );
        // The uses keep declaration order (the plan depends on it).
        let order: Vec<usize> = d.uses.iter().map(|u| u.resource.index()).collect();
        assert_eq!(order, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn covered_by_applies_to_image_uses_until_everywhere() {
        let mut d = PassDecl::default();
        d.covered_by(image(0))
            .depth_cleared(image(0), 0.0)
            .color(image(1))
            .color_partial(image(2))
            .color_cleared(image(3), [0.0; 4])
            .uniform(buffer(4))
            .everywhere()
            .sampled(image(5));
        let coverage: Vec<Option<usize>> = d
            .uses
            .iter()
            .map(|u| u.coverage.map(|c| c.index()))
            .collect();
        assert_eq!(
            coverage,
            vec![None, Some(0), Some(0), None, None, None],
            "the depth itself, a cleared use, a buffer and uses after everywhere() are not covered"
        );
    }
}
