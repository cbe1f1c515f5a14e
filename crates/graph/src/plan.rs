//! The compiled plan: plain data that serializes exactly to the JSON of docs/frame-format.md.
//!
//! Everything is addressed by name so the JSON is self-describing; the executor maps names
//! back to ids through the graph it compiled. Fields beyond docs/frame-format.md are additions
//! (the format allows them) and are documented where they are declared.

use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{ClearValue, QueueKind};
pub use crate::history::Buffering;
use crate::name::Name;
use crate::resolve::ResolveMode;
use crate::sync::{AccessMask, Layout, StageMask};
use serde::{Deserialize, Serialize};

mod list;
mod overlap;
mod text;
pub use list::List;
pub use overlap::{CrossFrameWait, DoubledResource, FrameOverlap, ReplacedResource};
pub use text::Text;

/// A compiled frame.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Kept passes in execution order (the compiler shares its buffer with the queue lists,
    /// the batch of a whole queue and, when levels never decrease along the order, the
    /// levels; see [`List`]).
    pub order: List<Name>,
    /// Culled passes, in declaration order.
    pub culled: Vec<Name>,
    /// Passes per dependency level (longest path from a root), each level in execution order.
    pub levels: Levels,
    /// Passes per queue, in execution order.
    pub queues: Queues,
    /// Raster passes grouped into render passes.
    pub render_passes: Vec<RenderPass>,
    /// Why adjacent raster passes were not merged.
    pub breaks: Vec<Break>,
    /// Cross-queue semaphore edges.
    pub syncs: Vec<Sync>,
    /// Pipeline barriers, grouped by the pass they precede, in execution order.
    pub barriers: Vec<Barrier>,
    /// Transient memory placement.
    pub memory: Memory,
    /// Tile bandwidth model.
    pub bandwidth: Bandwidth,
    /// Addition: the dependency edges between kept passes.
    pub edges: Vec<Edge>,
    /// Addition: why each culled pass was culled (same order as `culled`).
    pub cull_reasons: Vec<CullReason>,
    /// Addition: submission batches (one `vkQueueSubmit2` each) in submission order.
    #[serde(default)]
    pub batches: Vec<Batch>,
    /// Addition: sync-reduction accounting (candidate cross-queue waits vs kept `syncs`).
    #[serde(default)]
    pub sync_stats: SyncStats,
    /// Addition: sharing mode of every resource used on both queues, with the rule that chose it.
    #[serde(default)]
    pub sharing: Vec<ResourceSharing>,
    /// Addition: one entry per imported resource that is `per_frame` or exits in `present`
    /// and is used by a kept pass, in declaration order: where the executor's semaphore
    /// wait (acquire) and signal (render finished) belong.
    #[serde(default)]
    pub external: Vec<ExternalSync>,
    /// Addition: one entry per history resource (content kept from one frame to the next),
    /// in declaration order: how many physical resources it needs and why, and their bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<HistoryPlan>,
    /// Addition: the culled passes that were skipped because every persistent resource that
    /// made them needed is still valid, in declaration order (also in `culled` and
    /// `cull_reasons`): their work is done, by an earlier frame.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Name>,
    /// Addition: one entry per persistent resource (kept across frames and re-plans, one
    /// physical resource, never aliased), in declaration order: whether its content is
    /// still valid, and its bytes (not in `memory`'s blocks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub persistent: Vec<PersistentPlan>,
    /// Addition: the device capabilities the plan was compiled for, so that a saved plan
    /// checks on its own (`tessera check`). `None` in plans written before the field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<Capabilities>,
    /// Addition: the compile options the plan was compiled with (`None` in older plans).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<CompileOptions>,
    /// Addition: with `overlap_frames` and work on the async queue, how this frame's tail
    /// overlaps the next frame's head (`None`: frames do not overlap; each queue's first
    /// submit waits for the previous frame on the other queue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_overlap: Option<FrameOverlap>,
}

impl Plan {
    /// Position of each kept pass in [`Plan::order`], by name (the plan addresses passes by
    /// name; consumers look positions up this way).
    pub fn positions(&self) -> std::collections::HashMap<&str, usize> {
        self.order
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect()
    }
}

/// Passes per dependency level, each level in execution order: a list of lists in the JSON
/// and in use (`len`, `iter`, `levels[l]`), stored as one flat list of names plus the end of
/// each level, so a plan of a few hundred levels holds two allocations instead of one per
/// level (allocating and freeing them was a measurable part of compiling a large frame);
/// when the execution order visits the levels in order, the flat list is the order's own
/// buffer ([`List::shared`]).
/// Build one from lists with `Levels::from(Vec<Vec<Name>>)`, edit through
/// [`Levels::to_lists`].
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Levels {
    /// The names of every level, level after level.
    names: List<Name>,
    /// Level `l` is `names[ends[l - 1]..ends[l]]` (from 0 for the first).
    ends: Vec<u32>,
}

impl Levels {
    /// Levels from the names of every level, level after level, and the end of each level
    /// in that list (non-decreasing, the last one the length of `names`).
    pub(crate) fn from_flat(names: List<Name>, ends: Vec<u32>) -> Self {
        debug_assert!(ends.windows(2).all(|w| w[0] <= w[1]));
        debug_assert_eq!(ends.last().map_or(0, |&e| e as usize), names.len());
        Levels { names, ends }
    }

    /// Number of levels.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there is no level (an empty plan).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The passes of level `l`, if there is one.
    pub fn get(&self, l: usize) -> Option<&[Name]> {
        let end = *self.ends.get(l)? as usize;
        let start = if l == 0 { 0 } else { self.ends[l - 1] as usize };
        self.names.get(start..end)
    }

    /// The levels in order, each as the list of its passes.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &[Name]> + ExactSizeIterator + '_ {
        (0..self.ends.len()).map(|l| &self[l])
    }

    /// The levels as separate lists (to edit them; convert back with `Levels::from`).
    pub fn to_lists(&self) -> Vec<Vec<Name>> {
        self.iter().map(<[Name]>::to_vec).collect()
    }
}

impl std::ops::Index<usize> for Levels {
    type Output = [Name];
    /// The passes of level `l`; panics when there is no such level, like a slice.
    fn index(&self, l: usize) -> &[Name] {
        match self.get(l) {
            Some(names) => names,
            None => panic!("level {l} of {}", self.len()),
        }
    }
}

impl From<Vec<Vec<Name>>> for Levels {
    fn from(lists: Vec<Vec<Name>>) -> Self {
        let mut ends = Vec::with_capacity(lists.len());
        let mut names = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for l in lists {
            names.extend(l);
            ends.push(names.len() as u32);
        }
        Levels {
            names: names.into(),
            ends,
        }
    }
}

impl std::fmt::Debug for Levels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Levels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Levels {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<Vec<Name>>::deserialize(d).map(Levels::from)
    }
}

/// Passes per queue (a queue that runs every pass shares [`Plan::order`]'s buffer).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Queues {
    /// Graphics queue.
    pub graphics: List<Name>,
    /// Async-compute queue (empty when folded onto graphics).
    pub async_compute: List<Name>,
}

impl Queues {
    /// The pass list of a queue.
    pub fn of(&self, q: QueueKind) -> &[Name] {
        self.list(q)
    }

    /// The pass list of a queue, as stored (cloning it shares its buffer).
    pub fn list(&self, q: QueueKind) -> &List<Name> {
        match q {
            QueueKind::Graphics => &self.graphics,
            QueueKind::AsyncCompute => &self.async_compute,
        }
    }
}

/// A `VkRenderPass`: raster passes as subpasses.
///
/// The compiler gives the subpass lists of all render passes one shared buffer, and the
/// attachment lists another ([`List::shared`]); a list read or edited here behaves like a
/// `Vec` of its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderPass {
    /// Subpasses in order.
    pub subpasses: List<Name>,
    /// Every attachment once.
    pub attachments: List<Attachment>,
    /// Dependencies between subpasses.
    pub dependencies: Vec<SubpassDependency>,
}

/// An attachment of a render pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    /// The image.
    pub resource: Name,
    /// What happens to earlier content at the start of the render pass.
    pub load_op: LoadOp,
    /// Whether content is written back at the end.
    pub store_op: StoreOp,
    /// Lives only in tile memory.
    pub memoryless: bool,
    /// MSAA samples.
    pub samples: u32,
    /// Single-sampled image this attachment is resolved into, if any.
    pub resolve_target: Option<Name>,
    /// Addition: for a multisampled depth/stencil attachment with a `resolve_target`, the
    /// resolve mode used (the use's own, or `sample_zero`); omitted otherwise (a colour
    /// resolve averages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolve_mode: Option<ResolveMode>,
    /// Addition: layout at the start of the render pass.
    pub initial_layout: Layout,
    /// Addition: layout at the end of the render pass.
    pub final_layout: Layout,
    /// Addition: with load op `clear`, the value cleared to (the use's own or the default:
    /// colour 0, depth 1.0, stencil 0); omitted otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_value: Option<ClearValue>,
}

/// How an imported resource that is `per_frame` or exits in `present` meets the world
/// outside the frame: the executor waits on the semaphore that makes it available (e.g.
/// the swapchain image's acquire semaphore) before `first_pass` at `wait_stages`, and
/// signals the one its consumer waits on (render finished) after `last_pass`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalSync {
    /// The resource.
    pub resource: Name,
    /// Queue of `first_pass` (where the wait is submitted).
    pub queue: QueueKind,
    /// The first kept pass that uses it.
    pub first_pass: Name,
    /// Stages of its first use (with its load operation): where the wait must point.
    pub wait_stages: StageMask,
    /// The last kept pass that uses it.
    pub last_pass: Name,
    /// Addition: queue of `last_pass` (where the signal is submitted).
    pub last_queue: QueueKind,
    /// Layout it leaves the frame in when the exit is fixed (`PRESENT_SRC_KHR` for
    /// `present`), else null.
    pub exit_layout: Option<Layout>,
}

/// `VkAttachmentLoadOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadOp {
    /// Read earlier content.
    Load,
    /// Clear.
    Clear,
    /// Earlier content is not needed.
    DontCare,
}

/// `VkAttachmentStoreOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreOp {
    /// Write content back to memory.
    Store,
    /// Content is not needed after the render pass.
    DontCare,
}

/// A `VkSubpassDependency2`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubpassDependency {
    /// Earlier subpass.
    pub src_subpass: u32,
    /// Later subpass.
    pub dst_subpass: u32,
    /// Stages of the earlier subpass waited on.
    pub src_stage: StageMask,
    /// Stages of the later subpass that wait.
    pub dst_stage: StageMask,
    /// Accesses made available.
    pub src_access: AccessMask,
    /// Accesses made visible.
    pub dst_access: AccessMask,
    /// Same-pixel dependency (`VK_DEPENDENCY_BY_REGION_BIT`).
    pub by_region: bool,
}

/// Why two adjacent raster passes are in different render passes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Break {
    /// Earlier pass.
    pub after: Name,
    /// Later pass.
    pub before: Name,
    /// The rule that split them, with the resources involved (the compiler gives the reasons
    /// of all breaks one shared buffer, [`Text::shared`]).
    pub reason: Text,
}

/// A cross-queue semaphore edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sync {
    /// Pass after which the semaphore is signalled.
    pub signal: Name,
    /// Queue of the signalling pass.
    pub signal_queue: QueueKind,
    /// Pass before which the semaphore is waited on.
    pub wait: Name,
    /// Queue of the waiting pass.
    pub wait_queue: QueueKind,
    /// Resources whose hazards the edge covers (including ones implied through it; the
    /// compiler gives the lists of all syncs one shared buffer).
    pub resources: List<Name>,
    /// Addition: timeline value signalled after `signal` and waited for before `wait`: the
    /// 1-based position of `signal` in its queue (the executor adds a per-frame base).
    #[serde(default)]
    pub value: u64,
}

/// One submit of one queue: passes recorded back to back, semaphore waits before the first
/// and at most one signal after the last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    /// Queue the batch is submitted to.
    pub queue: QueueKind,
    /// Passes in queue order (a batch of a whole queue shares the queue's list, the other
    /// batches share one buffer).
    pub passes: List<Name>,
    /// Timeline waits before the first pass (the waits of all batches share one buffer).
    pub waits: List<BatchWait>,
    /// Timeline value signalled on this queue's semaphore after the last pass, if any.
    pub signal: Option<u64>,
}

/// A timeline-semaphore wait at the start of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchWait {
    /// Queue whose semaphore is waited on.
    pub queue: QueueKind,
    /// Value waited for.
    pub value: u64,
    /// The pass after which that value is signalled.
    pub pass: Name,
}

/// Sync-reduction accounting: how many cross-queue waits the hazards asked for and how many
/// survived minimisation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncStats {
    /// Distinct (producer, consumer) pairs of passes on different queues with a hazard.
    pub candidate_waits: u32,
    /// Candidates dropped because the kept waits plus queue order already imply them.
    pub removed: u32,
    /// Waits kept (the length of `syncs`).
    pub kept: u32,
}

/// How a resource used on both queues is shared between their queue families.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceSharing {
    /// The resource.
    pub resource: Name,
    /// `exclusive` (ownership transfers at each hand-over) or `concurrent`.
    pub mode: SharingMode,
    /// The rule that chose the mode.
    pub reason: Name,
}

/// `VkSharingMode` of a resource used on both queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SharingMode {
    /// Owned by one queue family at a time; hand-overs are release/acquire barrier pairs.
    Exclusive,
    /// Accessible from both queue families without transfers.
    Concurrent,
}

/// A synchronization2 barrier recorded before a pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Barrier {
    /// The pass it is recorded before (on that pass's queue).
    pub before: Name,
    /// The resource.
    pub resource: Name,
    /// Stages waited on.
    pub src_stage: StageMask,
    /// Accesses made available.
    pub src_access: AccessMask,
    /// Stages that wait.
    pub dst_stage: StageMask,
    /// Accesses made visible.
    pub dst_access: AccessMask,
    /// Layout before (images with a transition), else null.
    pub old_layout: Option<Layout>,
    /// Layout after (images with a transition), else null.
    pub new_layout: Option<Layout>,
    /// Queue-family ownership transfer half, if any.
    pub queue_transfer: Option<QueueTransfer>,
    /// Addition: `before` (default) records the barrier before the pass named in `before`;
    /// `after` records it right after that pass (after the last subpass of its render pass),
    /// ahead of any semaphore signal there. Used for release halves of ownership transfers
    /// and for layout transitions the compute queue cannot perform, routed to graphics.
    /// Omitted from the JSON when `before`.
    #[serde(default, skip_serializing_if = "BarrierPosition::is_before")]
    pub position: BarrierPosition,
}

/// Where a barrier is recorded relative to the pass it names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BarrierPosition {
    /// Before the pass (before the first subpass of its render pass).
    #[default]
    Before,
    /// Right after the pass (after the last subpass of its render pass).
    After,
}

impl BarrierPosition {
    /// True for the default position (serialization skips it).
    pub fn is_before(&self) -> bool {
        *self == BarrierPosition::Before
    }
}

/// One half of a queue-family ownership transfer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueTransfer {
    /// Queue giving up ownership.
    pub src_queue: QueueKind,
    /// Queue taking ownership.
    pub dst_queue: QueueKind,
    /// `release` (recorded on the source queue) or `acquire` (on the destination).
    pub half: TransferHalf,
}

/// Which half of an ownership transfer a barrier is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferHalf {
    /// Recorded on the queue that gives up the resource.
    Release,
    /// Recorded on the queue that takes it.
    Acquire,
}

/// A history resource's buffering ([`crate::history`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryPlan {
    /// The resource (this frame's content).
    pub resource: Name,
    /// One physical resource, or two alternating by frame parity.
    pub buffering: Buffering,
    /// With `double`: the resource that holds the previous frame's content this frame (the
    /// other physical resource; the two swap every frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Name>,
    /// Bytes of all its physical resources (never aliased; not in `memory`'s blocks).
    pub bytes: u64,
    /// Why one or two.
    pub reason: String,
}

/// A persistent resource ([`crate::graph::Origin::Persistent`]) in the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersistentPlan {
    /// The resource.
    pub resource: Name,
    /// Whether the content an earlier frame left is still valid (its writers are skipped).
    pub valid: bool,
    /// Bytes of its one physical resource (never aliased; not in `memory`'s blocks).
    pub bytes: u64,
}

/// Transient memory placement.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// Alignment of placements.
    pub alignment: u64,
    /// `order` or `level`: what `first`/`last` count.
    pub lifetime_unit: LifetimeUnit,
    /// Sum of sizes with no aliasing (each size rounded up to `alignment`, as a block of its
    /// own would be).
    pub unaliased_bytes: u64,
    /// Sum of block sizes.
    pub aliased_bytes: u64,
    /// Largest sum of sizes (rounded up to `alignment`) alive at one time.
    pub lower_bound_bytes: u64,
    /// Bytes kept in tile memory only.
    pub memoryless_bytes: u64,
    /// Addition: bytes the aliasing article's algorithm needs for the same resources (equal
    /// to `aliased_bytes` when aliasing is off), for comparison; 0 when it was not run
    /// because the planner reached the lower bound of every memory class.
    #[serde(default)]
    pub article_bytes: u64,
    /// Memory blocks.
    pub blocks: Vec<Block>,
    /// Addition: resources declared `memoryless` that this plan places in ordinary memory
    /// (a frame whose structure keeps them in tile memory, compiled for a device without
    /// lazily allocated memory or with an optimisation off), each with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memoryless_fallbacks: Vec<MemorylessFallback>,
}

/// A resource declared memoryless but placed in ordinary memory, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemorylessFallback {
    /// The resource.
    pub resource: Name,
    /// Why this plan does not keep it in tile memory.
    pub reason: String,
}

/// Unit of `first`/`last`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LifetimeUnit {
    /// Positions in `order`.
    #[default]
    Order,
    /// Dependency levels.
    Level,
}

/// One memory allocation holding placed resources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Bytes.
    pub size: u64,
    /// Resources placed in it.
    pub placements: Vec<Placement>,
    /// Addition: memory-compatibility class of everything in the block (see
    /// `Capabilities::memory_classes`).
    #[serde(default)]
    pub class: u32,
}

/// A resource at an offset of a block, alive from `first` to `last`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    /// The resource.
    pub resource: Name,
    /// Byte offset in the block.
    pub offset: u64,
    /// Bytes.
    pub size: u64,
    /// First position (or level) of use.
    pub first: u32,
    /// Last position (or level) of use.
    pub last: u32,
}

/// Tile bandwidth per frame.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bandwidth {
    /// Bytes read by attachment loads.
    pub load_bytes: u64,
    /// Bytes written by attachment stores and resolves.
    pub store_bytes: u64,
    /// Loads with no merging and every earlier content loaded.
    pub naive_load_bytes: u64,
    /// Stores with no merging and every attachment stored.
    pub naive_store_bytes: u64,
}

/// A dependency edge between kept passes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    /// Earlier pass.
    pub from: Name,
    /// Later pass.
    pub to: Name,
    /// Resource that causes it.
    pub resource: Name,
    /// Hazard kind.
    pub kind: EdgeKind,
}

/// The ordering rule behind an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// Read after write.
    Raw,
    /// Write after read.
    War,
    /// Write after write.
    Waw,
}

/// Why a pass was culled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CullReason {
    /// The pass.
    pub pass: Name,
    /// The reason.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(spec: &[&[&str]]) -> Vec<Vec<Name>> {
        spec.iter()
            .map(|l| l.iter().map(|&n| Name::from(n)).collect())
            .collect()
    }

    #[test]
    fn levels_read_and_serialize_like_lists_of_names() {
        let spec: &[&[&str]] = &[&["a"], &["b", "c"], &[], &["d"]];
        let levels = Levels::from(lists(spec));
        assert_eq!(levels.len(), 4);
        assert!(!levels.is_empty());
        assert_eq!(levels[1], ["b", "c"]);
        assert!(levels[2].is_empty());
        assert_eq!(levels.get(3).map(<[Name]>::len), Some(1));
        assert_eq!(levels.get(4), None);
        assert_eq!(
            levels.iter().map(<[Name]>::len).collect::<Vec<_>>(),
            [1, 2, 0, 1]
        );
        assert_eq!(levels.to_lists(), lists(spec));
        let json = serde_json::to_string(&levels).unwrap();
        assert_eq!(json, r#"[["a"],["b","c"],[],["d"]]"#);
        assert_eq!(serde_json::from_str::<Levels>(&json).unwrap(), levels);
        assert_eq!(format!("{levels:?}"), format!("{:?}", lists(spec)));
        let flat = Levels::from_flat(
            ["a", "b", "c", "d"].map(Name::from).to_vec().into(),
            vec![1, 3, 3, 4],
        );
        assert_eq!(flat, levels);
        let empty = Levels::default();
        assert!(empty.is_empty());
        assert_eq!(serde_json::to_string(&empty).unwrap(), "[]");
    }
}
