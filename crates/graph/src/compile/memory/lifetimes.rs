//! Lifetimes: which transient resources need memory, when they are alive, and which of them
//! may never share bytes.
//!
//! A resource's plan lifetime is `[first, last]` over the positions in `order` of the kept
//! passes that use it, or over their dependency levels when any kept pass runs on the
//! async-compute queue (passes of one level may run in any order on either queue, so a
//! resource used in level L is alive during all of L). A pass that is a subpass of a
//! render pass counts as the whole render pass (all its positions, all its levels): no
//! barrier can separate two subpasses, so memory used by one subpass stays reserved until
//! the render pass ends. An `output` (a result of the frame, read after it) lives from its
//! first use to the end of the frame: no later occupant may take its bytes.
//!
//! Two resources *conflict* (may not share bytes) unless one of them comes wholly before
//! the other both in execution positions and, with levels, in levels. The position test is what makes an
//! aliasing barrier or semaphore possible at all: the later occupant's first use must come
//! after the earlier occupant's last use in submission order, or no barrier on one queue
//! (and no forward semaphore across queues) can order them. With async compute the order
//! phase submits level by level, so a span wholly before another in levels is also wholly
//! before it in positions (render passes aside, whose spans cover all their subpasses, and
//! async-compute passes hoisted before a render pass, which run ahead of its lower levels:
//! both tests are made, so neither exception is unsound).
//! Cost: O(passes + uses); the lower bound ([`bound::Accumulator`](super::bound)) is
//! summed on the way, so no other pass over the items is needed for it.

use super::super::renderpass::RenderPassGrouping;
use super::super::Schedule;
use super::bound::Accumulator;
use super::problem::{Item, Problem, Span};
use crate::access::Access;
use crate::caps::Capabilities;
pub use crate::caps::MemoryKind;
use crate::graph::{Graph, ResourceId, ResourceKind};
use crate::plan::{LifetimeUnit, Plan};

/// When each pass runs, as far as lifetimes are concerned. Built from the compiler's own
/// schedule or from a finished plan (for the quality tools).
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// Position in `order` of each pass (indexed by pass), `None` when culled.
    pub position: Vec<Option<u32>>,
    /// Dependency level of each kept pass (indexed by pass).
    pub level: Vec<u32>,
    /// Render pass of each pass (indexed by pass), `None` when not part of one.
    pub group: Vec<Option<u32>>,
    /// Lifetimes count dependency levels (some kept pass runs on async compute).
    pub by_level: bool,
}

impl Timeline {
    /// The compiler's view: schedule and render-pass grouping.
    pub fn of_schedule(schedule: &Schedule, grouping: &RenderPassGrouping) -> Self {
        Timeline {
            position: schedule.position.clone(),
            level: schedule.level.clone(),
            group: grouping.group_of.clone(),
            by_level: schedule.uses_async(),
        }
    }

    /// The view of a finished plan of `graph` (passes are looked up by name; unknown names
    /// are ignored).
    pub fn of_plan(graph: &Graph, plan: &Plan) -> Self {
        let n = graph.passes.len();
        let mut t = Timeline {
            position: vec![None; n],
            level: vec![0; n],
            group: vec![None; n],
            by_level: !plan.queues.async_compute.is_empty()
                || plan.memory.lifetime_unit == LifetimeUnit::Level,
        };
        for (i, name) in plan.order.iter().enumerate() {
            if let Some(p) = graph.find_pass(name) {
                t.position[p.index()] = Some(i as u32);
            }
        }
        for (l, names) in plan.levels.iter().enumerate() {
            for name in names {
                if let Some(p) = graph.find_pass(name) {
                    t.level[p.index()] = l as u32;
                }
            }
        }
        for (g, rp) in plan.render_passes.iter().enumerate() {
            for name in &rp.subpasses {
                if let Some(p) = graph.find_pass(name) {
                    t.group[p.index()] = Some(g as u32);
                }
            }
        }
        t
    }

    /// The same timeline, borrowed.
    fn view(&self) -> View<'_> {
        View {
            position: &self.position,
            level: &self.level,
            group: &self.group,
            by_level: self.by_level,
        }
    }

    /// The unit of plan lifetimes.
    pub fn unit(&self) -> LifetimeUnit {
        if self.by_level {
            LifetimeUnit::Level
        } else {
            LifetimeUnit::Order
        }
    }
}

/// A [`Timeline`] borrowed from wherever its parts live (the compiler's schedule, say).
#[derive(Clone, Copy, Debug)]
struct View<'a> {
    position: &'a [Option<u32>],
    level: &'a [u32],
    group: &'a [Option<u32>],
    by_level: bool,
}

/// Bits of `used_as` in [`Problem::new`]: some use is a depth attachment.
const DEPTH_USE: u8 = 1;
/// Some use is a colour attachment (or resolve target).
const COLOR_USE: u8 = 2;

/// Rounds `x` up to a multiple of the power of two `a`.
#[inline]
pub fn align_up(x: u64, a: u64) -> u64 {
    debug_assert!(a.is_power_of_two());
    x.saturating_add(a - 1) & !(a - 1)
}

impl Problem {
    /// Builds the problem: transient resources used by kept passes, minus the memoryless
    /// ones (`memoryless[r]`, indexed by resource; a shorter slice means "not memoryless").
    pub fn new(
        graph: &Graph,
        timeline: &Timeline,
        caps: &Capabilities,
        memoryless: &[bool],
    ) -> Self {
        Self::build(graph, timeline.view(), caps, memoryless).0
    }

    /// [`Problem::new`] for the compiler's schedule and render-pass grouping (the timeline
    /// of [`Timeline::of_schedule`], read in place), with its lower bound
    /// ([`bound::lower_bound`](super::bound::lower_bound), accumulated on the way).
    pub fn of_schedule(
        graph: &Graph,
        schedule: &Schedule,
        grouping: &RenderPassGrouping,
        caps: &Capabilities,
        memoryless: &[bool],
    ) -> (Self, u64) {
        let view = View {
            position: &schedule.position,
            level: &schedule.level,
            group: &grouping.group_of,
            by_level: schedule.uses_async(),
        };
        let (problem, bound) = Self::build(graph, view, caps, memoryless);
        let bound = bound
            .finish()
            .unwrap_or_else(|| super::bound::lower_bound(&problem));
        (problem, bound)
    }

    /// The problem, and its lower bound accumulated (not finished: the caller that needs
    /// it finishes it).
    fn build(
        graph: &Graph,
        timeline: View<'_>,
        caps: &Capabilities,
        memoryless: &[bool],
    ) -> (Self, Accumulator) {
        let alignment = effective_alignment(caps);
        let n = graph.resources.len();
        // Spans start empty (`pos_lo > pos_hi`) and widen branch-free; which attachment
        // kinds each resource is used as, as bits: a depth use makes an image a depth
        // attachment, else a colour use a colour attachment (what folding the uses one by
        // one gives, whatever their order).
        let mut span: Vec<(Span, u8)> = vec![(Span::EMPTY, 0); n];
        let groups = group_spans(timeline);
        let passes = graph
            .passes
            .iter()
            .zip(timeline.position)
            .zip(timeline.group);
        for (p, ((pass, &position), &group)) in passes.enumerate() {
            let Some(pos) = position else {
                continue;
            };
            let pass_span = match group {
                Some(g) => groups[g as usize],
                None => {
                    let l = if timeline.by_level {
                        timeline.level[p]
                    } else {
                        pos
                    };
                    Span {
                        pos_lo: pos,
                        pos_hi: pos,
                        lvl_lo: l,
                        lvl_hi: l,
                    }
                }
            };
            for u in &pass.uses {
                let (s, used_as) = &mut span[u.resource.index()];
                // On one queue levels are positions: filled in when the item is made.
                if timeline.by_level {
                    s.widen(&pass_span);
                } else {
                    s.pos_lo = s.pos_lo.min(pass_span.pos_lo);
                    s.pos_hi = s.pos_hi.max(pass_span.pos_hi);
                }
                // A resolve target is an attachment of its target's aspect.
                let depth_target = || {
                    graph
                        .resource(u.resource)
                        .image_desc()
                        .is_some_and(|d| d.format.is_depth_stencil())
                };
                *used_as |= match u.access {
                    Access::DepthWrite | Access::DepthRead => DEPTH_USE,
                    Access::Resolve if depth_target() => DEPTH_USE,
                    Access::ColorWrite
                    | Access::ColorWriteAll
                    | Access::ColorReadWrite
                    | Access::Resolve => COLOR_USE,
                    _ => 0,
                };
            }
        }
        let mut problem = Problem {
            items: Vec::with_capacity(n),
            alignment,
            by_level: timeline.by_level,
            memoryless_bytes: 0,
        };
        // Positions and levels are below the number of passes.
        let mut bound = Accumulator::for_units(graph.passes.len());
        let end = frame_end(timeline);
        for (i, (r, &(mut span, used_as))) in graph.resources.iter().zip(&span).enumerate() {
            if span.is_empty() || r.is_persistent() {
                continue;
            }
            if r.output {
                // A result of the frame is read after it: no later occupant may take its
                // bytes before the frame ends.
                span.pos_hi = end.pos_hi;
                span.lvl_hi = end.lvl_hi;
            }
            if memoryless.get(i).copied().unwrap_or(false) {
                problem.memoryless_bytes = problem.memoryless_bytes.saturating_add(r.bytes());
                continue;
            }
            let kind = match r.kind {
                ResourceKind::Buffer { .. } => MemoryKind::Buffer,
                ResourceKind::Image(_) if used_as & DEPTH_USE != 0 => MemoryKind::DepthAttachment,
                ResourceKind::Image(_) if used_as & COLOR_USE != 0 => MemoryKind::ColorAttachment,
                ResourceKind::Image(_) => MemoryKind::Image,
            };
            let size = r.bytes();
            let (first, last) = if timeline.by_level {
                (span.lvl_lo, span.lvl_hi)
            } else {
                (span.lvl_lo, span.lvl_hi) = (span.pos_lo, span.pos_hi);
                (span.pos_lo, span.pos_hi)
            };
            let footprint = align_up(size.max(1), alignment);
            bound.add(first, last, footprint);
            problem.items.push(Item {
                resource: ResourceId(i as u32),
                size,
                footprint,
                class: caps.memory_classes.of(kind),
                kind,
                first,
                last,
                span,
            });
        }
        (problem, bound)
    }

    /// The problem a finished plan of `graph` solved (memoryless resources are the plan's
    /// memoryless attachments).
    pub fn of_plan(graph: &Graph, caps: &Capabilities, plan: &Plan) -> Self {
        let mut memoryless = vec![false; graph.resources.len()];
        for a in plan
            .render_passes
            .iter()
            .flat_map(|rp| &rp.attachments)
            .filter(|a| a.memoryless)
        {
            if let Some(r) = graph.find_resource(&a.resource) {
                memoryless[r.index()] = true;
            }
        }
        Problem::new(graph, &Timeline::of_plan(graph, plan), caps, &memoryless)
    }
}

/// The alignment every placement keeps: the backend's placement alignment, and at least
/// `bufferImageGranularity`, so that a buffer and an image next to each other never share a
/// granularity page.
pub fn effective_alignment(caps: &Capabilities) -> u64 {
    let a = caps
        .placement_alignment
        .max(caps.buffer_image_granularity)
        .max(1);
    a.checked_next_power_of_two().unwrap_or(1 << 63)
}

/// The last position and the last level of the frame's kept passes (0 when none).
fn frame_end(t: View<'_>) -> Span {
    let mut end = Span {
        pos_lo: 0,
        pos_hi: 0,
        lvl_lo: 0,
        lvl_hi: 0,
    };
    for (p, position) in t.position.iter().enumerate() {
        if let Some(pos) = *position {
            end.pos_hi = end.pos_hi.max(pos);
            let l = if t.by_level { t.level[p] } else { pos };
            end.lvl_hi = end.lvl_hi.max(l);
        }
    }
    end
}

/// Span of each render pass: the positions and levels of its kept subpasses.
fn group_spans(t: View<'_>) -> Vec<Span> {
    // Render passes are fewer than passes (a plan read back may say otherwise: then the
    // list grows).
    let mut groups: Vec<Span> = vec![Span::EMPTY; t.group.len()];
    for (p, (&group, &position)) in t.group.iter().zip(t.position).enumerate() {
        if let (Some(g), Some(pos)) = (group, position) {
            let g = g as usize;
            if groups.len() <= g {
                groups.resize(g + 1, Span::EMPTY);
            }
            let l = if t.by_level { t.level[p] } else { pos };
            groups[g].widen(&Span {
                pos_lo: pos,
                pos_hi: pos,
                lvl_lo: l,
                lvl_hi: l,
            });
        }
    }
    groups
}
