//! The merge rule about passes of the *other* queue that run, in the execution order, between
//! the subpasses of a render pass being built, and the hoisting that keeps a render pass
//! merged when such a pass is independent of it.
//!
//! A render pass is recorded whole into one command buffer of the graphics queue, and a
//! semaphore wait or signal can only sit at a submission-batch boundary, so never inside it:
//! the sync phase anchors every wait of a subpass at the first subpass and every signal at
//! the last. An async-compute pass `X` between two subpasses in `order` is harmless when it
//! is independent of the render pass: the two queues overlap and no semaphore joins them.
//! It is harmful when a later subpass would wait for `X`: that wait moves to the first
//! subpass, before `X` in submission order, and when `X` itself depends on an earlier
//! subpass (raster → async → raster) the queues deadlock.
//!
//! The rule: no resource is used both by an other-queue pass emitted since the render pass's
//! first subpass and by a subpass (any use: a write gives a dependency edge, and even two
//! reads may need a layout transition or an ownership transfer ordered after the other
//! queue). A raster pass sharing a resource with such a pass may not join ([`Crossings::
//! blocker`]); once such a pass shares a resource with the render pass so far (it depends on
//! a subpass, or reads what a subpass reads), the render pass takes no more subpasses. Every
//! pass between subpasses is then independent of the whole render pass, so every later
//! phase (and the checker) may replay uses in `order` as if it ran there, and no subpass
//! waits for the other queue except on passes before the render pass. The rule is complete
//! transitively: a path from `X` into a later subpass runs through a pass between them, which
//! is either a graphics pass (it closes the render pass) or another other-queue pass sharing
//! a resource with that subpass.
//!
//! Hoisting (the order phase, `compile::order`, with `reorder` and `merge` on): when the
//! only thing keeping a raster pass out of the open render pass is this rule, and none of
//! the other-queue passes in the way depends, transitively through the passes emitted since
//! the first subpass, on a subpass, those passes (each other-queue pass inside the render
//! pass sharing a resource with it or with the candidate, and their ancestors emitted since
//! the first subpass, all on the other queue) move in `order` to just before the first
//! subpass, keeping their relative order, and the candidate joins. The order stays
//! topological (the moved set holds its ancestors inside the render pass, and no subpass
//! depends on it: a subpass sharing a resource with it would not have joined), the wait
//! for them is then one at the render pass's first subpass, which the sync phase already
//! puts there, and the rule above holds again for what is left between the subpasses, so
//! later phases and the checker see an ordinary order. Where an other-queue pass in the way
//! does depend on a subpass (the deadlock case), nothing moves and the break reason names
//! that subpass ([`Blocker::WaitsOnOtherQueue`] and [`Blocker::OtherQueueInside`] with
//! `depends_on`). Which other-queue passes depend on a subpass is followed as passes are
//! noted ([`Crossings::note`]: one look at each incoming edge), so a break reason reads the
//! same whether the merge runs alongside the order phase or over the finished order.
//! Cost: O(uses + incoming edges) per pass, hash maps per render pass; a hoist costs
//! O(uses + edges) of the passes emitted since the first subpass.

use super::blocker::Blocker;
use crate::compile::deps::Dependencies;
use crate::graph::{Graph, PassId, ResourceId};
use crate::hash::FxBuildHasher;
use std::collections::{HashMap, HashSet};

/// The other-queue passes that use one resource since the render pass's first subpass.
#[derive(Clone, Copy, Debug)]
struct UsedBy {
    /// The first of them.
    first: PassId,
    /// The first of them that depends on a subpass, with that subpass.
    tied: Option<(PassId, PassId)>,
}

/// What the rule needs about the open render pass and the other-queue passes inside it.
/// The subpasses' resources are gathered only once an other-queue pass shows up inside the
/// render pass (and the merge step skips the rule altogether when every pass runs on one
/// queue).
#[derive(Clone, Debug, Default)]
pub struct Crossings {
    /// Subpasses so far.
    subpasses: Vec<PassId>,
    /// Resources of the subpasses so far, once an other-queue pass was noted.
    group: Option<HashSet<ResourceId, FxBuildHasher>>,
    /// Resources used by other-queue passes since the first subpass, with such passes.
    used_by: HashMap<ResourceId, UsedBy, FxBuildHasher>,
    /// An other-queue pass that uses a resource of the render pass: no subpass may follow.
    sealed: Option<(PassId, ResourceId)>,
    /// The first such pass that also depends on a subpass, with that subpass.
    sealed_tied: Option<(PassId, ResourceId, PassId)>,
    /// Passes since the first subpass that depend on a subpass (transitively, through
    /// subpasses and other-queue passes noted since), each with one such subpass; every
    /// subpass maps to itself.
    tied: HashMap<PassId, PassId, FxBuildHasher>,
}

impl Crossings {
    /// Forgets everything (no render pass is open).
    pub fn clear(&mut self) {
        self.subpasses.clear();
        self.group = None;
        self.used_by.clear();
        self.sealed = None;
        self.sealed_tied = None;
        self.tied.clear();
    }

    /// A render pass opens with `pass` as its first subpass.
    pub fn open(&mut self, graph: &Graph, pass: PassId) {
        self.clear();
        self.joined(graph, pass);
    }

    /// `pass` joined the open render pass as its next subpass.
    pub fn joined(&mut self, graph: &Graph, pass: PassId) {
        self.subpasses.push(pass);
        self.tied.insert(pass, pass);
        if let Some(group) = &mut self.group {
            group.extend(graph.pass(pass).uses.iter().map(|u| u.resource));
        }
    }

    /// Notes an other-queue pass emitted while the render pass is open (`deps`: the edges
    /// among the kept passes, to follow whether it depends on a subpass).
    pub fn note(&mut self, graph: &Graph, deps: &Dependencies, pass: PassId) {
        let tied = deps
            .into(pass)
            .find_map(|e| self.tied.get(&e.from).copied());
        if let Some(subpass) = tied {
            self.tied.insert(pass, subpass);
        }
        let subpasses = &self.subpasses;
        let group = self.group.get_or_insert_with(|| {
            subpasses
                .iter()
                .flat_map(|&s| graph.pass(s).uses.iter().map(|u| u.resource))
                .collect()
        });
        for u in &graph.pass(pass).uses {
            let entry = self.used_by.entry(u.resource).or_insert(UsedBy {
                first: pass,
                tied: None,
            });
            if entry.tied.is_none() {
                entry.tied = tied.map(|s| (pass, s));
            }
            if group.contains(&u.resource) {
                if self.sealed.is_none() {
                    self.sealed = Some((pass, u.resource));
                }
                if let (None, Some(s)) = (self.sealed_tied, tied) {
                    self.sealed_tied = Some((pass, u.resource, s));
                }
            }
        }
    }

    /// The reason why `pass` may not join the open render pass, if any. A reason naming an
    /// other-queue pass that depends on a subpass comes first (`depends_on` set): it is the
    /// one that no hoisting removes. A reason without `depends_on` means that every
    /// other-queue pass in the way is independent of the render pass's subpasses
    /// ([`Crossings::hoistable`]).
    pub fn blocker(&self, graph: &Graph, pass: PassId) -> Option<Blocker> {
        if let Some((other, resource, subpass)) = self.sealed_tied {
            return Some(Blocker::OtherQueueInside {
                other,
                resource,
                depends_on: Some(subpass),
            });
        }
        if self.used_by.is_empty() {
            return None;
        }
        let uses = &graph.pass(pass).uses;
        let tied = uses.iter().find_map(|u| {
            let (other, subpass) = self.used_by.get(&u.resource)?.tied?;
            Some(Blocker::WaitsOnOtherQueue {
                pass,
                other,
                resource: u.resource,
                depends_on: Some(subpass),
            })
        });
        if tied.is_some() {
            return tied;
        }
        if let Some((other, resource)) = self.sealed {
            return Some(Blocker::OtherQueueInside {
                other,
                resource,
                depends_on: None,
            });
        }
        uses.iter().find_map(|u| {
            self.used_by
                .get(&u.resource)
                .map(|used| Blocker::WaitsOnOtherQueue {
                    pass,
                    other: used.first,
                    resource: u.resource,
                    depends_on: None,
                })
        })
    }

    /// True when the rule keeps `pass` out of the open render pass only through other-queue
    /// passes that depend on no subpass: moved before the render pass, they would let it in.
    pub fn hoistable(&self, graph: &Graph, pass: PassId) -> bool {
        self.blocker(graph, pass).is_some_and(|b| movable(&b))
    }

    /// True when the rule lets `pass` join the open render pass, at once or after a hoist.
    pub fn passable(&self, graph: &Graph, pass: PassId) -> bool {
        self.blocker(graph, pass).is_none_or(|b| movable(&b))
    }
}

/// True for a reason of this rule that names no subpass the other-queue pass depends on.
fn movable(b: &Blocker) -> bool {
    matches!(
        b,
        Blocker::WaitsOnOtherQueue {
            depends_on: None,
            ..
        } | Blocker::OtherQueueInside {
            depends_on: None,
            ..
        }
    )
}
