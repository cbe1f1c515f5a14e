//! Structural invariants: every pass kept or culled exactly once, culling correct, the order
//! respecting every dependency, listed edges real, levels the longest paths, queues right.
//!
//! Dependencies are recomputed as pairs: two kept passes that use one resource, at least
//! one of them writing, are ordered as declared (a write is ordered after every earlier use,
//! a read after every earlier write). Quadratic in passes on purpose.

use super::{qi, Ctx};
use crate::check::table;
use crate::check::Violation;
use crate::graph::{QueueKind, Use};
use crate::plan::EdgeKind;

/// Runs every structural check.
pub(super) fn check(ctx: &Ctx, out: &mut Vec<Violation>) {
    names(ctx, out);
    culling(ctx, out);
    order(ctx, out);
    edges(ctx, out);
    levels(ctx, out);
    queues(ctx, out);
}

fn push(out: &mut Vec<Violation>, rule: &'static str, detail: String) {
    out.push(Violation { rule, detail });
}

/// `order` ∪ `culled` holds every pass exactly once and nothing else.
fn names(ctx: &Ctx, out: &mut Vec<Violation>) {
    let mut seen = vec![0u32; ctx.graph.passes.len()];
    for (list, what) in [
        (&ctx.plan.order[..], "order"),
        (&ctx.plan.culled[..], "culled"),
    ] {
        for name in list {
            match ctx.pass_index.get(name.as_str()) {
                None => push(
                    out,
                    "order.unknown",
                    format!("'{name}' in {what} is not a pass of the graph"),
                ),
                Some(&p) => {
                    seen[p] += 1;
                    if seen[p] == 2 {
                        push(
                            out,
                            "order.duplicate",
                            format!("pass '{name}' appears more than once in order/culled"),
                        );
                    }
                }
            }
        }
    }
    for (p, &n) in seen.iter().enumerate() {
        if n == 0 {
            push(
                out,
                "order.missing",
                format!("pass '{}' is neither in order nor culled", ctx.pname(p)),
            );
        }
    }
    let reasons: Vec<&str> = ctx
        .plan
        .cull_reasons
        .iter()
        .map(|r| r.pass.as_str())
        .collect();
    let culled: Vec<&str> = ctx.plan.culled.iter().map(|s| s.as_str()).collect();
    if reasons != culled {
        push(
            out,
            "cull.reasons",
            format!("cull_reasons name {reasons:?} but culled is {culled:?}"),
        );
    }
}

/// True when the use needs the content earlier writers left (reads it, or keeps part of it).
fn consumes(u: &Use) -> bool {
    u.access.reads(u.clear) || (table::writes(u.access) && u.access.keeps_content(u.clear))
}

/// The resource of the first conflicting use pair of passes `a` and `b`, if any.
pub(super) fn conflict(ctx: &Ctx, a: usize, b: usize) -> Option<usize> {
    ctx.graph.passes[a].uses.iter().find_map(|ua| {
        let ub = ctx.use_of(b, ua.resource.index())?;
        (table::writes(ua.access) || table::writes(ub.access)).then_some(ua.resource.index())
    })
}

/// Kept = observable (side effects, writes a resource that survives the frame) or the
/// latest earlier writer of content a kept pass consumes. Checked locally per pass, which
/// equals the least fixed point because feeding always points forward.
fn culling(ctx: &Ctx, out: &mut Vec<Violation>) {
    let g = ctx.graph;
    let n = g.passes.len();
    // fed_by[q] = passes whose content q consumes, with the resource.
    let mut feeds: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for q in 0..n {
        for u in g.passes[q].uses.iter().filter(|u| consumes(u)) {
            let r = u.resource.index();
            // A valid persistent resource's readers read an earlier frame's content.
            if g.resources
                .get(r)
                .is_some_and(|r| r.persistent_valid() == Some(true))
            {
                continue;
            }
            let writer = (0..q)
                .rev()
                .find(|&p| ctx.use_of(p, r).is_some_and(|w| table::writes(w.access)));
            if let Some(p) = writer {
                feeds[p].push((q, r));
            }
        }
    }
    let culled: Vec<bool> = (0..n)
        .map(|p| ctx.plan.culled.iter().any(|c| c == &g.passes[p].name) && ctx.pos[p].is_none())
        .collect();
    for p in 0..n {
        let pass = &g.passes[p];
        let observable = pass.side_effects
            || pass.uses.iter().any(|u| {
                let r = g.resources.get(u.resource.index());
                table::writes(u.access)
                    && r.is_some_and(|r| {
                        (r.output || (r.is_persistent() && !r.discard_on_last_use()))
                            && r.persistent_valid() != Some(true)
                    })
            });
        // The persistent resources it writes, valid and not.
        let writes_persistent = |valid: bool| {
            pass.uses.iter().find_map(|u| {
                let r = g.resources.get(u.resource.index())?;
                (table::writes(u.access) && r.persistent_valid() == Some(valid))
                    .then(|| r.name.as_str())
            })
        };
        let skipped = ctx.plan.skipped.iter().any(|s| s == &pass.name);
        if skipped != (culled[p] && writes_persistent(true).is_some()) {
            push(
                out,
                "cull.skipped",
                format!(
                    "pass '{}' is {} skipped, but it {} culled and {} a valid persistent resource: skipped = culled while writing one",
                    pass.name,
                    if skipped { "listed as" } else { "not listed as" },
                    if culled[p] { "is" } else { "is not" },
                    if writes_persistent(true).is_some() { "writes" } else { "writes no" },
                ),
            );
        }
        if culled[p] {
            if let Some(stale) = writes_persistent(false) {
                push(
                    out,
                    "cull.skipped_stale",
                    format!(
                        "pass '{}' is culled but writes persistent resource '{stale}', which is not valid: its content is for later frames, so its writer runs",
                        pass.name
                    ),
                );
            }
        }
        if ctx.pos[p].is_some()
            && !observable
            && feeds[p].iter().all(|(q, _)| ctx.pos[*q].is_none())
        {
            if let Some(valid) = writes_persistent(true) {
                push(
                    out,
                    "cull.kept_valid",
                    format!(
                        "pass '{}' is kept but its outputs are still valid ('{valid}' is a valid persistent resource) and nothing else needs it: it is skipped",
                        pass.name
                    ),
                );
            }
        }
        let kept_consumer = feeds[p].iter().find(|(q, _)| ctx.pos[*q].is_some());
        if ctx.pos[p].is_some() && !observable && kept_consumer.is_none() {
            push(out, "cull.kept_useless", format!("pass '{}' is kept but has no side effects, writes nothing that survives the frame and feeds no kept pass", pass.name));
        }
        if culled[p] {
            if observable {
                push(
                    out,
                    "cull.culled_needed",
                    format!(
                        "pass '{}' is culled but is observable (side effects or a surviving write)",
                        pass.name
                    ),
                );
            } else if let Some(&(q, r)) = kept_consumer {
                push(
                    out,
                    "cull.culled_needed",
                    format!(
                        "pass '{}' is culled but feeds kept pass '{}' through '{}'",
                        pass.name,
                        ctx.pname(q),
                        ctx.rname(r)
                    ),
                );
            }
        }
    }
}

/// Every conflicting pair of kept passes runs in declaration order.
fn order(ctx: &Ctx, out: &mut Vec<Violation>) {
    for (i, &a) in ctx.order.iter().enumerate() {
        for &b in &ctx.order[i + 1..] {
            // b runs after a; that is wrong when b was declared first and they conflict.
            if b < a {
                if let Some(r) = conflict(ctx, b, a) {
                    push(out, "order.edge", format!("'{}' runs before '{}' but was declared after it and both use '{}' with a write", ctx.pname(a), ctx.pname(b), ctx.rname(r)));
                }
            }
        }
    }
}

/// Every listed edge joins two kept passes that really conflict on its resource, forward in
/// declaration order, with the right kind.
fn edges(ctx: &Ctx, out: &mut Vec<Violation>) {
    for e in &ctx.plan.edges {
        let from = ctx.kept_pass(&e.from);
        let to = ctx.kept_pass(&e.to);
        let r = ctx.resource_index.get(e.resource.as_str()).copied();
        let (Some(from), Some(to), Some(r)) = (from, to, r) else {
            push(
                out,
                "edge.unreal",
                format!(
                    "edge {} -> {} on '{}' names a pass that is not kept or an unknown resource",
                    e.from, e.to, e.resource
                ),
            );
            continue;
        };
        let (Some(uf), Some(ut)) = (ctx.use_of(from, r), ctx.use_of(to, r)) else {
            push(
                out,
                "edge.unreal",
                format!(
                    "edge {} -> {}: both passes do not use '{}'",
                    e.from, e.to, e.resource
                ),
            );
            continue;
        };
        let kind = match (table::writes(uf.access), table::writes(ut.access)) {
            (false, false) => None,
            (true, false) => Some(EdgeKind::Raw),
            (true, true) if ut.access.reads(ut.clear) => Some(EdgeKind::Raw),
            (true, true) => Some(EdgeKind::Waw),
            (false, true) => Some(EdgeKind::War),
        };
        if from >= to || kind != Some(e.kind) {
            push(out, "edge.unreal", format!("edge {} -> {} on '{}' ({:?}) is not a dependency of the declared graph (expected {kind:?} forward in declaration order)", e.from, e.to, e.resource, e.kind));
        }
    }
}

/// `levels[l]` holds exactly the kept passes whose longest dependency path from a root has
/// `l` edges, each level in execution order.
fn levels(ctx: &Ctx, out: &mut Vec<Violation>) {
    let n = ctx.graph.passes.len();
    let mut level = vec![0usize; n];
    for b in 0..n {
        if ctx.pos[b].is_none() {
            continue;
        }
        level[b] = (0..b)
            .filter(|&a| ctx.pos[a].is_some() && conflict(ctx, a, b).is_some())
            .map(|a| level[a] + 1)
            .max()
            .unwrap_or(0);
    }
    let mut listed = vec![false; n];
    for (l, names) in ctx.plan.levels.iter().enumerate() {
        let mut last_pos = None;
        for name in names {
            let Some(p) = ctx.kept_pass(name) else {
                push(
                    out,
                    "level.wrong",
                    format!("level {l} lists '{name}', which is not a kept pass"),
                );
                continue;
            };
            if listed[p] {
                push(
                    out,
                    "level.wrong",
                    format!("'{name}' is listed in more than one level slot"),
                );
                continue;
            }
            listed[p] = true;
            if level[p] != l {
                push(out, "level.wrong", format!("'{name}' is in level {l} but its longest dependency path from a root has {} edges", level[p]));
            }
            if last_pos.is_some_and(|lp| ctx.pos[p] < lp) {
                push(
                    out,
                    "level.order",
                    format!("level {l} does not list '{name}' in execution order"),
                );
            }
            last_pos = Some(ctx.pos[p]);
        }
    }
    for &p in &ctx.order {
        if !listed[p] {
            push(
                out,
                "level.wrong",
                format!(
                    "kept pass '{}' is in no level (expected level {})",
                    ctx.pname(p),
                    level[p]
                ),
            );
        }
    }
}

/// Each kept pass is on exactly the queue it must run on, queues list kept passes only, in
/// execution order.
fn queues(ctx: &Ctx, out: &mut Vec<Violation>) {
    let n = ctx.graph.passes.len();
    let mut count = vec![[0u32; 2]; n];
    for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
        let mut last_pos = None;
        for name in ctx.plan.queues.of(q) {
            let Some(p) = ctx.kept_pass(name) else {
                push(
                    out,
                    "queue.wrong",
                    format!("queue {q} lists '{name}', which is not a kept pass"),
                );
                continue;
            };
            count[p][qi(q)] += 1;
            if last_pos.is_some_and(|lp| ctx.pos[p] <= lp) {
                push(
                    out,
                    "queue.order",
                    format!("queue {q} does not list '{name}' in execution order"),
                );
            }
            last_pos = Some(ctx.pos[p]);
        }
    }
    for &p in &ctx.order {
        let want = ctx.expected_queue(p);
        let other = match want {
            QueueKind::Graphics => QueueKind::AsyncCompute,
            QueueKind::AsyncCompute => QueueKind::Graphics,
        };
        if count[p][qi(want)] != 1 || count[p][qi(other)] != 0 {
            push(
                out,
                "queue.wrong",
                format!(
                    "'{}' must be listed once on {want} and never on {other} (found {} and {})",
                    ctx.pname(p),
                    count[p][qi(want)],
                    count[p][qi(other)]
                ),
            );
        }
    }
}
