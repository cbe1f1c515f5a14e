//! Phase 7, barriers: every hazard between passes becomes an explicit barrier (same queue),
//! a subpass dependency (same render pass) or a cross-queue hazard (for the sync phase).
//!
//! For each resource, the kept uses are replayed in execution order against a small state:
//! the last write, the reads since, the current layout and what the last write has been
//! made visible to. A use hazards with:
//! - the last write, if it reads (read-after-write) unless an earlier barrier already made
//!   that write visible to its stages and accesses;
//! - the last write and every read since, if it writes or changes the layout
//!   (write-after-write, write-after-read) — including storage-write -> storage-write on an
//!   unchanged GENERAL layout or a buffer (the UAV-overlap bug: no state change, still a
//!   hazard).
//!
//! Read-after-read in the same layout is no hazard. A use's scope is that of its access with
//! the attachment operations performed at it folded in ([`UseOps`], the model in
//! [`super::renderpass::ops`]): the first use of an attachment in its render pass gains the
//! load operation (so the barrier before the render pass makes earlier writes visible to the
//! load, and waits for earlier reads when the load writes), the last use the store operation,
//! which makes it a write (the next use, the next frame's first use and an aliasing
//! successor wait for the store; a later read needs a barrier after a read-only last use).
//! The state starts from the frame's own
//! last accesses (the previous frame runs the same plan on the same images and buffers), so
//! the first use of a resource waits for the previous frame's use on the same queue.
//! Barriers are placed before the later pass, or before the first subpass of its render
//! pass; one barrier per resource per batch (masks are unioned).
//!
//! Across queues (see `ownership` for the sharing rule):
//! - a use on another queue than the resource's last use is a cross-queue hazard for the
//!   sync phase, and a layout transition there is treated like a write: later readers on the
//!   other queue must wait for the pass that performed it;
//! - an EXCLUSIVE image changing queues gets a release barrier right after its last use on
//!   the old queue (before the semaphore signal there) and an acquire barrier before its
//!   first use on the new one, with identical layouts;
//! - a transition the compute queue cannot perform (from or to an attachment layout) is
//!   routed to graphics: recorded after the graphics pass that left the image in that layout
//!   (before the release, for transfers), or after the acquire on graphics; for content that
//!   crosses the frame boundary, after the frame's last (graphics) use.
//!
//! Imported resources that meet the world outside the frame (the plan's `external` list):
//! - a `per_frame` resource (a different object every frame) enters *fresh*: no accesses of
//!   the previous frame, an image in `UNDEFINED`; the first barrier of an image transitions
//!   it from there and waits on its first use's own stages with no access, which chains it
//!   after the executor's semaphore wait at those stages;
//! - an image that exits in `present` gets one barrier recorded after its last pass (after
//!   that pass's render pass): it waits for the last write (the store operation included)
//!   and the reads since, changes the layout to `PRESENT_SRC_KHR` and has no second scope
//!   (the presentation engine waits on a semaphore). The transition is not folded into the
//!   render pass's `final_layout` (which would save the barrier on tilers): a barrier works
//!   whatever the last use is (an attachment, a storage write, a copy), keeps every
//!   render pass's final layout the layout of its last use (which the checker and executor
//!   rely on), and needs no subpass dependency to `VK_SUBPASS_EXTERNAL` to order it.
//!
//! Persistent resources ([`crate::graph::Origin::Persistent`]) do not enter the frame as the
//! same plan leaves them: the previous frame's plan may differ (its writer ran, or was
//! skipped). They enter *at rest* ([`REST`]): as if the previous frame last wrote them at
//! `ALL_COMMANDS` on the queue of this frame's first use, an image in
//! `SHADER_READ_ONLY_OPTIMAL`, so the first use always gets a barrier that waits for
//! everything before it on its queue (the previous frame's readers, its exit barrier) and
//! makes the content visible to it (the executor's cross-frame semaphores cover the other
//! queue). A frame that writes one, or leaves an image in another layout, ends with an exit
//! barrier after its last use ([`persistent_exit_barriers`]) that makes the writes
//! available and moves the image back to `SHADER_READ_ONLY_OPTIMAL` for fragment and
//! compute shaders.
//!
//! Barriers are returned sorted by the execution position of the pass they attach to, those
//! recorded after it last.
//!
//! Cost: O(uses + barriers), in one or two walks over the kept uses. A resource used on one
//! queue whose content is not needed and whose first use writes a layout (every transient
//! image) enters the frame as it leaves it (it is *settled*): its first barrier (always
//! made: the transition from `UNDEFINED`) takes its wait for the previous frame from the
//! state after this frame's replay. The others (imported content, buffers, resources on
//! both queues) have their uses put in a table of facts per use (pass, queue, render pass,
//! sync scope) by a first walk, which also settles them from their first use and queues,
//! and replayed as the previous frame's. On one queue an image whose content is never
//! needed is assumed settled without that walk, and the replay checks at its first use
//! that it writes a layout (when it does not, the frame is replayed again with every
//! resource settled by the walk). On two queues the first walk tables every use and the
//! second reads the table. The second walk is the replay of this frame: it looks each
//! use's scope up once in a [`ScopeTable`] (unless tabled), appends its facts to the table
//! (the replay state keeps uses as 4-byte handles into it), gathers the per-resource
//! summaries the aliasing barriers need, and derives the barriers. The reader and
//! visibility lists of all resources share two arenas ([`super::chains`]); a batch is found through each
//! resource's latest barrier per queue rather than a list per batch, and order is checked
//! per pass rather than by comparing every barrier with the next; a use's render pass and a
//! resource's latest barriers are plain `u32`s with `u32::MAX` for none (no `Option` to test
//! per use). The replay is compiled twice, for one queue and for two: on one queue every
//! test of queues (hand-overs, routed transitions, waits across queues) is known false and
//! compiled out; the data-dependent tests of the common path (a transition inside a render
//! pass, a subpass dependency, a use that sets a layout) are selects rather than branches.
//! On two queues the tables are sized for the previous frame's uses and the routed
//! transitions up front (growing them copies them whole), the barriers recorded after their
//! pass are sorted through `u64` keys and copied once, and the first-use barrier indices are
//! carried through that merge (so the aliasing barriers need not search for them). Measured
//! figures: docs/perf.md, "Barrier phases".

use super::chains::{Chain, Chains};
use super::ownership::{compute_can_use, Sharing};
use super::renderpass::ops::UseOps;
use super::renderpass::RenderPassGrouping;
use super::resource_uses::ResourceUses;
use super::Schedule;
use crate::access::{ScopeTable, SyncScope, TargetClass};
use crate::graph::{Graph, PassId, QueueKind, ResourceId};
use crate::plan::TransferHalf;
use crate::sync::{AccessMask, Layout, StageMask};

/// A barrier before a pass, with ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierDraft {
    /// Pass the barrier is recorded before.
    pub before: PassId,
    /// The resource.
    pub resource: ResourceId,
    /// Stages waited on.
    pub src_stage: StageMask,
    /// Accesses made available.
    pub src_access: AccessMask,
    /// Stages that wait.
    pub dst_stage: StageMask,
    /// Accesses made visible.
    pub dst_access: AccessMask,
    /// Layout transition, if any (for transfer halves: the layouts, equal when none).
    pub layouts: Option<(Layout, Layout)>,
    /// Recorded right after `before` (the last subpass of its render pass) instead of before.
    pub after: bool,
    /// Ownership-transfer half: source queue, destination queue, which half.
    pub transfer: Option<(QueueKind, QueueKind, TransferHalf)>,
}

impl BarrierDraft {
    fn plain(
        before: PassId,
        resource: ResourceId,
        src: (StageMask, AccessMask),
        dst: (StageMask, AccessMask),
        layouts: Option<(Layout, Layout)>,
    ) -> Self {
        BarrierDraft {
            before,
            resource,
            src_stage: src.0,
            src_access: src.1,
            dst_stage: dst.0,
            dst_access: dst.1,
            layouts,
            after: false,
            transfer: None,
        }
    }
}

/// A hazard between passes on different queues, to be covered by a semaphore.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrossQueueHazard {
    /// Earlier pass.
    pub from: PassId,
    /// Later pass.
    pub to: PassId,
    /// The resource.
    pub resource: ResourceId,
}

/// Output of the barrier phase.
#[derive(Clone, Debug, Default)]
pub struct Barriers {
    /// Barriers in execution order of `before`.
    pub barriers: Vec<BarrierDraft>,
    /// Hazards across queues, in execution order of `to`.
    pub cross_queue: Vec<CrossQueueHazard>,
    /// Per resource: its first kept use and what its uses on each queue add to a later
    /// occupant's barrier, gathered by the table pass for the aliasing barriers
    /// ([`super::alias_barriers`]) so that they need not walk the uses again.
    pub(crate) resource_uses: Vec<ResourceUses>,
    /// Per resource: index in `barriers` of its plain barrier before the render pass of its
    /// first use (`u32::MAX` for none), for the aliasing barriers to extend; empty when the
    /// phase could not keep track (the barriers were reordered).
    pub(crate) first_use_barrier: Vec<u32>,
}

/// One kept use, as the replays see it. Entries `0..uses` of the table are the kept uses in
/// execution order (built once: the access-scope lookup is made once per use, not by each
/// replay); transitions routed to graphics are appended after them.
#[derive(Clone, Copy, Debug)]
struct Facts {
    pass: PassId,
    resource: ResourceId,
    queue: QueueKind,
    writes: bool,
    /// Render pass of `pass`, [`NO_GROUP`] for none.
    group: u32,
    scope: SyncScope,
}

/// No render pass (a [`Facts::group`] or [`State::layout_group`]).
const NO_GROUP: u32 = u32::MAX;

/// A use held in the replay state: its index in the [`Facts`] table and two flags, so that
/// the state copies four bytes rather than a whole record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Prior(u32);

impl Prior {
    /// A use of the previous frame: no subpass dependency of this frame covers it, and across
    /// queues the frame boundary does (no semaphore in this frame).
    const PREVIOUS_FRAME: u32 = 1 << 31;
    /// Recorded outside any render pass (a transition before its render pass begins).
    const OUTSIDE: u32 = 1 << 30;

    fn of(index: usize) -> Prior {
        debug_assert!(index < Self::OUTSIDE as usize, "fewer than 2^30 uses");
        Prior(index as u32)
    }

    fn index(self) -> usize {
        (self.0 & !(Self::PREVIOUS_FRAME | Self::OUTSIDE)) as usize
    }

    fn previous_frame(self) -> bool {
        self.0 & Self::PREVIOUS_FRAME != 0
    }

    fn with(self, flag: u32) -> Prior {
        Prior(self.0 | flag)
    }

    /// True when a subpass dependency of render pass `group` ([`NO_GROUP`] for none)
    /// orders this use (`facts`) before a use in that render pass.
    fn in_group(self, facts: &Facts, group: u32) -> bool {
        // (`&`, not `&&`: one test rather than three data-dependent branches.)
        (self.0 & (Self::PREVIOUS_FRAME | Self::OUTSIDE) == 0)
            & (group != NO_GROUP)
            & (facts.group == group)
    }
}

/// Per-resource replay state; its lists live in the [`Arenas`], its uses in the [`Facts`]
/// table.
#[derive(Clone, Copy, Debug)]
struct State {
    last_write: Option<Prior>,
    /// Reads since the last write.
    readers: Chain,
    layout: Option<Layout>,
    /// Render pass whose use set `layout`, [`NO_GROUP`] for none.
    layout_group: u32,
    /// (queue, stages, accesses) scopes the last write has been made visible to. Kept as
    /// triples: a barrier making sampled reads visible to compute and another making
    /// input-attachment reads visible to fragment do not make sampled reads visible to
    /// fragment, and a barrier on one queue makes nothing visible on the other.
    visible: Chain,
    /// Last use in this frame (its queue owns an exclusive resource).
    last_use: Option<Prior>,
    /// The use that left the resource in its current layout (where routed transitions go).
    layout_prior: Option<Prior>,
    /// Pass that performed the latest layout transition since the last write, when readers
    /// on the other queue must wait for it.
    layout_writer: Option<Prior>,
    /// Per queue: index in the barriers of the resource's latest plain barrier there
    /// (`u32::MAX` for none).
    batch: [u32; 2],
}

impl Default for State {
    fn default() -> Self {
        State {
            last_write: None,
            readers: Chain::EMPTY,
            layout: None,
            layout_group: NO_GROUP,
            visible: Chain::EMPTY,
            last_use: None,
            layout_prior: None,
            layout_writer: None,
            batch: [u32::MAX; 2],
        }
    }
}

/// The nodes of every resource's lists.
struct Arenas {
    readers: Chains<Prior>,
    visible: Chains<(QueueKind, StageMask, AccessMask)>,
}

/// Derives barriers and cross-queue hazards for the scheduled frame; `ops` are the load and
/// store operations of the render passes of `grouping`, `sharing` (indexed by resource) says
/// which resources change owners with transfers.
pub fn barriers(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
    ops: &UseOps,
    sharing: &[Sharing],
) -> Barriers {
    let scopes = ScopeTable::new();
    let classes: Vec<TargetClass> = graph.resources.iter().map(|r| r.target().class()).collect();
    let two_queues = schedule
        .order
        .iter()
        .any(|&p| schedule.queue[p.index()] != QueueKind::Graphics);
    let frame = Frame {
        graph,
        schedule,
        grouping,
        ops,
        sharing,
        scopes: &scopes,
        classes: &classes,
        two_queues,
    };
    // On one queue, first assume that the images whose content is never needed are first
    // written (settled at the end) and check it at their first use; a frame where that fails
    // is replayed again with every resource settled by the walk over the uses.
    if !two_queues {
        if let Some(out) = replay(&frame, assumed_entering(graph)) {
            return out;
        }
        log::trace!("barriers: an image's first use does not write it; replayed after a walk");
    }
    // (`per_frame` resources are pending too: walked into the table with the others, then
    // made fresh by `settle`.)
    replay(&frame, vec![PENDING; graph.resources.len()]).unwrap_or_default()
}

/// What the replay reads besides the uses.
struct Frame<'a> {
    graph: &'a Graph,
    schedule: &'a Schedule,
    grouping: &'a RenderPassGrouping,
    ops: &'a UseOps,
    sharing: &'a [Sharing],
    scopes: &'a ScopeTable,
    classes: &'a [TargetClass],
    two_queues: bool,
}

/// The replay of the frame's uses from the state each resource enters it in (flags per
/// resource: from [`assumed_entering`], or all [`PENDING`]). `None` when a resource assumed
/// settled turns out not to be ([`VERIFY`]): never when all are pending.
fn replay(frame: &Frame, entering: Vec<Flags>) -> Option<Barriers> {
    if frame.two_queues {
        replay_on::<true>(frame, entering)
    } else {
        replay_on::<false>(frame, entering)
    }
}

/// [`replay`], compiled once for each number of queues: on one queue (`TWO_QUEUES` false)
/// every use is on graphics, so the tests of queues (hand-overs, routed transitions, waits
/// across queues, the queue of a visibility scope) are known false and compiled out, which
/// leaves the per-use path of a frame on one queue short.
fn replay_on<const TWO_QUEUES: bool>(frame: &Frame, mut entering: Vec<Flags>) -> Option<Barriers> {
    let Frame {
        graph,
        schedule,
        grouping,
        ops,
        sharing,
        scopes,
        classes,
        two_queues: _,
    } = *frame;
    debug_assert_eq!(frame.two_queues, TWO_QUEUES);
    // (Every use is on `queue` when there is one.)
    let other_queue = |a: QueueKind, b: QueueKind| TWO_QUEUES && a != b;
    let uses: usize = schedule
        .order
        .iter()
        .map(|&p| graph.pass(p).uses.len())
        .sum();
    // Room for the previous frame's uses replayed first, and (two queues) for routed
    // transitions and hand-overs: growing these tables copies them whole.
    let room = if TWO_QUEUES { 2 * uses } else { uses };
    let mut facts = Vec::with_capacity(room);
    let mut arenas = Arenas {
        readers: Chains::with_capacity(room),
        visible: Chains::with_capacity(uses / 2),
    };
    // Every use is in the table already when every resource was pending.
    let tabled = entering.iter().all(|&f| f & PENDING != 0);
    let mut next = 0;
    let mut state = initial_states(
        graph,
        schedule,
        grouping,
        (scopes, classes, ops),
        &mut entering,
        &mut facts,
        &mut arenas.readers,
    );
    // Per resource: index of the plain barrier before the render pass of its first use.
    let mut first_barrier = vec![u32::MAX; graph.resources.len()];
    let mut out = Barriers {
        barriers: Vec::with_capacity(uses),
        cross_queue: Vec::with_capacity(if TWO_QUEUES { uses / 2 } else { 0 }),
        resource_uses: vec![ResourceUses::default(); graph.resources.len()],
        first_use_barrier: Vec::new(),
    };
    // Whether the barriers recorded before their pass are in execution order so far (they
    // are unless async-compute passes sit between the subpasses of a render pass).
    let mut sorted = true;
    let mut last_anchor_position = None;
    let mut after: Vec<BarrierDraft> = Vec::with_capacity(if TWO_QUEUES { uses / 4 } else { 0 });
    let end_of = |p: PassId| {
        grouping.group_of[p.index()]
            .and_then(|g| grouping.groups[g as usize].last().copied())
            .unwrap_or(p)
    };
    for (position, &pass) in schedule.order.iter().enumerate() {
        let p = graph.pass(pass);
        let queue = schedule.queue[pass.index()];
        let group = grouping.group_of[pass.index()];
        let anchor = group.map_or(pass, |g| grouping.groups[g as usize][0]);
        let group = group.unwrap_or(NO_GROUP);
        let slot = usize::from(queue != QueueKind::Graphics);
        let barriers_before = out.barriers.len();
        for (use_index, u) in p.uses.iter().enumerate() {
            let resource = u.resource;
            let (k, scope, writes) = if tabled {
                next += 1;
                (next - 1, facts[next - 1].scope, facts[next - 1].writes)
            } else {
                let (scope, writes) = ops.fold(
                    pass,
                    use_index,
                    p.use_scope(u, scopes.scope(u.access, p.kind, classes[resource.index()])),
                    u.access.writes(),
                );
                // This use's facts, for the later uses that wait for it.
                facts.push(Facts {
                    pass,
                    resource,
                    queue,
                    writes,
                    group,
                    scope,
                });
                (facts.len() - 1, scope, writes)
            };
            let flags = &mut entering[resource.index()];
            if *flags & VERIFY != 0 {
                if !(writes && scope.layout.is_some()) {
                    return None;
                }
                *flags &= !VERIFY;
            }
            out.resource_uses[resource.index()].note(position, pass, anchor, queue, scope);
            let me = Prior::of(k);
            let s = &mut state[resource.index()];
            // Hand-overs and routed transitions need a second queue.
            let (handover, routed) = if TWO_QUEUES {
                let exclusive = sharing.get(resource.index()) == Some(&Sharing::Exclusive);
                let handover = match s.last_use {
                    Some(l) if exclusive && facts[l.index()].queue != queue => hand_over(
                        s,
                        &facts,
                        &arenas.readers,
                        l,
                        k,
                        anchor,
                        &end_of,
                        (&mut out.barriers, &mut after),
                    ),
                    _ => HandOver::None,
                };
                if handover != HandOver::None {
                    // The acquire is this resource's barrier in the batch: a later subpass of
                    // the same render pass that needs the image visible to more stages widens
                    // it (barriers of one batch do not chain with each other).
                    s.batch[slot] = out.barriers.len() as u32 - 1;
                }
                // (Only a layout change on compute may need routing: tested here, without
                // the call, for the other uses.)
                let routed = if queue == QueueKind::AsyncCompute
                    && scope.layout.is_some()
                    && s.layout.is_some()
                    && scope.layout != s.layout
                {
                    route_for_compute(s, &mut facts, k, queue, &end_of, &mut after)
                } else {
                    None
                };
                (handover, routed)
            } else {
                (HandOver::None, None)
            };
            let transition = scope.layout.is_some() && scope.layout != s.layout;
            // (Non-short-circuit `&`: these are data-dependent, so one test is better
            // than three branches.)
            let internal_transition = transition & (group != NO_GROUP) & (s.layout_group == group);
            let mut src_stage = StageMask::empty();
            let mut src_access = AccessMask::empty();
            let mut waits_other_queue = false;
            let mut consider = |prior: Prior, is_write: bool| {
                let f = &facts[prior.index()];
                if prior.in_group(f, group) {
                    return; // a subpass dependency of the render pass covers it
                }
                if other_queue(f.queue, queue) {
                    waits_other_queue = true;
                    if !prior.previous_frame() {
                        // Wait before the render pass begins: its barriers (layout
                        // transitions included) are recorded there, before any subpass.
                        out.cross_queue.push(CrossQueueHazard {
                            from: f.pass,
                            to: anchor,
                            resource,
                        });
                    }
                    return;
                }
                src_stage |= f.scope.stages;
                if is_write {
                    src_access |= f.scope.access & AccessMask::WRITES;
                }
            };
            if writes || (transition && !internal_transition) {
                if let Some(w) = s.last_write {
                    consider(w, true);
                }
                for &r in arenas.readers.iter(s.readers) {
                    consider(r, false);
                }
                // A transition since the last write (routed ones run on graphics for a reader
                // on the other queue, so no reader here carries its stages).
                if let Some(t) = s.layout_writer {
                    consider(t, false);
                }
            } else {
                let visible = arenas.visible.iter(s.visible).any(|&(q, st, ac)| {
                    !other_queue(q, queue) && st.contains(scope.stages) && ac.contains(scope.access)
                });
                if let Some(w) = s.last_write {
                    if !visible || other_queue(facts[w.index()].queue, queue) {
                        consider(w, true);
                    }
                }
                // A transition since the last write is a write to wait for: on the other
                // queue always, on this one unless its barrier already covers this read
                // (the barrier must chain after the stages the transition was made for).
                if let Some(t) = s
                    .layout_writer
                    .filter(|t| other_queue(facts[t.index()].queue, queue) || !visible)
                {
                    consider(t, false);
                }
            }
            let needs_transition = transition && !internal_transition;
            if waits_other_queue && needs_transition {
                // Chain after the semaphore wait, which the executor makes on all commands.
                src_stage |= StageMask::ALL_COMMANDS;
            }
            if needs_transition
                && s.layout == Some(Layout::UNDEFINED)
                && entering[resource.index()] & FRESH != 0
            {
                // A per_frame image's first transition: chain after the external semaphore
                // wait, made at this use's stages.
                src_stage |= scope.stages;
            }
            let barrier = !src_stage.is_empty() || needs_transition;
            if barrier {
                record_barrier(
                    &mut out,
                    &mut first_barrier,
                    s,
                    (anchor, slot, resource),
                    (src_stage, src_access),
                    scope,
                    needs_transition,
                );
            }
            advance(
                s,
                &mut arenas,
                me,
                (queue, scope),
                writes,
                group,
                needs_transition || handover == HandOver::Transitioned,
                routed,
                barrier || handover != HandOver::None,
            );
        }
        if out.barriers.len() > barriers_before {
            let position = schedule.position[anchor.index()];
            sorted &= last_anchor_position <= Some(position);
            last_anchor_position = Some(position);
        }
    }
    settle_first_barriers(
        &state,
        &entering,
        &facts,
        &arenas.readers,
        &first_barrier,
        &mut out.barriers,
    );
    present_barriers(graph, &state, &facts, &arenas.readers, &end_of, &mut after);
    persistent_exit_barriers(graph, &state, &facts, &arenas.readers, &end_of, &mut after);
    merge_in_order(&mut out, after, schedule, sorted, first_barrier);
    Some(out)
}

/// Records the barrier a use needs before its render pass (or pass): folded into the
/// resource's barrier of the batch being built when there is one, else a new barrier (the
/// resource's first-use barrier when it is the first before its first use's render pass).
#[inline(always)] // the per-use path of the replay
fn record_barrier(
    out: &mut Barriers,
    first_barrier: &mut [u32],
    s: &mut State,
    (anchor, slot, resource): (PassId, usize, ResourceId),
    (src_stage, src_access): (StageMask, AccessMask),
    scope: SyncScope,
    needs_transition: bool,
) {
    let layouts = needs_transition.then(|| {
        (
            s.layout.unwrap_or(Layout::UNDEFINED),
            scope.layout.unwrap_or(Layout::UNDEFINED),
        )
    });
    // One barrier per resource per batch: the passes of one render pass are
    // contiguous on their queue (async-compute passes may sit between them in the
    // order), so the resource's latest barrier on this queue is in the batch
    // being built exactly when it is recorded before the same pass.
    // A transition never folds into a barrier that already changes the layout
    // otherwise (an acquire that keeps the old layout for graphics to change), and
    // a write to make available never folds into an acquire (Vulkan ignores an
    // acquire's source access mask).
    let batched = out.barriers.get_mut(s.batch[slot] as usize).filter(|b| {
        b.before == anchor
            && (layouts.is_none() || b.layouts.is_none() || b.layouts == layouts)
            && (b.transfer.is_none() || src_access.is_empty())
    });
    match batched {
        Some(b) => {
            b.src_stage |= src_stage;
            b.src_access |= src_access;
            b.dst_stage |= scope.stages;
            b.dst_access |= scope.access;
            if b.layouts.is_none() {
                b.layouts = layouts;
            }
        }
        None => {
            let first = &mut first_barrier[resource.index()];
            if *first == u32::MAX
                && out.resource_uses[resource.index()].first_anchor() == Some(anchor)
            {
                *first = out.barriers.len() as u32;
            }
            s.batch[slot] = out.barriers.len() as u32;
            out.barriers.push(BarrierDraft::plain(
                anchor,
                resource,
                (src_stage, src_access),
                (scope.stages, scope.access),
                layouts,
            ));
        }
    }
}

/// The resource's state after a use: the last write (a write clears the readers, the
/// transition and the visibility), or a reader with what its barrier made visible and the
/// transition it made; the layout it leaves.
#[allow(clippy::too_many_arguments)] // the use's facts, each read once
#[inline(always)] // the per-use path of the replay
fn advance(
    s: &mut State,
    arenas: &mut Arenas,
    me: Prior,
    (queue, scope): (QueueKind, SyncScope),
    writes: bool,
    group: u32,
    transitioned: bool,
    routed: Option<Prior>,
    made_visible: bool,
) {
    if writes {
        s.last_write = Some(me);
        s.readers = Chain::EMPTY;
        s.layout_writer = None;
        s.visible = Chain::EMPTY;
    } else {
        if transitioned {
            s.readers = Chain::EMPTY;
            s.visible = Chain::EMPTY;
            // Recorded before the render pass (if any), so outside it: later
            // subpasses still need a barrier for it, not a subpass dependency.
            s.layout_writer = Some(me.with(Prior::OUTSIDE));
        } else if let Some(by) = routed {
            s.layout_writer = Some(by);
        }
        if made_visible {
            arenas
                .visible
                .push(&mut s.visible, (queue, scope.stages, scope.access));
        }
        arenas.readers.push(&mut s.readers, me);
    }
    s.last_use = Some(me);
    // (Selects, not a branch: buffers and images are used in any mix.)
    let sets_layout = scope.layout.is_some();
    s.layout = if sets_layout { scope.layout } else { s.layout };
    s.layout_group = if sets_layout { group } else { s.layout_group };
    s.layout_prior = if sets_layout {
        Some(me)
    } else {
        s.layout_prior
    };
}

/// The previous frame's uses of the resources settled at the end: their state leaving
/// this frame is the state they enter it in, so their first barrier (a write) waits for
/// its last write, the reads since and a transition since, as `consider` does for them
/// (all on the same queue, none in this frame's render passes). That barrier is the one
/// made at the first use: it always makes one.
fn settle_first_barriers(
    state: &[State],
    entering: &[Flags],
    facts: &[Facts],
    readers: &Chains<Prior>,
    first_barrier: &[u32],
    barriers: &mut [BarrierDraft],
) {
    for (r, s) in state.iter().enumerate() {
        if entering[r] & SETTLED == 0 {
            continue;
        }
        let Some(b) = barriers.get_mut(first_barrier[r] as usize) else {
            continue;
        };
        if let Some(w) = s.last_write {
            let w = &facts[w.index()].scope;
            b.src_stage |= w.stages;
            b.src_access |= w.access & AccessMask::WRITES;
        }
        for r in readers.iter(s.readers) {
            b.src_stage |= facts[r.index()].scope.stages;
        }
        if let Some(t) = s.layout_writer {
            b.src_stage |= facts[t.index()].scope.stages;
        }
    }
}

/// Barriers recorded after a pass were emitted when its consumer was replayed: merge them
/// in by position (the before-barriers are already in order unless async passes sit
/// between the subpasses of a render pass).
fn merge_in_order(
    out: &mut Barriers,
    after: Vec<BarrierDraft>,
    schedule: &Schedule,
    sorted: bool,
    mut first_barrier: Vec<u32>,
) {
    let key = |b: &BarrierDraft| (schedule.position[b.before.index()], b.after);
    if !sorted {
        out.barriers = in_execution_order(&out.barriers, schedule);
    }
    if !after.is_empty() {
        let after = in_execution_order(&after, schedule);
        let before = std::mem::take(&mut out.barriers);
        let mut merged = Vec::with_capacity(before.len() + after.len());
        // Where each barrier recorded before its pass lands (the first-use barriers move by
        // the after-barriers merged in before them; their order stays).
        let mut moved = Vec::with_capacity(if sorted { before.len() } else { 0 });
        let mut rest = after.into_iter().peekable();
        for b in before {
            while rest.peek().is_some_and(|a| key(a) < key(&b)) {
                merged.extend(rest.next());
            }
            if sorted {
                moved.push(merged.len() as u32);
            }
            merged.push(b);
        }
        merged.extend(rest);
        out.barriers = merged;
        for i in &mut first_barrier {
            if let Some(&to) = moved.get(*i as usize) {
                *i = to;
            }
        }
    }
    if sorted {
        out.first_use_barrier = first_barrier;
    }
}

/// `barriers` sorted stably by the position of their pass, those recorded after it last.
/// The barriers are not moved by the sort: their keys are sorted (`position << 33 | after
/// << 32 | index`, distinct, so an unstable sort gives the stable order) and the barriers
/// copied once in that order.
fn in_execution_order(barriers: &[BarrierDraft], schedule: &Schedule) -> Vec<BarrierDraft> {
    let mut keys: Vec<u64> = barriers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            // `None` (never for a kept pass) first, as `Option`'s order has it.
            let position = schedule.position[b.before.index()].map_or(0, |p| u64::from(p) + 1);
            position << 33 | u64::from(b.after) << 32 | i as u64
        })
        .collect();
    keys.sort_unstable();
    keys.iter()
        .map(|&k| barriers[k as u32 as usize].clone())
        .collect()
}

/// For each image that exits in `present`: one barrier right after its last use (after
/// the end of that use's render pass) that waits for the frame's last accesses to it (the
/// last write, the store operation of its render pass included, and the reads since) and
/// changes its layout to `PRESENT_SRC_KHR`, with no second scope (the presentation engine
/// waits on the semaphore the executor signals after it). Validation keeps these images on
/// the graphics queue.
fn present_barriers(
    graph: &Graph,
    state: &[State],
    facts: &[Facts],
    readers: &Chains<Prior>,
    end_of: &dyn Fn(PassId) -> PassId,
    after: &mut Vec<BarrierDraft>,
) {
    for (r, s) in graph.resources.iter().zip(state) {
        if !r.is_presented() {
            continue;
        }
        let Some(last) = s.last_use else { continue };
        let last = &facts[last.index()];
        let mut src = (StageMask::empty(), AccessMask::empty());
        if let Some(w) = s.last_write {
            let w = &facts[w.index()].scope;
            src = (w.stages, w.access & AccessMask::WRITES);
        }
        for p in readers.iter(s.readers).chain(&s.layout_writer) {
            src.0 |= facts[p.index()].scope.stages;
        }
        let mut b = BarrierDraft::plain(
            end_of(last.pass),
            last.resource,
            src,
            (StageMask::empty(), AccessMask::empty()),
            Some((
                s.layout.unwrap_or(Layout::UNDEFINED),
                Layout::PRESENT_SRC_KHR,
            )),
        );
        b.after = true;
        after.push(b);
    }
}

/// What an ownership hand-over did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HandOver {
    /// No hand-over at this use.
    None,
    /// A release/acquire pair without a layout change in between.
    Kept,
    /// A release/acquire pair (or a routed barrier before the release) changed the layout.
    Transitioned,
}

/// For an exclusive resource whose last use `l` was on the other queue: a release after that
/// use and an acquire before use `k` (anchored at `anchor`). A transition the compute queue
/// cannot perform is done on graphics: before the release when graphics gives the image up,
/// after the acquire (by the ordinary path) when graphics takes it.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn hand_over(
    s: &mut State,
    facts: &[Facts],
    readers: &Chains<Prior>,
    l: Prior,
    k: usize,
    anchor: PassId,
    end_of: &dyn Fn(PassId) -> PassId,
    (before, out): (&mut Vec<BarrierDraft>, &mut Vec<BarrierDraft>),
) -> HandOver {
    let Facts {
        pass,
        resource,
        queue,
        scope,
        ..
    } = facts[k];
    let l = &facts[l.index()];
    let old = s.layout.unwrap_or(Layout::UNDEFINED);
    let new = scope.layout.unwrap_or(old);
    let mut pair = (old, new);
    let mut release_src = (l.scope.stages, l.scope.access & AccessMask::WRITES);
    // The release may carry the layout transition: it must wait for every read on the old
    // queue since the last write, not only for the last use.
    for r in readers.iter(s.readers).map(|r| &facts[r.index()]) {
        if r.queue == l.queue {
            release_src.0 |= r.scope.stages;
        }
    }
    if old != new && !(compute_can_use(old) && compute_can_use(new)) {
        if l.queue == QueueKind::Graphics {
            log::debug!(
                "transition of resource #{} {old} -> {new} routed to graphics before its release",
                resource.index()
            );
            let mut b = BarrierDraft::plain(
                end_of(l.pass),
                resource,
                release_src,
                (StageMask::ALL_COMMANDS, AccessMask::empty()),
                Some((old, new)),
            );
            b.after = true;
            out.push(b);
            release_src = (StageMask::ALL_COMMANDS, AccessMask::empty());
            pair = (new, new);
        } else {
            pair = (old, old);
        }
    }
    log::debug!(
        "ownership of resource #{} moves {} -> {} at pass #{}",
        resource.index(),
        l.queue,
        queue,
        pass.index()
    );
    let mut release = BarrierDraft::plain(
        end_of(l.pass),
        resource,
        release_src,
        (StageMask::empty(), AccessMask::empty()),
        Some(pair),
    );
    release.after = true;
    release.transfer = Some((l.queue, queue, TransferHalf::Release));
    out.push(release);
    let mut acquire = BarrierDraft::plain(
        anchor,
        resource,
        (StageMask::ALL_COMMANDS, AccessMask::empty()),
        (scope.stages, scope.access),
        Some(pair),
    );
    acquire.transfer = Some((l.queue, queue, TransferHalf::Acquire));
    before.push(acquire);
    s.layout = Some(pair.1);
    if pair.0 != pair.1 {
        HandOver::Transitioned
    } else {
        HandOver::Kept
    }
}

/// A transition on the compute queue (use `k` on `queue`) out of a layout it cannot use is
/// recorded on graphics, right after the use that left the image in that layout (for content
/// from the previous frame: after the frame's last use, which is that use). Returns the
/// transition as a write for later readers to wait for (appended to `facts`).
#[inline(never)]
fn route_for_compute(
    s: &mut State,
    facts: &mut Vec<Facts>,
    k: usize,
    queue: QueueKind,
    end_of: &dyn Fn(PassId) -> PassId,
    out: &mut Vec<BarrierDraft>,
) -> Option<Prior> {
    if queue != QueueKind::AsyncCompute {
        return None;
    }
    let Facts {
        pass,
        resource,
        scope,
        ..
    } = facts[k];
    let (Some(old), Some(new)) = (s.layout, scope.layout) else {
        return None;
    };
    if old == new || compute_can_use(old) {
        return None;
    }
    let by = s
        .layout_prior
        .filter(|b| facts[b.index()].queue == QueueKind::Graphics)?;
    let by_facts = facts[by.index()];
    log::debug!("transition of resource #{} {old} -> {new} for compute pass #{} routed to graphics after pass #{}", resource.index(), pass.index(), by_facts.pass.index());
    // Named as the resource is where it is recorded: for the previous half of a
    // double-buffered history pair, last frame's use was of its twin (the same image then).
    let mut b = BarrierDraft::plain(
        end_of(by_facts.pass),
        by_facts.resource,
        (
            by_facts.scope.stages,
            by_facts.scope.access & AccessMask::WRITES,
        ),
        (scope.stages, scope.access),
        Some((old, new)),
    );
    b.after = true;
    out.push(b);
    s.layout = Some(new);
    // The transition is a write on graphics whose second scope is the compute stages: later
    // graphics readers must chain after those (outside any render pass: it is recorded after).
    // Also for content from the previous frame (routed after that frame's last use): this
    // frame's graphics readers still chain after it.
    Some(routed_transition(facts, by, scope))
}

/// Per resource: what is known of the state it enters the frame in (the bits below).
type Flags = u16;

/// Flags: the resource enters the frame in the state it leaves it in: it is used on
/// one queue (no hand-over, no routed transition), and it is unused or an image whose
/// content is not needed and whose first use writes it (a barrier with a transition from
/// `UNDEFINED` is always made there, and the state after it does not depend on the state
/// before). Its first barrier's wait for the previous frame is completed from the state
/// after this frame's replay instead of replaying the frame twice (the transient images).
const SETTLED: Flags = 1;
/// Flags: the resource is an image whose content is not needed when the frame starts
/// (it starts in `UNDEFINED`).
const UNDEFINED: Flags = 2;

/// [`assumed_entering`]: settled, provided that the first use writes a layout (checked
/// there by the replay).
const VERIFY: Flags = 4;
/// [`assumed_entering`]: not known before the uses are walked ([`initial_states`] does).
const PENDING: Flags = 8;
/// Scratch bits of a [`PENDING`] resource while its uses are walked: it is used, its first
/// use keeps the content, its first use writes a layout.
const SEEN: Flags = 16;
/// Flags: a `per_frame` resource, a different object every frame: it enters the frame with
/// no prior accesses (images in `UNDEFINED`), so nothing of the previous frame is replayed
/// or waited for; the first barrier of an image (its transition from `UNDEFINED`) waits on
/// its first use's own stages, which chains it after the semaphore the executor waits on
/// there (the plan's `external` entry).
const FRESH: Flags = 512;
const KEEPS: Flags = 32;
const WRITES_LAYOUT: Flags = 64;
/// Scratch bits of a [`PENDING`] resource: used on the graphics queue, on the other.
const ON_GRAPHICS: Flags = 128;
const ON_COMPUTE: Flags = 256;
/// Flags: a persistent resource: it enters the frame at rest ([`enter_at_rest`]), whatever
/// this plan's uses are (the previous frame may have run another plan).
const REST: Flags = 1024;

/// The flags of a frame on one queue, without walking the uses: an image whose content
/// is never needed (not imported, or cleared on first use) is settled when its first use
/// writes a layout, which the replay checks ([`VERIFY`]); an unused one is settled anyway.
/// The others (buffers, imported images) are [`PENDING`].
fn assumed_entering(graph: &Graph) -> Vec<Flags> {
    graph
        .resources
        .iter()
        .map(|r| {
            if r.is_per_frame() {
                fresh(r)
            } else if r.is_kept_across_plans() {
                REST
            } else if r.history_twin().is_some() {
                PENDING // enters in the state its twin leaves
            } else if r.image_desc().is_some() && (!r.is_persistent() || r.clear_on_first_use()) {
                SETTLED | UNDEFINED | VERIFY
            } else {
                PENDING
            }
        })
        .collect()
}

/// The flags of a `per_frame` resource: [`FRESH`], and [`UNDEFINED`] for an image.
fn fresh(r: &crate::graph::Resource) -> Flags {
    FRESH | (Flags::from(r.image_desc().is_some()) * UNDEFINED)
}

/// Whether a resource is [`SETTLED`] and [`UNDEFINED`], from what its uses showed
/// ([`SEEN`], [`KEEPS`], [`WRITES_LAYOUT`]) and whether they are on one queue
/// ([`FRESH`] for a `per_frame` one, whatever its uses).
fn settle(r: &crate::graph::Resource, first: Flags) -> Flags {
    if r.is_per_frame() {
        return fresh(r);
    }
    if r.is_kept_across_plans() {
        return REST;
    }
    let content_needed = r.is_persistent() && !r.clear_on_first_use() && first & KEEPS != 0;
    let undefined = r.image_desc().is_some() && !content_needed;
    // (An unused resource has no state to settle.)
    let one_queue = first & (ON_GRAPHICS | ON_COMPUTE) != ON_GRAPHICS | ON_COMPUTE;
    // A half of a double-buffered history pair enters in the state its twin leaves, not its
    // own: never settled.
    let settled = r.history_twin().is_none()
        && (first & SEEN == 0 || undefined && first & WRITES_LAYOUT != 0 && one_queue);
    (Flags::from(settled) * SETTLED) | (Flags::from(undefined) * UNDEFINED)
}

/// First-use bits ([`SEEN`], [`KEEPS`], [`WRITES_LAYOUT`]) of a use (`scope`, `writes`:
/// with the attachment operations at it).
fn first_use(u: &crate::graph::Use, scope: &SyncScope, writes: bool) -> Flags {
    SEEN | (Flags::from(u.access.keeps_content(u.clear)) * KEEPS)
        | (Flags::from(writes && scope.layout.is_some()) * WRITES_LAYOUT)
}

/// The state each resource enters the frame in: the accesses of the previous frame (the
/// same plan, layout transitions for reads included: later readers wait for them), and the
/// layout its content is in (`UNDEFINED` when it is not needed, else the frame's last
/// layout). Only the resources not [`SETTLED`] need the previous frame's uses: their uses
/// are put in the [`Facts`] table first (this frame's follow them) and replayed; the walk
/// also settles the [`PENDING`] ones. When every resource is pending (two queues), the
/// table holds every use, in order, and the replay of this frame reads it.
#[inline(never)] // a step of its own in profiles
fn initial_states(
    graph: &Graph,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
    (scopes, classes, ops): (&ScopeTable, &[TargetClass], &UseOps),
    entering: &mut [Flags],
    facts: &mut Vec<Facts>,
    readers: &mut Chains<Prior>,
) -> Vec<State> {
    // Nothing to replay when every resource is settled at the end (or fresh, or at rest).
    if entering.iter().all(|&f| f & (SETTLED | FRESH | REST) != 0) {
        let mut state: Vec<State> = entering
            .iter()
            .map(|&f| State {
                layout: (f & UNDEFINED != 0).then_some(Layout::UNDEFINED),
                ..State::default()
            })
            .collect();
        enter_at_rest(graph, schedule, entering, facts, &mut state);
        return state;
    }
    // The uses of the others (and of the pending ones), and the frame's last layout of
    // each (the start layout of those whose content is needed). The previous frame's uses
    // of one half of a double-buffered history pair are those of the physical resource it
    // is this frame: its twin's.
    let mut end_layout: Vec<Option<Layout>> = vec![None; entering.len()];
    let entering_as = |id: ResourceId| graph.resource(id).history_twin().unwrap_or(id);
    for &pass in &schedule.order {
        let p = graph.pass(pass);
        let group = grouping.group_of[pass.index()].unwrap_or(NO_GROUP);
        for (use_index, u) in p.uses.iter().enumerate() {
            let r = u.resource.index();
            if entering[r] & (SETTLED | FRESH | REST) != 0 {
                continue;
            }
            let (scope, writes) = ops.fold(
                pass,
                use_index,
                p.use_scope(u, scopes.scope(u.access, p.kind, classes[r])),
                u.access.writes(),
            );
            let queue = schedule.queue[pass.index()];
            let f = &mut entering[r];
            if *f & PENDING != 0 {
                if *f & SEEN == 0 {
                    *f |= first_use(u, &scope, writes);
                }
                *f |= match queue {
                    QueueKind::Graphics => ON_GRAPHICS,
                    QueueKind::AsyncCompute => ON_COMPUTE,
                };
            }
            let as_previous = entering_as(u.resource);
            if scope.layout.is_some() {
                end_layout[as_previous.index()] = scope.layout;
            }
            facts.push(Facts {
                pass,
                resource: u.resource,
                queue,
                writes,
                group,
                scope,
            });
        }
    }
    for (f, r) in entering.iter_mut().zip(&graph.resources) {
        if *f & PENDING != 0 {
            *f = settle(r, *f);
        }
    }
    let start_layout: Vec<Option<Layout>> = entering
        .iter()
        .zip(&end_layout)
        .map(|(&f, &end)| {
            if f & UNDEFINED != 0 {
                Some(Layout::UNDEFINED)
            } else {
                end
            }
        })
        .collect();
    let mut state: Vec<State> = start_layout
        .iter()
        .map(|&layout| State {
            layout,
            ..State::default()
        })
        .collect();
    let replayed = facts.len();
    for k in 0..replayed {
        let Facts {
            resource,
            queue,
            writes,
            group,
            scope,
            ..
        } = facts[k];
        if entering[resource.index()] & (SETTLED | FRESH | REST) != 0 {
            continue; // a pending resource that turned out settled, a per_frame one, or at rest
        }
        let s = &mut state[entering_as(resource).index()];
        let me = Prior::of(k).with(Prior::PREVIOUS_FRAME);
        // As in the frame itself: a transition between subpasses of one render pass is
        // the render pass's own, not a barrier's.
        let internal = group != NO_GROUP && s.layout_group == group;
        let transition = scope.layout.is_some() && scope.layout != s.layout && !internal;
        if writes {
            s.last_write = Some(me);
            s.readers = Chain::EMPTY;
            s.layout_writer = None;
        } else {
            if transition {
                s.readers = Chain::EMPTY;
                // A transition the compute queue cannot perform ran on graphics (routed),
                // not on this pass's queue: recorded on graphics after the use that left the
                // layout, with this reader's stages as its second scope (as
                // `route_for_compute` does).
                let can = |l: Option<Layout>| !matches!(l, Some(l) if !compute_can_use(l));
                let routed =
                    queue == QueueKind::AsyncCompute && !(can(s.layout) && can(scope.layout));
                s.layout_writer = if routed {
                    s.layout_prior
                        .filter(|b| facts[b.index()].queue == QueueKind::Graphics)
                        .map(|by| routed_transition(facts, by, scope))
                } else {
                    Some(me)
                };
            }
            readers.push(&mut s.readers, me);
        }
        if scope.layout.is_some() {
            s.layout = scope.layout;
            s.layout_group = group;
            s.layout_prior = Some(me);
        }
    }
    for (s, &layout) in state.iter_mut().zip(&start_layout) {
        if layout == Some(Layout::UNDEFINED) {
            s.layout_prior = None;
        }
        s.layout = layout;
        s.layout_group = NO_GROUP;
        s.visible = Chain::EMPTY;
    }
    enter_at_rest(graph, schedule, entering, facts, &mut state);
    state
}

/// The state each persistent resource ([`REST`]) enters the frame in: last written by the
/// previous frame at `ALL_COMMANDS` on the queue of its first use here (a fact appended to
/// `facts`), nothing made visible, an image in `SHADER_READ_ONLY_OPTIMAL`. Its first use
/// therefore always waits for all earlier work on its queue and has the content made
/// visible to it, whichever plan the previous frame ran.
fn enter_at_rest(
    graph: &Graph,
    schedule: &Schedule,
    entering: &[Flags],
    facts: &mut Vec<Facts>,
    state: &mut [State],
) {
    if !entering.iter().any(|&f| f & REST != 0) {
        return;
    }
    let mut first: Vec<Option<PassId>> = vec![None; entering.len()];
    for &pass in &schedule.order {
        for u in &graph.pass(pass).uses {
            first[u.resource.index()].get_or_insert(pass);
        }
    }
    for (r, res) in graph.resources.iter().enumerate() {
        if entering[r] & REST == 0 {
            continue;
        }
        let layout = res
            .image_desc()
            .map(|_| crate::graph::PERSISTENT_REST_LAYOUT);
        let Some(pass) = first[r] else {
            state[r] = State {
                layout,
                ..State::default()
            };
            continue;
        };
        facts.push(Facts {
            pass,
            resource: ResourceId(r as u32),
            queue: schedule.queue[pass.index()],
            writes: true,
            group: NO_GROUP,
            scope: SyncScope {
                stages: StageMask::ALL_COMMANDS,
                access: AccessMask::empty(),
                layout,
            },
        });
        state[r] = State {
            last_write: Some(Prior::of(facts.len() - 1).with(Prior::PREVIOUS_FRAME)),
            layout,
            ..State::default()
        };
    }
}

/// The stages a persistent resource is left readable by at the end of a frame on `queue`:
/// fragment and compute shaders on graphics, compute shaders on the compute queue.
pub fn rest_stages(queue: QueueKind) -> StageMask {
    match queue {
        QueueKind::Graphics => StageMask::FRAGMENT_SHADER | StageMask::COMPUTE_SHADER,
        QueueKind::AsyncCompute => StageMask::COMPUTE_SHADER,
    }
}

/// An exit barrier after `pass` that makes `resource`'s `src` work available to the shader
/// reads of its rest on `queue` (and moves an image by `layouts`): what every later frame's
/// plan may start with.
fn to_rest(
    pass: PassId,
    resource: ResourceId,
    src: (StageMask, AccessMask),
    queue: QueueKind,
    layouts: Option<(Layout, Layout)>,
) -> BarrierDraft {
    let reads = AccessMask::SHADER_SAMPLED_READ | AccessMask::SHADER_STORAGE_READ;
    let mut b = BarrierDraft::plain(pass, resource, src, (rest_stages(queue), reads), layouts);
    b.after = true;
    b
}

/// For each persistent resource this frame writes or leaves in another layout than
/// `SHADER_READ_ONLY_OPTIMAL`: one barrier right after its last use (after that use's render
/// pass, on its queue) that waits for the frame's last accesses on that queue (the last
/// write, the reads and transition since), makes the writes available and visible to shader
/// reads at [`rest_stages`], and moves an image back to `SHADER_READ_ONLY_OPTIMAL`.
fn persistent_exit_barriers(
    graph: &Graph,
    state: &[State],
    facts: &[Facts],
    readers: &Chains<Prior>,
    end_of: &dyn Fn(PassId) -> PassId,
    after: &mut Vec<BarrierDraft>,
) {
    let rest = crate::graph::PERSISTENT_REST_LAYOUT;
    for (r, s) in graph.resources.iter().zip(state) {
        if !r.is_kept_across_plans() {
            continue;
        }
        let Some(last) = s.last_use else { continue };
        let written = s.last_write.is_some_and(|w| !w.previous_frame());
        let moved = r.image_desc().is_some() && s.layout != Some(rest);
        if !written && !moved {
            continue;
        }
        let last = &facts[last.index()];
        let mut src = (StageMask::empty(), AccessMask::empty());
        if let Some(w) = s.last_write.filter(|w| !w.previous_frame()) {
            let w = &facts[w.index()];
            let made = (w.scope.stages, w.scope.access & AccessMask::WRITES);
            if w.queue == last.queue {
                src = made;
            } else {
                // Written on the other queue: its writes are made available there too, for
                // the next frame's uses on that queue.
                after.push(to_rest(end_of(w.pass), w.resource, made, w.queue, None));
            }
        }
        for p in readers.iter(s.readers).chain(&s.layout_writer) {
            let f = &facts[p.index()];
            if f.queue == last.queue {
                src.0 |= f.scope.stages;
            }
        }
        if src.0.is_empty() {
            src.0 = StageMask::ALL_COMMANDS;
        }
        let layouts = moved.then(|| (s.layout.unwrap_or(Layout::UNDEFINED), rest));
        after.push(to_rest(
            end_of(last.pass),
            last.resource,
            src,
            last.queue,
            layouts,
        ));
    }
}

/// A layout transition routed to graphics and recorded after the use `by`: a write whose
/// second scope is the stages of the reader it serves (`scope`), outside any render pass.
/// Appended to `facts`.
fn routed_transition(facts: &mut Vec<Facts>, by: Prior, scope: SyncScope) -> Prior {
    let f = Facts {
        scope: SyncScope {
            stages: scope.stages,
            access: AccessMask::empty(),
            layout: scope.layout,
        },
        group: NO_GROUP,
        ..facts[by.index()]
    };
    facts.push(f);
    Prior::of(facts.len() - 1).with(by.0 & Prior::PREVIOUS_FRAME | Prior::OUTSIDE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::Access;
    use crate::caps::{Capabilities, CompileOptions};
    use crate::compile::{cull, deps, levels, order, ownership, renderpass};
    use crate::format::Format;
    use crate::graph::{ImageDesc, Import, Origin};

    /// The phases before this one, as `compile` runs them, then both replays: with the flags
    /// assumed (`None` when the check at a first use fails) and with the flags walked.
    fn both_replays(graph: &Graph) -> (Option<Barriers>, Barriers) {
        let (caps, options) = (Capabilities::desktop(), CompileOptions::ALL);
        super::super::validate::validate(graph, &caps).expect("a valid graph");
        let deps = deps::dependencies(graph);
        let culling = cull::cull(graph, &deps);
        let queue = levels::queues(graph, &caps, &options);
        let (order, grouped) = order::order(graph, &deps, &culling, &caps, &options, &queue);
        let level = levels::levels(graph, &deps, &order, &culling.kept);
        let schedule = Schedule::new(order, level, queue, culling.kept.clone());
        let rp = renderpass::render_passes(graph, &schedule, grouped, &caps, &options)
            .expect("render passes");
        let ownership = ownership::decide(graph, &schedule);
        let scopes = ScopeTable::new();
        let classes: Vec<TargetClass> =
            graph.resources.iter().map(|r| r.target().class()).collect();
        let frame = Frame {
            graph,
            schedule: &schedule,
            grouping: &rp.grouping,
            ops: &rp.ops,
            sharing: &ownership.sharing,
            scopes: &scopes,
            classes: &classes,
            two_queues: false,
        };
        (
            replay(&frame, assumed_entering(graph)),
            replay(&frame, vec![PENDING; graph.resources.len()])
                .expect("a replay after the walk never gives way"),
        )
    }

    /// A frame on one queue: a transient image, a buffer, an imported history image read
    /// before it is written, and an imported image cleared on first use (first `first_use`).
    fn frame(first_use: Access) -> Graph {
        let mut g = Graph::new("settling");
        let desc = ImageDesc::new(Format::R16G16B16A16_SFLOAT, 64, 64);
        let transient = g.image("transient", desc);
        let buffer = g.buffer("buffer", 256);
        let history = g.image("history", desc);
        g.resource_mut(history).origin = Origin::IMPORTED;
        let cleared = g.image("cleared", desc);
        g.resource_mut(cleared).origin = Origin::Imported(Import {
            clear_on_first_use: true,
            ..Import::default()
        });
        g.compute("first")
            .uses(cleared, first_use)
            .uses(buffer, Access::StorageWrite)
            .uses(history, Access::Sampled)
            .uses(transient, Access::StorageWrite)
            .side_effects();
        g.raster("second")
            .uses(transient, Access::Sampled)
            .uses(buffer, Access::StorageRead)
            .uses(cleared, Access::Sampled)
            .uses(history, Access::ColorWriteAll)
            .side_effects();
        g
    }

    #[test]
    fn assumed_settling_replays_as_the_walk_or_gives_way() {
        // First written: the assumption holds and gives the walk's barriers.
        let (assumed, walked) = both_replays(&frame(Access::StorageWrite));
        let assumed = assumed.expect("every image whose content is not needed is written first");
        assert!(!walked.barriers.is_empty());
        assert_eq!(assumed.barriers, walked.barriers);
        assert_eq!(assumed.cross_queue, walked.cross_queue);
        assert_eq!(assumed.first_use_barrier, walked.first_use_barrier);
        // First read: the image cleared on first use is not settled; the assumption fails
        // and `barriers` takes the walk.
        let (assumed, _) = both_replays(&frame(Access::Sampled));
        assert!(assumed.is_none());
    }
}
