//! Phase 6, render passes: raster passes grouped into `VkRenderPass`es, with attachments,
//! load/store operations and the reasons adjacent raster passes were not merged.
//!
//! Without merging every raster pass is a render pass of its own. Attachments load earlier
//! content only when the pass needs it (a clear clears, a write of every pixel or a
//! resource with no earlier content does not care) and are always stored.

use super::Schedule;
use crate::graph::{Graph, PassId};
use crate::plan::{Attachment, Break, LoadOp, RenderPass, StoreOp};
use crate::sync::Layout;

/// Which raster passes share a render pass.
#[derive(Clone, Debug, Default)]
pub struct RenderPassGrouping {
    /// Render passes, each a list of raster passes in subpass order.
    pub groups: Vec<Vec<PassId>>,
    /// Render pass of each pass (indexed by pass), `None` for non-raster and culled passes.
    pub group_of: Vec<Option<u32>>,
}

/// Groups raster passes (one render pass each for now).
pub fn group(graph: &Graph, schedule: &Schedule) -> RenderPassGrouping {
    let mut grouping = RenderPassGrouping {
        groups: Vec::new(),
        group_of: vec![None; graph.passes.len()],
    };
    for &p in &schedule.order {
        if graph.pass(p).kind == crate::graph::PassKind::Raster {
            grouping.group_of[p.index()] = Some(grouping.groups.len() as u32);
            grouping.groups.push(vec![p]);
        }
    }
    grouping
}

/// Breaks between adjacent raster passes in different render passes.
pub fn breaks(graph: &Graph, schedule: &Schedule, grouping: &RenderPassGrouping) -> Vec<Break> {
    let raster: Vec<PassId> = schedule
        .order
        .iter()
        .copied()
        .filter(|&p| grouping.group_of[p.index()].is_some())
        .collect();
    raster
        .windows(2)
        .filter(|w| grouping.group_of[w[0].index()] != grouping.group_of[w[1].index()])
        .map(|w| Break {
            after: graph.pass(w[0]).name.clone(),
            before: graph.pass(w[1]).name.clone(),
            reason: "merging is off".to_string(),
        })
        .collect()
}

/// Render pass descriptions for the plan.
pub fn describe(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
) -> Vec<RenderPass> {
    let mut written_before = vec![false; graph.resources.len()];
    let mut out = Vec::with_capacity(grouping.groups.len());
    let mut next_group = 0usize;
    for &p in &schedule.order {
        let pass = graph.pass(p);
        if grouping.group_of[p.index()] == Some(next_group as u32) {
            let mut attachments = Vec::new();
            for u in pass.uses.iter().filter(|u| u.access.is_attachment()) {
                let r = graph.resource(u.resource);
                let Some(d) = r.image_desc() else { continue };
                let has_content =
                    written_before[u.resource.index()] || (r.imported && !r.clear_on_first_use);
                let load_op = if u.clear {
                    LoadOp::Clear
                } else if has_content && u.access.keeps_content(false) {
                    LoadOp::Load
                } else {
                    LoadOp::DontCare
                };
                let layout = u
                    .access
                    .scope(pass.kind, r.target())
                    .layout
                    .unwrap_or(Layout::GENERAL);
                let resolve_target = pass
                    .uses
                    .iter()
                    .find(|v| v.from == Some(u.resource))
                    .map(|v| graph.resource(v.resource).name.clone());
                attachments.push(Attachment {
                    resource: r.name.clone(),
                    load_op,
                    store_op: StoreOp::Store,
                    memoryless: false,
                    samples: d.samples,
                    resolve_target,
                    initial_layout: layout,
                    final_layout: layout,
                });
            }
            out.push(RenderPass {
                subpasses: vec![pass.name.clone()],
                attachments,
                dependencies: Vec::new(),
            });
            next_group += 1;
        }
        for u in pass.uses.iter().filter(|u| u.access.writes()) {
            written_before[u.resource.index()] = true;
        }
    }
    out
}
