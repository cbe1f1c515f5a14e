//! Submission batches. Cost: O(passes + syncs + batches).

use super::Ctx;
use crate::check::Violation;
use crate::graph::QueueKind;

/// Checks that batches partition each queue in order, with waits at starts and signals at ends.
pub(super) fn check(ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let plan = ctx.plan;
    let n = ctx.pass.len();
    let mut batch_of = vec![None; n];
    let mut seen = vec![0u32; n];
    for (k, b) in plan.batches.iter().enumerate() {
        if b.passes.is_empty() {
            out.push(Violation {
                rule: "batches.empty",
                detail: format!("batch #{k} on {} has no passes", b.queue),
            });
        }
        for p in &b.passes {
            match ctx.node.get(p.as_str()) {
                Some(&i) if ctx.queue[i] == b.queue => {
                    seen[i] += 1;
                    batch_of[i] = Some(k);
                }
                _ => out.push(Violation {
                    rule: "batches.queue",
                    detail: format!(
                        "batch #{k} on {} holds '{p}', which is not a pass of that queue",
                        b.queue
                    ),
                }),
            }
        }
    }
    for (i, &c) in seen.iter().enumerate() {
        if c != 1 {
            out.push(Violation {
                rule: "batches.partition",
                detail: format!("'{}' is in {c} batches", ctx.name(i)),
            });
        }
    }
    for q in [QueueKind::Graphics, QueueKind::AsyncCompute] {
        let flat: Vec<&crate::name::Name> = plan
            .batches
            .iter()
            .filter(|b| b.queue == q)
            .flat_map(|b| b.passes.iter())
            .collect();
        let expected: Vec<&crate::name::Name> = plan.queues.of(q).iter().collect();
        if flat != expected {
            out.push(Violation {
                rule: "batches.order",
                detail: format!("the {q} batches do not list the {q} queue in order"),
            });
        }
    }
    if seen.iter().any(|&c| c != 1) {
        return;
    }
    let first = |k: usize| {
        plan.batches[k]
            .passes
            .first()
            .and_then(|p| ctx.node.get(p.as_str()).copied())
    };
    let last = |k: usize| {
        plan.batches[k]
            .passes
            .last()
            .and_then(|p| ctx.node.get(p.as_str()).copied())
    };
    let mut waits_expected = vec![Vec::new(); plan.batches.len()];
    let mut signal_expected = vec![None; plan.batches.len()];
    for s in &plan.syncs {
        let (Some(&a), Some(&w)) = (
            ctx.node.get(s.signal.as_str()),
            ctx.node.get(s.wait.as_str()),
        ) else {
            continue;
        };
        let (Some(ba), Some(bw)) = (batch_of[a], batch_of[w]) else {
            continue;
        };
        if first(bw) != Some(w) {
            out.push(Violation {
                rule: "batches.wait",
                detail: format!(
                    "'{}' waits on '{}' but does not start its batch",
                    s.wait, s.signal
                ),
            });
        }
        if last(ba) != Some(a) {
            out.push(Violation {
                rule: "batches.signal",
                detail: format!(
                    "'{}' signals for '{}' but does not end its batch",
                    s.signal, s.wait
                ),
            });
        }
        if ba >= bw {
            out.push(Violation { rule: "batches.submission", detail: format!("the batch signalling after '{}' is not submitted before the one waiting at '{}'", s.signal, s.wait) });
        }
        waits_expected[bw].push((s.signal_queue, s.value, s.signal));
        signal_expected[ba] = Some(s.value);
    }
    for (k, b) in plan.batches.iter().enumerate() {
        let mut got: Vec<_> = b.waits.iter().map(|w| (w.queue, w.value, w.pass)).collect();
        let mut want = std::mem::take(&mut waits_expected[k]);
        got.sort();
        want.sort();
        if got != want {
            out.push(Violation {
                rule: "batches.wait",
                detail: format!(
                    "batch #{k} on {} waits for {got:?}, the syncs ask for {want:?}",
                    b.queue
                ),
            });
        }
        if b.signal != signal_expected[k] {
            out.push(Violation {
                rule: "batches.signal",
                detail: format!(
                    "batch #{k} on {} signals {:?}, the syncs ask for {:?}",
                    b.queue, b.signal, signal_expected[k]
                ),
            });
        }
    }
    for (r, rp) in plan.render_passes.iter().enumerate() {
        let bs: Vec<Option<usize>> = rp
            .subpasses
            .iter()
            .filter_map(|p| ctx.node.get(p.as_str()))
            .map(|&i| batch_of[i])
            .collect();
        if bs.windows(2).any(|w| w[0] != w[1]) {
            out.push(Violation {
                rule: "batches.render_pass",
                detail: format!("render pass #{r} is split across batches"),
            });
        }
    }
}
