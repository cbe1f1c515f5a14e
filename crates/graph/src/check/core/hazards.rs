//! Hazards: every conflicting pair of accesses to a resource must be ordered, with the
//! memory made available and visible.
//!
//! Per resource, the events in execution order are the kept passes' uses, the load and store
//! operations of the render passes (at the start of an attachment's first subpass and the end
//! of its last, `check/ops.rs`; ordered with their subpass's use by the render pass itself)
//! and the layout transitions of barriers (a transition reads and writes the whole image).
//! Every other pair with a write (read-after-write, write-after-read, write-after-write,
//! storage write on an unchanged layout included) is checked:
//! - two subpasses of one render pass: a chain of subpass dependencies from the earlier
//!   subpass to the later one (stages chaining), the first making the writes available, the
//!   last making them visible;
//! - one queue: a chain of pipeline barriers placed after the earlier pass and at or before
//!   the later one (`before` the later pass or a pass in between): the first barrier's source
//!   stages cover the earlier use (and, when it writes, the first is on this resource and
//!   makes its writes available), consecutive barriers chain through a shared stage, the
//!   last barrier's destination stages cover the later use (and make it visible, on this
//!   resource, after a write); or a semaphore path (below);
//! - two queues: a path from the earlier pass to the later one through same-queue order and
//!   `syncs` edges (signal after, wait before), with at least one semaphore.
//!
//! The previous frame ran the same plan: its last accesses (last write or transition and the
//! reads after it) hazard with this frame's first accesses (reads up to the first write or
//! transition, and that one) on the same queue, checked on a timeline of two frames; not for
//! a `per_frame` resource (a different object every frame).
//! Barriers must be justified (a transition, or some same-queue hazard they can serve) and
//! unique per (pass, resource).

use super::chains::{dep, Chains, Node};
use super::masks::{access_cover, stages_cover, stages_meet};
use super::{qi, Ctx};
use crate::check::table;
use crate::check::Violation;
use crate::plan::{Barrier, LoadOp, StoreOp, SubpassDependency};
use crate::sync::{AccessMask, StageMask};

/// One access to a resource: a pass's use, or a layout transition in a barrier.
#[derive(Clone, Copy, Debug)]
struct Event {
    /// The using pass, or the pass a transition is recorded before.
    pass: usize,
    kind: Kind,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    /// The pass's use, or a load/store operation of its subpass ([`Op`]).
    Use {
        stages: StageMask,
        access: AccessMask,
        writes: bool,
        op: Op,
    },
    /// Index into `Ctx::barriers`.
    Transition(usize),
}

/// What makes a [`Kind::Use`] access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// The pass's own use of the resource.
    Use,
    /// The load operation at the start of the subpass (the attachment's first).
    Load(LoadOp),
    /// The store operation at the end of the subpass (the attachment's last).
    Store(StoreOp),
}

impl Event {
    /// Two accesses of one subpass (its load operation, its use, its store operation) are
    /// ordered by the render pass itself.
    fn same_subpass(&self, other: &Event) -> bool {
        self.pass == other.pass
            && matches!(self.kind, Kind::Use { .. })
            && matches!(other.kind, Kind::Use { .. })
    }

    fn writes(&self) -> bool {
        match self.kind {
            Kind::Use { writes, .. } => writes,
            Kind::Transition(_) => true,
        }
    }
}

struct Checker<'c, 'a> {
    ctx: &'c Ctx<'a>,
    chains: [Chains; 2],
    /// `sync_reach[p]`: passes reachable from p through queue order and at least one sync.
    sync_reach: Vec<Vec<bool>>,
    /// Barriers (indices into `Ctx::barriers`) recorded before each pass.
    before: &'c [Vec<usize>],
    /// Barriers recorded after each pass (at the end of its render pass).
    after: &'c [Vec<usize>],
}

/// Runs every hazard and barrier check.
pub(super) fn check(ctx: &Ctx, out: &mut Vec<Violation>) {
    let c = Checker {
        ctx,
        chains: [Chains::new(ctx, 0), Chains::new(ctx, 1)],
        sync_reach: sync_reach(ctx),
        before: &ctx.before,
        after: &ctx.after,
    };
    let mut justified = vec![false; ctx.barriers.len()];
    for r in 0..ctx.graph.resources.len() {
        c.resource(r, &mut justified, out);
    }
    super::aliasing::check(ctx, &c.chains, &c.sync_reach, out);
    let aliased = aliased(ctx);
    for (i, b) in ctx.barriers.iter().enumerate() {
        // (A persistent resource's first-use barrier serves the previous frame's accesses
        // under whatever plan it ran, which the same-plan model above cannot see.)
        let persistent = ctx
            .graph
            .resources
            .get(b.resource)
            .is_some_and(|r| r.is_kept_across_plans());
        if !justified[i]
            && b.transition.is_none()
            && !b.queue_transfer
            && !aliased[b.resource]
            && !persistent
        {
            out.push(Violation {
                rule: "barrier.unjustified",
                detail: format!("barrier before '{}' on '{}' has no layout transition and serves no hazard on its queue", ctx.pname(b.before), ctx.rname(b.resource)),
            });
        }
    }
}

/// Resources whose placement shares bytes with another resource's: their barriers may hand
/// memory over between the two (checked by the memory invariants, not here).
fn aliased(ctx: &Ctx) -> Vec<bool> {
    let mut out = vec![false; ctx.graph.resources.len()];
    for block in &ctx.plan.memory.blocks {
        for (i, a) in block.placements.iter().enumerate() {
            for b in &block.placements[i + 1..] {
                let overlap = a.offset < b.offset.saturating_add(b.size)
                    && b.offset < a.offset.saturating_add(a.size);
                if overlap && a.resource != b.resource {
                    for name in [&a.resource, &b.resource] {
                        if let Some(&r) = ctx.resource_index.get(name.as_str()) {
                            out[r] = true;
                        }
                    }
                }
            }
        }
    }
    out
}

/// Reachability through same-queue order and sync edges, requiring at least one sync edge.
fn sync_reach(ctx: &Ctx) -> Vec<Vec<bool>> {
    let n = ctx.graph.passes.len();
    let mut sync_out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for s in &ctx.plan.syncs {
        if let (Some(a), Some(b)) = (ctx.kept_pass(&s.signal), ctx.kept_pass(&s.wait)) {
            sync_out[a].push(b);
        }
    }
    let mut all = vec![vec![false; n]; n];
    for &start in &ctx.order {
        // Passes reached, before and after crossing a sync edge.
        let mut seen = [vec![false; n], vec![false; n]];
        let mut stack = vec![(start, 0usize)];
        seen[0][start] = true;
        while let Some((p, used)) = stack.pop() {
            let t = &ctx.timeline[qi(ctx.queue[p])];
            let mut next: Vec<(usize, usize)> = sync_out[p].iter().map(|&w| (w, 1)).collect();
            if let Some(&succ) = t.get(ctx.slot[p] + 1) {
                next.push((succ, used));
            }
            for (x, u) in next {
                if !seen[u][x] {
                    seen[u][x] = true;
                    stack.push((x, u));
                }
            }
        }
        all[start] = std::mem::take(&mut seen[1]);
    }
    all
}

impl Checker<'_, '_> {
    fn barrier(&self, i: usize) -> &Barrier {
        &self.ctx.plan.barriers[self.ctx.barriers[i].index]
    }

    /// Uses and transitions of resource `r` in execution order.
    fn events(&self, r: usize) -> Vec<Event> {
        let ctx = self.ctx;
        let mut events = Vec::new();
        for &p in &ctx.order {
            let is_transition = |&&b: &&usize| {
                let x = &ctx.barriers[b];
                // Both halves of an ownership transfer count: the transition runs after
                // the release (earlier uses wait for it there) and completes before the
                // acquire's second scope (later uses chain after the acquire).
                x.resource == r && x.transition.is_some()
            };
            for &b in self.before[p].iter().filter(is_transition) {
                events.push(Event {
                    pass: p,
                    kind: Kind::Transition(b),
                });
            }
            let ops = ctx.ops.at(p, r);
            if let Some((op, a)) = ops.load {
                events.push(Event {
                    pass: p,
                    kind: Kind::Use {
                        stages: a.stages,
                        access: a.access,
                        writes: a.writes,
                        op: Op::Load(op),
                    },
                });
            }
            if let Some(u) = ctx.use_of(p, r) {
                let s = ctx.scope(p, u);
                events.push(Event {
                    pass: p,
                    kind: Kind::Use {
                        stages: s.stages,
                        access: s.access,
                        writes: table::writes(u.access),
                        op: Op::Use,
                    },
                });
            }
            if let Some((op, a)) = ops.store {
                events.push(Event {
                    pass: p,
                    kind: Kind::Use {
                        stages: a.stages,
                        access: a.access,
                        writes: a.writes,
                        op: Op::Store(op),
                    },
                });
            }
            for &b in self.after[p].iter().filter(is_transition) {
                events.push(Event {
                    pass: ctx.barriers[b].before,
                    kind: Kind::Transition(b),
                });
            }
        }
        events
    }

    fn resource(&self, r: usize, justified: &mut [bool], out: &mut Vec<Violation>) {
        let ctx = self.ctx;
        let events = self.events(r);
        if events.is_empty() {
            return;
        }
        // Same-frame pairs (checked in frame 1) and cross-frame pairs (frame 0 -> frame 1).
        let mut pairs: Vec<(Event, usize, Event)> = Vec::new();
        for (i, a) in events.iter().enumerate() {
            for b in &events[i + 1..] {
                if (a.writes() || b.writes()) && !a.same_subpass(b) {
                    pairs.push((*a, 1, *b));
                }
            }
        }
        // The previous frame's accesses of this physical resource: its own, or for a half of
        // a double-buffered history pair, its twin's (the two swap every frame).
        let twin = ctx.graph.resources[r].history_twin().map(|t| t.index());
        let before = twin.unwrap_or(r);
        let previous_events = match twin {
            Some(t) => self.events(t),
            None => events.clone(),
        };
        let last_write = previous_events.iter().rposition(Event::writes);
        let first_write = events.iter().position(Event::writes);
        let last = &previous_events[last_write.unwrap_or(0)..];
        let first = &events[..first_write.map_or(events.len(), |w| w + 1)];
        let conflicting_same_queue = |a: &Event, b: &Event| {
            (a.writes() || b.writes()) && ctx.queue[a.pass] == ctx.queue[b.pass]
        };
        // A per_frame resource is a different object every frame: nothing crosses the frame
        // boundary (its first use is ordered by the external semaphore, `external.*`).
        let across_frames = !ctx.graph.resources[r].is_per_frame();
        // Any same-queue hazard across the frame boundary can justify a barrier; the last
        // accesses -> first accesses ones must be covered (the rest follow by chaining).
        for a in previous_events.iter().filter(|_| across_frames) {
            for b in &events {
                if conflicting_same_queue(a, b) {
                    self.justify(r, *a, 0, *b, justified);
                }
            }
        }
        // The previous frame's accesses of one subpass come before all of this frame's:
        // cross-frame pairs are never ordered implicitly.
        for a in last.iter().filter(|_| across_frames) {
            for b in first {
                if conflicting_same_queue(a, b) {
                    pairs.push((*a, 0, *b));
                }
            }
        }
        for &(a, fa, b) in &pairs {
            let same_rp = fa == 1
                && matches!((a.kind, b.kind), (Kind::Use { .. }, Kind::Use { .. }))
                && matches!((ctx.subpass[a.pass], ctx.subpass[b.pass]), (Some((x, _)), Some((y, _))) if x == y);
            let same_queue = ctx.queue[a.pass] == ctx.queue[b.pass];
            if same_queue && !same_rp && fa == 1 {
                self.justify(r, a, fa, b, justified);
            }
            let (rule, covered, how) = if same_rp {
                (
                    "hazard.subpass",
                    self.subpass_chain(a, b),
                    "no subpass dependency chain",
                )
            } else if fa == 0 {
                (
                    "hazard.cross_frame",
                    self.barrier_chain((before, r), a, 0, b),
                    "no barrier chain from the previous frame's access",
                )
            } else if same_queue {
                (
                    "hazard.uncovered",
                    self.barrier_chain((r, r), a, 1, b) || self.sync_reach[a.pass][b.pass],
                    "no barrier chain or semaphore path",
                )
            } else {
                (
                    "hazard.unsynced",
                    self.sync_reach[a.pass][b.pass],
                    "no semaphore path",
                )
            };
            if !covered {
                out.push(Violation {
                    rule,
                    detail: format!(
                        "'{}': {}{} -> {}: {how}",
                        ctx.rname(r),
                        if fa == 0 && before != r {
                            format!("(previous frame, as '{}') ", ctx.rname(before))
                        } else {
                            String::new()
                        },
                        self.describe(if fa == 0 { before } else { r }, a),
                        self.describe(r, b)
                    ),
                });
            }
        }
    }

    fn describe(&self, r: usize, e: Event) -> String {
        match e.kind {
            Kind::Use {
                op: Op::Load(op), ..
            } => format!("load {op:?} at the start of '{}'", self.ctx.pname(e.pass)),
            Kind::Use {
                op: Op::Store(op), ..
            } => format!("store {op:?} at the end of '{}'", self.ctx.pname(e.pass)),
            Kind::Use { .. } => match self.ctx.use_of(e.pass, r) {
                Some(u) => format!("'{}' ({})", self.ctx.pname(e.pass), u.access),
                None => format!("'{}'", self.ctx.pname(e.pass)),
            },
            Kind::Transition(b) => match self.ctx.barriers[b].transition {
                Some((o, n)) => format!("transition {o}->{n} before '{}'", self.ctx.pname(e.pass)),
                None => format!("transition before '{}'", self.ctx.pname(e.pass)),
            },
        }
    }

    fn time(&self, e: Event, frame: usize) -> usize {
        let t = match e.kind {
            Kind::Use { .. } => self.ctx.pass_time(e.pass),
            Kind::Transition(b) => self.ctx.barriers[b].time,
        };
        frame * self.ctx.frame_len(qi(self.ctx.queue[e.pass])) + t
    }

    /// A chain of barriers and subpass dependencies on the queue of `a` and `b` orders `a`
    /// (in frame `fa`, an access of resource `ra`) before `b` (in frame 1, of `r`): the first
    /// link waits on `a` (and makes its writes available, on `ra` for a barrier), the last
    /// one covers `b` (and makes the writes visible to it, on `r`). `ra` and `r` differ only
    /// across the frame boundary of a double-buffered history pair (one physical resource,
    /// named by one half in the previous frame and by the other in this one).
    fn barrier_chain(&self, (ra, r): (usize, usize), a: Event, fa: usize, b: Event) -> bool {
        let ctx = self.ctx;
        let chains = &self.chains[qi(ctx.queue[a.pass])];
        let (ta, tb) = (self.time(a, fa), self.time(b, 1));
        let a_subpass = ctx.subpass[a.pass];
        let b_subpass = ctx.subpass[b.pass];
        let starts: Vec<usize> = match a.kind {
            Kind::Transition(t) => {
                if let Kind::Transition(_) = b.kind {
                    return true; // transitions on one queue execute in submission order
                }
                chains.barrier_node(t, fa).into_iter().collect()
            }
            Kind::Use {
                stages,
                access,
                writes,
                ..
            } => (0..chains.nodes.len())
                .filter(|&n| {
                    let t = chains.time[n];
                    match chains.nodes[n] {
                        (Node::Barrier(bi), frame) => {
                            let x = self.barrier(bi);
                            // The physical resource's name in the barrier's frame.
                            let named = if frame == fa { ra } else { r };
                            ta < t
                                && t <= tb
                                && stages_cover(x.src_stage, stages)
                                && (!writes
                                    || (ctx.barriers[bi].resource == named
                                        && !is_acquire(x)
                                        && access_cover(x.src_access, access & AccessMask::WRITES)))
                        }
                        (Node::Dep(rp, d), frame) => {
                            let x = dep(ctx, rp, d);
                            frame == fa
                                && t <= tb
                                && a_subpass == Some((rp, x.src_subpass as usize))
                                && stages_cover(x.src_stage, stages)
                                && (!writes
                                    || access_cover(x.src_access, access & AccessMask::WRITES))
                        }
                    }
                })
                .collect(),
        };
        let visible = a.writes();
        let after_a = |t: usize| t > ta || (matches!(a.kind, Kind::Transition(_)) && t >= ta);
        let is_end = |n: usize| -> bool {
            let t = chains.time[n];
            match (b.kind, chains.nodes[n]) {
                (Kind::Transition(t2), node) => node == (Node::Barrier(t2), 1),
                (Kind::Use { stages, access, .. }, (Node::Barrier(bi), _)) => {
                    let x = self.barrier(bi);
                    after_a(t)
                        && t <= tb
                        && stages_cover(x.dst_stage, stages)
                        && (!visible
                            || (ctx.barriers[bi].resource == r
                                && access_cover(x.dst_access, access)))
                }
                (Kind::Use { stages, access, .. }, (Node::Dep(rp, d), frame)) => {
                    let x = dep(ctx, rp, d);
                    frame == 1
                        && b_subpass == Some((rp, x.dst_subpass as usize))
                        && stages_cover(x.dst_stage, stages)
                        && (!visible || access_cover(x.dst_access, access))
                }
            }
        };
        let ends: Vec<usize> = (0..chains.nodes.len()).filter(|&n| is_end(n)).collect();
        starts
            .iter()
            .any(|&s| ends.iter().any(|&e| chains.reaches(s, e)))
    }

    /// A chain of subpass dependencies of their render pass orders use `a` before use `b`.
    fn subpass_chain(&self, a: Event, b: Event) -> bool {
        let (Some((rp, sa)), Some((_, sb))) = (self.ctx.subpass[a.pass], self.ctx.subpass[b.pass])
        else {
            return false;
        };
        let Kind::Use {
            stages,
            access,
            writes,
            ..
        } = a.kind
        else {
            return false;
        };
        let start = |d: &SubpassDependency| {
            d.src_subpass as usize == sa
                && stages_cover(d.src_stage, stages)
                && (!writes || access_cover(d.src_access, access & AccessMask::WRITES))
        };
        self.dependency_chain(rp, start, sb, b, writes)
    }

    /// Some dependency of render pass `rp` accepted by `start` chains (through dependencies
    /// whose stages meet) to one into subpass `sb` that covers use `b`'s stages, and its
    /// accesses when `visible` is required.
    fn dependency_chain(
        &self,
        rp: usize,
        start: impl Fn(&SubpassDependency) -> bool,
        sb: usize,
        b: Event,
        visible: bool,
    ) -> bool {
        let Kind::Use { stages, access, .. } = b.kind else {
            return false;
        };
        let Some(pass) = self.ctx.plan.render_passes.get(rp) else {
            return false;
        };
        let deps = &pass.dependencies;
        let mut reached = vec![false; deps.len()];
        let mut stack: Vec<usize> = (0..deps.len())
            .filter(|&i| deps[i].src_subpass < deps[i].dst_subpass && start(&deps[i]))
            .collect();
        for &i in &stack {
            reached[i] = true;
        }
        while let Some(i) = stack.pop() {
            let d = &deps[i];
            if d.dst_subpass as usize == sb
                && stages_cover(d.dst_stage, stages)
                && (!visible || access_cover(d.dst_access, access))
            {
                return true;
            }
            for (j, e) in deps.iter().enumerate() {
                let forward = e.src_subpass == d.dst_subpass && e.dst_subpass > e.src_subpass;
                if !reached[j] && forward && stages_meet(d.dst_stage, e.src_stage) {
                    reached[j] = true;
                    stack.push(j);
                }
            }
        }
        false
    }

    /// Marks the barriers that can serve the same-queue hazard `a` -> `b`.
    fn justify(&self, r: usize, a: Event, fa: usize, b: Event, justified: &mut [bool]) {
        let chains = &self.chains[qi(self.ctx.queue[a.pass])];
        let (ta, tb) = (self.time(a, fa), self.time(b, 1));
        let src = match a.kind {
            Kind::Use { stages, .. } => stages,
            Kind::Transition(t) => self.barrier(t).dst_stage,
        };
        let (dst, tb_limit) = match b.kind {
            Kind::Use { stages, .. } => (stages, tb),
            Kind::Transition(t) => (self.barrier(t).src_stage, tb.saturating_sub(1)),
        };
        for n in 0..chains.nodes.len() {
            let (Node::Barrier(bi), frame) = chains.nodes[n] else {
                continue;
            };
            let t = chains.time[n];
            if frame != 1
                || justified[bi]
                || self.ctx.barriers[bi].resource != r
                || t <= ta
                || t > tb_limit
            {
                continue;
            }
            let x = self.barrier(bi);
            if stages_meet(x.src_stage, src) && stages_meet(x.dst_stage, dst) {
                justified[bi] = true;
            }
        }
    }
}

/// Vulkan ignores the source access mask of an ownership-transfer acquire: it makes no write
/// available (the matching release did, on the other queue).
fn is_acquire(b: &Barrier) -> bool {
    b.queue_transfer
        .as_ref()
        .is_some_and(|t| t.half == crate::plan::TransferHalf::Acquire)
}
