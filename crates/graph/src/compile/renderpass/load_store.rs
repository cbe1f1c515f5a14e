//! Load and store operations: per attachment per render pass, what happens to earlier
//! content at the start and to the content at the end.
//!
//! Both follow the liveness of the content. The content held after a use is *live* when,
//! walking the later uses of the resource in execution order (later subpasses of the same
//! render pass included), a use that reads it comes before any use that replaces it
//! completely, or nothing replaces it and the resource survives the frame (an output, or an
//! imported resource without `discard_on_last_use`; a transient's next frame does not
//! count). A use *reads* earlier content when its access reads (`color_read_write`,
//! `depth_read`, input attachments, sampling, storage and transfer reads...), when it is a
//! `depth_write` without a clear (its depth test compares), and when it keeps content and
//! its pass resolves the attachment (the resolve reads every pixel, kept ones included). It
//! *replaces* the content with a clear, `color_write_all`, `resolve` or a covered colour
//! write ([`Use::covered_write`]: the pixels it leaves undefined are never read). Any other use (a
//! `color_write` without a clear, ...) keeps earlier content without reading it: it passes
//! the question on to the uses after it. So does a blend (`color_read_write` whose pass does
//! not resolve it): it reads earlier content only into its own result, so that content is
//! needed only when the result is live; a blend whose result nothing reads is no reason to
//! load (or to store before it).
//! - load: `CLEAR` when the first use in the render pass clears. Otherwise, without earlier
//!   content (no write earlier in the frame, and not an imported resource kept from outside:
//!   `clear_on_first_use` discards it) or when the first use replaces the content,
//!   `DONT_CARE`. A first use that reads `LOAD`s; one that keeps earlier content without
//!   reading it `LOAD`s only when what it leaves is live, and `DONT_CARE` otherwise (the
//!   kept pixels are dead).
//! - store: `STORE` when the content at the end of the render pass is live, `DONT_CARE`
//!   otherwise — in particular when its only readers are input attachments inside the same
//!   render pass, and for a multisampled attachment resolved in its subpass and not read
//!   after it.
//! - layouts: the render pass starts in the layout of the attachment's first use (the
//!   barrier phase transitions it there before the first subpass) and ends in the layout of
//!   its last use.
//!
//! Invariant: a `LOAD` of content written in an earlier render pass is matched by that
//! render pass's `STORE`, and a `STORE` is read by a later use, because one walk decides
//! both: every open question about a resource's content (a store from the end of its render
//! pass, a load from a first use that keeps without reading) waits in one chain per
//! resource and is answered, all together, by the next use that reads or replaces the
//! content, or at the end of the frame by whether the resource survives it.
//!
//! Cost: O(uses) in all, in one forward sweep over the kept uses in execution order
//! ([`sweep`]): it gives each resource's first write ([`Facts`]), which decides the loads
//! that need no later use, sums the naive bandwidth (the same per-use test), builds the
//! attachments render pass by render pass, and leaves each open load and store waiting, per
//! resource, for the next use that reads or replaces the content (or for the end of the
//! frame); each waits once and is answered once. The per-resource list of uses
//! ([`UseIndex`]) is built only to explain a memoryless failure.

use super::RenderPassGrouping;
use crate::access::Access;
use crate::compile::Schedule;
use crate::graph::{ClearValue, Graph, Pass, PassId, PassKind, ResourceId, Use};
use crate::plan::{LoadOp, StoreOp};
use crate::resolve::ResolveMode;
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
    /// Head of the chain of loads and stores waiting for the next use that reads or
    /// replaces the content ([`Waiting`]; [`NONE`]: none).
    waiting: u32,
    /// Position of the pass that resolves this (multisampled) attachment, while the sweep is
    /// at that pass ([`NONE`]: none so far).
    resolved_at: u32,
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
    /// For a depth/stencil attachment with a resolve target: the mode of the resolve.
    pub resolve_mode: Option<ResolveMode>,
    /// Layout at the start of the render pass.
    pub initial_layout: Layout,
    /// Layout at the end.
    pub final_layout: Layout,
    /// With load `Clear`: the value cleared to.
    pub clear_value: Option<ClearValue>,
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

/// No position, pass, render pass, draft or waiting decision.
const NONE: u32 = u32::MAX;

/// A load or store whose operation depends on whether the content is live, waiting for the
/// resource's next use that reads or replaces it. The decisions waiting on one resource form
/// a chain through `next`, from [`ResourceFacts::waiting`].
#[derive(Clone, Copy, Debug)]
struct Waiting {
    /// The attachment draft.
    draft: u32,
    /// Its load (a first use that keeps earlier content without reading it) rather than its
    /// store (the end of its render pass).
    load: bool,
    /// The next decision waiting on the same resource ([`NONE`]: the last).
    next: u32,
}

/// True when use `u` reads the content it finds (the liveness walk's "reads"): its access
/// reads, or it keeps the content and either tests against it (a depth write without a
/// clear) or its pass resolves it (`resolved_here`: the resolve reads every sample).
///
/// A blend (`color_read_write`) is the exception: it reads earlier content only to compute
/// what it writes into the same attachment, so it keeps the content like a `color_write`
/// and passes the question on; its earlier content is needed exactly when its result is
/// live (loaded, and stored by an earlier render pass, only then). A depth test is no such
/// exception: it decides which fragments reach the other attachments.
fn reads_earlier(u: &Use, resolved_here: bool) -> bool {
    (u.access.reads(u.clear) && u.access != Access::ColorReadWrite)
        || (u.keeps_content() && (u.access == Access::DepthWrite || resolved_here))
}

/// Sweeps the kept uses of `graph` in `schedule` order once: the per-resource [`Facts`], the
/// naive bandwidth, and the attachments of every render pass of `grouping` with their loads
/// and stores.
///
/// A load is decided at the attachment's first use in its render pass (every write before
/// the render pass has been seen) unless that use keeps earlier content without reading it;
/// such a load, and every store from the end of its render pass, waits for the resource's
/// next use (what reads is `reads_earlier`'s test): one that reads makes them `LOAD` and
/// `STORE`, one that replaces the content completely `DONT_CARE`, one that keeps the content
/// without reading passes the question on; with no such use left, the content is live when
/// it survives the frame. Decisions still waiting on one resource form a chain (`Waiting`),
/// answered together. Each use is read once: its facts, the naive bandwidth and its
/// attachment draft in the same step.
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
                content_at: if r.content_at_entry() { 0 } else { NONE },
                first_user: NONE,
                first_group: NONE,
                waiting: NONE,
                resolved_at: NONE,
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
    let mut waiting: Vec<Waiting> = Vec::with_capacity(groups.len() * 4);
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
        if raster {
            // A resolve reads its source: mark the sources before their uses are swept. In
            // the naive baseline it is a separate resolve, which loads every sample back
            // (the source's store and the target's are counted with their uses).
            for u in &pass.uses {
                if let (Access::Resolve, Some(from)) = (u.access, u.from) {
                    if let Some(f) = facts.resources.get_mut(from.index()) {
                        f.resolved_at = pos;
                    }
                    let bytes = super::bandwidth::bytes(graph, from);
                    facts.naive.0 = facts.naive.0.saturating_add(bytes);
                }
            }
        }
        for (use_index, u) in pass.uses.iter().enumerate() {
            let Some(f) = facts.resources.get_mut(u.resource.index()) else {
                debug_assert!(false, "uses name resources of the graph");
                continue;
            };
            let attachment = u.access.is_attachment();
            let reads = reads_earlier(u, f.resolved_at == pos);
            // (A covered write replaces: the pixels it leaves undefined are never read.)
            let replaces = !u.keeps_content();
            if f.waiting != NONE && (reads || replaces) {
                answer(&mut all.drafts, &waiting, f.waiting, reads);
                f.waiting = NONE;
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
                    };
                    let Some(i) = use_.add_to(&mut all.drafts, first) else {
                        continue;
                    };
                    // The first use in the render pass: its load (and a clear's value).
                    if u.clear {
                        all.drafts[i as usize].clear_value =
                            Some(u.clear_value_or_default(d.format));
                    }
                    all.drafts[i as usize].load = if u.clear {
                        LoadOp::Clear
                    } else if !content_at_start || replaces {
                        LoadOp::DontCare
                    } else if reads {
                        LoadOp::Load
                    } else {
                        // Kept without being read: loaded when what the use leaves is live.
                        wait(&mut waiting, &mut f.waiting, i, true);
                        LoadOp::DontCare
                    };
                }
            }
        }
        let Some(g) = group else { continue };
        let g = g as usize;
        debug_assert_eq!(g + 1, all.spans.len(), "render passes follow the order");
        subpass += 1;
        if subpass as usize == groups[g].len() {
            // The render pass ends: its stores wait for later uses.
            for (i, d) in all.drafts.iter().enumerate().skip(first) {
                let f = &mut facts.resources[d.resource.index()];
                wait(&mut waiting, &mut f.waiting, i as u32, false);
            }
            all.spans.push(all.drafts.len() as u32);
            subpass = 0;
        }
    }
    for (f, r) in facts.resources.iter().zip(&graph.resources) {
        if f.waiting != NONE {
            answer(&mut all.drafts, &waiting, f.waiting, r.survives_frame());
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

/// Puts the load (`load`) or the store of draft `draft` at the head of the resource's chain
/// of waiting decisions (`head`, in `waiting`).
fn wait(waiting: &mut Vec<Waiting>, head: &mut u32, draft: u32, load: bool) {
    waiting.push(Waiting {
        draft,
        load,
        next: *head,
    });
    *head = waiting.len() as u32 - 1;
}

/// Answers every decision of the chain from `head` in `waiting`: `LOAD` and `STORE` when the
/// content is `live`, `DONT_CARE` otherwise.
fn answer(drafts: &mut [AttachmentDraft], waiting: &[Waiting], head: u32, live: bool) {
    let mut i = head;
    while i != NONE {
        let w = waiting[i as usize];
        let d = &mut drafts[w.draft as usize];
        match (w.load, live) {
            (true, true) => d.load = LoadOp::Load,
            (true, false) => d.load = LoadOp::DontCare,
            (false, true) => d.store = StoreOp::Store,
            (false, false) => d.store = StoreOp::DontCare,
        }
        i = w.next;
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
}

impl DraftUse<'_> {
    /// Adds the use to the drafts of its render pass, `all[first..]`: a new draft in order
    /// of first use (its index is returned: its load and store are set by [`sweep`]), or
    /// the later use of an existing one.
    fn add_to(&self, all: &mut Vec<AttachmentDraft>, first: usize) -> Option<u32> {
        let u = self.u;
        // Only a multisampled colour or depth/stencil attachment of the resolving pass is
        // resolved (validation); a depth/stencil resolve records its mode.
        let resolve = if self.samples > 1 {
            self.pass
                .uses
                .iter()
                .find(|v| v.access == Access::Resolve && v.from == Some(u.resource))
        } else {
            None
        };
        let resolve_target = resolve.map(|v| v.resource);
        let resolve_mode = resolve
            .filter(|_| matches!(u.access, Access::DepthWrite | Access::DepthRead))
            .map(Use::depth_resolve_mode);
        if let Some(a) = all[first..].iter_mut().find(|a| a.resource == u.resource) {
            a.final_layout = self.layout;
            a.last_subpass = self.subpass;
            a.last_use = self.use_index;
            if a.resolve_target.is_none() {
                a.resolve_target = resolve_target;
                a.resolve_mode = resolve_mode;
            }
            return None;
        }
        all.push(AttachmentDraft {
            resource: u.resource,
            load: LoadOp::DontCare,
            store: StoreOp::DontCare,
            memoryless: false,
            samples: self.samples,
            resolve_target,
            resolve_mode,
            initial_layout: self.layout,
            final_layout: self.layout,
            clear_value: None,
            first_subpass: self.subpass,
            last_subpass: self.subpass,
            first_use: self.use_index,
            last_use: self.use_index,
        });
        Some(all.len() as u32 - 1)
    }
}
