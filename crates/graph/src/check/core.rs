//! Checker invariants: order, culling, levels, queues, edges, hazards and layouts.
//!
//! Everything here is recomputed from the graph with deliberately simple, mostly quadratic
//! code and shares no logic with the compiler: dependencies are every pair of kept passes
//! that use one resource with at least one write (declaration-order semantics), culling is
//! "observable or feeds a kept consumer", levels are longest paths over those pairs, and
//! hazards are every conflicting pair of uses (plus layout transitions) in execution order,
//! each of which must be covered by a barrier chain, a subpass dependency chain or a
//! semaphore path. The plan is untrusted input: unknown names, duplicates and malformed
//! entries become violations, never panics. Cost: O(passes² · uses) for the structure and
//! O(events² · barriers²/64) per resource for hazards, fine for graphs of hundreds of passes;
//! repeated barriers are dropped up front (`barrier.duplicate`), and `check/limits.rs` bounds
//! what a plan may hold before any of this runs.

mod aliasing;
mod chains;
mod external;
mod hazards;
mod layouts;
mod masks;
mod rest;
mod structure;

use super::ops::Ops;
use super::table::{self, Class, Scope};
use super::Violation;
use crate::caps::{Capabilities, CompileOptions};
use crate::graph::{Graph, PassKind, QueueKind, Use};
use crate::plan::{BarrierPosition, Plan, TransferHalf};
use crate::sync::Layout;
use std::collections::{HashMap, HashSet};

/// Pushes every violated core invariant onto `out`.
pub(super) fn check(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    plan: &Plan,
    out: &mut Vec<Violation>,
) {
    let ctx = Ctx::new(graph, caps, options, plan, out);
    structure::check(&ctx, out);
    hazards::check(&ctx, out);
    layouts::check(&ctx, out);
    external::check(&ctx, out);
    rest::check(&ctx, out);
}

/// A barrier of the plan resolved to indices.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BarrierRef {
    /// Index in `plan.barriers`.
    pub index: usize,
    /// Pass it is recorded before.
    pub before: usize,
    /// Resource index.
    pub resource: usize,
    /// Queue of `before`.
    pub queue: QueueKind,
    /// Time on its queue's timeline within one frame (see [`Ctx::pass_time`]): before a pass
    /// at slot `s` is `4s`, after it (after the last subpass of its render pass) `4s + 2`.
    pub time: usize,
    /// Recorded after the pass rather than before it.
    pub after: bool,
    /// The acquire half of an ownership transfer whose release half, with the same layouts,
    /// performs the layout transition (the pair transitions once).
    pub acquire_twin: bool,
    /// A real layout change (old != new).
    pub transition: Option<(Layout, Layout)>,
    /// A queue-family ownership transfer half.
    pub queue_transfer: bool,
}

/// The plan resolved against the graph: names to indices, positions, queues, render passes.
pub(crate) struct Ctx<'a> {
    pub graph: &'a Graph,
    pub caps: &'a Capabilities,
    pub options: &'a CompileOptions,
    pub plan: &'a Plan,
    pub pass_index: HashMap<&'a str, usize>,
    pub resource_index: HashMap<&'a str, usize>,
    /// Known kept passes in execution order (first occurrence of each).
    pub order: Vec<usize>,
    /// Position in `order` of each pass, `None` when not kept.
    pub pos: Vec<Option<usize>>,
    /// Queue each kept pass runs on (from `plan.queues`, else the queue it should run on).
    pub queue: Vec<QueueKind>,
    /// Kept passes of each queue in execution order: index 0 graphics, 1 async compute.
    pub timeline: [Vec<usize>; 2],
    /// Position of each kept pass in its queue's timeline.
    pub slot: Vec<usize>,
    /// (render pass index, subpass index) of each pass that is a subpass.
    pub subpass: Vec<Option<(usize, usize)>>,
    /// Barriers whose pass and resource resolve, one per (pass, resource, transfer half or
    /// not, position): a repeat is a `barrier.duplicate` and takes no further part.
    pub barriers: Vec<BarrierRef>,
    /// Barriers (indices into `barriers`) recorded before each pass.
    pub before: Vec<Vec<usize>>,
    /// Barriers recorded after each pass (after the last subpass of its render pass).
    pub after: Vec<Vec<usize>>,
    /// The render passes' load and store operations, as accesses of their subpasses.
    pub ops: Ops,
}

/// Index of a queue in [`Ctx::timeline`].
pub(crate) fn qi(q: QueueKind) -> usize {
    match q {
        QueueKind::Graphics => 0,
        QueueKind::AsyncCompute => 1,
    }
}

impl<'a> Ctx<'a> {
    fn new(
        graph: &'a Graph,
        caps: &'a Capabilities,
        options: &'a CompileOptions,
        plan: &'a Plan,
        out: &mut Vec<Violation>,
    ) -> Self {
        let n = graph.passes.len();
        let mut pass_index = HashMap::new();
        for (i, p) in graph.passes.iter().enumerate() {
            pass_index.entry(p.name.as_str()).or_insert(i);
        }
        let mut resource_index = HashMap::new();
        for (i, r) in graph.resources.iter().enumerate() {
            resource_index.entry(r.name.as_str()).or_insert(i);
        }
        let mut pos = vec![None; n];
        let mut order = Vec::new();
        for name in &plan.order {
            if let Some(&p) = pass_index.get(name.as_str()) {
                if pos[p].is_none() {
                    pos[p] = Some(order.len());
                    order.push(p);
                }
            }
        }
        let mut ctx = Ctx {
            graph,
            caps,
            options,
            plan,
            pass_index,
            resource_index,
            order,
            pos,
            queue: vec![QueueKind::Graphics; n],
            timeline: [Vec::new(), Vec::new()],
            slot: vec![0; n],
            subpass: vec![None; n],
            barriers: Vec::new(),
            before: vec![Vec::new(); n],
            after: vec![Vec::new(); n],
            ops: Ops::new(graph, plan),
        };
        for &p in &ctx.order {
            let listed = [QueueKind::Graphics, QueueKind::AsyncCompute]
                .into_iter()
                .find(|&q| {
                    plan.queues
                        .of(q)
                        .iter()
                        .any(|name| name == &graph.passes[p].name)
                });
            ctx.queue[p] = listed.unwrap_or_else(|| ctx.expected_queue(p));
        }
        for &p in &ctx.order {
            let t = &mut ctx.timeline[qi(ctx.queue[p])];
            ctx.slot[p] = t.len();
            t.push(p);
        }
        for (ri, rp) in plan.render_passes.iter().enumerate() {
            for (si, name) in rp.subpasses.iter().enumerate() {
                if let Some(&p) = ctx.pass_index.get(name.as_str()) {
                    if ctx.subpass[p].is_none() {
                        ctx.subpass[p] = Some((ri, si));
                    }
                }
            }
        }
        ctx.resolve_barriers(out);
        ctx
    }

    /// Resolves the plan's barriers. A repeat of an earlier barrier's (pass, resource,
    /// transfer or not, position) is reported once and left out: a compiled plan has none,
    /// and a plan of thousands of copies of one barrier would otherwise make every later
    /// rule quadratic in them (its verdict, rejected, stays).
    fn resolve_barriers(&mut self, out: &mut Vec<Violation>) {
        // (resource, old, new) of every release half: its acquire twin does not transition.
        let releases: HashSet<(&str, Option<Layout>, Option<Layout>)> = self
            .plan
            .barriers
            .iter()
            .filter(|x| {
                x.queue_transfer
                    .as_ref()
                    .is_some_and(|t| t.half == TransferHalf::Release)
            })
            .map(|x| (x.resource.as_str(), x.old_layout, x.new_layout))
            .collect();
        let mut seen: HashMap<(usize, usize, bool, bool), u32> = HashMap::new();
        for (index, b) in self.plan.barriers.iter().enumerate() {
            let before = self
                .pass_index
                .get(b.before.as_str())
                .copied()
                .filter(|&p| self.pos[p].is_some());
            let Some(before) = before else {
                out.push(Violation { rule: "barrier.unknown", detail: format!("barrier #{index} on '{}' is recorded before '{}', which is not a kept pass", b.resource, b.before) });
                continue;
            };
            let Some(&resource) = self.resource_index.get(b.resource.as_str()) else {
                out.push(Violation {
                    rule: "barrier.unknown",
                    detail: format!(
                        "barrier #{index} before '{}' names unknown resource '{}'",
                        b.before, b.resource
                    ),
                });
                continue;
            };
            let after = b.position == BarrierPosition::After;
            let copies = seen
                .entry((before, resource, b.queue_transfer.is_some(), after))
                .or_insert(0);
            *copies += 1;
            if *copies > 1 {
                if *copies == 2 {
                    out.push(Violation {
                        rule: "barrier.duplicate",
                        detail: format!(
                            "more than one barrier on '{}' before '{}'",
                            b.resource, b.before
                        ),
                    });
                }
                continue;
            }
            let is_image = self.graph.resources[resource].image_desc().is_some();
            let transition = match (b.old_layout, b.new_layout) {
                (None, None) => None,
                (Some(old), Some(new)) if is_image => (old != new).then_some((old, new)),
                _ => {
                    out.push(Violation {
                        rule: "layout.malformed",
                        detail: format!("barrier #{index} on '{}' before '{}' has old/new layouts {:?}/{:?} (both or neither, and only for images)", b.resource, b.before, b.old_layout, b.new_layout),
                    });
                    None
                }
            };
            let queue = self.queue[before];
            let time = if after {
                4 * self.slot[self.end_of(before)] + 2
            } else {
                4 * self.slot[before]
            };
            let acquire_twin = b
                .queue_transfer
                .as_ref()
                .is_some_and(|t| t.half == TransferHalf::Acquire)
                && releases.contains(&(b.resource.as_str(), b.old_layout, b.new_layout));
            let i = self.barriers.len();
            if after {
                let end = self.end_of(before);
                self.after[end].push(i);
            } else {
                self.before[before].push(i);
            }
            self.barriers.push(BarrierRef {
                index,
                before,
                resource,
                queue,
                time,
                after,
                acquire_twin,
                transition,
                queue_transfer: b.queue_transfer.is_some(),
            });
        }
    }

    /// The last subpass of `p`'s render pass on its queue (`p` itself outside render passes):
    /// where a barrier recorded "after" `p` goes.
    pub fn end_of(&self, p: usize) -> usize {
        let Some((rp, _)) = self.subpass[p] else {
            return p;
        };
        let names = self
            .plan
            .render_passes
            .get(rp)
            .map_or(&[][..], |r| &r.subpasses[..]);
        names
            .iter()
            .filter_map(|n| self.pass_index.get(n.as_str()).copied())
            .filter(|&x| self.pos[x].is_some() && self.queue[x] == self.queue[p])
            .max_by_key(|&x| self.slot[x])
            .unwrap_or(p)
    }

    /// Time of pass `p`'s execution within one frame of its queue: `4 · slot + 1`, between
    /// the barriers recorded before it (`4 · slot`) and after it (`4 · slot + 2`).
    pub fn pass_time(&self, p: usize) -> usize {
        4 * self.slot[p] + 1
    }

    /// Length of one frame of queue `q` in time units.
    pub fn frame_len(&self, q: usize) -> usize {
        4 * self.timeline[q].len()
    }

    /// The queue a kept pass must run on.
    pub fn expected_queue(&self, p: usize) -> QueueKind {
        let pass = &self.graph.passes[p];
        let async_ok =
            self.caps.async_compute && self.options.async_compute && pass.kind != PassKind::Raster;
        if pass.queue == QueueKind::AsyncCompute && async_ok {
            QueueKind::AsyncCompute
        } else {
            QueueKind::Graphics
        }
    }

    /// The use of resource `r` by pass `p`, if any.
    pub fn use_of(&self, p: usize, r: usize) -> Option<&'a Use> {
        self.graph.passes[p]
            .uses
            .iter()
            .find(|u| u.resource.index() == r)
    }

    /// Stages, accesses and layout of a use by pass `p`, from the checker's own table (a
    /// combination the table does not allow gets every stage and access).
    pub fn scope(&self, p: usize, u: &Use) -> Scope {
        let class = Class::of(self.graph, u.resource);
        let mut s =
            table::scope(u.access, self.graph.passes[p].kind, class).unwrap_or_else(table::unknown);
        // The source of a depth/stencil resolve is read by the resolve too.
        if let Some((stages, access)) =
            table::resolve_read(self.graph, crate::graph::PassId(p as u32), u)
        {
            s.stages |= stages;
            s.access |= access;
        }
        s
    }

    /// The kept pass named `name`, if there is one.
    pub fn kept_pass(&self, name: &str) -> Option<usize> {
        self.pass_index
            .get(name)
            .copied()
            .filter(|&p| self.pos[p].is_some())
    }

    /// Name of pass `p`.
    pub fn pname(&self, p: usize) -> &'a str {
        &self.graph.passes[p].name
    }

    /// Name of resource `r`.
    pub fn rname(&self, r: usize) -> &'a str {
        &self.graph.resources[r].name
    }
}
