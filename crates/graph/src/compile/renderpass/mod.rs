//! Phase 6, render passes: raster passes grouped into `VkRenderPass`es the way a tile-based
//! GPU wants them.
//!
//! The phase is a chain of small steps, one module each:
//! 1. [`merge`]: adjacent raster passes become subpasses of one render pass unless a rule
//!    forbids it; every rejected pair gets a break listing every rule that split it (run by
//!    the order phase as it emits passes, [`merge::Grouper`], and handed over here); the
//!    reasons are [`blocker::Blocker`]s, which [`cross_queue`] gives too;
//! 2. [`load_store`]: per attachment, `CLEAR`/`LOAD`/`DONT_CARE` and `STORE`/`DONT_CARE` from
//!    the writes before and the reads after the render pass, plus initial/final layouts;
//! 3. [`memoryless`]: attachments that never leave tile memory (and errors for declared ones
//!    that cannot stay there);
//! 4. [`dependencies`]: subpass dependencies for every hazard between subpasses, the
//!    load and store operations included as accesses ([`ops`], which also tables them per
//!    use for the barrier phase);
//! 5. [`bandwidth`]: the tile bandwidth model, planned and naive.
//!
//! Invariants: every kept raster pass is in exactly one render pass; render passes and
//! their subpasses follow execution order and are contiguous among the graphics-queue
//! passes (nothing else runs inside a render pass; async-compute passes may sit between its
//! subpasses in `order` when the render pass never waits for them, and those it would wait
//! for move before its first subpass when they depend on none of its subpasses, see
//! [`cross_queue`]).
//! Cost: O(uses) overall, plus O(uses × readers) for dependencies (only for render passes
//! the merge step did not mark independent: a resource used by two subpasses); most of what is left is
//! the plan's own records (the subpass and attachment lists of all render passes are slices
//! of two shared buffers, [`List::shared`], and the reasons of all breaks slices of one
//! text, [`Text::shared`]).

pub mod bandwidth;
pub mod blocker;
pub mod cross_queue;
pub mod dependencies;
pub mod load_store;
pub mod memoryless;
pub mod merge;
pub mod ops;

use super::Schedule;
use crate::caps::{Capabilities, CompileOptions};
use crate::error::CompileError;
use crate::graph::{Graph, PassId};
use crate::name::Name;
use crate::plan::{Attachment, Bandwidth, Break, List, RenderPass, Text};
use std::ops::Range;
use std::sync::Arc;

/// Which raster passes share a render pass.
#[derive(Clone, Debug, Default)]
pub struct RenderPassGrouping {
    /// Render passes, each a list of raster passes in subpass order.
    pub groups: Groups,
    /// Render pass of each pass (indexed by pass), `None` for non-raster and culled passes.
    pub group_of: Vec<Option<u32>>,
}

/// Render passes as lists of raster passes, all in one flat list (one allocation for the
/// whole frame instead of one per render pass): `groups[i]` is render pass `i`'s subpasses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    /// Every grouped pass, render pass by render pass.
    passes: Vec<PassId>,
    /// Where each render pass starts in `passes`.
    starts: Vec<u32>,
    /// Per render pass: known to use no resource in two of its subpasses (so it has no
    /// subpass dependency). False when not known: whoever builds the list may tell
    /// ([`Groups::set_independent`]); the merge step does for every render pass.
    independent: Vec<bool>,
}

impl Groups {
    /// Room for `passes` passes, without render passes yet.
    pub fn with_capacity(passes: usize) -> Self {
        Groups {
            passes: Vec::with_capacity(passes),
            starts: Vec::with_capacity(passes),
            independent: Vec::with_capacity(passes),
        }
    }

    /// Number of render passes.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True without render passes.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Starts a new render pass holding `pass` alone.
    pub fn open(&mut self, pass: PassId) {
        self.starts.push(self.passes.len() as u32);
        self.passes.push(pass);
        self.independent.push(false);
    }

    /// Tells whether the last render pass (which must exist) uses no resource in two of its
    /// subpasses.
    pub fn set_independent(&mut self, independent: bool) {
        debug_assert!(!self.starts.is_empty(), "a render pass is open");
        if let Some(last) = self.independent.last_mut() {
            *last = independent;
        }
    }

    /// True when render pass `i` is known to use no resource in two of its subpasses.
    pub fn independent(&self, i: usize) -> bool {
        self.independent.get(i).copied().unwrap_or(false)
    }

    /// Adds `pass` as the next subpass of the last render pass (which must exist).
    pub fn extend_last(&mut self, pass: PassId) {
        debug_assert!(!self.starts.is_empty(), "a render pass is open");
        self.passes.push(pass);
    }

    /// The render passes in order, each as its subpasses.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[PassId]> + '_ {
        (0..self.len()).map(move |i| &self[i])
    }
}

impl std::ops::Index<usize> for Groups {
    type Output = [PassId];

    fn index(&self, i: usize) -> &[PassId] {
        let start = self.starts[i] as usize;
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.passes.len(), |&e| e as usize);
        &self.passes[start..end]
    }
}

/// A break between two adjacent raster passes, with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreakDraft {
    /// Last subpass of the earlier render pass.
    pub after: PassId,
    /// First subpass of the later render pass.
    pub before: PassId,
    /// Where its reason lies in [`Breaks::text`]: every rule that split them, in words,
    /// joined with `"; "`.
    pub reason: Range<u32>,
}

/// The breaks of a frame, their reasons written one after the other into one text (one
/// buffer for the frame instead of one per break; the plan's reasons are slices of it,
/// [`Text::shared`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breaks {
    /// The breaks, in execution order.
    pub drafts: Vec<BreakDraft>,
    /// Their reasons, one after the other.
    pub text: String,
}

impl Breaks {
    /// The reason of `b`, one of [`Breaks::drafts`].
    pub fn reason(&self, b: &BreakDraft) -> &str {
        self.text
            .get(b.reason.start as usize..b.reason.end as usize)
            .unwrap_or("")
    }
}

/// Output of the render pass phase.
#[derive(Clone, Debug, Default)]
pub struct RenderPasses {
    /// Which passes share a render pass (read by the barrier phase).
    pub grouping: RenderPassGrouping,
    /// Render passes for the plan, in execution order.
    pub render_passes: Vec<RenderPass>,
    /// Breaks for the plan.
    pub breaks: Vec<Break>,
    /// Per resource: kept in tile memory only (input of the memory phase).
    pub memoryless: Vec<bool>,
    /// Declared-memoryless resources this plan places in ordinary memory, with the reason.
    pub memoryless_fallbacks: Vec<crate::plan::MemorylessFallback>,
    /// Tile bandwidth per frame.
    pub bandwidth: Bandwidth,
    /// The load and store operations per use (read by the barrier phase).
    pub ops: ops::UseOps,
}

/// Describes the render passes of `grouped` (the scheduled raster passes, grouped by the
/// order phase through [`merge::Grouper`]).
pub fn render_passes(
    graph: &Graph,
    schedule: &Schedule,
    grouped: merge::Grouped,
    caps: &Capabilities,
    options: &CompileOptions,
) -> Result<RenderPasses, CompileError> {
    debug_assert_eq!(
        grouped.grouping.groups,
        merge::group(graph, schedule, caps, options).grouping.groups,
        "the order phase grouped the order as the merge phase would"
    );
    let merge::Grouped { grouping, breaks } = grouped;
    let (facts, mut attachments) = load_store::sweep(graph, schedule, &grouping);
    let (memoryless, memoryless_fallbacks) = memoryless::decide(
        graph,
        caps,
        options,
        schedule,
        &grouping,
        &facts,
        &mut attachments,
        &breaks,
    )?;
    let bandwidth = bandwidth::bandwidth(graph, &facts, &attachments);
    let use_ops = ops::UseOps::new(graph, &grouping, &attachments);
    let name = |p: PassId| graph.pass(p).name;
    let mut scratch = dependencies::Scratch::new(graph);
    // One buffer of subpass names and one of attachments for the whole frame; each render
    // pass's lists are slices of them (two allocations instead of two per render pass).
    let all_subpasses: Arc<[Name]> = grouping.groups.passes.iter().map(|&p| name(p)).collect();
    let all_attachments: Arc<[Attachment]> = attachments
        .drafts
        .iter()
        .map(|a| Attachment {
            resource: graph.resource(a.resource).name,
            load_op: a.load,
            store_op: a.store,
            memoryless: a.memoryless,
            samples: a.samples,
            resolve_target: a.resolve_target.map(|t| graph.resource(t).name),
            resolve_mode: a.resolve_mode,
            initial_layout: a.initial_layout,
            final_layout: a.final_layout,
            clear_value: a.clear_value,
        })
        .collect();
    let (mut subpass_at, mut attachment_at) = (0, 0);
    let render_passes = grouping
        .groups
        .iter()
        .enumerate()
        .map(|(i, group)| {
            let subpasses = subpass_at..subpass_at + group.len();
            let attached = attachment_at..attachment_at + attachments.of(i).len();
            (subpass_at, attachment_at) = (subpasses.end, attached.end);
            RenderPass {
                subpasses: List::shared(&all_subpasses, subpasses),
                attachments: List::shared(&all_attachments, attached),
                // No resource in two subpasses (one subpass, in particular): no hazard.
                dependencies: if grouping.groups.independent(i) {
                    Vec::new()
                } else {
                    dependencies::dependencies_with(graph, group, attachments.of(i), &mut scratch)
                },
            }
        })
        .collect();
    // One buffer for the reasons of all breaks; each break's reason is a slice of it.
    let reasons = Arc::new(breaks.text);
    let breaks = breaks
        .drafts
        .into_iter()
        .map(|b| Break {
            after: name(b.after),
            before: name(b.before),
            reason: Text::shared(&reasons, b.reason.start as usize..b.reason.end as usize),
        })
        .collect();
    Ok(RenderPasses {
        grouping,
        render_passes,
        breaks,
        memoryless,
        memoryless_fallbacks,
        bandwidth,
        ops: use_ops,
    })
}

#[cfg(test)]
mod tests;
