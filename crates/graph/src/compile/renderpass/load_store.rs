//! Load and store operations: per attachment per render pass, what happens to earlier
//! content at the start and to the content at the end.
//!
//! - load: `CLEAR` when the first use in the render pass clears; `LOAD` when that use needs
//!   earlier content (it reads it or only partly overwrites it) *and* earlier content exists
//!   (a write earlier in the frame, or an imported resource without `clear_on_first_use`);
//!   `DONT_CARE` otherwise.
//! - store: `STORE` when something after the render pass needs the content: walking the later
//!   uses in execution order, a use that reads it comes before any use that replaces it
//!   completely, or nothing replaces it and it survives the frame (an output, or an imported
//!   resource without `discard_on_last_use`: the next frame). `DONT_CARE` otherwise — in
//!   particular when its only readers are input attachments inside the same render pass, and
//!   for a multisampled attachment resolved in its subpass.
//! - layouts: the render pass starts in the layout of the attachment's first use (the
//!   barrier phase transitions it there before the first subpass) and ends in the layout of
//!   its last use.
//!
//! Cost: O(uses) in all, in one forward sweep over the kept uses in execution order
//! ([`sweep`]): it gives each resource's first write ([`Facts`]), which decides every load
//! at the attachment's first use in its render pass, sums the naive bandwidth (the same
//! per-use test), builds the attachments render pass by render pass, and leaves each
//! render pass's stores waiting, per resource, for the next use that reads the content or
//! replaces it (or for the end of the frame). The per-resource list of uses ([`UseIndex`])
//! is built only to explain a memoryless failure.

use super::RenderPassGrouping;
use crate::access::Access;
use crate::compile::Schedule;
use crate::graph::{Graph, Pass, PassId, PassKind, ResourceId, Use};
use crate::plan::{LoadOp, StoreOp};
use crate::sync::Layout;

/// What the load, store and memoryless decisions need about each resource, from one sweep
/// over the kept uses in execution order.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Per resource (indexed by resource), one record: the sweep reads and writes one place
    /// per use.
    resources: Vec<ResourceFacts>,
    /// The naive tile bandwidth ([`super::bandwidth`]): bytes loaded and stored when every
    /// raster pass is its own render pass, summed in the same sweep.
    pub naive: (u64, u64),
}

/// What the sweep knows about one resource.
#[derive(Clone, Copy, Debug)]
struct ResourceFacts {
    /// The resource holds content before position `pos` when `content_at <= pos`: its first
    /// write's position plus one, 0 for an imported resource whose content is kept from
    /// outside, [`NONE`] while neither.
    content_at: u32,
    /// The first pass to use it ([`NONE`]: none yet).
    first_user: u32,
    /// The render pass of that first use ([`NONE`]: none).
    first_group: u32,
    /// Head of the chain of attachment drafts waiting for its next use to decide their
    /// store ([`NONE`]: none).
    waiting: u32,
    /// Every use so far is an attachment use in the render pass of the first use.
    one_render_pass: bool,
}

impl Facts {
    /// True when the resource holds content before position `pos`: an earlier write in the
    /// frame, or an imported resource whose content is kept from outside.
    pub fn content_before(&self, resource: ResourceId, pos: u32) -> bool {
        self.resources[resource.index()].content_at <= pos
    }

    /// The first pass to use `resource`, if any uses it.
    pub fn first_user(&self, resource: ResourceId) -> Option<PassId> {
        let first = self.resources[resource.index()].first_user;
        (first != NONE).then_some(PassId(first))
    }

    /// True when every use of `resource` is an attachment use in the render pass of its
    /// first use.
    pub fn in_one_render_pass(&self, resource: ResourceId) -> bool {
        self.resources[resource.index()].one_render_pass
    }
}

/// Every kept use of every resource in execution order: `(position in order, pass, use)`,
/// in one flat list grouped by resource.
#[derive(Clone, Debug, Default)]
pub struct UseIndex<'g> {
    /// Uses of resource `r` are `entries[start[r]..start[r + 1]]`.
    start: Vec<u32>,
    entries: Vec<(u32, PassId, &'g Use)>,
}

impl<'g> UseIndex<'g> {
    /// Indexes the kept uses of `graph` in `schedule` order (counting sort by resource).
    pub fn new(graph: &'g Graph, schedule: &Schedule) -> Self {
        let n = graph.resources.len();
        let mut start = vec![0u32; n + 1];
        for &p in &schedule.order {
            for u in &graph.pass(p).uses {
                start[u.resource.index() + 1] += 1;
            }
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut entries: Vec<(u32, PassId, &'g Use)> = Vec::with_capacity(start[n] as usize);
        // Every slot is overwritten below; any use serves as the placeholder.
        if let Some(filler) = schedule
            .order
            .iter()
            .find_map(|&p| graph.pass(p).uses.first())
        {
            entries.resize(start[n] as usize, (0, PassId(0), filler));
        }
        for (pos, &p) in schedule.order.iter().enumerate() {
            for u in &graph.pass(p).uses {
                let slot = &mut next[u.resource.index()];
                entries[*slot as usize] = (pos as u32, p, u);
                *slot += 1;
            }
        }
        UseIndex { start, entries }
    }

    /// The kept uses of `resource` in execution order.
    pub fn of(&self, resource: ResourceId) -> &[(u32, PassId, &'g Use)] {
        let i = resource.index();
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// An attachment of a render pass, with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentDraft {
    /// The image.
    pub resource: ResourceId,
    /// Load operation.
    pub load: LoadOp,
    /// Store operation.
    pub store: StoreOp,
    /// Kept in tile memory only (decided by the memoryless module).
    pub memoryless: bool,
    /// Samples of the image.
    pub samples: u32,
    /// The single-sampled image it is resolved into.
    pub resolve_target: Option<ResourceId>,
    /// Layout at the start of the render pass.
    pub initial_layout: Layout,
    /// Layout at the end.
    pub final_layout: Layout,
    /// Subpass of the first use.
    pub first_subpass: u32,
    /// Subpass of the last use.
    pub last_subpass: u32,
    /// Index of the first use among the uses of its pass (subpass `first_subpass`).
    pub first_use: u32,
    /// Index of the last use among the uses of its pass (subpass `last_subpass`).
    pub last_use: u32,
}

/// The attachments of every render pass, in one list: those of render pass `i` are
/// `drafts[spans[i]..spans[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub struct Attachments {
    /// Every attachment of every render pass, render pass by render pass.
    pub drafts: Vec<AttachmentDraft>,
    spans: Vec<u32>,
}

impl Attachments {
    /// The attachments of render pass `group`.
    pub fn of(&self, group: usize) -> &[AttachmentDraft] {
        match (self.spans.get(group), self.spans.get(group + 1)) {
            (Some(&a), Some(&b)) => &self.drafts[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// No position, pass, render pass or draft.
const NONE: u32 = u32::MAX;

/// Sweeps the kept uses of `graph` in `schedule` order once: the per-resource [`Facts`], the
/// naive bandwidth, and the attachments of every render pass of `grouping` with their loads
/// and stores.
///
/// Loads are decided at an attachment's first use in its render pass (every write before
/// the render pass has been seen). A store waits from the end of its render pass for the
/// resource's next use: one that reads (a depth write without a clear reads too: its depth
/// test compares against the earlier content) makes it `STORE`, one that replaces the
/// content completely `DONT_CARE`, one that keeps the content without reading passes the
/// question on; with no such use left, the content is needed when it survives the frame.
/// Drafts still waiting on one resource form a chain (`waiting` of the resource, linked
/// through `next`), resolved together. Each use is read once: its facts, the naive
/// bandwidth and its attachment draft in the same step.
pub fn sweep(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
) -> (Facts, Attachments) {
    let groups = &grouping.groups;
    let mut facts = Facts {
        resources: graph
            .resources
            .iter()
            .map(|r| ResourceFacts {
                content_at: if r.imported && !r.clear_on_first_use {
                    0
                } else {
                    NONE
                },
                first_user: NONE,
                first_group: NONE,
                waiting: NONE,
                one_render_pass: false,
            })
            .collect(),
        naive: (0, 0),
    };
    let mut all = Attachments {
        drafts: Vec::with_capacity(groups.len() * 2),
        spans: Vec::with_capacity(groups.len() + 1),
    };
    all.spans.push(0);
    let mut next: Vec<u32> = Vec::with_capacity(groups.len() * 2);
    // The render pass being swept: its first position, the next subpass's index and where
    // its drafts start.
    let mut start = 0u32;
    let mut subpass = 0u32;
    let mut first = 0usize;
    for (pos, &p) in schedule.order.iter().enumerate() {
        let pos = pos as u32;
        let group = grouping.group_of[p.index()];
        let group_id = group.unwrap_or(NONE);
        let pass = graph.pass(p);
        let raster = pass.kind == PassKind::Raster;
        if group.is_some() && subpass == 0 {
            start = pos;
            first = all.drafts.len();
        }
        for (use_index, u) in pass.uses.iter().enumerate() {
            let Some(f) = facts.resources.get_mut(u.resource.index()) else {
                debug_assert!(false, "uses name resources of the graph");
                continue;
            };
            let attachment = u.access.is_attachment();
            if f.waiting != NONE {
                let reads = u.access.reads(u.clear) || (u.access == Access::DepthWrite && !u.clear);
                if reads || !u.access.keeps_content(u.clear) {
                    resolve(&mut all.drafts, &next, f.waiting, reads);
                    f.waiting = NONE;
                }
            }
            // Earlier writes only: this pass's own writes are at `pos`, not before (the
            // first write is noted below, and reads as content from `pos + 1` on).
            let content_before = f.content_at <= pos;
            let content_at_start = f.content_at <= start;
            if u.access.writes() && f.content_at == NONE {
                f.content_at = pos + 1;
            }
            if f.first_user == NONE {
                f.first_user = p.0;
                f.first_group = group_id;
                f.one_render_pass = attachment;
            } else {
                f.one_render_pass &= attachment && group_id == f.first_group;
            }
            if raster && attachment {
                let r = graph.resource(u.resource);
                let Some(d) = r.image_desc() else { continue };
                let b = d.attachment_bytes();
                if !u.clear && content_before {
                    facts.naive.0 = facts.naive.0.saturating_add(b);
                }
                facts.naive.1 = facts.naive.1.saturating_add(b);
                if group.is_some() {
                    let layout = u
                        .access
                        .scope(PassKind::Raster, r.target())
                        .layout
                        .unwrap_or(Layout::GENERAL);
                    let use_ = DraftUse {
                        pass,
                        u,
                        layout,
                        samples: d.samples,
                        subpass,
                        use_index: use_index as u32,
                        content_at_start,
                    };
                    use_.add_to(&mut all.drafts, first);
                }
            }
        }
        let Some(g) = group else { continue };
        let g = g as usize;
        debug_assert_eq!(g + 1, all.spans.len(), "render passes follow the order");
        subpass += 1;
        if subpass as usize == groups[g].len() {
            // The render pass ends: its stores wait for later uses.
            // `next` holds an entry per draft of the render passes before this one.
            debug_assert_eq!(next.len(), first);
            for (i, d) in all.drafts.iter().enumerate().skip(first) {
                let f = &mut facts.resources[d.resource.index()];
                next.push(f.waiting);
                f.waiting = i as u32;
            }
            all.spans.push(all.drafts.len() as u32);
            subpass = 0;
        }
    }
    for (f, r) in facts.resources.iter().zip(&graph.resources) {
        if f.waiting != NONE {
            resolve(&mut all.drafts, &next, f.waiting, r.survives_frame());
        }
    }
    if log::log_enabled!(log::Level::Trace) {
        for (g, group) in groups.iter().enumerate() {
            for d in all.of(g) {
                log::trace!(
                    "attachment '{}' of the render pass of '{}': load {:?}, store {:?}",
                    graph.resource(d.resource).name,
                    graph.pass(group[0]).name,
                    d.load,
                    d.store
                );
            }
        }
    }
    (facts, all)
}

/// Sets the store of every draft of the chain from `head` (`next` links them).
fn resolve(drafts: &mut [AttachmentDraft], next: &[u32], head: u32, needed: bool) {
    let store = if needed {
        StoreOp::Store
    } else {
        StoreOp::DontCare
    };
    let mut i = head;
    while i != NONE {
        drafts[i as usize].store = store;
        i = next[i as usize];
    }
}

/// An attachment use of a subpass, with what its draft needs.
struct DraftUse<'g> {
    /// The raster pass.
    pass: &'g Pass,
    /// The attachment use.
    u: &'g Use,
    /// Its layout.
    layout: Layout,
    /// Samples of the image.
    samples: u32,
    /// Its subpass in the render pass.
    subpass: u32,
    /// Its index among the uses of its pass.
    use_index: u32,
    /// The image holds content before the render pass starts.
    content_at_start: bool,
}

impl DraftUse<'_> {
    /// Adds the use to the drafts of its render pass, `all[first..]`: a new draft in order
    /// of first use, with its load operation, or the later use of an existing one (stores
    /// are set by [`sweep`]).
    fn add_to(&self, all: &mut Vec<AttachmentDraft>, first: usize) {
        let u = self.u;
        // Only a multisampled colour attachment is resolved (validation).
        let resolve_target = if self.samples > 1 {
            self.pass
                .uses
                .iter()
                .find(|v| v.access == Access::Resolve && v.from == Some(u.resource))
                .map(|v| v.resource)
        } else {
            None
        };
        if let Some(a) = all[first..].iter_mut().find(|a| a.resource == u.resource) {
            a.final_layout = self.layout;
            a.last_subpass = self.subpass;
            a.last_use = self.use_index;
            a.resolve_target = a.resolve_target.or(resolve_target);
            return;
        }
        let load = if u.clear {
            LoadOp::Clear
        } else if u.access.keeps_content(false) && self.content_at_start {
            LoadOp::Load
        } else {
            LoadOp::DontCare
        };
        all.push(AttachmentDraft {
            resource: u.resource,
            load,
            store: StoreOp::DontCare,
            memoryless: false,
            samples: self.samples,
            resolve_target,
            initial_layout: self.layout,
            final_layout: self.layout,
            first_subpass: self.subpass,
            last_subpass: self.subpass,
            first_use: self.use_index,
            last_use: self.use_index,
        });
    }
}
