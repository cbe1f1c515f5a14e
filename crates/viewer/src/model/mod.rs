//! The page model: everything the viewer shows, as plain data derived from a compiled
//! [`Plan`] and the [`Graph`] it was compiled from.
//!
//! Algorithm: index the plan by pass and resource name once, then build each part of the
//! page in its own module — [`passes`] (pass rows in execution order, queue lanes,
//! semaphores, culled passes), [`render_passes`] (attachments with load/store ops and DRAM
//! bytes, breaks with their cost), [`resources`] (lifetimes and memory maps), [`history`]
//! (history resources, their physical resources and the passes that hand their content to
//! the next frame), [`totals`] and, for a plan that overlaps frames, [`overlap`] (two
//! consecutive frames on the queue lanes). A graph with declared history resources is lowered first
//! ([`tessera_graph::history::lower`]), so that it names the resources the plan names.
//! The graph contributes only what the plan names but does not size: pass kinds, the uses of
//! each pass, and resource sizes (memory bytes, and the bytes one attachment load or store
//! moves, as the compiler's bandwidth model counts them).
//!
//! Invariants (checked by the tests against the plan): the attachments' DRAM bytes sum to
//! `plan.bandwidth` load + store; memoryless resources sum to `plan.memory.memoryless_bytes`;
//! every kept pass appears once, at its position in `plan.order`; every barrier appears once,
//! under its pass. Building never panics: a name the graph does not know (a plan from
//! elsewhere) contributes no bytes and a default kind. Cost: O(passes + uses + barriers +
//! placements) with hash lookups.

pub mod history;
pub mod overlap;
pub mod passes;
pub mod render_passes;
pub mod resources;
pub mod totals;

#[cfg(test)]
mod tests;

use serde::Serialize;
use std::collections::HashMap;
use tessera_graph::graph::{Pass, QueueKind};
use tessera_graph::plan::{Barrier, Batch, Edge, LifetimeUnit, ResourceSharing};
use tessera_graph::{Graph, Plan, Resource};

pub use history::{HistoryView, ResourceHistory};
pub use overlap::{CrossFrameWaitView, FramePass, TwoFrames};
pub use passes::{CulledPass, PassRow, SyncView, UseView};
pub use render_passes::{AttachmentView, BreakView, Handover, RenderPassView};
pub use resources::{BlockView, PlacementRef, ResourceView};
pub use totals::Totals;

/// Everything one page of the viewer shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    /// Frame name.
    pub name: String,
    /// What memory lifetimes (`blocks[].placements[].first/last`) count.
    pub lifetime_unit: LifetimeUnit,
    /// Number of dependency levels (the memory maps' x axis when `lifetime_unit` is `level`).
    pub levels: u32,
    /// Kept passes in execution order.
    pub passes: Vec<PassRow>,
    /// Culled passes in declaration order, with the reason.
    pub culled: Vec<CulledPass>,
    /// Render passes in execution order.
    pub render_passes: Vec<RenderPassView>,
    /// Breaks between adjacent raster passes, with reasons and costs.
    pub breaks: Vec<BreakView>,
    /// Cross-queue semaphore edges (after minimisation).
    pub syncs: Vec<SyncView>,
    /// Submission batches, in submission order.
    pub batches: Vec<Batch>,
    /// Sharing mode of each resource used on both queues.
    pub sharing: Vec<ResourceSharing>,
    /// Dependency edges between kept passes.
    pub edges: Vec<Edge>,
    /// Resources used by kept passes, ordered by first use.
    pub resources: Vec<ResourceView>,
    /// History resources (kept from one frame to the next), in the plan's order.
    pub history: Vec<HistoryView>,
    /// Memory blocks with their placements.
    pub blocks: Vec<BlockView>,
    /// Frame totals.
    pub totals: Totals,
    /// Two consecutive frames on the queue lanes, when the plan overlaps frames
    /// (`frame_overlap`): frame N's tail beside frame N+1's head, the cross-frame waits and
    /// the memory the overlap costs.
    pub two_frames: Option<TwoFrames>,
}

/// Name lookups shared by the builders.
#[derive(Debug)]
pub(crate) struct Index<'a> {
    pub plan: &'a Plan,
    /// Position of each kept pass in `plan.order`.
    pub position: HashMap<&'a str, u32>,
    /// Declared passes by name.
    pub pass: HashMap<&'a str, &'a Pass>,
    /// Declared resources by name.
    pub resource: HashMap<&'a str, &'a Resource>,
    /// Graph resources in declaration order (for stable output).
    pub graph: &'a Graph,
}

impl<'a> Index<'a> {
    fn new(graph: &'a Graph, plan: &'a Plan) -> Self {
        Index {
            plan,
            position: plan
                .order
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i as u32))
                .collect(),
            pass: graph.passes.iter().map(|p| (p.name.as_str(), p)).collect(),
            resource: graph
                .resources
                .iter()
                .map(|r| (r.name.as_str(), r))
                .collect(),
            graph,
        }
    }

    /// Bytes one attachment load or store of `resource` moves (0 for buffers and unknown
    /// names): one mip-0 layer of every sample, as the compiler's bandwidth model counts.
    pub fn attachment_bytes(&self, resource: &str) -> u64 {
        self.resource
            .get(resource)
            .and_then(|r| r.image_desc())
            .map_or(0, |d| d.attachment_bytes())
    }

    /// The queue a kept pass runs on in the plan.
    pub fn queue_of(&self, pass: &str) -> QueueKind {
        if self.plan.queues.async_compute.iter().any(|n| n == pass) {
            QueueKind::AsyncCompute
        } else {
            QueueKind::Graphics
        }
    }
}

impl Page {
    /// Builds the page of `plan`, compiled from `graph`.
    pub fn build(graph: &Graph, plan: &Plan) -> Page {
        let lowered = tessera_graph::history::lower(graph);
        let graph: &Graph = &lowered;
        let index = Index::new(graph, plan);
        let syncs = passes::syncs(&index);
        let passes = passes::rows(&index, &syncs);
        let culled = passes::culled(&index);
        let render_passes = render_passes::render_passes(&index);
        let breaks = render_passes::breaks(&index, &render_passes);
        let history = history::history(&index);
        let resources = resources::resources(&index, &render_passes, &history);
        let blocks = resources::blocks(plan);
        let totals = Totals::new(plan, &render_passes, &breaks);
        let two_frames = overlap::two_frames(&index);
        log::debug!(
            "viewer page '{}': {} passes, {} render passes, {} breaks, {} resources, {} blocks",
            graph.name,
            passes.len(),
            render_passes.len(),
            breaks.len(),
            resources.len(),
            blocks.len()
        );
        Page {
            name: graph.name.to_string(),
            lifetime_unit: plan.memory.lifetime_unit,
            levels: plan.levels.len() as u32,
            passes,
            culled,
            render_passes,
            breaks,
            syncs,
            batches: plan.batches.clone(),
            sharing: plan.sharing.clone(),
            edges: plan.edges.clone(),
            resources,
            history,
            blocks,
            totals,
            two_frames,
        }
    }

    /// The row of a kept pass by name.
    pub fn pass(&self, name: &str) -> Option<&PassRow> {
        self.passes.iter().find(|p| p.name == name)
    }

    /// The resource row by name.
    pub fn resource(&self, name: &str) -> Option<&ResourceView> {
        self.resources.iter().find(|r| r.name == name)
    }

    /// Every barrier of the page, pass by pass (before, then after each pass).
    pub fn barriers(&self) -> impl Iterator<Item = &Barrier> {
        self.passes
            .iter()
            .flat_map(|p| p.barriers_before.iter().chain(&p.barriers_after))
    }
}
