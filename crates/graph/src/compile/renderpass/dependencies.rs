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
//! Dependencies between the same two subpasses are merged. A render pass of one subpass has
//! none, and neither has one whose subpasses share no resource (found by a first scan of
//! the uses, before any access scope is looked up). Cost: O(uses × readers), with
//! per-resource state and reader lists in buffers reused across the render passes of a
//! compile ([`Scratch`]).

use crate::access::SyncScope;
use crate::graph::{Graph, PassId};
use crate::plan::SubpassDependency;
use crate::sync::{AccessMask, Layout};

#[derive(Clone, Copy, Debug)]
struct Prior {
    subpass: u32,
    scope: SyncScope,
    attachment: bool,
}

/// End of a reader list.
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct State {
    last_write: Option<Prior>,
    /// Head of this resource's reader list in [`Scratch::readers`].
    readers: u32,
    layout: Option<Layout>,
}

/// Buffers reused across the render passes of one compile: a slot per resource (valid when
/// stamped with the current render pass) and the reader lists, linked through one arena
/// (reads are only ever unioned, so their order does not matter and clearing a list is
/// dropping its head).
#[derive(Debug)]
pub struct Scratch {
    /// Per resource: (render pass stamp, index in `states`).
    slot: Vec<(u32, u32)>,
    stamp: u32,
    states: Vec<State>,
    readers: Vec<(Prior, u32)>,
}

impl Scratch {
    /// Buffers for the render passes of `graph`.
    pub fn new(graph: &Graph) -> Self {
        Scratch {
            slot: vec![(0, 0); graph.resources.len()],
            stamp: 0,
            states: Vec::new(),
            readers: Vec::new(),
        }
    }
}

/// The subpass dependencies of one render pass (`group`, subpasses in order), sorted by
/// (source, destination) subpass.
pub fn subpass_dependencies(graph: &Graph, group: &[PassId]) -> Vec<SubpassDependency> {
    if group.len() < 2 {
        return Vec::new();
    }
    dependencies_with(graph, group, &mut Scratch::new(graph))
}

/// [`subpass_dependencies`] with buffers reused across render passes.
pub fn dependencies_with(
    graph: &Graph,
    group: &[PassId],
    scratch: &mut Scratch,
) -> Vec<SubpassDependency> {
    if group.len() < 2 {
        // One subpass: no hazard between subpasses.
        return Vec::new();
    }
    // A dependency needs a resource used twice: the first use of each resource finds no
    // earlier one. Most render passes share none, and a scan over stamps tells.
    scratch.stamp += 1;
    let shared = group.iter().any(|&pass| {
        graph.pass(pass).uses.iter().any(|u| {
            let slot = &mut scratch.slot[u.resource.index()];
            let seen = slot.0 == scratch.stamp;
            slot.0 = scratch.stamp;
            seen
        })
    });
    if !shared {
        return Vec::new();
    }
    scratch.stamp += 1;
    scratch.states.clear();
    scratch.readers.clear();
    let stamp = scratch.stamp;
    let mut deps: Vec<SubpassDependency> = Vec::new();
    for (j, &pass) in group.iter().enumerate() {
        let j = j as u32;
        // Dependencies into subpass `j` are all created while it is replayed.
        let first_into_j = deps.len();
        let p = graph.pass(pass);
        for u in &p.uses {
            let scope = u.access.scope(p.kind, graph.resource(u.resource).target());
            let me = Prior {
                subpass: j,
                scope,
                attachment: u.access.is_attachment(),
            };
            let slot = &mut scratch.slot[u.resource.index()];
            if slot.0 != stamp {
                *slot = (stamp, scratch.states.len() as u32);
                scratch.states.push(State {
                    last_write: None,
                    readers: NONE,
                    layout: None,
                });
            }
            let s = &mut scratch.states[slot.1 as usize];
            let writes = u.access.writes();
            let relayout = scope.layout.is_some() && s.layout.is_some() && scope.layout != s.layout;
            let mut add = |prior: &Prior, prior_writes: bool| {
                let i = match deps[first_into_j..]
                    .iter()
                    .position(|d| d.src_subpass == prior.subpass)
                {
                    Some(i) => first_into_j + i,
                    None => {
                        deps.push(SubpassDependency {
                            src_subpass: prior.subpass,
                            dst_subpass: j,
                            src_stage: Default::default(),
                            dst_stage: Default::default(),
                            src_access: Default::default(),
                            dst_access: Default::default(),
                            by_region: true,
                        });
                        deps.len() - 1
                    }
                };
                let d = &mut deps[i];
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
                let mut r = s.readers;
                while r != NONE {
                    let (prior, next) = &scratch.readers[r as usize];
                    add(prior, false);
                    r = *next;
                }
            }
            if writes {
                s.last_write = Some(me);
                s.readers = NONE;
            } else {
                if relayout {
                    s.readers = NONE;
                }
                scratch.readers.push((me, s.readers));
                s.readers = scratch.readers.len() as u32 - 1;
            }
            if scope.layout.is_some() {
                s.layout = scope.layout;
            }
        }
    }
    deps.sort_unstable_by_key(|d| (d.src_subpass, d.dst_subpass));
    for d in &deps {
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
    deps
}
