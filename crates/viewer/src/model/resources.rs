//! Resource lifetimes (bars on the timeline) and memory maps (one per block).
//!
//! A resource's timeline lifetime is the first and last position in `plan.order` of a kept
//! pass that uses it, with every use listed; resources no kept pass uses are left out. Its
//! memory placement, if any, comes from `plan.memory.blocks`, whose `first`/`last` count
//! `plan.memory.lifetime_unit` (order positions or dependency levels): a memory map draws
//! x = that lifetime and y = offset, so placements that share bytes sit side by side on one
//! row band, never overlapping where lifetimes overlap. Cost: O(uses + placements).

use super::history::{role, HistoryView, ResourceHistory};
use super::render_passes::RenderPassView;
use super::Index;
use serde::Serialize;
use std::collections::HashMap;
use tessera_graph::graph::ResourceKind;
use tessera_graph::plan::{LifetimeUnit, Placement};
use tessera_graph::{Access, Name, Plan};

/// Where a resource lives in transient memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlacementRef {
    /// Index into the page's `blocks`.
    pub block: u32,
    /// Byte offset in the block.
    pub offset: u64,
    /// Bytes.
    pub size: u64,
    /// First position or level (per `lifetime_unit`).
    pub first: u32,
    /// Last position or level.
    pub last: u32,
}

/// A resource used by kept passes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceView {
    /// The resource.
    pub name: Name,
    /// `image` or `buffer`.
    pub kind: &'static str,
    /// Shape, e.g. `R8G8B8A8_UNORM 1920x1080 4x` or `4096 B`.
    pub shape: String,
    /// Bytes of memory it needs (graph size).
    pub bytes: u64,
    /// Owned outside the graph.
    pub imported: bool,
    /// A result of the frame.
    pub output: bool,
    /// Kept in tile memory only (memoryless in its render pass).
    pub memoryless: bool,
    /// A history resource (kept from one frame to the next): its buffering and, for a
    /// double-buffered pair, which physical resource this row is.
    pub history: Option<ResourceHistory>,
    /// A persistent resource (kept across frames, written while stale): whether its
    /// content is still valid this frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
    /// First position in `plan.order` of a kept pass using it.
    pub first: u32,
    /// Last such position.
    pub last: u32,
    /// Every use by a kept pass: (position, access).
    pub uses: Vec<(u32, Access)>,
    /// Transient memory placement, if placed.
    pub placement: Option<PlacementRef>,
}

/// A memory block for a memory map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockView {
    /// Index in `plan.memory.blocks`.
    pub index: u32,
    /// Memory-compatibility class.
    pub class: u32,
    /// Bytes.
    pub size: u64,
    /// Width of the x axis: order positions or levels of the frame.
    pub span: u32,
    /// Placements, as in the plan.
    pub placements: Vec<Placement>,
}

fn shape(r: &tessera_graph::Resource) -> (&'static str, String) {
    match &r.kind {
        ResourceKind::Image(d) => {
            let mut s = format!("{} {}x{}", d.format, d.width, d.height);
            if d.samples > 1 {
                s.push_str(&format!(" {}x MSAA", d.samples));
            }
            if d.mips > 1 {
                s.push_str(&format!(" {} mips", d.mips));
            }
            if d.layers > 1 {
                s.push_str(&format!(" {} layers", d.layers));
            }
            ("image", s)
        }
        ResourceKind::Buffer { size } => ("buffer", format!("{size} B")),
    }
}

/// Resources used by kept passes, ordered by first use (then declaration).
pub(crate) fn resources(
    index: &Index<'_>,
    rps: &[RenderPassView],
    history: &[HistoryView],
) -> Vec<ResourceView> {
    let mut uses: HashMap<&str, Vec<(u32, Access)>> = HashMap::new();
    for (pos, name) in index.plan.order.iter().enumerate() {
        if let Some(p) = index.pass.get(name.as_str()) {
            for u in &p.uses {
                let r = index.graph.resource(u.resource).name.as_str();
                uses.entry(r).or_default().push((pos as u32, u.access));
            }
        }
    }
    let memoryless: std::collections::HashSet<&str> = rps
        .iter()
        .flat_map(|rp| rp.attachments.iter())
        .filter(|a| a.planned.memoryless)
        .map(|a| a.planned.resource.as_str())
        .collect();
    let mut placed: HashMap<&str, PlacementRef> = HashMap::new();
    for (b, block) in index.plan.memory.blocks.iter().enumerate() {
        for p in &block.placements {
            placed.insert(
                p.resource.as_str(),
                PlacementRef {
                    block: b as u32,
                    offset: p.offset,
                    size: p.size,
                    first: p.first,
                    last: p.last,
                },
            );
        }
    }
    let mut out: Vec<(usize, ResourceView)> = index
        .graph
        .resources
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let u = uses.remove(r.name.as_str())?;
            let first = u.iter().map(|x| x.0).min().unwrap_or(0);
            let last = u.iter().map(|x| x.0).max().unwrap_or(0);
            let (kind, shape) = shape(r);
            Some((
                i,
                ResourceView {
                    name: r.name,
                    kind,
                    shape,
                    bytes: r.bytes(),
                    imported: r.is_imported(),
                    output: r.output,
                    memoryless: memoryless.contains(r.name.as_str()),
                    history: role(history, r.name.as_str()),
                    persistent: r.persistent_valid(),
                    first,
                    last,
                    uses: u,
                    placement: placed.get(r.name.as_str()).cloned(),
                },
            ))
        })
        .collect();
    out.sort_by_key(|(i, r)| (r.first, *i));
    out.into_iter().map(|(_, r)| r).collect()
}

/// The memory blocks of the plan, with the width of their lifetime axis.
pub fn blocks(plan: &Plan) -> Vec<BlockView> {
    let frame_span = match plan.memory.lifetime_unit {
        LifetimeUnit::Order => plan.order.len(),
        LifetimeUnit::Level => plan.levels.len(),
    } as u32;
    plan.memory
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let last = b.placements.iter().map(|p| p.last + 1).max().unwrap_or(0);
            BlockView {
                index: i as u32,
                class: b.class,
                size: b.size,
                span: frame_span.max(last),
                placements: b.placements.clone(),
            }
        })
        .collect()
}
