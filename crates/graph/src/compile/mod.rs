//! The compiler: a chain of pure phases, one module each.
//!
//! `validate → dependencies → cull → queues → order (level by level with async compute) → levels → render passes →
//! ownership → barriers → memory → aliasing barriers → syncs/batches → plan` (memory comes
//! before syncs so that the cross-queue hazards of aliasing reach the sync phase). Each phase
//! is a function of the graph, the outputs of earlier phases, [`Capabilities`] and
//! [`CompileOptions`]; none keeps state, so each can be tested alone and every optimisation
//! can be switched off. [`Compiler`] adds the per-frame cache.

pub mod alias_barriers;
mod assemble;
pub mod barriers;
mod cache;
pub mod chains;
pub mod cull;
pub mod deps;
pub mod external;
pub mod levels;
pub mod memory;
pub mod order;
pub mod overlap;
pub mod ownership;
pub mod renderpass;
mod resource_uses;
pub mod syncs;
pub mod validate;

pub use cache::Compiler;

use crate::caps::{Capabilities, CompileOptions};
use crate::error::CompileError;
use crate::graph::{Graph, PassId, QueueKind};
use crate::plan::Plan;

/// When and where each kept pass runs: the output of the order and levels phases that every
/// later phase reads.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// Kept passes in execution order.
    pub order: Vec<PassId>,
    /// Position in `order` of each pass (indexed by pass), `None` when culled.
    pub position: Vec<Option<u32>>,
    /// Dependency level of each kept pass (indexed by pass).
    pub level: Vec<u32>,
    /// Queue of each pass (indexed by pass).
    pub queue: Vec<QueueKind>,
    /// Whether each pass is kept (indexed by pass).
    pub kept: Vec<bool>,
}

impl Schedule {
    /// The schedule of the kept passes `order` (execution order), with each pass's
    /// dependency level, queue and whether it is kept (all indexed by pass); positions are
    /// derived from `order`.
    pub fn new(
        order: Vec<PassId>,
        level: Vec<u32>,
        queue: Vec<QueueKind>,
        kept: Vec<bool>,
    ) -> Self {
        let mut position = vec![None; kept.len()];
        for (i, p) in order.iter().enumerate() {
            position[p.index()] = Some(i as u32);
        }
        Schedule {
            order,
            position,
            level,
            queue,
            kept,
        }
    }

    /// True when any kept pass runs on the async-compute queue.
    pub fn uses_async(&self) -> bool {
        self.order
            .iter()
            .any(|p| self.queue[p.index()] == QueueKind::AsyncCompute)
    }
}

/// The phases that do not depend on the options: dependencies (among kept passes) and
/// culling. Computed once per compile and shared by the reference run of the memoryless check.
fn kept_passes(graph: &Graph) -> (deps::Dependencies, cull::Culling) {
    let deps = deps::dependencies(graph);
    let culling = cull::cull(graph, &deps);
    // Edges among the kept passes only; when nothing was culled they are the edges above.
    let deps = if culling.kept.iter().all(|&k| k) {
        deps
    } else {
        deps::kept_dependencies(graph, &culling.kept)
    };
    (deps, culling)
}

/// The phases after culling up to the render passes, for `options`: the schedule and the
/// render passes.
fn front(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    deps: &deps::Dependencies,
    culling: &cull::Culling,
) -> Result<(Schedule, renderpass::RenderPasses), CompileError> {
    let queue = levels::queues(graph, caps, options);
    let (order, grouped) = order::order(graph, deps, culling, caps, options, &queue);
    let level = levels::levels(graph, deps, &order, &culling.kept);
    let schedule = Schedule::new(order, level, queue, culling.kept.clone());
    let rp = renderpass::render_passes(graph, &schedule, grouped, caps, options)?;
    Ok((schedule, rp))
}

/// Compiles `graph` for a device into a [`Plan`]. A graph with declared history resources
/// is lowered first ([`crate::history::lower`]): the plan names the resources of the
/// lowered graph, which executors and checkers get from the same function.
pub fn compile(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
) -> Result<Plan, CompileError> {
    let lowered = crate::history::lower(graph);
    let graph: &Graph = &lowered;
    validate::validate(graph, caps)?;
    let (deps, culling) = kept_passes(graph);
    if !renderpass::memoryless::is_reference(options)
        && graph.resources.iter().any(|r| r.declared_memoryless())
    {
        // Declared-memoryless resources are judged by the default compile's render passes,
        // whatever the options of this one.
        let reference = renderpass::memoryless::reference_options(options);
        front(graph, caps, &reference, &deps, &culling)?;
    }
    let (schedule, rp) = front(graph, caps, options, &deps, &culling)?;
    let back = |apart: &[memory::Apart]| {
        back(
            graph,
            caps,
            options,
            (&deps, &culling),
            &schedule,
            rp.clone(),
            apart,
        )
    };
    let plan = back(&[]);
    if !options.overlap_frames {
        return Ok(plan);
    }
    Ok(with_overlap(graph, plan, back))
}

/// `plan` with its two-frame window ([`overlap`]). Placing resources apart changes the
/// memory phase and what follows it (aliasing barriers and syncs), so the back phases run
/// again with them (`back`) and the window is decided again on the result, until it asks
/// for nothing new; a placement over the memory budget is not taken (the window is then
/// decided on the plan before it, placing nothing more), nor is one in the last of
/// [`overlap::ROUNDS`] rounds.
fn with_overlap(graph: &Graph, mut plan: Plan, back: impl Fn(&[memory::Apart]) -> Plan) -> Plan {
    let base = plan.memory.aliased_bytes;
    let mut apart = vec![memory::Apart::Shared; graph.resources.len()];
    let mut replaced = Vec::new();
    let (mut fix_before, mut measured) = (usize::MAX, 0);
    for round in 0..overlap::ROUNDS {
        let budget = overlap::Budget {
            frame_bytes: base,
            spent: plan.memory.aliased_bytes.saturating_sub(base),
            may_move: round + 1 < overlap::ROUNDS,
            fix_before,
            measured,
        };
        let Some(mut decision) = overlap::decide(graph, &plan, &apart, budget) else {
            return plan;
        };
        if decision.apart == apart {
            replaced.append(&mut decision.section.replaced);
            decision.section.replaced = replaced;
            plan.frame_overlap = Some(decision.section);
            overlap::split_batches(&mut plan);
            return plan;
        }
        let candidate = back(&decision.apart);
        let doubled: u64 = decision.section.doubled.iter().map(|d| d.bytes).sum();
        let grown = candidate.memory.aliased_bytes.saturating_sub(base) + doubled;
        log::debug!(
            "overlap round {round}: {} resources placed apart, {grown} bytes more than one frame \
             (budget {})",
            decision
                .apart
                .iter()
                .filter(|&&a| a != memory::Apart::Shared)
                .count(),
            budget.limit()
        );
        if grown > budget.limit() {
            // Over the budget: decide again on this plan, the last pass that placed
            // resources apart ending the head instead.
            fix_before = decision.last_placing.unwrap_or(0).min(fix_before);
            measured = grown;
            continue;
        }
        replaced.append(&mut decision.section.replaced);
        apart = decision.apart;
        plan = candidate;
    }
    // Not reached: the last round places nothing, so its decision is taken above. Should it
    // be, the plan runs frames in sequence (no `frame_overlap`), which is always safe.
    plan.frame_overlap = None;
    plan
}

/// The phases after the render passes: ownership, barriers, memory (with the resources
/// placed as `apart` says), aliasing barriers, syncs, the plan.
fn back(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    (deps, culling): (&deps::Dependencies, &cull::Culling),
    schedule: &Schedule,
    rp: renderpass::RenderPasses,
    apart: &[memory::Apart],
) -> Plan {
    let ownership = ownership::decide(graph, schedule);
    let mut barriers =
        barriers::barriers(graph, schedule, &rp.grouping, &rp.ops, &ownership.sharing);
    let layout = memory::plan_memory(
        graph,
        schedule,
        &rp.grouping,
        caps,
        options,
        &rp.memoryless,
        apart,
    );
    alias_barriers::add(graph, schedule, &layout, &mut barriers);
    let syncs = syncs::syncs(
        graph,
        schedule,
        &rp.grouping,
        &barriers.cross_queue,
        options,
    );
    let mut memory = layout.memory;
    memory.memoryless_fallbacks = rp.memoryless_fallbacks;
    assemble::Parts {
        graph,
        caps,
        options,
        deps,
        culling,
        schedule,
        render_passes: rp.render_passes,
        breaks: rp.breaks,
        barriers: &barriers,
        syncs: &syncs,
        ownership: &ownership,
        memory,
        bandwidth: rp.bandwidth,
    }
    .into_plan()
}
