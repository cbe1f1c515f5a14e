//! Merging: which adjacent raster passes become subpasses of one render pass, and why the
//! others were split.
//!
//! Granite-style: for a candidate pass and the render pass still open before it, first list
//! *every* reason not to merge ([`Blocker`]); the pass joins only when the list is empty, and
//! otherwise the list becomes the break reason. The rules:
//! - merging is on and no compute/transfer pass of the graphics queue runs in between; an
//!   async-compute pass in between blocks only when it is not independent of the render
//!   pass ([`super::cross_queue`]);
//! - the pass has attachments, with the render pass's extent and sample count;
//! - no resource is used by the render pass both as an attachment and in another way
//!   (sampled, storage, indirect), and no hazard between its subpasses runs through a
//!   non-attachment use: every read of an earlier subpass's output is an input attachment or
//!   a depth test, so every subpass dependency is same-pixel; and non-attachment uses of one
//!   image agree on its layout (nothing may transition it inside the render pass);
//! - a multisampled attachment that an earlier subpass resolved is not written nor resolved
//!   again: a resolve happens at the end of the subpass that declares it (later subpasses
//!   may read the source, e.g. as a per-sample input attachment), and an attachment has one
//!   resolve target per render pass;
//! - colour attachments within `max_color_attachments`, input attachments within
//!   `max_input_attachments`, and, where the device has a tile budget, Σ bits per texel ×
//!   samples over the colour attachments within `tile_bits_per_pixel`.
//!
//! [`OpenGroup`] holds what the rules need about the render pass being built. The merge
//! runs as a stream, [`Grouper`], that the order phase feeds as it emits passes: the order
//! phase asks [`OpenGroup::accepts`] of the candidates it may move next (to make mergeable
//! passes adjacent) and hands the decision of its pick to the grouper, so each emitted pass
//! is tested once. [`OpenGroup::accepts`] stops at the first broken rule and allocates
//! nothing; every [`Blocker`] is found, and put into words as it is found (no list), only
//! for a break that goes into the plan (a property test keeps the full rules and the quick
//! test in agreement); the `WxH` texts of extents
//! are written once per grouping and copied into every break that names them.
//!
//! Cost: O(uses of the candidate) per test, each a constant-time lookup (one table entry per
//! resource, valid when stamped with the current render pass, so opening a render pass
//! clears nothing; every raster pass's extent and samples computed once per grouping), and
//! O(uses) for the whole grouping; one open render pass is reused throughout. The reasons of
//! all breaks are written one after the other into one text (reserved once), each break
//! holding its range: no allocation per break. While adding a pass the table also tells
//! whether the render pass uses a resource twice; the others are marked independent
//! ([`super::Groups::independent`]) and skip the subpass dependency scan.

use super::blocker::{Blocker, ExtentTexts};
use super::cross_queue::Crossings;
use super::{BreakDraft, Breaks, RenderPassGrouping};
use crate::access::{Access, Target};
use crate::caps::{Capabilities, CompileOptions};
use crate::compile::deps::{self, Dependencies};
use crate::compile::Schedule;
use crate::graph::{Graph, Pass, PassId, PassKind, QueueKind, ResourceId};

/// What the render pass being built knows about one resource.
#[derive(Clone, Copy, Debug)]
struct GroupUse {
    /// The render pass the entry belongs to ([`OpenGroup::stamp`]); an entry of an earlier
    /// render pass reads as unused.
    stamp: u32,
    /// Latest attachment use.
    attachment: Option<(PassId, Access)>,
    /// Latest non-attachment use.
    other: Option<(PassId, Access)>,
    /// Latest subpass that wrote it.
    writer: Option<PassId>,
    /// Counts as a colour attachment (tile storage), with its bits per pixel.
    colour_bits: Option<u32>,
    /// Read as an input attachment.
    input: bool,
    /// The subpass that resolved it (a multisampled attachment; its first resolve).
    resolved_by: Option<PassId>,
}

impl GroupUse {
    /// Unused, in render pass `stamp`.
    const fn unused(stamp: u32) -> Self {
        GroupUse {
            stamp,
            attachment: None,
            other: None,
            writer: None,
            colour_bits: None,
            input: false,
            resolved_by: None,
        }
    }
}

/// Extent and sample count of a raster pass's attachments ([`frame_of`]).
type Frame = Option<((u32, u32), Option<u32>)>;

/// The render pass being built: its subpasses so far and what the merge rules need.
#[derive(Clone, Debug, Default)]
pub struct OpenGroup {
    /// Subpasses so far.
    pub passes: Vec<PassId>,
    extent: Option<(u32, u32)>,
    samples: Option<u32>,
    /// What the render pass knows about each resource (indexed by resource): an entry is
    /// valid when its stamp is `stamp`, so starting a new render pass empties the table by
    /// moving `stamp` on, and nothing needs clearing.
    table: Vec<GroupUse>,
    /// The current render pass's stamp (never the stamp of a fresh table entry, 0).
    stamp: u32,
    /// Some resource is used twice in the render pass (by two subpasses, or twice by one).
    shared: bool,
    /// Colour attachments (tile storage), in order of first use.
    colour: Vec<ResourceId>,
    /// Σ bits per pixel over `colour` (saturating).
    colour_bits: u32,
    inputs: u32,
    /// [`frame_of`] of each pass (indexed by pass) when computed ahead
    /// ([`OpenGroup::for_graph`]); otherwise computed per test.
    frames: Vec<Frame>,
}

/// Extent and sample count of a raster pass's attachments (resolve targets give the extent
/// only); `None` without attachments.
fn frame_of(graph: &Graph, pass: &Pass) -> Frame {
    let mut out: Frame = None;
    for u in pass.uses.iter().filter(|u| u.access.is_attachment()) {
        let Some(d) = graph.resource(u.resource).image_desc() else {
            continue;
        };
        let entry = out.get_or_insert(((d.width, d.height), None));
        if u.access != Access::Resolve && entry.1.is_none() {
            entry.1 = Some(d.samples);
        }
    }
    out
}

/// Bits per pixel a colour attachment takes in tile storage, `None` for depth/stencil and
/// for uses that are no colour attachment in tile memory (resolve targets, non-attachments).
fn colour_bits(graph: &Graph, resource: ResourceId, access: Access) -> Option<u32> {
    if !access.is_attachment() || access == Access::Resolve {
        return None;
    }
    let d = graph.resource(resource).image_desc()?;
    (!d.format.is_depth_stencil()).then(|| d.format.bits_per_texel().saturating_mul(d.samples))
}

impl OpenGroup {
    /// A render pass holding `pass` alone.
    pub fn new(graph: &Graph, pass: PassId) -> Self {
        let mut g = OpenGroup::default();
        g.add(graph, pass);
        g
    }

    /// No render pass yet, with the frame of every raster pass of `graph` computed ahead
    /// (one scan of their uses instead of one per test) and a slot for every resource.
    pub fn for_graph(graph: &Graph) -> Self {
        OpenGroup {
            frames: graph
                .passes
                .iter()
                .map(|p| {
                    (p.kind == PassKind::Raster)
                        .then(|| frame_of(graph, p))
                        .flatten()
                })
                .collect(),
            table: vec![GroupUse::unused(0); graph.resources.len()],
            stamp: 1,
            ..OpenGroup::default()
        }
    }

    /// Empties the render pass and starts it again with `pass` alone, keeping the buffers.
    pub fn restart(&mut self, graph: &Graph, pass: PassId) {
        self.passes.clear();
        self.extent = None;
        self.samples = None;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // After 2^32 render passes: stale entries could read as current, so clear.
            self.table.fill(GroupUse::unused(0));
            self.stamp = 1;
        }
        self.shared = false;
        self.colour.clear();
        self.colour_bits = 0;
        self.inputs = 0;
        self.add(graph, pass);
    }

    /// [`frame_of`] `pass`.
    #[inline]
    fn frame(&self, graph: &Graph, pass: PassId) -> Frame {
        match self.frames.get(pass.index()) {
            Some(&f) => f,
            None => frame_of(graph, graph.pass(pass)),
        }
    }

    /// What the render pass knows about `resource`, if it uses it.
    #[inline]
    fn find(&self, resource: ResourceId) -> Option<&GroupUse> {
        self.table
            .get(resource.index())
            .filter(|g| g.stamp == self.stamp)
    }

    /// True when `pass` can become the next subpass: [`OpenGroup::blockers`] would be empty.
    /// Stops at the first broken rule and allocates nothing (the order phase asks this for
    /// every ready raster pass while a render pass is open).
    #[inline]
    pub fn accepts(&self, graph: &Graph, caps: &Capabilities, pass: PassId) -> bool {
        self.frame_fits(graph, pass) && self.uses_fit(graph, caps, pass)
    }

    /// The rules about extent and samples of [`OpenGroup::accepts`] (the quick part, which
    /// refuses most candidates; inlined into the scan of candidates).
    #[inline]
    fn frame_fits(&self, graph: &Graph, pass: PassId) -> bool {
        let Some((extent, samples)) = self.frame(graph, pass) else {
            return false;
        };
        if self.extent.is_some_and(|g| g != extent)
            || (self.extent.is_none() && !self.passes.is_empty())
        {
            // A render pass without extent holds a pass without attachments: nothing joins.
            return false;
        }
        match (samples, self.samples) {
            (Some(s), Some(group)) => s == group,
            _ => true,
        }
    }

    /// The rules about the uses of [`OpenGroup::accepts`].
    fn uses_fit(&self, graph: &Graph, caps: &Capabilities, pass: PassId) -> bool {
        let p = graph.pass(pass);
        let mut colour = self.colour.len() as u32;
        let mut bits = self.colour_bits;
        let mut inputs = self.inputs;
        for u in &p.uses {
            let known = self.find(u.resource);
            if let Some(g) = known {
                let target = graph.resource(u.resource).target();
                if conflict(pass, u.resource, u.access, u.clear, g, target).is_some()
                    || write_after_resolve(pass, u.resource, u.access, g).is_some()
                {
                    return false;
                }
            }
            if self.resolved_again(pass, u).is_some() {
                return false;
            }
            if let Some(b) = colour_bits(graph, u.resource, u.access) {
                if known.is_none_or(|g| g.colour_bits.is_none()) {
                    colour += 1;
                    bits = bits.saturating_add(b);
                }
            }
            if u.access == Access::InputAttachment && !known.is_some_and(|g| g.input) {
                inputs += 1;
            }
        }
        colour <= caps.max_color_attachments
            && inputs <= caps.max_input_attachments
            && (caps.tile_bits_per_pixel == 0 || bits <= caps.tile_bits_per_pixel)
    }

    /// Every reason why `pass` cannot become the next subpass (empty: it can). The caller
    /// checks the rules about the schedule (merging on, nothing in between). Builds the
    /// full list for a break's explanation; [`OpenGroup::accepts`] is the quick test.
    pub fn blockers(&self, graph: &Graph, caps: &Capabilities, pass: PassId) -> Vec<Blocker> {
        let mut out = Vec::new();
        self.blockers_into(graph, caps, pass, &mut out);
        out
    }

    /// Appends [`OpenGroup::blockers`] to `out` (a buffer reused across breaks).
    pub fn blockers_into(
        &self,
        graph: &Graph,
        caps: &Capabilities,
        pass: PassId,
        out: &mut Vec<Blocker>,
    ) {
        self.each_blocker(graph, caps, pass, |b| out.push(b));
    }

    /// Hands each of [`OpenGroup::blockers`] to `out`, in order, as it is found (a break's
    /// text is written reason by reason, without a list).
    fn each_blocker(
        &self,
        graph: &Graph,
        caps: &Capabilities,
        pass: PassId,
        mut out: impl FnMut(Blocker),
    ) {
        let p = graph.pass(pass);
        match self.frame(graph, pass) {
            None => out(Blocker::NoAttachments(pass)),
            Some((extent, samples)) => {
                if let Some(group) = self.extent.filter(|&g| g != extent) {
                    out(Blocker::Extent {
                        pass,
                        extent,
                        group,
                    });
                }
                if let (Some(s), Some(group)) = (samples, self.samples) {
                    if s != group {
                        out(Blocker::Samples {
                            pass,
                            samples: s,
                            group,
                        });
                    }
                }
            }
        }
        if self.extent.is_none() && !self.passes.is_empty() {
            out(Blocker::NoAttachments(self.passes[0]));
        }
        let mut count = self.colour.len() as u32;
        let mut bits = self.colour_bits;
        let mut inputs = self.inputs;
        for u in &p.uses {
            let known = self.find(u.resource);
            if let Some(g) = known {
                let target = graph.resource(u.resource).target();
                if let Some(b) = conflict(pass, u.resource, u.access, u.clear, g, target) {
                    out(b);
                }
                if let Some(b) = write_after_resolve(pass, u.resource, u.access, g) {
                    out(b);
                }
            }
            if let Some(b) = self.resolved_again(pass, u) {
                out(b);
            }
            if let Some(b) = colour_bits(graph, u.resource, u.access) {
                if known.is_none_or(|g| g.colour_bits.is_none()) {
                    count += 1;
                    bits = bits.saturating_add(b);
                }
            }
            if u.access == Access::InputAttachment && !known.is_some_and(|g| g.input) {
                inputs += 1;
            }
        }
        if count > caps.max_color_attachments {
            out(Blocker::ColorLimit {
                count,
                limit: caps.max_color_attachments,
            });
        }
        if inputs > caps.max_input_attachments {
            out(Blocker::InputLimit {
                count: inputs,
                limit: caps.max_input_attachments,
            });
        }
        if caps.tile_bits_per_pixel > 0 && bits > caps.tile_bits_per_pixel {
            // The group's colour attachments, then the candidate's new ones.
            let mut parts: Vec<(ResourceId, u32)> = self
                .colour
                .iter()
                .map(|&r| (r, self.find(r).and_then(|g| g.colour_bits).unwrap_or(0)))
                .collect();
            for u in &p.uses {
                if let Some(b) = colour_bits(graph, u.resource, u.access) {
                    if self
                        .find(u.resource)
                        .is_none_or(|g| g.colour_bits.is_none())
                    {
                        parts.push((u.resource, b));
                    }
                }
            }
            out(Blocker::TileBudget {
                bits,
                budget: caps.tile_bits_per_pixel,
                parts,
            });
        }
    }

    /// The merge rule about a resolve of a source an earlier subpass resolved: one resolve
    /// per multisampled attachment and render pass (the plan's attachment has one target).
    fn resolved_again(&self, pass: PassId, u: &crate::graph::Use) -> Option<Blocker> {
        let from = u.from.filter(|_| u.access == Access::Resolve)?;
        let resolver = self.find(from)?.resolved_by?;
        Some(Blocker::WriteAfterResolve {
            pass,
            resource: from,
            access: Access::Resolve,
            resolver,
        })
    }

    /// Adds `pass` as the next subpass (the caller has checked [`OpenGroup::accepts`]).
    pub fn add(&mut self, graph: &Graph, pass: PassId) {
        let p = graph.pass(pass);
        // Once the render pass has both, the candidate cannot change them.
        if self.extent.is_none() || self.samples.is_none() {
            if let Some((extent, samples)) = self.frame(graph, pass) {
                self.extent.get_or_insert(extent);
                if self.samples.is_none() {
                    self.samples = samples;
                }
            }
        }
        if self.table.len() < graph.resources.len() {
            // Built by `OpenGroup::new` (no table yet): room for every resource.
            self.table
                .resize(graph.resources.len(), GroupUse::unused(0));
            self.stamp = self.stamp.max(1);
        }
        let stamp = self.stamp;
        for u in &p.uses {
            let Some(g) = self.table.get_mut(u.resource.index()) else {
                debug_assert!(false, "uses name resources of the graph");
                continue;
            };
            if g.stamp == stamp {
                self.shared = true;
            } else {
                *g = GroupUse::unused(stamp);
            }
            if u.access.is_attachment() {
                g.attachment = Some((pass, u.access));
                // A resource's bits per pixel depend on its format only: known once set.
                if g.colour_bits.is_none() {
                    if let Some(bits) = colour_bits(graph, u.resource, u.access) {
                        self.colour.push(u.resource);
                        self.colour_bits = self.colour_bits.saturating_add(bits);
                        g.colour_bits = Some(bits);
                    }
                }
                if u.access == Access::InputAttachment && !g.input {
                    g.input = true;
                    self.inputs += 1;
                }
            } else {
                g.other = Some((pass, u.access));
            }
            if u.access.writes() {
                g.writer = Some(pass);
            }
        }
        // Sources resolved here (each a use of this pass, so its entry is current).
        for u in p.uses.iter().filter(|u| u.access == Access::Resolve) {
            if let Some(g) = u
                .from
                .and_then(|f| self.table.get_mut(f.index()))
                .filter(|g| g.stamp == stamp)
            {
                g.resolved_by.get_or_insert(pass);
            }
        }
        self.passes.push(pass);
    }
}

/// The merge rule about a multisampled attachment an earlier subpass resolved: a later
/// subpass may read it (an input attachment, a depth test), not write it.
fn write_after_resolve(
    pass: PassId,
    resource: ResourceId,
    access: Access,
    g: &GroupUse,
) -> Option<Blocker> {
    let resolver = g.resolved_by?;
    (access.is_attachment() && access.writes() && access != Access::Resolve).then_some(
        Blocker::WriteAfterResolve {
            pass,
            resource,
            access,
            resolver,
        },
    )
}

/// The merge rule about one resource the render pass already uses: attachment uses only
/// meet attachment uses, and non-attachment uses never form a hazard.
fn conflict(
    pass: PassId,
    resource: ResourceId,
    access: Access,
    clear: bool,
    g: &GroupUse,
    target: Target,
) -> Option<Blocker> {
    if access.is_attachment() {
        let (other, other_access) = g.other?;
        return Some(Blocker::Conflict {
            pass,
            resource,
            access,
            other,
            other_access,
        });
    }
    if let (Some(writer), true) = (g.writer, access.reads(clear)) {
        return Some(Blocker::NotAttachmentRead {
            pass,
            resource,
            access,
            writer,
        });
    }
    if let Some((other, other_access)) = g.attachment {
        return Some(Blocker::Conflict {
            pass,
            resource,
            access,
            other,
            other_access,
        });
    }
    let (other, other_access) = g.other?;
    let layout = |a: Access| a.scope(PassKind::Raster, target).layout;
    if layout(access) != layout(other_access) {
        return Some(Blocker::Layout {
            pass,
            resource,
            access,
            other,
            other_access,
        });
    }
    (access.writes() || g.writer.is_some()).then_some(Blocker::Conflict {
        pass,
        resource,
        access,
        other,
        other_access,
    })
}

/// Groups the scheduled raster passes into render passes and records a break, with every
/// reason, between each pair of adjacent raster passes left in different render passes:
/// [`Grouper`] fed the whole order (nothing moves: the order is final).
pub fn group(
    graph: &Graph,
    schedule: &Schedule,
    caps: &Capabilities,
    options: &CompileOptions,
) -> Grouped {
    let deps = deps::kept_dependencies(graph, &schedule.kept);
    let mut grouper = Grouper::new(graph, caps, options, &schedule.queue, &deps);
    for &pass in &schedule.order {
        grouper.push(pass, None);
    }
    grouper.finish()
}

/// Which raster passes share a render pass, and why the others were split.
#[derive(Clone, Debug, Default)]
pub struct Grouped {
    /// The render passes.
    pub grouping: RenderPassGrouping,
    /// A break, with every reason, between each pair of adjacent raster passes left in
    /// different render passes.
    pub breaks: Breaks,
}

/// Bytes per pass the text of the break reasons is given at the first break.
const REASON_BYTES: usize = 96;

/// The break recorded before the open render pass's first subpass, with where its reasons
/// about the cross-queue rule sit in its text (offsets into [`Breaks::text`]), so that a
/// hoist ([`Grouper::hoisted`]) can write that part again.
#[derive(Clone, Copy, Debug)]
struct Opening {
    /// Index of the break in [`Breaks::drafts`].
    draft: usize,
    /// End of the reasons about passes in between (the cross-queue reason follows).
    between_end: usize,
    /// Start of the merge rules' reasons (after their separator), the end of the text
    /// when there are none.
    rules_start: usize,
}

/// The merge phase as a stream: passes are pushed in execution order, as the order phase
/// emits them, and each raster pass joins the open render pass or opens a new one. The
/// order phase reads [`Grouper::joinable`] to pick mergeable passes, and hands the decision
/// of a pick over instead of testing it again. The quick [`OpenGroup::accepts`] decides;
/// the reasons are listed and put into words only for the breaks.
#[derive(Debug)]
pub struct Grouper<'a> {
    graph: &'a Graph,
    caps: &'a Capabilities,
    options: &'a CompileOptions,
    queue: &'a [QueueKind],
    grouped: Grouped,
    /// The last render pass (still there after a pass in between, for its break's reasons).
    open: OpenGroup,
    /// Graphics passes without a render pass emitted since its last subpass.
    between: Vec<PassId>,
    /// The rule about other-queue passes; followed only when a pass is on another queue.
    crossings: Crossings,
    /// [`Grouper::crossings`] of the render pass before the open one, as it was when the
    /// open one started, plus the passes hoisted before the open one since: what the merge
    /// rules over the finished order know at the open render pass's first subpass.
    before: Crossings,
    /// The break recorded when the open render pass started, if any.
    opening: Option<Opening>,
    /// Edges among the kept passes (whether an other-queue pass depends on a subpass).
    deps: &'a Dependencies,
    two_queues: bool,
    extent_texts: ExtentTexts,
}

impl<'a> Grouper<'a> {
    /// No pass emitted yet; `queue` is the queue of each pass (indexed by pass), `deps` the
    /// edges among the kept passes.
    pub fn new(
        graph: &'a Graph,
        caps: &'a Capabilities,
        options: &'a CompileOptions,
        queue: &'a [QueueKind],
        deps: &'a Dependencies,
    ) -> Self {
        Grouper {
            graph,
            caps,
            options,
            queue,
            grouped: Grouped {
                grouping: RenderPassGrouping {
                    groups: super::Groups::with_capacity(graph.passes.len()),
                    group_of: vec![None; graph.passes.len()],
                },
                // At most one break per raster pass.
                breaks: Breaks {
                    drafts: Vec::with_capacity(graph.passes.len()),
                    text: String::new(),
                },
            },
            open: OpenGroup::for_graph(graph),
            between: Vec::new(),
            crossings: Crossings::default(),
            before: Crossings::default(),
            opening: None,
            deps,
            // Without an early exit: a scan the compiler vectorises.
            two_queues: queue
                .iter()
                .fold(false, |any, &q| any | (q != QueueKind::Graphics)),
            extent_texts: ExtentTexts::default(),
        }
    }

    /// The render pass a raster pass emitted next may join, when the rules about the
    /// schedule allow any: one is open, merging is on and no graphics pass ran since.
    pub fn joinable(&self) -> Option<&OpenGroup> {
        // `&`, not `&&`: three flags read, no branch between them.
        (self.options.merge & self.between.is_empty() & !self.open.passes.is_empty())
            .then_some(&self.open)
    }

    /// True when some pass runs on a queue other than the graphics queue.
    pub fn two_queues(&self) -> bool {
        self.two_queues
    }

    /// True when an other-queue pass emitted inside the open render pass keeps `pass` out
    /// of it ([`Crossings::blocker`]).
    pub fn crossing_blocks(&self, pass: PassId) -> bool {
        self.two_queues && self.crossings.blocker(self.graph, pass).is_some()
    }

    /// True when the other-queue passes that keep `pass` out of the open render pass all
    /// depend on none of its subpasses ([`Crossings::hoistable`]): the order phase may move
    /// them before the render pass ([`Grouper::hoisted`]).
    pub fn crossing_hoistable(&self, pass: PassId) -> bool {
        self.two_queues && self.crossings.hoistable(self.graph, pass)
    }

    /// True when the rule about other-queue passes lets `pass` join the open render pass, at
    /// once or after a hoist ([`Crossings::passable`]).
    pub fn crossing_passable(&self, pass: PassId) -> bool {
        !self.two_queues || self.crossings.passable(self.graph, pass)
    }

    /// The order phase moved the other-queue passes `moved` (in their order) from inside the
    /// open render pass to just before its first subpass; `inside` is what the order now
    /// holds from the first subpass on. The rule's state is rebuilt as if the order had
    /// been this one all along: the moved passes count for the render pass before (and the
    /// reason of the break before the first subpass is written again), and the open render
    /// pass sees only what is left inside it.
    pub fn hoisted(&mut self, moved: &[PassId], inside: &[PassId]) {
        let graph = self.graph;
        let Some(&first) = self.open.passes.first() else {
            debug_assert!(false, "a hoist needs an open render pass");
            return;
        };
        debug_assert_eq!(
            inside.first(),
            Some(&first),
            "the first subpass opens `inside`"
        );
        for &x in moved {
            log::debug!(
                "hoist '{}' before the render pass of '{}'",
                graph.pass(x).name,
                graph.pass(first).name
            );
            self.before.note(graph, self.deps, x);
        }
        if let Some(opening) = self.opening {
            self.rewrite_opening(opening, first);
        }
        self.crossings.open(graph, first);
        for &p in &inside[1..] {
            if self.queue[p.index()] == QueueKind::Graphics {
                debug_assert!(
                    self.open.passes.contains(&p),
                    "only subpasses and other-queue passes"
                );
                self.crossings.joined(graph, p);
            } else {
                self.crossings.note(graph, self.deps, p);
            }
        }
    }

    /// Writes again the cross-queue part of the break before the open render pass's first
    /// subpass `first` (the last break recorded), from [`Grouper::before`].
    fn rewrite_opening(&mut self, opening: Opening, first: PassId) {
        let graph = self.graph;
        let breaks = &mut self.grouped.breaks;
        let draft = &mut breaks.drafts[opening.draft];
        debug_assert_eq!(draft.before, first);
        debug_assert_eq!(
            draft.reason.end as usize,
            breaks.text.len(),
            "the last break"
        );
        let start = draft.reason.start as usize;
        let rules = breaks.text[opening.rules_start..].to_string();
        breaks.text.truncate(opening.between_end);
        let text = &mut breaks.text;
        if let Some(b) = self.before.blocker(graph, first) {
            if text.len() > start {
                text.push_str("; ");
            }
            b.describe_with(graph, text, &mut self.extent_texts);
        }
        let rules_start = if rules.is_empty() {
            text.len()
        } else {
            if text.len() > start {
                text.push_str("; ");
            }
            text.len()
        };
        text.push_str(&rules);
        draft.reason.end = text.len() as u32;
        self.opening = Some(Opening {
            rules_start,
            ..opening
        });
    }

    /// `pass` runs next. `accepted`, when the caller knows it: whether the render pass of
    /// [`Grouper::joinable`] takes `pass` (a raster pass), all rules included.
    pub fn push(&mut self, pass: PassId, accepted: Option<bool>) {
        let graph = self.graph;
        if self.queue[pass.index()] != QueueKind::Graphics {
            self.crossings.note(graph, self.deps, pass);
            return;
        }
        if graph.pass(pass).kind != PassKind::Raster {
            self.between.push(pass);
            return;
        }
        let joinable = self.joinable().is_some();
        let joins = match accepted {
            // Known: a plain `and` of two flags, no branch.
            Some(accepted) => joinable & accepted,
            None => {
                joinable && !self.crossing_blocks(pass) && self.open.accepts(graph, self.caps, pass)
            }
        };
        debug_assert!(
            accepted.is_none()
                || joins
                    == (self.joinable().is_some()
                        && !self.crossing_blocks(pass)
                        && self.open.accepts(graph, self.caps, pass)),
            "the order phase's decision is the merge rules' decision"
        );
        let grouping = &mut self.grouped.grouping;
        if joins {
            log::debug!(
                "merge '{}' into the render pass of '{}'",
                graph.pass(pass).name,
                graph.pass(self.open.passes[0]).name
            );
            self.open.add(graph, pass);
            if self.two_queues {
                self.crossings.joined(graph, pass);
            }
            let index = grouping.groups.len() - 1;
            grouping.groups.extend_last(pass);
            grouping.groups.set_independent(!self.open.shared);
            grouping.group_of[pass.index()] = Some(index as u32);
        } else {
            self.opening = None;
            if !self.open.passes.is_empty() {
                self.record_break(pass);
            }
            let grouping = &mut self.grouped.grouping;
            grouping.group_of[pass.index()] = Some(grouping.groups.len() as u32);
            grouping.groups.open(pass);
            self.open.restart(graph, pass);
            grouping.groups.set_independent(!self.open.shared);
            if self.two_queues {
                // What the render pass before knew, for a hoist into this one.
                std::mem::swap(&mut self.before, &mut self.crossings);
                self.crossings.open(graph, pass);
            }
        }
        self.between.clear();
    }

    /// Records the break between the last render pass and `pass`, with every reason (each
    /// put into words as it is found, joined with `"; "`).
    fn record_break(&mut self, pass: PassId) {
        let graph = self.graph;
        let breaks = &mut self.grouped.breaks;
        let reason = &mut breaks.text;
        if reason.capacity() == 0 {
            // Room for the reasons of a frame at once (a reason is ~100 bytes, and there
            // is at most one break per raster pass): growing the text by doubling copies
            // it again and again.
            reason.reserve(graph.passes.len() * REASON_BYTES);
        }
        let start = reason.len();
        let texts = &mut self.extent_texts;
        let put = |reason: &mut String, texts: &mut ExtentTexts, b: Blocker| {
            if reason.len() > start {
                reason.push_str("; ");
            }
            b.describe_with(graph, reason, texts);
        };
        let (mut between_end, mut rules_start) = (start, start);
        if !self.options.merge {
            put(reason, texts, Blocker::MergeOff);
        } else {
            for &b in &self.between {
                // Name the first attachment of the render pass it reads, if any.
                let read = graph.pass(b).uses.iter().find(|u| {
                    u.access.reads(u.clear)
                        && self
                            .open
                            .find(u.resource)
                            .is_some_and(|g| g.attachment.is_some())
                });
                let b = match read {
                    Some(u) => Blocker::BetweenReads {
                        pass: b,
                        resource: u.resource,
                        access: u.access,
                    },
                    None => Blocker::Between(b),
                };
                put(reason, texts, b);
            }
            between_end = reason.len();
            if self.two_queues {
                if let Some(b) = self.crossings.blocker(graph, pass) {
                    put(reason, texts, b);
                }
            }
            let crossing_end = reason.len();
            self.open
                .each_blocker(graph, self.caps, pass, |b| put(reason, texts, b));
            // After its separator, when the merge rules gave a reason after another.
            rules_start = if reason.len() > crossing_end && crossing_end > start {
                crossing_end + 2
            } else {
                crossing_end
            };
        }
        debug_assert!(reason.len() > start, "a break has a reason");
        let after = *self.open.passes.last().unwrap_or(&pass);
        log::debug!(
            "break between '{}' and '{}': {}",
            graph.pass(after).name,
            graph.pass(pass).name,
            &reason[start..],
        );
        self.opening = Some(Opening {
            draft: breaks.drafts.len(),
            between_end,
            rules_start,
        });
        breaks.drafts.push(BreakDraft {
            after,
            before: pass,
            reason: start as u32..reason.len() as u32,
        });
    }

    /// The render passes and breaks of every pass pushed.
    pub fn finish(self) -> Grouped {
        self.grouped
    }
}
