//! Subpass dependencies: every hazard between two subpasses of one render pass.
//!
//! Per resource, the uses of the render pass are replayed in subpass order against the last
//! writing subpass and the reading subpasses since: a read depends on the last write
//! (read-after-write); a write, or a use in another layout (the render pass transitions the
//! attachment between subpasses), depends on the last write and on every read since
//! (write-after-write, write-after-read). Source stages/accesses are those of the earlier
//! use (accesses only for writes: a write-after-read needs execution order only),
//! destination stages/accesses those of the later use. `by_region` is set when both uses are
//! attachment uses: they touch the same pixel only (the merge rules make that every case;
//! the test is kept so a future non-attachment hazard would get a full dependency).
//! Dependencies between the same two subpasses are merged. Cost: O(uses × readers).

use crate::access::SyncScope;
use crate::graph::{Graph, PassId, ResourceId};
use crate::plan::SubpassDependency;
use crate::sync::{AccessMask, Layout};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy)]
struct Prior {
    subpass: u32,
    scope: SyncScope,
    attachment: bool,
}

#[derive(Default)]
struct State {
    last_write: Option<Prior>,
    readers: Vec<Prior>,
    layout: Option<Layout>,
}

/// The subpass dependencies of one render pass (`group`, subpasses in order), sorted by
/// (source, destination) subpass.
pub fn subpass_dependencies(graph: &Graph, group: &[PassId]) -> Vec<SubpassDependency> {
    let mut state: HashMap<ResourceId, State> = HashMap::new();
    let mut deps: BTreeMap<(u32, u32), SubpassDependency> = BTreeMap::new();
    for (j, &pass) in group.iter().enumerate() {
        let j = j as u32;
        let p = graph.pass(pass);
        for u in &p.uses {
            let scope = u.access.scope(p.kind, graph.resource(u.resource).target());
            let me = Prior {
                subpass: j,
                scope,
                attachment: u.access.is_attachment(),
            };
            let s = state.entry(u.resource).or_default();
            let writes = u.access.writes();
            let relayout = scope.layout.is_some() && s.layout.is_some() && scope.layout != s.layout;
            let mut add = |prior: &Prior, prior_writes: bool| {
                let d = deps
                    .entry((prior.subpass, j))
                    .or_insert_with(|| SubpassDependency {
                        src_subpass: prior.subpass,
                        dst_subpass: j,
                        src_stage: Default::default(),
                        dst_stage: Default::default(),
                        src_access: Default::default(),
                        dst_access: Default::default(),
                        by_region: true,
                    });
                d.src_stage |= prior.scope.stages;
                if prior_writes {
                    d.src_access |= prior.scope.access & AccessMask::WRITES;
                }
                d.dst_stage |= scope.stages;
                d.dst_access |= scope.access;
                d.by_region &= prior.attachment && me.attachment;
            };
            if let Some(w) = &s.last_write {
                add(w, true);
            }
            if writes || relayout {
                for r in &s.readers {
                    add(r, false);
                }
            }
            if writes {
                s.last_write = Some(me);
                s.readers.clear();
            } else {
                if relayout {
                    s.readers.clear();
                }
                s.readers.push(me);
            }
            if scope.layout.is_some() {
                s.layout = scope.layout;
            }
        }
    }
    let out: Vec<SubpassDependency> = deps.into_values().collect();
    for d in &out {
        log::trace!(
            "subpass dependency {} -> {} in the render pass of '{}': {}/{} -> {}/{}{}",
            d.src_subpass,
            d.dst_subpass,
            graph.pass(group[0]).name,
            d.src_stage,
            d.src_access,
            d.dst_stage,
            d.dst_access,
            if d.by_region { ", by region" } else { "" }
        );
    }
    out
}
