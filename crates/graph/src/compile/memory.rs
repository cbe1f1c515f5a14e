//! Phase 9, memory: placement of transient resources into memory blocks.
//!
//! Without aliasing every transient resource gets a block of its own.

use super::Schedule;
use crate::caps::Capabilities;
use crate::graph::Graph;
use crate::plan::{Block, LifetimeUnit, Memory, Placement};

/// Places the transient, non-memoryless resources; `memoryless` (per resource, from the
/// render pass phase) marks those kept in tile memory, counted in `memoryless_bytes` only.
pub fn plan_memory(
    graph: &Graph,
    schedule: &Schedule,
    caps: &Capabilities,
    memoryless: &[bool],
) -> Memory {
    let mut first = vec![u32::MAX; graph.resources.len()];
    let mut last = vec![0u32; graph.resources.len()];
    for (pos, &p) in schedule.order.iter().enumerate() {
        for u in &graph.pass(p).uses {
            let i = u.resource.index();
            first[i] = first[i].min(pos as u32);
            last[i] = last[i].max(pos as u32);
        }
    }
    let mut memory = Memory {
        alignment: caps.placement_alignment,
        lifetime_unit: LifetimeUnit::Order,
        ..Default::default()
    };
    for (i, r) in graph.resources.iter().enumerate() {
        if r.imported || first[i] == u32::MAX {
            continue;
        }
        let size = r.bytes();
        if memoryless.get(i).copied().unwrap_or(false) {
            memory.memoryless_bytes += size;
            continue;
        }
        memory.unaliased_bytes += size;
        memory.aliased_bytes += size;
        memory.blocks.push(Block {
            size,
            placements: vec![Placement {
                resource: r.name.clone(),
                offset: 0,
                size,
                first: first[i],
                last: last[i],
            }],
        });
    }
    memory.lower_bound_bytes = memory.aliased_bytes;
    memory
}
