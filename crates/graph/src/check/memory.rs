//! Checker invariants: memory placement and aliasing barriers.
//!
//! Recomputes from the graph and the plan alone (no compiler code): which resources must be
//! placed (transient, used by a kept pass, not a memoryless attachment of a render pass),
//! their lifetimes in the plan's unit (a subpass counts as its whole render pass; an output
//! lives to the frame's end), sizes,
//! classes and totals; that no two placements of a block overlap in bytes while their
//! lifetimes overlap; that an image reusing bytes of an earlier occupant starts from
//! `UNDEFINED`; that `article_bytes` is the article's total, or 0 (not run) only when every
//! class sits at its lower bound. That the later occupant's first use happens after every
//! use of the earlier one (barrier chains, semaphores) is checked with the hazards, in
//! `core/aliasing.rs`, whose rules keep the `memory.` prefix.

use super::Violation;
use crate::access::Access;
use crate::caps::{Capabilities, CompileOptions, MemoryKind};
use crate::graph::{Graph, ResourceKind};
use crate::plan::{LifetimeUnit, Placement, Plan};
use crate::sync::Layout;
use std::collections::{HashMap, HashSet};

/// A kept use, as the checker sees it.
#[derive(Clone, Copy, Debug)]
struct Seen {
    position: usize,
    /// Positions and levels of the whole render pass the use is in (or of its pass).
    span: (u32, u32, u32, u32),
}

/// Pushes every violated memory invariant onto `out`.
pub(super) fn check(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    plan: &Plan,
    out: &mut Vec<Violation>,
) {
    let mut push = |rule: &'static str, detail: String| out.push(Violation { rule, detail });
    let m = &plan.memory;
    let memoryless = memoryless_attachments(plan);
    let (uses, kind) = kept_uses(graph, plan);
    let units = lifetime_units(plan, &mut push);
    if !m.alignment.is_power_of_two()
        || m.alignment < caps.placement_alignment
        || m.alignment < caps.buffer_image_granularity
    {
        push("memory.align", format!("alignment {} is not a power of two at least the placement alignment {} and granularity {}", m.alignment, caps.placement_alignment, caps.buffer_image_granularity));
    }
    let align = m.alignment.max(1);
    let footprint = |size: u64| size.div_ceil(align).saturating_mul(align);
    let placed = check_placements(
        graph,
        caps,
        plan,
        (&memoryless, &uses, &kind),
        units,
        align,
        &mut push,
    );
    let memoryless_bytes = check_unplaced(graph, &memoryless, &uses, &placed, &mut push);
    check_totals(m, options, &placed, memoryless_bytes, &footprint, &mut push);
    check_overlaps(graph, plan, &uses, &mut push);
}

/// Memoryless is the render pass phase's decision, visible on the attachments.
fn memoryless_attachments(plan: &Plan) -> HashSet<&str> {
    plan.render_passes
        .iter()
        .flat_map(|rp| {
            rp.attachments
                .iter()
                .filter(|a| a.memoryless)
                .map(|a| a.resource.as_str())
        })
        .collect()
}

/// Kept uses (sorted by position) and memory kind of every resource.
fn kept_uses(graph: &Graph, plan: &Plan) -> (Vec<Vec<Seen>>, Vec<MemoryKind>) {
    let position = plan.positions();
    let level: HashMap<&str, u32> = plan
        .levels
        .iter()
        .enumerate()
        .flat_map(|(l, ps)| ps.iter().map(move |n| (n.as_str(), l as u32)))
        .collect();
    let mut uses: Vec<Vec<Seen>> = vec![Vec::new(); graph.resources.len()];
    let mut kind: Vec<MemoryKind> = graph
        .resources
        .iter()
        .map(|r| {
            if matches!(r.kind, ResourceKind::Buffer { .. }) {
                MemoryKind::Buffer
            } else {
                MemoryKind::Image
            }
        })
        .collect();
    // A subpass counts as its whole render pass: (first, last position, first, last level).
    let mut rp_span: HashMap<&str, (u32, u32, u32, u32)> = HashMap::new();
    for rp in &plan.render_passes {
        let mut sp = (u32::MAX, 0, u32::MAX, 0);
        for n in &rp.subpasses {
            let (pos, lvl) = (
                position.get(n.as_str()).map_or(0, |&p| p as u32),
                level.get(n.as_str()).copied().unwrap_or(0),
            );
            sp = (sp.0.min(pos), sp.1.max(pos), sp.2.min(lvl), sp.3.max(lvl));
        }
        for n in &rp.subpasses {
            rp_span.insert(n.as_str(), sp);
        }
    }
    for pass in &graph.passes {
        let Some(&pos) = position.get(pass.name.as_str()) else {
            continue;
        };
        let lvl = level.get(pass.name.as_str()).copied().unwrap_or(0);
        let span = rp_span
            .get(pass.name.as_str())
            .copied()
            .unwrap_or((pos as u32, pos as u32, lvl, lvl));
        for u in &pass.uses {
            let r = u.resource.index();
            let seen = Seen {
                position: pos,
                span,
            };
            uses[r].push(seen);
            if kind[r] != MemoryKind::Buffer {
                // A resolve target is an attachment of its own aspect.
                let depth_resolve = u.access == Access::Resolve
                    && super::table::Class::of(graph, u.resource) == super::table::Class::Depth;
                if matches!(u.access, Access::DepthWrite | Access::DepthRead) || depth_resolve {
                    kind[r] = MemoryKind::DepthAttachment;
                } else if kind[r] == MemoryKind::Image
                    && matches!(
                        u.access,
                        Access::ColorWrite
                            | Access::ColorWriteAll
                            | Access::ColorReadWrite
                            | Access::Resolve
                    )
                {
                    kind[r] = MemoryKind::ColorAttachment;
                }
            }
        }
    }
    for u in &mut uses {
        u.sort_by_key(|s| s.position);
    }
    (uses, kind)
}

/// The unit lifetimes are counted in: positions, or levels when passes run on async compute
/// (`memory.unit` when the plan says otherwise), and the last unit of the frame.
#[derive(Clone, Copy)]
struct Units {
    by_levels: bool,
    frame_end: u32,
}

impl Units {
    fn lo(&self, s: &Seen) -> u32 {
        if self.by_levels {
            s.span.2
        } else {
            s.span.0
        }
    }

    fn hi(&self, s: &Seen) -> u32 {
        if self.by_levels {
            s.span.3
        } else {
            s.span.1
        }
    }
}

/// Checks the plan's lifetime unit and returns the units it counts in.
fn lifetime_units(plan: &Plan, push: &mut impl FnMut(&'static str, String)) -> Units {
    let m = &plan.memory;
    let by_level = !plan.queues.async_compute.is_empty();
    let want_unit = if by_level {
        LifetimeUnit::Level
    } else {
        LifetimeUnit::Order
    };
    if m.lifetime_unit != want_unit {
        push(
            "memory.unit",
            format!(
                "lifetime_unit is {:?} but should be {want_unit:?} (async compute passes: {})",
                m.lifetime_unit,
                plan.queues.async_compute.len()
            ),
        );
    }
    let by_levels = m.lifetime_unit == LifetimeUnit::Level;
    // The last unit of the frame: its last level, or its last position.
    let frame_end = if by_levels {
        plan.levels.len().saturating_sub(1)
    } else {
        plan.order.len().saturating_sub(1)
    } as u32;
    Units {
        by_levels,
        frame_end,
    }
}

/// Each placement: known, transient, placed once, right size, aligned, inside its block.
/// Returns the placements by resource name, with their block.
fn check_placements<'p>(
    graph: &Graph,
    caps: &Capabilities,
    plan: &'p Plan,
    (memoryless, uses, kind): (&HashSet<&str>, &[Vec<Seen>], &[MemoryKind]),
    units: Units,
    align: u64,
    push: &mut impl FnMut(&'static str, String),
) -> HashMap<&'p str, (usize, &'p Placement)> {
    let m = &plan.memory;
    let unit_lo = |s: &Seen| units.lo(s);
    let unit_hi = |s: &Seen| units.hi(s);
    let frame_end = units.frame_end;
    let mut placed: HashMap<&str, (usize, &Placement)> = HashMap::new();
    for (b, block) in m.blocks.iter().enumerate() {
        for p in &block.placements {
            let Some(id) = graph.find_resource(&p.resource) else {
                push(
                    "memory.unknown",
                    format!("placement of unknown resource '{}'", p.resource),
                );
                continue;
            };
            let r = graph.resource(id);
            if placed.insert(p.resource.as_str(), (b, p)).is_some() {
                push(
                    "memory.placed_twice",
                    format!("'{}' is placed more than once", p.resource),
                );
            }
            if r.is_persistent() {
                push(
                    "memory.imported",
                    format!("imported or history resource '{}' is placed", p.resource),
                );
            }
            if memoryless.contains(p.resource.as_str()) {
                push(
                    "memory.memoryless",
                    format!("memoryless '{}' is placed", p.resource),
                );
            }
            if p.size != r.bytes() {
                push(
                    "memory.size",
                    format!(
                        "'{}' is placed with {} bytes but needs {}",
                        p.resource,
                        p.size,
                        r.bytes()
                    ),
                );
            }
            if p.offset % align != 0 {
                push(
                    "memory.align",
                    format!(
                        "'{}' at offset {} is not aligned to {align}",
                        p.resource, p.offset
                    ),
                );
            }
            if p.offset.saturating_add(p.size) > block.size {
                push(
                    "memory.block",
                    format!(
                        "'{}' ends at {} beyond block {b} of {} bytes",
                        p.resource,
                        p.offset.saturating_add(p.size),
                        block.size
                    ),
                );
            }
            let class = caps.memory_classes.of(kind[id.index()]);
            if class != block.class {
                push(
                    "memory.class",
                    format!(
                        "'{}' of memory class {class} is in block {b} of class {}",
                        p.resource, block.class
                    ),
                );
            }
            let u = &uses[id.index()];
            let first = u.iter().map(unit_lo).min();
            // An output is read after the frame: it keeps its bytes to the frame's end.
            let last = if r.output && !u.is_empty() {
                Some(frame_end)
            } else {
                u.iter().map(unit_hi).max()
            };
            if first != Some(p.first) || last != Some(p.last) {
                push(
                    "memory.lifetime",
                    format!(
                        "'{}' has lifetime {}..{} but its kept uses span {first:?}..{last:?}{}",
                        p.resource,
                        p.first,
                        p.last,
                        if r.output {
                            " (an output lives to the end of the frame)"
                        } else {
                            ""
                        }
                    ),
                );
            }
        }
    }
    placed
}

/// Every transient used by a kept pass is placed or memoryless; returns the memoryless bytes.
fn check_unplaced(
    graph: &Graph,
    memoryless: &HashSet<&str>,
    uses: &[Vec<Seen>],
    placed: &HashMap<&str, (usize, &Placement)>,
    push: &mut impl FnMut(&'static str, String),
) -> u64 {
    let mut memoryless_bytes = 0u64;
    for (i, r) in graph.resources.iter().enumerate() {
        if r.is_persistent() || uses[i].is_empty() {
            continue;
        }
        if memoryless.contains(r.name.as_str()) {
            memoryless_bytes = memoryless_bytes.saturating_add(r.bytes());
        } else if !placed.contains_key(r.name.as_str()) {
            push(
                "memory.unplaced",
                format!(
                    "transient '{}' is used by kept passes but not placed",
                    r.name
                ),
            );
        }
    }
    memoryless_bytes
}

/// Totals.
fn check_totals(
    m: &crate::plan::Memory,
    options: &CompileOptions,
    placed: &HashMap<&str, (usize, &Placement)>,
    memoryless_bytes: u64,
    footprint: &impl Fn(u64) -> u64,
    push: &mut impl FnMut(&'static str, String),
) {
    // Saturating: a plan read from a file may hold any sizes.
    let sum_blocks = m.blocks.iter().fold(0u64, |s, b| s.saturating_add(b.size));
    let unaliased = placed
        .values()
        .fold(0u64, |s, (_, p)| s.saturating_add(footprint(p.size)));
    let bound = peak_alive(placed.values().map(|&(_, p)| p), &footprint);
    for (name, got, want) in [
        ("aliased_bytes", m.aliased_bytes, sum_blocks),
        ("unaliased_bytes", m.unaliased_bytes, unaliased),
        ("lower_bound_bytes", m.lower_bound_bytes, bound),
        ("memoryless_bytes", m.memoryless_bytes, memoryless_bytes),
    ] {
        if got != want {
            push(
                "memory.totals",
                format!("{name} is {got} but the placements give {want}"),
            );
        }
    }
    if m.aliased_bytes < m.lower_bound_bytes {
        push(
            "memory.totals",
            format!(
                "aliased_bytes {} is below the lower bound {}",
                m.aliased_bytes, m.lower_bound_bytes
            ),
        );
    }
    if options.alias && m.article_bytes == 0 {
        // The article's algorithm may be skipped only where nothing can beat the planner:
        // every class's blocks add up to the class's own lower bound.
        for (class, bytes, bound) in class_bounds(m, &footprint) {
            if bytes != bound {
                push(
                    "memory.totals",
                    format!("article_bytes is 0 (not run) but memory class {class} uses {bytes} bytes, above its lower bound {bound}"),
                );
            }
        }
    } else if options.alias && m.article_bytes < m.aliased_bytes {
        push(
            "memory.totals",
            format!(
                "aliased_bytes {} is worse than the article's {}",
                m.aliased_bytes, m.article_bytes
            ),
        );
    }
    if !options.alias {
        for (b, block) in m
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.placements.len() != 1)
        {
            push(
                "memory.alias_off",
                format!(
                    "aliasing is off but block {b} holds {} placements",
                    block.placements.len()
                ),
            );
        }
    }
}

/// No overlap; reused images start from UNDEFINED (the order of the uses is checked with the
/// hazards, `check/core/aliasing.rs`).
fn check_overlaps(
    graph: &Graph,
    plan: &Plan,
    uses: &[Vec<Seen>],
    push: &mut impl FnMut(&'static str, String),
) {
    let m = &plan.memory;
    let orderer = Orderer::new(plan);
    for block in &m.blocks {
        for (k, p) in block.placements.iter().enumerate() {
            for q in &block.placements[k + 1..] {
                let bytes = p.offset < q.offset.saturating_add(q.size)
                    && q.offset < p.offset.saturating_add(p.size);
                if !bytes {
                    continue;
                }
                if p.first <= q.last && q.first <= p.last {
                    push(
                        "memory.overlap",
                        format!(
                            "'{}' and '{}' overlap in bytes and lifetime",
                            p.resource, q.resource
                        ),
                    );
                    continue;
                }
                let (x, y) = if p.last < q.first { (p, q) } else { (q, p) };
                let Some(yi) = graph.find_resource(&y.resource) else {
                    continue;
                };
                check_alias(
                    graph,
                    plan,
                    &orderer,
                    &uses[yi.index()],
                    &x.resource,
                    &y.resource,
                    push,
                );
            }
        }
    }
}

/// Per memory class of `m`'s blocks: (class, sum of block sizes, largest sum of footprints
/// alive at one time).
fn class_bounds(m: &crate::plan::Memory, footprint: &impl Fn(u64) -> u64) -> Vec<(u32, u64, u64)> {
    let mut classes: Vec<u32> = m.blocks.iter().map(|b| b.class).collect();
    classes.sort_unstable();
    classes.dedup();
    classes
        .into_iter()
        .map(|class| {
            let blocks = m.blocks.iter().filter(|b| b.class == class);
            let bytes = blocks.clone().fold(0u64, |s, b| s.saturating_add(b.size));
            let bound = peak_alive(blocks.flat_map(|b| &b.placements), footprint);
            (class, bytes, bound)
        })
        .collect()
}

/// Largest sum of footprints of `placements` alive at one time (closed lifetimes: an item
/// ending where another starts still counts as alive with it).
fn peak_alive<'a>(
    placements: impl Iterator<Item = &'a Placement>,
    footprint: &impl Fn(u64) -> u64,
) -> u64 {
    let mut events: Vec<(u32, bool, u64)> = placements
        .flat_map(|p| {
            [
                (p.first, false, footprint(p.size)),
                (p.last, true, footprint(p.size)),
            ]
        })
        .collect();
    events.sort_unstable();
    let (mut alive, mut bound) = (0u64, 0u64);
    for (_, end, bytes) in events {
        if end {
            alive = alive.saturating_sub(bytes);
        } else {
            alive = alive.saturating_add(bytes);
            bound = bound.max(alive);
        }
    }
    bound
}

/// Checks that the first use of `y`, which reuses bytes `x` used earlier, starts from
/// `UNDEFINED` when `y` is an image (by a barrier at or before it, or by its render pass).
/// That the use is ordered after `x`'s uses is a happens-before question, checked with the
/// hazards (`check/core/aliasing.rs`).
fn check_alias(
    graph: &Graph,
    plan: &Plan,
    orderer: &Orderer,
    y_uses: &[Seen],
    x: &str,
    y: &str,
    push: &mut impl FnMut(&'static str, String),
) {
    let Some(b) = y_uses.first() else { return };
    let y_is_image = graph
        .find_resource(y)
        .and_then(|r| graph.resource(r).image_desc())
        .is_some();
    if y_is_image {
        let by_barrier = plan.barriers.iter().any(|bar| {
            bar.resource == y
                && bar.old_layout == Some(Layout::UNDEFINED)
                && orderer
                    .position(&bar.before)
                    .is_some_and(|pos| pos <= b.position)
        });
        let by_render_pass = plan.render_passes.iter().any(|rp| {
            rp.subpasses
                .iter()
                .any(|s| orderer.position(s) == Some(b.position))
                && rp.attachments.iter().any(|a| {
                    a.resource == y
                        && a.initial_layout == Layout::UNDEFINED
                        && a.load_op != crate::plan::LoadOp::Load
                })
        });
        if !by_barrier && !by_render_pass {
            push("memory.alias_layout", format!("'{y}' reuses the bytes of '{x}' but its first use does not start from UNDEFINED"));
        }
    }
}

/// Positions of the plan's passes in `order`.
struct Orderer<'a> {
    position: HashMap<&'a str, usize>,
}

impl<'a> Orderer<'a> {
    fn new(plan: &'a Plan) -> Self {
        let position = plan.positions();
        Orderer { position }
    }

    fn position(&self, pass: &str) -> Option<usize> {
        self.position.get(pass).copied()
    }
}
