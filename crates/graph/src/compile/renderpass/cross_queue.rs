//! The merge rule about passes of the *other* queue that run, in the execution order, between
//! the subpasses of a render pass being built.
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
//! a subpass, so it really runs after the whole render pass), the render pass takes no more
//! subpasses. Every pass between subpasses is then independent of the whole render pass, so
//! every later phase (and the checker) may replay uses in `order` as if it ran there, and
//! no subpass waits for the other queue except on passes before the render pass. The rule is
//! complete transitively: a path from `X` into a later subpass runs through a pass between
//! them, which is either a graphics pass (it closes the render pass) or another other-queue
//! pass sharing a resource with that subpass. Cost: O(uses) per pass, hash maps per render
//! pass.

use super::blocker::Blocker;
use crate::graph::{Graph, PassId, ResourceId};
use crate::hash::FxBuildHasher;
use std::collections::{HashMap, HashSet};

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
    /// Resources used by other-queue passes since the first subpass, with such a pass.
    used_by: HashMap<ResourceId, PassId, FxBuildHasher>,
    /// An other-queue pass that uses a resource of the render pass: no subpass may follow.
    sealed: Option<(PassId, ResourceId)>,
}

impl Crossings {
    /// Forgets everything (no render pass is open).
    pub fn clear(&mut self) {
        self.subpasses.clear();
        self.group = None;
        self.used_by.clear();
        self.sealed = None;
    }

    /// A render pass opens with `pass` as its first subpass.
    pub fn open(&mut self, graph: &Graph, pass: PassId) {
        self.clear();
        self.joined(graph, pass);
    }

    /// `pass` joined the open render pass as its next subpass.
    pub fn joined(&mut self, graph: &Graph, pass: PassId) {
        self.subpasses.push(pass);
        if let Some(group) = &mut self.group {
            group.extend(graph.pass(pass).uses.iter().map(|u| u.resource));
        }
    }

    /// Notes an other-queue pass emitted while the render pass is open.
    pub fn note(&mut self, graph: &Graph, pass: PassId) {
        let subpasses = &self.subpasses;
        let group = self.group.get_or_insert_with(|| {
            subpasses
                .iter()
                .flat_map(|&s| graph.pass(s).uses.iter().map(|u| u.resource))
                .collect()
        });
        for u in &graph.pass(pass).uses {
            self.used_by.entry(u.resource).or_insert(pass);
            if self.sealed.is_none() && group.contains(&u.resource) {
                self.sealed = Some((pass, u.resource));
            }
        }
    }

    /// The reason why `pass` may not join the open render pass, if any.
    pub fn blocker(&self, graph: &Graph, pass: PassId) -> Option<Blocker> {
        if let Some((other, resource)) = self.sealed {
            return Some(Blocker::OtherQueueInside { other, resource });
        }
        if self.used_by.is_empty() {
            return None;
        }
        graph.pass(pass).uses.iter().find_map(|u| {
            self.used_by
                .get(&u.resource)
                .map(|&other| Blocker::WaitsOnOtherQueue {
                    pass,
                    other,
                    resource: u.resource,
                })
        })
    }
}
