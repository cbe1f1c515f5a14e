//! Phase 6, render passes: raster passes grouped into `VkRenderPass`es the way a tile-based
//! GPU wants them.
//!
//! The phase is a chain of small steps, one module each:
//! 1. [`merge`]: adjacent raster passes become subpasses of one render pass unless a rule
//!    forbids it; every rejected pair gets a break listing every rule that split it;
//! 2. [`load_store`]: per attachment, `CLEAR`/`LOAD`/`DONT_CARE` and `STORE`/`DONT_CARE` from
//!    the writes before and the reads after the render pass, plus initial/final layouts;
//! 3. [`memoryless`]: attachments that never leave tile memory (and errors for declared ones
//!    that cannot stay there);
//! 4. [`dependencies`]: subpass dependencies for every hazard between subpasses;
//! 5. [`bandwidth`]: the tile bandwidth model, planned and naive.
//!
//! Invariants: every kept raster pass is in exactly one render pass; render passes and
//! their subpasses follow execution order and are contiguous among the graphics-queue
//! passes (nothing else runs inside a render pass; async-compute passes may sit between its
//! subpasses in `order` when the render pass never waits for them, see [`cross_queue`]). Cost: O(uses) overall, plus O(uses × readers) for dependencies.

pub mod bandwidth;
pub mod cross_queue;
pub mod dependencies;
pub mod load_store;
pub mod memoryless;
pub mod merge;

use super::Schedule;
use crate::caps::{Capabilities, CompileOptions};
use crate::error::CompileError;
use crate::graph::{Graph, PassId};
use crate::plan::{Attachment, Bandwidth, Break, RenderPass};

/// Which raster passes share a render pass.
#[derive(Clone, Debug, Default)]
pub struct RenderPassGrouping {
    /// Render passes, each a list of raster passes in subpass order.
    pub groups: Vec<Vec<PassId>>,
    /// Render pass of each pass (indexed by pass), `None` for non-raster and culled passes.
    pub group_of: Vec<Option<u32>>,
}

/// A break between two adjacent raster passes, with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreakDraft {
    /// Last subpass of the earlier render pass.
    pub after: PassId,
    /// First subpass of the later render pass.
    pub before: PassId,
    /// Every rule that split them, in words, joined with `"; "`.
    pub reason: String,
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
    /// Tile bandwidth per frame.
    pub bandwidth: Bandwidth,
}

/// Groups the scheduled raster passes into render passes and describes them.
pub fn render_passes(
    graph: &Graph,
    schedule: &Schedule,
    caps: &Capabilities,
    options: &CompileOptions,
) -> Result<RenderPasses, CompileError> {
    let (grouping, break_drafts) = merge::group(graph, schedule, caps, options);
    let index = load_store::UseIndex::new(graph, schedule);
    let mut attachments = load_store::Attachments::new(graph, schedule, &index, &grouping.groups);
    let memoryless = memoryless::decide(
        graph,
        caps,
        options,
        &grouping,
        &index,
        &mut attachments,
        &break_drafts,
    )?;
    let bandwidth = bandwidth::bandwidth(graph, schedule, &index, &attachments);
    let name = |p: PassId| graph.pass(p).name.clone();
    let mut scratch = dependencies::Scratch::new(graph);
    let render_passes = grouping
        .groups
        .iter()
        .enumerate()
        .map(|(i, group)| RenderPass {
            subpasses: group.iter().map(|&p| name(p)).collect(),
            attachments: attachments
                .of(i)
                .iter()
                .map(|a| Attachment {
                    resource: graph.resource(a.resource).name.clone(),
                    load_op: a.load,
                    store_op: a.store,
                    memoryless: a.memoryless,
                    samples: a.samples,
                    resolve_target: a.resolve_target.map(|t| graph.resource(t).name.clone()),
                    initial_layout: a.initial_layout,
                    final_layout: a.final_layout,
                })
                .collect(),
            dependencies: dependencies::dependencies_with(graph, group, &mut scratch),
        })
        .collect();
    let breaks = break_drafts
        .into_iter()
        .map(|b| Break {
            after: name(b.after),
            before: name(b.before),
            reason: b.reason,
        })
        .collect();
    Ok(RenderPasses {
        grouping,
        render_passes,
        breaks,
        memoryless,
        bandwidth,
    })
}

#[cfg(test)]
mod tests;
