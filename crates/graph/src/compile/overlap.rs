//! Frames that overlap across queues: the two-frame window (`Plan::frame_overlap`).
//!
//! Without it every queue's first submit of frame N+1 waits for frame N on the other queue,
//! so frame N's last async-compute passes (the *tail*: those no graphics pass of frame N
//! waits for, post-processing and exposure once they run there) block frame N+1's graphics
//! work. With `CompileOptions::overlap_frames`, frame N+1's first graphics passes (the
//! *head*) may run beside frame N's tail. That is safe when no head pass touches what a tail
//! pass touches, in name or in memory; this phase walks the graphics passes in queue order
//! and, pass by pass:
//! - a pass with no hazard against the tail joins the head;
//! - a transient both use by name (a buffer both only read is no hazard) can exist twice, one
//!   copy per frame parity (*doubled*: the odd frames' copy lives in memory of its own);
//! - two transients that share bytes can stop sharing them: the smaller moves to memory of
//!   its own (*replaced*; the memory phase then gives it bytes no other resource uses);
//! - otherwise (an imported, history or persistent resource (the previous frame's tail may
//!   write a persistent one under another plan, with its writer not skipped), the memory budget, or a head that already
//!   holds raster work, which is what the tail is there to overlap, so spending memory past
//!   it buys nothing) the head ends with one semaphore wait for the previous frame's async
//!   queue before that pass (the first subpass of its render pass).
//!
//! A pass's fixes are all taken or none. The head also ends, with no extra wait, at the
//! first graphics pass that waits for the async queue in its own frame: the async queue's
//! order then puts the whole previous tail first (the minimisation of waits carried across
//! the frame boundary). The memory the fixes add is capped at [`BUDGET_PERCENT`] of the
//! frame's transient memory. Physical identity across frames: a double-buffered history
//! resource's current half of frame N is its previous half of frame N+1; a per-frame import
//! is a different object each frame. Cost: O(head × tail × uses²) name lookups, once per
//! compile with overlap on.

use super::memory::Apart;
use crate::graph::{Graph, HistoryRole, Origin, PassId, PassKind, QueueKind, ResourceId};
use crate::name::Name;
use crate::plan::{
    Batch, Block, CrossFrameWait, DoubledResource, FrameOverlap, List, Placement, Plan,
    ReplacedResource,
};
use std::collections::HashMap;

/// The most the overlap may add to one frame's transient memory, in percent of it.
pub const BUDGET_PERCENT: u64 = 25;

/// Rounds of deciding and re-placing memory at most: a round's moves change how the memory
/// phase packs the others, which may bring new shared bytes to light.
pub const ROUNDS: usize = 8;

/// The memory [`decide`] may spend.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// The frame's transient memory without the overlap.
    pub frame_bytes: u64,
    /// What earlier rounds already added (resources moved to memory of their own).
    pub spent: u64,
    /// Whether it may move more resources (the last round may not).
    pub may_move: bool,
    /// Only graphics passes before this position in their queue may have their hazards
    /// removed (placing a later one's resources apart went over the budget).
    pub fix_before: usize,
    /// What placing the resources of the pass at `fix_before` apart added, as measured.
    pub measured: u64,
}

impl Budget {
    /// The most the overlap may add: [`BUDGET_PERCENT`] of the frame's transient memory.
    pub fn limit(&self) -> u64 {
        self.frame_bytes * BUDGET_PERCENT / 100
    }
}

/// What [`decide`] chose.
#[derive(Clone, Debug, Default)]
pub struct Decision {
    /// The plan section (memory fields describe the plan it was decided on).
    pub section: FrameOverlap,
    /// Where each resource must be placed (indexed by resource).
    pub apart: Vec<Apart>,
    /// Position in the graphics queue of the last pass whose hazards placed resources
    /// apart.
    pub last_placing: Option<usize>,
}

/// Where a resource's bytes are: (block, offset, footprint); blocks past the plan's are
/// memory of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    block: usize,
    offset: u64,
    size: u64,
    /// In the [`Apart::Group`] (the memory phase places the group apart from the rest).
    group: bool,
}

impl Place {
    fn overlaps(&self, o: &Place) -> bool {
        self.group == o.group
            && self.block == o.block
            && self.offset < o.offset + o.size
            && o.offset < self.offset + self.size
    }
}

/// A hazard between a tail pass of frame N and a head pass of frame N+1.
#[derive(Clone, Copy, Debug)]
enum Conflict {
    /// Both use the same physical resource.
    Same { resource: ResourceId, tail: PassId },
    /// `tail_res` (used by a tail pass) and `head_res` share bytes.
    Aliased {
        tail_res: ResourceId,
        head_res: ResourceId,
    },
}

/// The choices made so far (cloned to try a pass's fixes).
#[derive(Clone, Debug)]
struct Choices {
    doubled: Vec<bool>,
    apart: Vec<Apart>,
    extra: u64,
    doubled_list: Vec<DoubledResource>,
    replaced_list: Vec<ReplacedResource>,
}

/// The window's inputs from the plan.
struct Window<'a> {
    graph: &'a Graph,
    place: Vec<Option<Place>>,
    /// Resources with the block they share (a block of one resource is its own memory).
    alone: Vec<bool>,
    alignment: u64,
    tail: Vec<PassId>,
}

/// Decides the two-frame window of `plan` (compiled from the lowered `graph`), with the
/// resources already placed as `apart` says; `None` when nothing runs on the async queue.
pub fn decide(graph: &Graph, plan: &Plan, apart: &[Apart], budget: Budget) -> Option<Decision> {
    let asyncs = plan.queues.of(QueueKind::AsyncCompute);
    if asyncs.is_empty() {
        return None;
    }
    let ids: HashMap<&str, PassId> = graph
        .pass_ids()
        .map(|p| (graph.pass(p).name.as_str(), p))
        .collect();
    let id = |n: &Name| ids.get(n.as_str()).copied();
    let async_pos: HashMap<&str, usize> = asyncs
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    // The tail: async passes after the last one a graphics pass of the frame waits for.
    let awaited = plan
        .batches
        .iter()
        .filter(|b| b.queue == QueueKind::Graphics)
        .flat_map(|b| b.waits.iter())
        .filter(|w| w.queue == QueueKind::AsyncCompute)
        .filter_map(|w| async_pos.get(w.pass.as_str()).copied())
        .max();
    let tail_start = awaited.map_or(0, |k| k + 1);
    let tail_names: Vec<Name> = asyncs[tail_start..].to_vec();
    let graphics = plan.queues.of(QueueKind::Graphics);
    // The first graphics pass that waits for the async queue in the frame.
    let closing = plan
        .batches
        .iter()
        .filter(|b| b.queue == QueueKind::Graphics)
        .find(|b| b.waits.iter().any(|w| w.queue == QueueKind::AsyncCompute))
        .and_then(|b| b.passes.first().cloned());
    let n = graph.resources.len();
    let mut window = Window {
        graph,
        place: vec![None; n],
        alone: vec![false; n],
        alignment: plan.memory.alignment.max(1),
        tail: tail_names.iter().filter_map(id).collect(),
    };
    let by_name: HashMap<&str, ResourceId> = graph
        .resource_ids()
        .map(|r| (graph.resource(r).name.as_str(), r))
        .collect();
    for (bi, b) in plan.memory.blocks.iter().enumerate() {
        for p in &b.placements {
            if let Some(&r) = by_name.get(p.resource.as_str()) {
                window.place[r.index()] = Some(Place {
                    block: bi,
                    offset: p.offset,
                    size: p.size.div_ceil(window.alignment) * window.alignment,
                    group: false,
                });
                window.alone[r.index()] = b.placements.len() == 1;
            }
        }
    }
    let mut choices = Choices {
        doubled: vec![false; n],
        apart: (0..n)
            .map(|i| apart.get(i).copied().unwrap_or_default())
            .collect(),
        extra: budget.spent,
        doubled_list: Vec::new(),
        replaced_list: Vec::new(),
    };
    let anchor = first_subpasses(plan);
    let mut head: Vec<Name> = Vec::new();
    let mut head_end = Name::from("");
    let mut waits = Vec::new();
    let mut has_raster = false;
    let mut last_placing = None;
    for (gi, name) in graphics.iter().enumerate() {
        if Some(name) == closing.as_ref() {
            head_end = *name;
            break;
        }
        let Some(g) = id(name) else { continue };
        let conflicts = window.conflicts(g, &choices);
        // A persistent resource may be written by a pass of the previous frame's tail that
        // this plan skips: its uses are waited for, whatever this plan's tail touches.
        let persistent: Vec<Name> = graph
            .pass(g)
            .uses
            .iter()
            .map(|u| graph.resource(u.resource))
            .filter(|r| r.is_kept_across_plans())
            .map(|r| r.name)
            .collect();
        if conflicts.is_empty() && persistent.is_empty() {
            has_raster |= graph.pass(g).kind == PassKind::Raster;
            head.push(*name);
            continue;
        }
        let fixed = if !persistent.is_empty() {
            Err(
                "it uses a persistent resource, which the previous frame's tail may write under                  another plan (its writer not skipped then)"
                    .to_string(),
            )
        } else if has_raster {
            Err(
                "the head already holds raster work to overlap the tail, so the hazards are \
                 waited for rather than paid for in memory"
                    .to_string(),
            )
        } else if gi >= budget.fix_before {
            Err(format!(
                "placing the resources of '{name}' apart from the tail's added {} bytes, over \
                 the budget of {} bytes ({BUDGET_PERCENT}% of the frame's transient memory)",
                budget.measured,
                budget.limit()
            ))
        } else {
            window.fix(g, &choices, budget)
        };
        match fixed {
            Ok(c) => {
                if c.apart != choices.apart {
                    last_placing = Some(gi);
                }
                choices = c;
                has_raster |= graph.pass(g).kind == PassKind::Raster;
                head.push(*name);
            }
            Err(reason) => {
                let at = anchor.get(name.as_str()).cloned().unwrap_or(*name);
                while head
                    .last()
                    .is_some_and(|h| anchor.get(h.as_str()) == Some(&at))
                {
                    head.pop();
                }
                let mut resources: Vec<Name> = conflicts
                    .iter()
                    .map(|c| match *c {
                        Conflict::Same { resource, .. } => graph.resource(resource).name,
                        Conflict::Aliased { head_res, .. } => graph.resource(head_res).name,
                    })
                    .chain(persistent)
                    .collect();
                resources.sort();
                resources.dedup();
                waits.push(CrossFrameWait {
                    wait: at,
                    wait_queue: QueueKind::Graphics,
                    signal: tail_names.last().cloned().unwrap_or_default(),
                    signal_queue: QueueKind::AsyncCompute,
                    resources,
                    reason,
                });
                head_end = at;
                break;
            }
        }
    }
    let twin_blocks = twins(graph, plan, &window, &choices);
    Some(Decision {
        section: FrameOverlap {
            tail: List::from(tail_names),
            head: List::from(head),
            head_end,
            waits,
            doubled: choices.doubled_list,
            replaced: choices.replaced_list,
            twin_blocks,
            extra_bytes: choices.extra,
            budget_bytes: budget.limit(),
        },
        apart: choices.apart,
        last_placing,
    })
}

/// The first subpass of the render pass of every raster pass, by name.
fn first_subpasses(plan: &Plan) -> HashMap<&str, Name> {
    let mut out = HashMap::new();
    for rp in &plan.render_passes {
        if let Some(first) = rp.subpasses.first() {
            for s in rp.subpasses.iter() {
                out.insert(s.as_str(), *first);
            }
        }
    }
    out
}

/// One block per doubled resource, holding its odd-frame copy.
fn twins(graph: &Graph, plan: &Plan, window: &Window<'_>, choices: &Choices) -> Vec<Block> {
    choices
        .doubled_list
        .iter()
        .filter_map(|d| {
            let r = graph.find_resource(&d.resource)?;
            let p = window.place[r.index()]?;
            let base = plan.memory.blocks.get(p.block)?;
            let placed = base.placements.iter().find(|q| q.resource == d.resource)?;
            Some(Block {
                size: p.size,
                placements: vec![Placement {
                    offset: 0,
                    ..placed.clone()
                }],
                class: base.class,
            })
        })
        .collect()
}

impl Window<'_> {
    /// The physical object `r` names in a frame of `parity`: `None` for a per-frame import
    /// (a different object every frame).
    fn key(&self, r: ResourceId, parity: u8, c: &Choices) -> Option<(usize, u8)> {
        match self.graph.resource(r).origin {
            Origin::ImportedPerFrame(_) => None,
            Origin::History(HistoryRole::Current { .. }) => Some((r.index(), parity)),
            Origin::History(HistoryRole::Previous { current }) => {
                Some((current.index(), 1 - parity))
            }
            _ if c.doubled[r.index()] => Some((r.index(), parity)),
            _ => Some((r.index(), 0)),
        }
    }

    /// Where `r`'s bytes are in a frame of `parity`, `None` when they are its own (memory
    /// of its own, a twin, or not placed at all).
    fn bytes(&self, r: ResourceId, parity: u8, c: &Choices) -> Option<Place> {
        let i = r.index();
        if c.apart[i] == Apart::Own || self.alone[i] || (c.doubled[i] && parity == 1) {
            return None;
        }
        self.place[i].map(|p| Place {
            group: c.apart[i] == Apart::Group,
            ..p
        })
    }

    /// Every hazard between `g` (frame N+1) and the tail (frame N), in both parities.
    fn conflicts(&self, g: PassId, c: &Choices) -> Vec<Conflict> {
        let mut out = Vec::new();
        let graph = self.graph;
        for &t in &self.tail {
            for tu in &graph.pass(t).uses {
                for gu in &graph.pass(g).uses {
                    for parity in [0u8, 1] {
                        let (tp, gp) = (parity, 1 - parity);
                        let tk = self.key(tu.resource, tp, c);
                        let gk = self.key(gu.resource, gp, c);
                        if tk.is_some() && tk == gk {
                            let reads_only = !tu.access.writes()
                                && !gu.access.writes()
                                && graph.resource(tu.resource).image_desc().is_none();
                            if !reads_only {
                                out.push(Conflict::Same {
                                    resource: tu.resource,
                                    tail: t,
                                });
                            }
                            continue;
                        }
                        if tu.resource == gu.resource {
                            continue;
                        }
                        let (Some(a), Some(b)) = (
                            self.bytes(tu.resource, tp, c),
                            self.bytes(gu.resource, gp, c),
                        ) else {
                            continue;
                        };
                        if a.overlaps(&b) {
                            out.push(Conflict::Aliased {
                                tail_res: tu.resource,
                                head_res: gu.resource,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// `c` with every hazard of `g` removed, or why that is not possible.
    fn fix(&self, g: PassId, c: &Choices, budget: Budget) -> Result<Choices, String> {
        let graph = self.graph;
        let mut c = c.clone();
        let name = |r: ResourceId| graph.resource(r).name;
        loop {
            let Some(&first) = self.conflicts(g, &c).first() else {
                return Ok(c);
            };
            match first {
                Conflict::Same { resource, tail } => {
                    let res = graph.resource(resource);
                    let placed = self.place[resource.index()];
                    let transient = matches!(res.origin, Origin::Transient { .. });
                    let Some(p) = placed.filter(|_| transient && !c.doubled[resource.index()])
                    else {
                        return Err(format!(
                            "'{}' uses '{}' like '{}' of the previous frame, and it cannot exist \
                             twice (not a placed transient: its content or identity is shared \
                             across frames)",
                            graph.pass(g).name,
                            res.name,
                            graph.pass(tail).name
                        ));
                    };
                    c.doubled[resource.index()] = true;
                    c.extra += p.size;
                    c.doubled_list.push(DoubledResource {
                        resource: name(resource),
                        bytes: p.size,
                        tail_pass: graph.pass(tail).name,
                        head_pass: graph.pass(g).name,
                    });
                }
                Conflict::Aliased { tail_res, head_res } if budget.may_move => {
                    if c.apart[head_res.index()] == Apart::Shared {
                        // Every placed resource of the pass goes to the head's group (the
                        // memory phase measures what that costs): grouping only the one in
                        // the way would let the next packing put another in its place.
                        for u in &graph.pass(g).uses {
                            let r = u.resource;
                            if self.place[r.index()].is_some()
                                && c.apart[r.index()] == Apart::Shared
                            {
                                c.apart[r.index()] = Apart::Group;
                                c.replaced_list.push(ReplacedResource {
                                    resource: name(r),
                                    bytes: 0,
                                    aliased_with: name(tail_res),
                                });
                            }
                        }
                    } else {
                        // Both in the group: the tail's gets bytes of its own.
                        let bytes = self.place[tail_res.index()].map_or(0, |p| p.size);
                        c.apart[tail_res.index()] = Apart::Own;
                        c.extra += bytes;
                        c.replaced_list.push(ReplacedResource {
                            resource: name(tail_res),
                            bytes,
                            aliased_with: name(head_res),
                        });
                    }
                }
                Conflict::Aliased { tail_res, head_res } => {
                    return Err(format!(
                        "'{}' and '{}' of the previous frame share bytes, and the memory is \
                         not placed again (the last round)",
                        name(head_res),
                        name(tail_res)
                    ));
                }
            }
            if c.extra > budget.limit() {
                return Err(format!(
                    "removing the hazards of '{}' would add {} bytes, over the budget of {} \
                     bytes ({BUDGET_PERCENT}% of the frame's transient memory)",
                    graph.pass(g).name,
                    c.extra,
                    budget.limit()
                ));
            }
        }
    }
}

/// Splits the graphics batch holding each cross-frame wait so that the wait starts a batch.
pub fn split_batches(plan: &mut Plan) {
    let Some(overlap) = &plan.frame_overlap else {
        return;
    };
    for w in overlap.waits.clone() {
        let Some(bi) = plan
            .batches
            .iter()
            .position(|b| b.queue == w.wait_queue && b.passes.contains(&w.wait))
        else {
            continue;
        };
        let b = &plan.batches[bi];
        let k = b.passes.iter().position(|p| *p == w.wait).unwrap_or(0);
        if k == 0 {
            continue;
        }
        let second = Batch {
            queue: b.queue,
            passes: List::from(b.passes[k..].to_vec()),
            waits: List::from(Vec::new()),
            signal: b.signal,
        };
        let first = &mut plan.batches[bi];
        first.passes.truncate(k);
        first.signal = None;
        plan.batches.insert(bi + 1, second);
    }
    // Submission order: by the execution-order position of each batch's first pass.
    let pos = plan.positions();
    let first = |b: &Batch| b.passes.first().and_then(|p| pos.get(p.as_str()).copied());
    let keys: Vec<Option<usize>> = plan.batches.iter().map(first).collect();
    let mut indexed: Vec<(Option<usize>, Batch)> = keys
        .into_iter()
        .zip(std::mem::take(&mut plan.batches))
        .collect();
    indexed.sort_by_key(|(k, _)| *k);
    plan.batches = indexed.into_iter().map(|(_, b)| b).collect();
}

/// Moves to the async queue every compute or transfer pass of `graph` that no raster pass
/// depends on, directly or through other passes (the frame's tail: post-processing after
/// the last raster work), so that with overlapping frames it runs beside the next frame's
/// graphics work; returns how many moved. A pass that uses a per-frame import (a swapchain
/// image, presented from the graphics queue) stays, and so does everything it depends on.
/// The renderer calls this when frames overlap; frame files say their queues themselves.
pub fn tail_to_async(graph: &mut Graph) -> usize {
    let deps = super::deps::dependencies(graph);
    let n = graph.passes.len();
    let mut dependents: Vec<Vec<PassId>> = vec![Vec::new(); n];
    for e in &deps.edges {
        dependents[e.from.index()].push(e.to);
    }
    let mut movable = vec![false; n];
    // Edges point forward in declaration order: walking backwards, every dependent is
    // decided before the pass it depends on.
    for p in graph.pass_ids().collect::<Vec<_>>().into_iter().rev() {
        let pass = graph.pass(p);
        let kind_ok = matches!(pass.kind, PassKind::Compute | PassKind::Transfer);
        let presents = pass.uses.iter().any(|u| {
            matches!(
                graph.resource(u.resource).origin,
                Origin::ImportedPerFrame(_)
            )
        });
        let downstream_ok = dependents[p.index()].iter().all(|d| movable[d.index()]);
        movable[p.index()] = kind_ok && !presents && downstream_ok;
    }
    let mut moved = 0;
    for (i, pass) in graph.passes.iter_mut().enumerate() {
        if movable[i] && pass.queue == QueueKind::Graphics {
            pass.queue = QueueKind::AsyncCompute;
            moved += 1;
        }
    }
    moved
}
