//! Tile bandwidth model: bytes moved between tile memory and DRAM per frame.
//!
//! A tile-based GPU touches DRAM for an attachment only when a render pass loads it (`LOAD`)
//! and when it stores it (`STORE`; for a resolve target, the resolve writes the stored
//! bytes). Each moves one mip-0 layer of every sample: width × height × samples × bytes per
//! texel. Clears, `DONT_CARE` and memoryless attachments move nothing.
//!
//! The planned figures count the plan's load and store operations, which follow the
//! liveness of the content ([`super::load_store`]); a multisampled attachment counts at its
//! sample count, and a resolve on write-back moves only its target's store (the samples
//! are averaged, or picked by the depth resolve mode, in tile memory). The naive reference
//! is the same kept passes with no merging (each raster pass its own render pass), every
//! attachment with earlier content loaded unless the use clears it, and every attachment
//! stored; and every resolve a separate one, as without write-back resolve: the
//! multisampled attachment is stored (every sample), loaded back (every sample) by the
//! resolve and the resolved image stored. It follows no liveness (not even whether the use
//! replaces the content), so that it stays the cost of a graph compiled with no analysis at
//! all and the saving shows what every rule of the plan earns together. Cost:
//! O(attachments); the naive figures need a test per attachment use, made by the load/store
//! sweep over the uses ([`Facts`]).

use super::load_store::{Attachments, Facts};
use crate::graph::Graph;
use crate::plan::{Bandwidth, LoadOp, StoreOp};

/// Bytes one load or store of the resource moves (0 for buffers).
#[inline]
pub(super) fn bytes(graph: &Graph, resource: crate::graph::ResourceId) -> u64 {
    graph
        .resource(resource)
        .image_desc()
        .map_or(0, |d| d.attachment_bytes())
}

/// Planned and naive bandwidth of the frame (the naive figures are summed by the sweep of
/// [`Facts`]).
pub fn bandwidth(graph: &Graph, facts: &Facts, attachments: &Attachments) -> Bandwidth {
    let mut bw = Bandwidth::default();
    for a in &attachments.drafts {
        let b = bytes(graph, a.resource);
        if a.load == LoadOp::Load {
            bw.load_bytes = bw.load_bytes.saturating_add(b);
        }
        if a.store == StoreOp::Store {
            bw.store_bytes = bw.store_bytes.saturating_add(b);
        }
    }
    (bw.naive_load_bytes, bw.naive_store_bytes) = facts.naive;
    log::debug!(
        "tile bandwidth: planned {} loaded + {} stored, naive {} + {} bytes per frame",
        bw.load_bytes,
        bw.store_bytes,
        bw.naive_load_bytes,
        bw.naive_store_bytes
    );
    bw
}
