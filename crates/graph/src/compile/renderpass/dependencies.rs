//! Subpass dependencies: every hazard between two subpasses of one render pass.
//!
//! Per resource, the accesses of the render pass are replayed in subpass order against the
//! last writing subpass and the reading subpasses since. The accesses are the uses and, after
//! the uses of each subpass, the store operation of every attachment last used there (a
//! write, [`super::ops`]), and before them the load operation of every attachment first
//! used there (the first access of its attachment in the render pass: it depends on
//! nothing, but a later write, the store included, depends on it). A read depends on the last write
//! (read-after-write); a write, or a use in another layout (the render pass transitions the
//! attachment between subpasses), depends on the last write and on every read since
//! (write-after-write, write-after-read). So a store depends on the subpasses that wrote or
//! read its attachment before the last one (an input-attachment read in a middle subpass, a
//! depth test, a `LOAD` in the first), with the store's stage and access as destination.
//! Accesses of one subpass are ordered among themselves (a store comes after the uses of its subpass), so no
//! dependency links a subpass to itself. Source stages/accesses are those of the earlier
//! access (accesses only for writes: a write-after-read needs execution order only),
//! destination stages/accesses those of the later one. `by_region` is set when both are
//! attachment accesses: they touch the same pixel only (the merge rules make that every
//! case; the test is kept so a future non-attachment hazard would get a full dependency).
//! Dependencies between the same two subpasses are merged. A render pass of one subpass has
//! none, and neither has one whose subpasses share no resource (found by a first scan of the
//! uses, before any access scope is looked up). Cost: O((uses + attachments) × readers), plus
//! a sort of the attachments by last subpass, with per-resource state and reader lists in
//! buffers reused across the render passes of a compile ([`Scratch`]).

use super::load_store::AttachmentDraft;
use super::ops::OpAccess;
use crate::access::SyncScope;
use crate::graph::{Graph, PassId, ResourceId};
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
    /// Index in `states` of the replay state of `resource` in the current render pass
    /// (fresh at its first access).
    fn state_index(&mut self, resource: ResourceId) -> usize {
        let slot = &mut self.slot[resource.index()];
        if slot.0 != self.stamp {
            *slot = (self.stamp, self.states.len() as u32);
            self.states.push(State {
                last_write: None,
                readers: NONE,
                layout: None,
            });
        }
        slot.1 as usize
    }

    /// Replays access `a` (in subpass `a.me.subpass`) of `resource` against its state: a
    /// dependency, into `deps` (those into this subpass start at `first_into_j`), from the
    /// last write, and from every read since when `a` writes or changes the layout; priors
    /// in the same subpass are ordered already.
    fn replay(
        &mut self,
        resource: ResourceId,
        a: &Replayed,
        deps: &mut Vec<SubpassDependency>,
        first_into_j: usize,
    ) {
        let j = a.me.subpass;
        let scope = a.me.scope;
        let mut add = |prior: &Prior, prior_writes: bool| {
            if prior.subpass == j {
                return;
            }
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
            d.by_region &= prior.attachment && a.me.attachment;
        };
        let index = self.state_index(resource);
        let s = &mut self.states[index];
        if let Some(w) = &s.last_write {
            add(w, true);
        }
        if a.writes || a.relayout {
            let mut r = s.readers;
            while r != NONE {
                let (prior, next) = &self.readers[r as usize];
                add(prior, false);
                r = *next;
            }
        }
        if a.writes {
            s.last_write = Some(a.me);
            s.readers = NONE;
        } else {
            if a.relayout {
                s.readers = NONE;
            }
            self.readers.push((a.me, s.readers));
            s.readers = self.readers.len() as u32 - 1;
        }
        if scope.layout.is_some() {
            s.layout = scope.layout;
        }
    }

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

/// The subpass dependencies of one render pass (`group`, subpasses in order, with its
/// attachments `attachments`), sorted by (source, destination) subpass.
pub fn subpass_dependencies(
    graph: &Graph,
    group: &[PassId],
    attachments: &[AttachmentDraft],
) -> Vec<SubpassDependency> {
    if group.len() < 2 {
        return Vec::new();
    }
    dependencies_with(graph, group, attachments, &mut Scratch::new(graph))
}

/// One access being replayed: a use, a load or a store operation.
struct Replayed {
    me: Prior,
    writes: bool,
    /// Uses in another layout than the resource's current one.
    relayout: bool,
}

impl Replayed {
    /// A load or store operation of an attachment in subpass `subpass` (an attachment
    /// access in the attachment's own layout, which it never changes).
    fn op(subpass: u32, op: OpAccess) -> Self {
        Replayed {
            me: Prior {
                subpass,
                scope: op.scope,
                attachment: true,
            },
            writes: op.writes,
            relayout: false,
        }
    }
}

/// [`subpass_dependencies`] with buffers reused across render passes.
pub fn dependencies_with(
    graph: &Graph,
    group: &[PassId],
    attachments: &[AttachmentDraft],
    scratch: &mut Scratch,
) -> Vec<SubpassDependency> {
    if group.len() < 2 {
        // One subpass: no hazard between subpasses.
        return Vec::new();
    }
    // A dependency needs a resource used in two subpasses: the first use of each resource
    // finds no earlier one, and a store in the subpass of the only use is ordered after it
    // implicitly. Most render passes share none, and a scan over stamps tells.
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
    // The stores, by subpass (that of the attachment's last use).
    let mut stores: Vec<(u32, usize)> = attachments
        .iter()
        .enumerate()
        .map(|(i, a)| (a.last_subpass, i))
        .collect();
    stores.sort_unstable();
    let mut next_store = 0;
    // The loads, by subpass (that of the attachment's first use): the attachments are in
    // order of first use.
    debug_assert!(attachments
        .windows(2)
        .all(|w| w[0].first_subpass <= w[1].first_subpass));
    let mut next_load = 0;
    let mut deps: Vec<SubpassDependency> = Vec::new();
    for (j, &pass) in group.iter().enumerate() {
        let j = j as u32;
        // Dependencies into subpass `j` are all created while it is replayed.
        let first_into_j = deps.len();
        // The loads of the attachments first used in this subpass: accesses before its uses
        // (the first of their attachment in the render pass, so they depend on nothing;
        // later writes, the stores included, depend on them).
        while let Some(d) = attachments[next_load..]
            .first()
            .filter(|d| d.first_subpass == j)
        {
            next_load += 1;
            let op = d.load_access(graph.resource(d.resource).target().class());
            scratch.replay(d.resource, &Replayed::op(j, op), &mut deps, first_into_j);
        }
        let p = graph.pass(pass);
        for u in &p.uses {
            let scope = p.use_scope(
                u,
                u.access.scope(p.kind, graph.resource(u.resource).target()),
            );
            let me = Prior {
                subpass: j,
                scope,
                attachment: u.access.is_attachment(),
            };
            let index = scratch.state_index(u.resource);
            let s = &scratch.states[index];
            let relayout = scope.layout.is_some() && s.layout.is_some() && scope.layout != s.layout;
            let a = Replayed {
                me,
                writes: u.access.writes(),
                relayout,
            };
            scratch.replay(u.resource, &a, &mut deps, first_into_j);
        }
        // The stores of the attachments last used in this subpass: writes after its uses.
        while let Some(&(_, i)) = stores[next_store..].first().filter(|s| s.0 == j) {
            next_store += 1;
            let d = &attachments[i];
            let op = d.store_access(graph.resource(d.resource).target().class());
            scratch.replay(d.resource, &Replayed::op(j, op), &mut deps, first_into_j);
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
