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

use super::{bandwidth, RenderPassGrouping};
use crate::access::Access;
use crate::compile::Schedule;
use crate::graph::{Graph, PassId, PassKind, ResourceId, Use};
use crate::plan::{LoadOp, StoreOp};
use crate::sync::Layout;

/// What the load, store and memoryless decisions need about each resource, from one sweep
/// over the kept uses in execution order.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Position of the first write of each resource (`u32::MAX`: never written).
    first_write: Vec<u32>,
    /// The first pass to use each resource, if any.
    first_user: Vec<Option<PassId>>,
    /// Whether every use of each resource is an attachment use in the render pass of its
    /// first use.
    one_render_pass: Vec<bool>,
    /// The naive tile bandwidth ([`super::bandwidth`]): bytes loaded and stored when every
    /// raster pass is its own render pass, summed in the same sweep.
    pub naive: (u64, u64),
}

impl Facts {
    /// True when the resource holds content before position `pos`: an earlier write in the
    /// frame, or an imported resource whose content is kept from outside.
    pub fn content_before(&self, graph: &Graph, resource: ResourceId, pos: u32) -> bool {
        let r = graph.resource(resource);
        (r.imported && !r.clear_on_first_use) || self.first_write[resource.index()] < pos
    }

    /// The first pass to use `resource`, if any uses it.
    pub fn first_user(&self, resource: ResourceId) -> Option<PassId> {
        self.first_user[resource.index()]
    }

    /// True when every use of `resource` is an attachment use in the render pass of its
    /// first use.
    pub fn in_one_render_pass(&self, resource: ResourceId) -> bool {
        self.one_render_pass[resource.index()]
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

/// End of a chain of drafts waiting for their store.
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
/// Drafts still waiting on one resource form a chain (`waiting[r]`, linked through
/// `next`), resolved together.
pub fn sweep(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
) -> (Facts, Attachments) {
    let n = graph.resources.len();
    let groups = &grouping.groups;
    let mut facts = Facts {
        first_write: vec![u32::MAX; n],
        first_user: vec![None; n],
        one_render_pass: vec![false; n],
        naive: (0, 0),
    };
    let mut all = Attachments {
        drafts: Vec::with_capacity(groups.len() * 2),
        spans: Vec::with_capacity(groups.len() + 1),
    };
    all.spans.push(0);
    let mut waiting = vec![NONE; n];
    let mut next: Vec<u32> = Vec::with_capacity(groups.len() * 2);
    // The render pass being swept: its first position and the next subpass's index.
    let mut start = 0u32;
    let mut subpass = 0u32;
    for (pos, &p) in schedule.order.iter().enumerate() {
        let pos = pos as u32;
        let group = grouping.group_of[p.index()];
        let pass = graph.pass(p);
        let raster = pass.kind == PassKind::Raster;
        for u in &pass.uses {
            let r = u.resource.index();
            let attachment = u.access.is_attachment();
            if raster && attachment {
                // Earlier writes only: this pass's own writes are at `pos`, not before.
                let b = bandwidth::bytes(graph, u.resource);
                if !u.clear && facts.content_before(graph, u.resource, pos) {
                    facts.naive.0 = facts.naive.0.saturating_add(b);
                }
                facts.naive.1 = facts.naive.1.saturating_add(b);
            }
            if waiting[r] != NONE {
                let reads = u.access.reads(u.clear) || (u.access == Access::DepthWrite && !u.clear);
                if reads || !u.access.keeps_content(u.clear) {
                    resolve(&mut all.drafts, &next, waiting[r], reads);
                    waiting[r] = NONE;
                }
            }
            if u.access.writes() && facts.first_write[r] == u32::MAX {
                facts.first_write[r] = pos;
            }
            if let Some(first) = facts.first_user[r] {
                facts.one_render_pass[r] &= attachment && group == grouping.group_of[first.index()];
            } else {
                facts.first_user[r] = Some(p);
                facts.one_render_pass[r] = attachment;
            }
        }
        let Some(g) = group else { continue };
        let g = g as usize;
        debug_assert_eq!(g + 1, all.spans.len(), "render passes follow the order");
        let first = all.spans[g] as usize;
        if subpass == 0 {
            start = pos;
        }
        attachments(graph, &facts, p, subpass, start, first, &mut all.drafts);
        subpass += 1;
        if subpass as usize == groups[g].len() {
            // The render pass ends: its stores wait for later uses.
            next.resize(all.drafts.len(), NONE);
            for (i, d) in all.drafts.iter().enumerate().skip(first) {
                let r = d.resource.index();
                next[i] = waiting[r];
                waiting[r] = i as u32;
            }
            all.spans.push(all.drafts.len() as u32);
            subpass = 0;
        }
    }
    for (r, &w) in waiting.iter().enumerate() {
        if w != NONE {
            let survives = graph.resources[r].survives_frame();
            resolve(&mut all.drafts, &next, w, survives);
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

/// Adds the attachment uses of `pass`, subpass `subpass` of the render pass whose drafts
/// start at `drafts[first]` and which starts at position `start`: a new draft in order of
/// first use, with its load operation, or the later use of an existing one (stores are set
/// by [`sweep`]).
fn attachments(
    graph: &Graph,
    facts: &Facts,
    pass: PassId,
    subpass: u32,
    start: u32,
    first: usize,
    all: &mut Vec<AttachmentDraft>,
) {
    let p = graph.pass(pass);
    for u in p.uses.iter().filter(|u| u.access.is_attachment()) {
        let r = graph.resource(u.resource);
        let Some(d) = r.image_desc() else { continue };
        let layout = u
            .access
            .scope(p.kind, r.target())
            .layout
            .unwrap_or(Layout::GENERAL);
        let resolve_target = p
            .uses
            .iter()
            .find(|v| v.access == Access::Resolve && v.from == Some(u.resource))
            .map(|v| v.resource);
        if let Some(a) = all[first..].iter_mut().find(|a| a.resource == u.resource) {
            a.final_layout = layout;
            a.last_subpass = subpass;
            a.resolve_target = a.resolve_target.or(resolve_target);
            continue;
        }
        let load = if u.clear {
            LoadOp::Clear
        } else if u.access.keeps_content(false) && facts.content_before(graph, u.resource, start) {
            LoadOp::Load
        } else {
            LoadOp::DontCare
        };
        all.push(AttachmentDraft {
            resource: u.resource,
            load,
            store: StoreOp::DontCare,
            memoryless: false,
            samples: d.samples,
            resolve_target,
            initial_layout: layout,
            final_layout: layout,
            first_subpass: subpass,
            last_subpass: subpass,
        });
    }
}
