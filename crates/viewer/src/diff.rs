//! What changed between two compiled plans: passes, merges, load/store ops, placements,
//! barriers, syncs and bytes.
//!
//! Reads only the two plans (no graph), so any two `tessera plan --json` outputs compare:
//! - passes added or removed (in one plan only, kept or culled), newly culled or kept again
//!   (in both), moved (common passes whose relative order changed), and queue changes;
//! - merges: pairs of passes adjacent in a render pass in one plan and not in the other;
//! - breaks added, removed, or with a changed reason (keyed by the pair of passes);
//! - attachments per resource: the i-th render pass attaching a resource in one plan is
//!   compared with the i-th in the other (load/store op, memoryless, resolve); a different
//!   number of attaching render passes is reported as such;
//! - placements per resource (block, offset, size, lifetime), barriers as multisets (equal
//!   barriers cancel), syncs keyed by (signal, wait), and the byte totals;
//! - history resources keyed by name: a change of buffering (single <-> double) or of bytes,
//!   and history resources in one plan only.
//!
//! Cost: O(n log n) in the plans' sizes.

use crate::format::plural;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::{self, Display, Formatter};
use tessera_graph::graph::QueueKind;
use tessera_graph::plan::{
    Attachment, Barrier, BarrierPosition, Buffering, LoadOp, Placement, Plan, StoreOp, TransferHalf,
};
use tessera_graph::Name;

/// A pass whose queue changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QueueChange {
    /// The pass.
    pub pass: Name,
    /// Queue in the old plan.
    pub before: QueueKind,
    /// Queue in the new plan.
    pub after: QueueKind,
}

/// A break whose reason changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasonChange {
    /// Earlier pass.
    pub after: Name,
    /// Later pass.
    pub before: Name,
    /// Old reason.
    pub old: String,
    /// New reason.
    pub new: String,
}

/// A change to the attachments of one resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttachmentChange {
    /// The resource.
    pub resource: Name,
    /// What changed, in words (e.g. `store STORE -> DONT_CARE in render pass gbuffer..lighting`).
    pub change: String,
}

/// A placement that changed, appeared or disappeared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlacementChange {
    /// The resource.
    pub resource: Name,
    /// Old (block, placement).
    pub old: Option<(usize, Placement)>,
    /// New (block, placement).
    pub new: Option<(usize, Placement)>,
}

/// A history resource whose buffering or bytes changed, or that is one in one plan only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HistoryChange {
    /// The resource (this frame's content).
    pub resource: Name,
    /// Old (buffering, bytes of all its physical resources), if a history resource there.
    pub old: Option<(Buffering, u64)>,
    /// New (buffering, bytes), if a history resource there.
    pub new: Option<(Buffering, u64)>,
    /// The new plan's reason for its buffering (the old one's when it is gone).
    pub reason: String,
}

/// A byte (or count) figure in both plans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FigureChange {
    /// What is counted.
    pub what: &'static str,
    /// Old value.
    pub old: u64,
    /// New value.
    pub new: u64,
}

/// Everything that differs between an old and a new plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PlanDiff {
    /// Passes only in the new plan (kept or culled there).
    pub passes_added: Vec<Name>,
    /// Passes only in the old plan (kept or culled there): gone from the frame.
    pub passes_removed: Vec<Name>,
    /// Passes kept in both whose order relative to the other common passes changed.
    pub passes_moved: Vec<Name>,
    /// Passes kept in the old plan and culled in the new.
    pub newly_culled: Vec<Name>,
    /// Passes culled in the old plan and kept in the new.
    pub no_longer_culled: Vec<Name>,
    /// Queue changes.
    pub queues: Vec<QueueChange>,
    /// Adjacent subpass pairs `(a, b)` merged in the new plan only.
    pub merged: Vec<(Name, Name)>,
    /// Adjacent subpass pairs merged in the old plan only.
    pub split: Vec<(Name, Name)>,
    /// Render pass count (old, new).
    pub render_passes: (usize, usize),
    /// Breaks only in the new plan: (after, before, reason).
    pub breaks_added: Vec<(Name, Name, String)>,
    /// Breaks only in the old plan.
    pub breaks_removed: Vec<(Name, Name, String)>,
    /// Breaks in both with a different reason.
    pub breaks_changed: Vec<ReasonChange>,
    /// Load/store/memoryless/resolve changes.
    pub attachments: Vec<AttachmentChange>,
    /// Placement changes.
    pub placements: Vec<PlacementChange>,
    /// Barrier count (old, new).
    pub barrier_count: (usize, usize),
    /// Barriers only in the new plan.
    pub barriers_added: Vec<Barrier>,
    /// Barriers only in the old plan.
    pub barriers_removed: Vec<Barrier>,
    /// Syncs only in the new plan: (signal, wait).
    pub syncs_added: Vec<(Name, Name)>,
    /// Syncs only in the old plan.
    pub syncs_removed: Vec<(Name, Name)>,
    /// Byte totals and counts that changed.
    pub figures: Vec<FigureChange>,
    /// History resources whose buffering or bytes changed, added or removed.
    pub history: Vec<HistoryChange>,
}

impl PlanDiff {
    /// True when the plans are the same in every compared respect.
    pub fn is_empty(&self) -> bool {
        self == &PlanDiff {
            render_passes: self.render_passes,
            barrier_count: self.barrier_count,
            ..PlanDiff::default()
        }
    }
}

fn minus(a: &[Name], b: &[Name]) -> Vec<Name> {
    let b: HashSet<&str> = b.iter().map(|n| n.as_str()).collect();
    a.iter()
        .filter(|n| !b.contains(n.as_str()))
        .cloned()
        .collect()
}

fn queue_map(p: &Plan) -> HashMap<&str, QueueKind> {
    let mut m: HashMap<&str, QueueKind> = p
        .queues
        .graphics
        .iter()
        .map(|n| (n.as_str(), QueueKind::Graphics))
        .collect();
    for n in &p.queues.async_compute {
        m.insert(n.as_str(), QueueKind::AsyncCompute);
    }
    m
}

/// Common passes whose rank among the common passes differs.
fn moved(old: &Plan, new: &Plan) -> Vec<Name> {
    let in_new: HashSet<&str> = new.order.iter().map(|n| n.as_str()).collect();
    let in_old: HashSet<&str> = old.order.iter().map(|n| n.as_str()).collect();
    let a: Vec<&Name> = old
        .order
        .iter()
        .filter(|n| in_new.contains(n.as_str()))
        .collect();
    let b: Vec<&Name> = new
        .order
        .iter()
        .filter(|n| in_old.contains(n.as_str()))
        .collect();
    a.iter()
        .zip(&b)
        .filter(|(x, y)| x != y)
        .map(|(_, &y)| *y)
        .collect()
}

fn adjacent_pairs(p: &Plan) -> BTreeSet<(Name, Name)> {
    p.render_passes
        .iter()
        .flat_map(|rp| rp.subpasses.windows(2).map(|w| (w[0], w[1])))
        .collect()
}

/// Pairs sorted by the position of their first pass in `plan.order`.
fn in_order<'a>(pairs: impl Iterator<Item = &'a (Name, Name)>, plan: &Plan) -> Vec<(Name, Name)> {
    let pos = plan.positions();
    let mut v: Vec<(Name, Name)> = pairs.cloned().collect();
    v.sort_by_key(|(a, _)| pos.get(a.as_str()).copied().unwrap_or(usize::MAX));
    v
}

fn load_name(op: LoadOp) -> &'static str {
    match op {
        LoadOp::Load => "LOAD",
        LoadOp::Clear => "CLEAR",
        LoadOp::DontCare => "DONT_CARE",
    }
}

fn store_name(op: StoreOp) -> &'static str {
    match op {
        StoreOp::Store => "STORE",
        StoreOp::DontCare => "DONT_CARE",
    }
}

/// `first..last` subpass names of a render pass.
fn rp_label(subpasses: &[Name]) -> String {
    match (subpasses.first(), subpasses.last()) {
        (Some(f), Some(l)) if f != l => format!("{f}..{l}"),
        (Some(f), _) => f.to_string(),
        _ => "(empty)".to_string(),
    }
}

/// Per resource, its attachments in render pass order with the render pass label.
fn attachments_by_resource(p: &Plan) -> BTreeMap<Name, Vec<(String, &Attachment)>> {
    let mut m: BTreeMap<Name, Vec<(String, &Attachment)>> = BTreeMap::new();
    for rp in &p.render_passes {
        let label = rp_label(&rp.subpasses);
        for a in &rp.attachments {
            m.entry(a.resource).or_default().push((label.clone(), a));
        }
    }
    m
}

fn attachment_changes(old: &Plan, new: &Plan) -> Vec<AttachmentChange> {
    let a = attachments_by_resource(old);
    let b = attachments_by_resource(new);
    let names: BTreeSet<&Name> = a.keys().chain(b.keys()).collect();
    let empty = Vec::new();
    let mut out = Vec::new();
    for name in names {
        let (xs, ys) = (a.get(name).unwrap_or(&empty), b.get(name).unwrap_or(&empty));
        let mut push = |change: String| {
            out.push(AttachmentChange {
                resource: *name,
                change,
            })
        };
        if xs.len() != ys.len() {
            let list = |v: &[(String, &Attachment)]| {
                v.iter()
                    .map(|(l, a)| {
                        format!(
                            "[{l}] {}/{}{}",
                            load_name(a.load_op),
                            store_name(a.store_op),
                            if a.memoryless { " memoryless" } else { "" }
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            push(format!(
                "attached in {} -> {}: {} -> {}",
                xs.len(),
                plural(ys.len() as u64, "render pass", "render passes"),
                if xs.is_empty() { "-".into() } else { list(xs) },
                if ys.is_empty() { "-".into() } else { list(ys) }
            ));
            continue;
        }
        for ((lx, x), (ly, y)) in xs.iter().zip(ys) {
            let at = if lx == ly {
                format!("in render pass {ly}")
            } else {
                format!("in render pass {lx} -> {ly}")
            };
            if x.load_op != y.load_op {
                push(format!(
                    "load {} -> {} {at}",
                    load_name(x.load_op),
                    load_name(y.load_op)
                ));
            }
            if x.store_op != y.store_op {
                push(format!(
                    "store {} -> {} {at}",
                    store_name(x.store_op),
                    store_name(y.store_op)
                ));
            }
            if x.memoryless != y.memoryless {
                push(format!(
                    "memoryless {} -> {} {at}",
                    x.memoryless, y.memoryless
                ));
            }
            if x.resolve_target != y.resolve_target {
                let t = |t: &Option<Name>| t.as_ref().map_or("none".to_string(), |t| t.to_string());
                push(format!(
                    "resolve {} -> {} {at}",
                    t(&x.resolve_target),
                    t(&y.resolve_target)
                ));
            }
        }
    }
    out
}

fn placements(p: &Plan) -> BTreeMap<Name, (usize, Placement)> {
    p.memory
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(i, b)| {
            b.placements
                .iter()
                .map(move |pl| (pl.resource, (i, pl.clone())))
        })
        .collect()
}

fn placement_changes(old: &Plan, new: &Plan) -> Vec<PlacementChange> {
    let (a, b) = (placements(old), placements(new));
    let names: BTreeSet<&Name> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter_map(|n| {
            let (x, y) = (a.get(n).cloned(), b.get(n).cloned());
            (x != y).then_some(PlacementChange {
                resource: *n,
                old: x,
                new: y,
            })
        })
        .collect()
}

/// Barriers of `a` not matched by an equal barrier of `b` (multiset difference).
fn barrier_minus(a: &[Barrier], b: &[Barrier]) -> Vec<Barrier> {
    let mut left: Vec<Option<&Barrier>> = b.iter().map(Some).collect();
    a.iter()
        .filter(
            |x| match left.iter_mut().find(|y| y.is_some_and(|y| y == *x)) {
                Some(slot) => {
                    *slot = None;
                    false
                }
                None => true,
            },
        )
        .cloned()
        .collect()
}

/// History entries that differ between the plans, in the new plan's order, then the old
/// plan's entries gone from the new.
fn history_changes(old: &Plan, new: &Plan) -> Vec<HistoryChange> {
    let find = |p: &Plan, name: Name| p.history.iter().find(|h| h.resource == name).cloned();
    let mut out: Vec<HistoryChange> = new
        .history
        .iter()
        .filter_map(|h| {
            let before = find(old, h.resource);
            let was = before.as_ref().map(|b| (b.buffering, b.bytes));
            (was != Some((h.buffering, h.bytes))).then(|| HistoryChange {
                resource: h.resource,
                old: was,
                new: Some((h.buffering, h.bytes)),
                reason: h.reason.clone(),
            })
        })
        .collect();
    out.extend(
        old.history
            .iter()
            .filter(|h| find(new, h.resource).is_none())
            .map(|h| HistoryChange {
                resource: h.resource,
                old: Some((h.buffering, h.bytes)),
                new: None,
                reason: h.reason.clone(),
            }),
    );
    out
}

fn buffering_text(b: &Option<(Buffering, u64)>) -> String {
    match b {
        None => "not history".to_string(),
        Some((Buffering::Single, bytes)) => format!("single ({bytes} B)"),
        Some((Buffering::Double, bytes)) => format!("double ({bytes} B)"),
    }
}

fn break_map(p: &Plan) -> BTreeMap<(Name, Name), String> {
    p.breaks
        .iter()
        .map(|b| ((b.after, b.before), b.reason.to_string()))
        .collect()
}

fn figures(old: &Plan, new: &Plan) -> Vec<FigureChange> {
    let f = |p: &Plan| -> Vec<(&'static str, u64)> {
        let (bw, m, s) = (&p.bandwidth, &p.memory, &p.sync_stats);
        vec![
            ("tile load bytes", bw.load_bytes),
            ("tile store bytes", bw.store_bytes),
            ("naive tile load bytes", bw.naive_load_bytes),
            ("naive tile store bytes", bw.naive_store_bytes),
            ("unaliased bytes", m.unaliased_bytes),
            ("aliased bytes", m.aliased_bytes),
            ("lower bound bytes", m.lower_bound_bytes),
            ("memoryless bytes", m.memoryless_bytes),
            ("memory blocks", m.blocks.len() as u64),
            (
                "cross-queue waits before minimisation",
                u64::from(s.candidate_waits),
            ),
            ("cross-queue waits kept", u64::from(s.kept)),
            ("submission batches", p.batches.len() as u64),
        ]
    };
    f(old)
        .into_iter()
        .zip(f(new))
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, b)| FigureChange {
            what: a.0,
            old: a.1,
            new: b.1,
        })
        .collect()
}

/// Compares an old plan with a new one.
pub fn diff(old: &Plan, new: &Plan) -> PlanDiff {
    let (qa, qb) = (queue_map(old), queue_map(new));
    let queues = new
        .order
        .iter()
        .filter_map(|n| {
            let (a, b) = (qa.get(n.as_str())?, qb.get(n.as_str())?);
            (a != b).then_some(QueueChange {
                pass: *n,
                before: *a,
                after: *b,
            })
        })
        .collect();
    let (pa, pb) = (adjacent_pairs(old), adjacent_pairs(new));
    let (ba, bb) = (break_map(old), break_map(new));
    let breaks_added = bb
        .iter()
        .filter(|(k, _)| !ba.contains_key(*k))
        .map(|(k, r)| (k.0, k.1, r.clone()))
        .collect();
    let breaks_removed = ba
        .iter()
        .filter(|(k, _)| !bb.contains_key(*k))
        .map(|(k, r)| (k.0, k.1, r.clone()))
        .collect();
    let breaks_changed = ba
        .iter()
        .filter_map(|(k, r)| {
            let n = bb.get(k)?;
            (n != r).then(|| ReasonChange {
                after: k.0,
                before: k.1,
                old: r.clone(),
                new: n.clone(),
            })
        })
        .collect();
    let sync_keys = |p: &Plan| -> BTreeSet<(Name, Name)> {
        p.syncs.iter().map(|s| (s.signal, s.wait)).collect()
    };
    let (sa, sb) = (sync_keys(old), sync_keys(new));
    // Every pass of a plan, kept or culled: a pass in one plan only was added or removed;
    // one in both that changed between kept and culled is newly culled or kept again.
    let all = |p: &Plan| -> Vec<Name> { p.order.iter().chain(&p.culled).copied().collect() };
    let (all_old, all_new) = (all(old), all(new));
    let kept = |p: &Plan| -> HashSet<&str> { p.order.iter().map(|n| n.as_str()).collect() };
    let (kept_old, kept_new) = (kept(old), kept(new));
    let d = PlanDiff {
        passes_added: minus(&all_new, &all_old),
        passes_removed: minus(&all_old, &all_new),
        passes_moved: moved(old, new),
        newly_culled: minus(&new.culled, &old.culled)
            .into_iter()
            .filter(|p| kept_old.contains(p.as_str()))
            .collect(),
        no_longer_culled: minus(&old.culled, &new.culled)
            .into_iter()
            .filter(|p| kept_new.contains(p.as_str()))
            .collect(),
        queues,
        merged: in_order(pb.difference(&pa), new),
        split: in_order(pa.difference(&pb), old),
        render_passes: (old.render_passes.len(), new.render_passes.len()),
        breaks_added,
        breaks_removed,
        breaks_changed,
        attachments: attachment_changes(old, new),
        placements: placement_changes(old, new),
        barrier_count: (old.barriers.len(), new.barriers.len()),
        barriers_added: barrier_minus(&new.barriers, &old.barriers),
        barriers_removed: barrier_minus(&old.barriers, &new.barriers),
        syncs_added: sb.difference(&sa).cloned().collect(),
        syncs_removed: sa.difference(&sb).cloned().collect(),
        figures: figures(old, new),
        history: history_changes(old, new),
    };
    log::debug!(
        "plan diff: {} passes added, {} removed, {} merged, {} split, {} barriers added, {} removed",
        d.passes_added.len(),
        d.passes_removed.len(),
        d.merged.len(),
        d.split.len(),
        d.barriers_added.len(),
        d.barriers_removed.len()
    );
    d
}

/// One line describing a barrier.
pub fn barrier_line(b: &Barrier) -> String {
    let mut s = format!(
        "{} ({} {}): {}/{} -> {}/{}",
        b.resource,
        match b.position {
            BarrierPosition::Before => "before",
            BarrierPosition::After => "after",
        },
        b.before,
        b.src_stage,
        b.src_access,
        b.dst_stage,
        b.dst_access
    );
    if let (Some(o), Some(n)) = (b.old_layout, b.new_layout) {
        s.push_str(&format!(", {o} -> {n}"));
    }
    if let Some(t) = &b.queue_transfer {
        let half = match t.half {
            TransferHalf::Release => "release",
            TransferHalf::Acquire => "acquire",
        };
        s.push_str(&format!(", {half} {} -> {}", t.src_queue, t.dst_queue));
    }
    s
}

fn placement_text(p: &Option<(usize, Placement)>) -> String {
    match p {
        None => "not placed".to_string(),
        Some((b, p)) => format!(
            "block {b} @ {} ({} B, {}..{})",
            p.offset, p.size, p.first, p.last
        ),
    }
}

fn names(list: &[Name]) -> String {
    list.iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Display for PlanDiff {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(f, "no changes");
        }
        if !self.passes_added.is_empty() {
            writeln!(f, "passes added: {}", names(&self.passes_added))?;
        }
        if !self.passes_removed.is_empty() {
            writeln!(f, "passes removed: {}", names(&self.passes_removed))?;
        }
        if !self.passes_moved.is_empty() {
            writeln!(f, "passes moved: {}", names(&self.passes_moved))?;
        }
        if !self.newly_culled.is_empty() {
            writeln!(f, "now culled: {}", names(&self.newly_culled))?;
        }
        if !self.no_longer_culled.is_empty() {
            writeln!(f, "no longer culled: {}", names(&self.no_longer_culled))?;
        }
        for q in &self.queues {
            writeln!(f, "queue: {} {} -> {}", q.pass, q.before, q.after)?;
        }
        if !self.merged.is_empty() || !self.split.is_empty() {
            writeln!(
                f,
                "render passes: {} -> {}",
                self.render_passes.0, self.render_passes.1
            )?;
            for (a, b) in &self.merged {
                writeln!(f, "  merged {a} + {b}")?;
            }
            for (a, b) in &self.split {
                writeln!(f, "  split  {a} | {b}")?;
            }
        }
        for (a, b, r) in &self.breaks_added {
            writeln!(f, "break added   {a} | {b}: {r}")?;
        }
        for (a, b, r) in &self.breaks_removed {
            writeln!(f, "break removed {a} | {b}: {r}")?;
        }
        for c in &self.breaks_changed {
            writeln!(
                f,
                "break reason  {} | {}: {} -> {}",
                c.after, c.before, c.old, c.new
            )?;
        }
        if !self.attachments.is_empty() {
            writeln!(f, "attachments:")?;
            for a in &self.attachments {
                writeln!(f, "  {}: {}", a.resource, a.change)?;
            }
        }
        if !self.placements.is_empty() {
            writeln!(f, "placements:")?;
            for p in &self.placements {
                writeln!(
                    f,
                    "  {}: {} -> {}",
                    p.resource,
                    placement_text(&p.old),
                    placement_text(&p.new)
                )?;
            }
        }
        if !self.barriers_added.is_empty() || !self.barriers_removed.is_empty() {
            writeln!(
                f,
                "barriers: {} -> {} (+{} -{})",
                self.barrier_count.0,
                self.barrier_count.1,
                self.barriers_added.len(),
                self.barriers_removed.len()
            )?;
            for b in &self.barriers_added {
                writeln!(f, "  + {}", barrier_line(b))?;
            }
            for b in &self.barriers_removed {
                writeln!(f, "  - {}", barrier_line(b))?;
            }
        }
        for (s, w) in &self.syncs_added {
            writeln!(f, "sync added   {s} -> {w}")?;
        }
        for (s, w) in &self.syncs_removed {
            writeln!(f, "sync removed {s} -> {w}")?;
        }
        if !self.history.is_empty() {
            writeln!(f, "history:")?;
            for h in &self.history {
                writeln!(
                    f,
                    "  {}: buffering {} -> {}: {}",
                    h.resource,
                    buffering_text(&h.old),
                    buffering_text(&h.new),
                    h.reason
                )?;
            }
        }
        if !self.figures.is_empty() {
            writeln!(f, "figures:")?;
            for c in &self.figures {
                let delta = i128::from(c.new) - i128::from(c.old);
                writeln!(f, "  {:<40} {} -> {} ({delta:+})", c.what, c.old, c.new)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use tessera_graph::{compile, frame_file, Capabilities, CompileOptions};

    fn plan(frame: &str, options: &CompileOptions, profile: Option<&str>) -> Plan {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/graphs")
            .join(format!("{frame}.json"));
        let (g, mut caps) = frame_file::load(&path).unwrap();
        if let Some(p) = profile {
            caps = Capabilities::profile(p).unwrap();
        }
        compile(&g, &caps, options).unwrap()
    }

    #[test]
    fn attachment_counts_agree_with_their_noun() {
        // Merged on a tiler, each G-buffer target goes from several render passes to one.
        let old = plan("tile_deferred", &CompileOptions::NONE, None);
        let new = plan("tile_deferred", &CompileOptions::ALL, None);
        let text = diff(&old, &new).to_string();
        assert!(
            text.contains("albedo: attached in 2 -> 1 render pass: "),
            "{text}"
        );
        assert!(
            text.contains("depth: attached in 4 -> 1 render pass: "),
            "{text}"
        );
        let back = diff(&new, &old).to_string();
        assert!(
            back.contains("albedo: attached in 1 -> 2 render passes: "),
            "{back}"
        );
        assert!(!text.contains(" 1 render passes") && !back.contains(" 1 render passes"));
    }

    #[test]
    fn a_plan_equals_itself() {
        let p = plan("postprocess", &CompileOptions::ALL, None);
        let d = diff(&p, &p);
        assert!(d.is_empty(), "{d}");
        assert_eq!(d.to_string(), "no changes\n");
    }

    #[test]
    fn turning_merging_on_reports_merges_ops_and_bytes() {
        let old = plan("deferred", &CompileOptions::NONE, None);
        let new = plan("deferred", &CompileOptions::ALL, None);
        let d = diff(&old, &new);
        // Every adjacent pair of the one merged render pass is a merge.
        let subpasses = &new.render_passes[0].subpasses;
        assert_eq!(d.merged.len(), subpasses.len() - 1);
        assert!(d.split.is_empty());
        assert_eq!(d.render_passes, (old.render_passes.len(), 1));
        // Each break of the old plan is gone (the new has none).
        assert_eq!(d.breaks_removed.len(), old.breaks.len());
        assert!(new.breaks.is_empty());
        // The bytes moved are reported with the plans' own figures.
        let store = d
            .figures
            .iter()
            .find(|c| c.what == "tile store bytes")
            .expect("stores changed");
        assert_eq!(
            (store.old, store.new),
            (old.bandwidth.store_bytes, new.bandwidth.store_bytes)
        );
        // Barrier multisets: old + added - removed = new, counted.
        assert_eq!(
            old.barriers.len() + d.barriers_added.len() - d.barriers_removed.len(),
            new.barriers.len()
        );
        assert!(!d.attachments.is_empty());
        let text = d.to_string();
        assert!(text.contains("merged gbuffer + lighting"), "{text}");
        assert!(text.contains("tile store bytes"), "{text}");
        // And the reverse diff mirrors it.
        let r = diff(&new, &old);
        assert_eq!(r.split, d.merged);
        assert_eq!(r.barriers_added, d.barriers_removed);
    }

    #[test]
    fn a_profile_change_reports_load_store_and_memoryless() {
        let old = plan("tile_msaa", &CompileOptions::ALL, Some("desktop"));
        let new = plan("tile_msaa", &CompileOptions::ALL, Some("mali"));
        let d = diff(&old, &new);
        let text = d.to_string();
        let ml = d
            .attachments
            .iter()
            .filter(|c| c.change.starts_with("memoryless false -> true"))
            .count();
        let expect = new.render_passes[0]
            .attachments
            .iter()
            .filter(|a| a.memoryless)
            .count();
        assert_eq!(ml, expect, "{text}");
        // Memoryless resources leave the memory blocks.
        assert!(d.placements.iter().any(|p| p.new.is_none()), "{text}");
    }

    #[test]
    fn placement_and_barrier_edits_are_found() {
        let old = plan("postprocess", &CompileOptions::ALL, None);
        let mut new = old.clone();
        new.memory.blocks[0].placements[0].offset += 65536;
        let gone = new.barriers.remove(0);
        let d = diff(&old, &new);
        assert_eq!(d.placements.len(), 1);
        assert_eq!(d.barriers_removed, vec![gone]);
        assert!(d.barriers_added.is_empty());
        assert_eq!(
            d.barrier_count,
            (old.barriers.len(), old.barriers.len() - 1)
        );
    }

    #[test]
    fn a_change_of_history_buffering_is_reported() {
        use tessera_graph::{Access, Graph};
        let mut g = Graph::new("exposure");
        let e = g.history_buffer("exposure", 16);
        g.compute("tonemap")
            .reads_previous(e, Access::StorageRead)
            .side_effects();
        g.compute("adapt").uses(e, Access::StorageWrite);
        let caps = Capabilities::desktop();
        let old = compile(&g, &caps, &CompileOptions::ALL).unwrap();
        // Reading the previous exposure after it is adapted doubles it.
        g.compute("late_exposure_read")
            .reads_previous(e, Access::StorageRead)
            .side_effects();
        let new = compile(&g, &caps, &CompileOptions::ALL).unwrap();
        let d = diff(&old, &new);
        assert_eq!(d.history.len(), 1, "{d}");
        let h = &d.history[0];
        assert_eq!(h.resource, "exposure");
        assert_eq!(h.old, Some((Buffering::Single, 16)));
        assert_eq!(h.new, Some((Buffering::Double, 32)));
        let text = d.to_string();
        assert!(
            text.contains("history:\n  exposure: buffering single (16 B) -> double (32 B): 'late_exposure_read' reads the previous content"),
            "{text}"
        );
        // And back; a plan diffed with itself has no history change.
        let back = diff(&new, &old);
        assert_eq!(back.history[0].old, Some((Buffering::Double, 32)));
        assert!(diff(&new, &new).history.is_empty());
        // A history resource in one plan only.
        let mut gone = new.clone();
        gone.history.clear();
        let d = diff(&new, &gone);
        assert_eq!(d.history.len(), 1);
        assert_eq!(d.history[0].new, None);
        assert!(d.to_string().contains("-> not history"), "{d}");
    }

    #[test]
    fn a_removed_culled_pass_is_removed_not_kept_again() {
        let old = plan("deferred", &CompileOptions::ALL, None);
        let gone = old.culled[0];
        let mut new = old.clone();
        new.culled.clear();
        new.cull_reasons.clear();
        let d = diff(&old, &new);
        assert_eq!(d.passes_removed, vec![gone]);
        assert!(d.no_longer_culled.is_empty(), "{d}");
        assert!(
            d.to_string().contains(&format!("passes removed: {gone}")),
            "{d}"
        );
        // And the other way round it was added, not newly culled.
        let r = diff(&new, &old);
        assert_eq!(r.passes_added, vec![gone]);
        assert!(r.newly_culled.is_empty(), "{r}");
        // A pass that moves from kept to culled is newly culled, not removed.
        let mut culled = old.clone();
        let kept = culled.order[0];
        culled.culled.push(kept);
        let mut order = culled.order.to_vec();
        order.remove(0);
        culled.order = order.into();
        let c = diff(&old, &culled);
        assert_eq!(c.newly_culled, vec![kept]);
        assert!(c.passes_removed.is_empty(), "{c}");
    }
}
