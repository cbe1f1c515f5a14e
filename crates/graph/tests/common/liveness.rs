//! Load and store operations derived again from the liveness rule (docs/frame-format.md, "Load
//! and store operations"), by walking the later uses of each attachment in the plan's order:
//! quadratic and independent of the compiler's one-sweep chains, for the property tests and
//! the `load_liveness` example.

use tessera_graph::graph::Use;
use tessera_graph::plan::{LoadOp, StoreOp};
use tessera_graph::{Access, Graph, Plan, ResourceId};

/// What the walk finds for a plan.
#[derive(Clone, Debug, Default)]
pub struct Walk {
    /// Attachments the per-pass rule loads: the first use in the render pass does not clear
    /// and keeps earlier content (reads it or only partly overwrites it), and the resource
    /// holds content before the render pass.
    pub per_pass_loads: usize,
    /// Attachments whose load or store in the plan is not what the walk gives, in words.
    pub wrong: Vec<String>,
}

/// Walks every attachment of every render pass of `plan`.
pub fn walk(graph: &Graph, plan: &Plan) -> Walk {
    let mut out = Walk::default();
    let position = |name: &str| plan.order.iter().position(|p| p.as_str() == name);
    for (i, rp) in plan.render_passes.iter().enumerate() {
        let Some(start) = rp.subpasses.first().and_then(|s| position(s)) else {
            continue;
        };
        for a in rp.attachments.iter() {
            let Some(r) = graph.find_resource(&a.resource) else {
                continue;
            };
            // (position, use) of the resource's uses in this render pass, in subpass order.
            let here: Vec<(usize, &Use)> = rp
                .subpasses
                .iter()
                .filter_map(|s| {
                    let u = graph
                        .pass(graph.find_pass(s)?)
                        .uses
                        .iter()
                        .find(|u| u.resource == r)?;
                    Some((position(s)?, u))
                })
                .collect();
            let (Some(&(first_pos, first)), Some(&(last_pos, _))) = (here.first(), here.last())
            else {
                continue;
            };
            let res = graph.resource(r);
            let earlier_write = plan.order.iter().take(start).any(|p| {
                graph.find_pass(p).is_some_and(|p| {
                    graph
                        .pass(p)
                        .uses
                        .iter()
                        .any(|u| u.resource == r && u.access.writes())
                })
            });
            let content = earlier_write || (res.is_imported() && !res.clear_on_first_use());
            let keeps = first.keeps_content();
            if !first.clear && keeps && content {
                out.per_pass_loads += 1;
            }
            let load = if first.clear {
                LoadOp::Clear
            } else if !content || !keeps {
                LoadOp::DontCare
            } else if reads(graph, plan, first_pos, first) || live_after(graph, plan, r, first_pos)
            {
                LoadOp::Load
            } else {
                LoadOp::DontCare
            };
            let store = if live_after(graph, plan, r, last_pos) {
                StoreOp::Store
            } else {
                StoreOp::DontCare
            };
            if a.load_op != load {
                out.wrong.push(format!(
                    "render pass #{i}: '{}' (first use {}) loads {:?}, the walk gives {load:?}",
                    a.resource, first.access, a.load_op
                ));
            }
            if a.store_op != store {
                out.wrong.push(format!(
                    "render pass #{i}: '{}' stores {:?}, the walk gives {store:?}",
                    a.resource, a.store_op
                ));
            }
        }
    }
    out
}

/// True when use `u`, at position `pos` of the order, reads the content it finds: its access
/// reads (but a blend only reads into its own result: it keeps the content and passes the
/// question on), or it keeps the content and tests it (a depth write) or its pass resolves it.
fn reads(graph: &Graph, plan: &Plan, pos: usize, u: &Use) -> bool {
    let resolved = graph.find_pass(&plan.order[pos]).is_some_and(|p| {
        graph
            .pass(p)
            .uses
            .iter()
            .any(|v| v.access == Access::Resolve && v.from == Some(u.resource))
    });
    (u.access.reads(u.clear) && u.access != Access::ColorReadWrite)
        || (u.keeps_content() && (u.access == Access::DepthWrite || resolved))
}

/// True when the content of `r` after position `pos` of the order is read before it is
/// replaced, or survives the frame (an output, or imported without `discard_on_last_use`).
fn live_after(graph: &Graph, plan: &Plan, r: ResourceId, pos: usize) -> bool {
    for (at, name) in plan.order.iter().enumerate().skip(pos + 1) {
        let Some(p) = graph.find_pass(name) else {
            continue;
        };
        let Some(u) = graph.pass(p).uses.iter().find(|u| u.resource == r) else {
            continue;
        };
        if reads(graph, plan, at, u) {
            return true;
        }
        if !u.keeps_content() {
            return false;
        }
    }
    let res = graph.resource(r);
    res.output || (res.is_imported() && !res.discard_on_last_use())
}
