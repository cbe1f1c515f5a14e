//! Render passes with their attachments' DRAM traffic, and breaks with what they cost.
//!
//! An attachment moves its bytes (one mip-0 layer of every sample, the compiler's tile
//! model) once for a `LOAD` and once for a `STORE` (a resolve target's store is the resolve
//! write); clears, `DONT_CARE` and memoryless attachments move nothing. So the DRAM bytes of
//! every attachment of every render pass sum to `plan.bandwidth.load_bytes + store_bytes`.
//!
//! The cost of a break is the DRAM traffic of content handed across it: for every resource
//! the earlier render pass stores and the later render pass uses, the store, plus the load
//! when the later render pass loads it as an attachment. Merged into one render pass, that
//! content could have stayed in tile memory (where the rule that split them allowed it), so
//! it is the most merging the pair could save; a store that is needed anyway (an output, a
//! later reader) is still counted, since it is traffic at that break. Cost: O(attachments +
//! uses of the later render pass) per break.

use super::Index;
use serde::Serialize;
use std::collections::HashMap;
use tessera_graph::plan::{Attachment, LoadOp, StoreOp, SubpassDependency};
use tessera_graph::Name;

/// An attachment of a render pass with its DRAM bytes per frame: the plan's attachment as it
/// is (flattened into the same JSON object for the page) plus what its operations move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttachmentView {
    /// The attachment as planned.
    #[serde(flatten)]
    pub planned: Attachment,
    /// Bytes one load or store moves.
    pub op_bytes: u64,
    /// Bytes read from DRAM at the start of the render pass.
    pub load_bytes: u64,
    /// Bytes written to DRAM at the end (store or resolve write).
    pub store_bytes: u64,
}

impl AttachmentView {
    /// Load plus store bytes.
    pub fn dram_bytes(&self) -> u64 {
        self.load_bytes.saturating_add(self.store_bytes)
    }
}

/// A render pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderPassView {
    /// Index in `plan.render_passes`.
    pub index: u32,
    /// Subpasses in order.
    pub subpasses: Vec<Name>,
    /// Position of the first subpass in `plan.order`.
    pub first: u32,
    /// Position of the last subpass in `plan.order`.
    pub last: u32,
    /// Attachments with their bytes.
    pub attachments: Vec<AttachmentView>,
    /// Subpass dependencies.
    pub dependencies: Vec<SubpassDependency>,
    /// DRAM bytes of all attachments per frame.
    pub dram_bytes: u64,
}

/// One resource handed across a break through DRAM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Handover {
    /// The resource.
    pub resource: Name,
    /// Bytes the earlier render pass stores.
    pub store_bytes: u64,
    /// Bytes the later render pass loads (0 when it reads the resource other than as a
    /// loaded attachment, e.g. sampled).
    pub load_bytes: u64,
}

/// A break between adjacent raster passes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BreakView {
    /// Last subpass of the earlier render pass.
    pub after: Name,
    /// First subpass of the later render pass.
    pub before: Name,
    /// Position of `before` in `plan.order` (where the break is drawn).
    pub position: u32,
    /// The plan's reason.
    pub reason: String,
    /// The reason split into its rules.
    pub reasons: Vec<String>,
    /// Earlier render pass.
    pub from_render_pass: Option<u32>,
    /// Later render pass.
    pub to_render_pass: Option<u32>,
    /// Content handed across the break through DRAM.
    pub handovers: Vec<Handover>,
    /// Sum of the handovers' bytes.
    pub cost_bytes: u64,
}

/// The render passes of the plan with per-attachment bytes.
pub(crate) fn render_passes(index: &Index<'_>) -> Vec<RenderPassView> {
    index
        .plan
        .render_passes
        .iter()
        .enumerate()
        .map(|(i, rp)| {
            let pos = |n: Option<&Name>| {
                n.and_then(|n| index.position.get(n.as_str()).copied())
                    .unwrap_or(0)
            };
            let attachments: Vec<AttachmentView> = rp
                .attachments
                .iter()
                .map(|a| {
                    let op_bytes = index.attachment_bytes(&a.resource);
                    let load_bytes = if a.load_op == LoadOp::Load {
                        op_bytes
                    } else {
                        0
                    };
                    let store_bytes = if a.store_op == StoreOp::Store {
                        op_bytes
                    } else {
                        0
                    };
                    AttachmentView {
                        planned: a.clone(),
                        op_bytes,
                        load_bytes,
                        store_bytes,
                    }
                })
                .collect();
            let dram_bytes = attachments
                .iter()
                .map(AttachmentView::dram_bytes)
                .fold(0, u64::saturating_add);
            RenderPassView {
                index: i as u32,
                subpasses: rp.subpasses.to_vec(),
                first: pos(rp.subpasses.first()),
                last: pos(rp.subpasses.last()),
                attachments,
                dependencies: rp.dependencies.clone(),
                dram_bytes,
            }
        })
        .collect()
}

/// Splits a break reason into its rules (the compiler joins them with `"; "`).
fn split_reason(reason: &str) -> Vec<String> {
    reason
        .split("; ")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The breaks of the plan with the bytes each costs.
pub(crate) fn breaks(index: &Index<'_>, rps: &[RenderPassView]) -> Vec<BreakView> {
    let mut rp_of: HashMap<&str, usize> = HashMap::new();
    for (i, rp) in rps.iter().enumerate() {
        for s in &rp.subpasses {
            rp_of.insert(s.as_str(), i);
        }
    }
    index
        .plan
        .breaks
        .iter()
        .map(|b| {
            let from = rp_of.get(b.after.as_str()).copied();
            let to = rp_of.get(b.before.as_str()).copied();
            let handovers = match (from, to) {
                (Some(f), Some(t)) => handovers(index, &rps[f], &rps[t]),
                _ => Vec::new(),
            };
            let cost_bytes = handovers
                .iter()
                .map(|h| h.store_bytes.saturating_add(h.load_bytes))
                .fold(0, u64::saturating_add);
            log::trace!(
                "break {} | {}: {} bytes handed over",
                b.after,
                b.before,
                cost_bytes
            );
            BreakView {
                after: b.after,
                before: b.before,
                position: index.position.get(b.before.as_str()).copied().unwrap_or(0),
                reason: b.reason.to_string(),
                reasons: split_reason(&b.reason),
                from_render_pass: from.map(|f| f as u32),
                to_render_pass: to.map(|t| t as u32),
                handovers,
                cost_bytes,
            }
        })
        .collect()
}

/// Resources stored by `earlier` and used by a subpass of `later`.
fn handovers(index: &Index<'_>, earlier: &RenderPassView, later: &RenderPassView) -> Vec<Handover> {
    let used_later = |resource: &str| {
        later.subpasses.iter().any(|s| {
            index.pass.get(s.as_str()).is_some_and(|p| {
                p.uses
                    .iter()
                    .any(|u| index.graph.resource(u.resource).name == resource)
            })
        })
    };
    earlier
        .attachments
        .iter()
        .filter(|a| a.planned.store_op == StoreOp::Store && used_later(&a.planned.resource))
        .map(|a| Handover {
            resource: a.planned.resource,
            store_bytes: a.store_bytes,
            load_bytes: later
                .attachments
                .iter()
                .find(|l| l.planned.resource == a.planned.resource)
                .map_or(0, |l| l.load_bytes),
        })
        .collect()
}
