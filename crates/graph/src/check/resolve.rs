//! Checker invariants of multisample resolves, recomputed from the graph and the plan alone:
//! - `resolve.mismatch`: a plan attachment's resolve target is an image of the source's
//!   format and extent, the source multisampled and the target single-sampled;
//! - `resolve.subpass`: a render pass lists a resolve only where one of its subpasses uses
//!   the source as an attachment and resolves it into that target (the resolve happens at
//!   the end of that subpass);
//! - `resolve.missing`: every resolve use of a kept pass is the `resolve_target` of the
//!   source's attachment in the pass's render pass;
//! - `resolve.mode_unsupported`: a resolved depth/stencil attachment records the frame's mode
//!   (its own or `sample_zero`), one the device supports; nothing else records a mode (a
//!   colour resolve averages);
//! - `msaa.separate_resolve`: resolve on write-back makes the multisampled samples dead at
//!   the end of the render pass, so storing them (`STORE`) with nothing after the render pass
//!   reading them is a separate resolve's traffic; and a transfer pass that reads
//!   (`transfer_src`) a multisampled image a raster pass wrote is a separate resolve the
//!   raster pass could have done on write-back (a finding naming both passes).
//!
//! Cost: O(attachments × uses of their subpasses) plus O(uses) over the kept passes.

use super::Violation;
use crate::access::Access;
use crate::caps::Capabilities;
use crate::graph::{Graph, PassId, PassKind, ResourceId, Use};
use crate::plan::{Attachment, Plan, StoreOp};
use std::collections::HashMap;

/// Pushes every violated resolve invariant onto `out`.
pub(super) fn check(graph: &Graph, caps: &Capabilities, plan: &Plan, out: &mut Vec<Violation>) {
    let mut push = |rule: &'static str, detail: String| out.push(Violation { rule, detail });
    let position: HashMap<&str, usize> = plan
        .order
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    // Render pass of each kept subpass, and the last position of each render pass.
    let mut render_pass_of: HashMap<&str, usize> = HashMap::new();
    let mut end_of: Vec<usize> = Vec::with_capacity(plan.render_passes.len());
    for (i, rp) in plan.render_passes.iter().enumerate() {
        let mut end = 0;
        for s in rp.subpasses.iter() {
            render_pass_of.entry(s.as_str()).or_insert(i);
            end = end.max(position.get(s.as_str()).copied().unwrap_or(0));
        }
        end_of.push(end);
    }
    for (i, rp) in plan.render_passes.iter().enumerate() {
        let subpasses: Vec<PassId> = rp
            .subpasses
            .iter()
            .filter_map(|s| graph.find_pass(s))
            .collect();
        for a in rp.attachments.iter() {
            let Some(source) = graph.find_resource(&a.resource) else {
                continue; // rp.attachment names it
            };
            attachment(graph, caps, i, a, source, &subpasses, &mut push);
            if stores_resolved_samples(graph, plan, end_of[i], a, source) {
                push(
                    "msaa.separate_resolve",
                    format!(
                        "render pass #{i} stores multisampled '{}' although it resolves it into '{}' on write-back and nothing after the render pass reads its samples: the store is a separate resolve's traffic",
                        a.resource,
                        a.resolve_target.as_deref().unwrap_or_default()
                    ),
                );
            }
        }
    }
    // Every resolve use of a kept raster pass is in the plan.
    for name in plan.order.iter() {
        let Some(p) = graph.find_pass(name) else {
            continue;
        };
        let pass = graph.pass(p);
        for u in pass.uses.iter().filter(|u| u.access == Access::Resolve) {
            let (Some(from), Some(target)) = (u.from, graph.resources.get(u.resource.index()))
            else {
                continue;
            };
            let Some(source) = graph.resources.get(from.index()) else {
                continue;
            };
            let listed = render_pass_of
                .get(name.as_str())
                .and_then(|&rp| plan.render_passes.get(rp))
                .and_then(|rp| rp.attachments.iter().find(|a| a.resource == source.name));
            if listed.is_none_or(|a| a.resolve_target.as_deref() != Some(target.name.as_str())) {
                push(
                    "resolve.missing",
                    format!(
                        "pass '{}' resolves '{}' into '{}' but its render pass's attachment '{}' has resolve_target {:?}",
                        pass.name,
                        source.name,
                        target.name,
                        source.name,
                        listed.and_then(|a| a.resolve_target.as_deref())
                    ),
                );
            }
        }
    }
    separate_resolves(graph, plan, &position, &mut push);
}

/// `resolve.mismatch`, `resolve.subpass` and `resolve.mode_unsupported` of one attachment of
/// render pass `i` (whose subpasses are `subpasses`).
fn attachment(
    graph: &Graph,
    caps: &Capabilities,
    i: usize,
    a: &Attachment,
    source: ResourceId,
    subpasses: &[PassId],
    push: &mut impl FnMut(&'static str, String),
) {
    let Some(target_name) = a.resolve_target.as_deref() else {
        if let Some(mode) = a.resolve_mode {
            push(
                "resolve.mode_unsupported",
                format!(
                    "render pass #{i}: '{}' records resolve mode {mode} without a resolve target",
                    a.resource
                ),
            );
        }
        return;
    };
    let s = graph.resource(source);
    let target = graph.find_resource(target_name);
    let shapes = (
        s.image_desc(),
        target.and_then(|t| graph.resource(t).image_desc()),
    );
    match shapes {
        (Some(sd), Some(td))
            if sd.samples > 1
                && td.samples == 1
                && sd.format == td.format
                && (sd.width, sd.height) == (td.width, td.height) => {}
        (sd, td) => push(
            "resolve.mismatch",
            format!(
                "render pass #{i}: '{}' ({}) resolves into '{target_name}' ({}): a resolve goes from a multisampled image into a single-sampled one of its format and extent",
                a.resource,
                describe(sd),
                describe(td)
            ),
        ),
    }
    // The subpass that resolves it: uses the source as an attachment and resolves it there.
    let resolving: Option<&Use> = target.and_then(|t| {
        subpasses.iter().find_map(|&p| {
            let uses = &graph.pass(p).uses;
            let attached = uses.iter().any(|u| {
                u.resource == source && u.access.is_attachment() && u.access != Access::Resolve
            });
            uses.iter()
                .find(|u| u.access == Access::Resolve && u.resource == t && u.from == Some(source))
                .filter(|_| attached)
        })
    });
    let Some(resolve) = resolving else {
        push(
            "resolve.subpass",
            format!(
                "render pass #{i} resolves '{}' into '{target_name}', but none of its subpasses uses '{}' as an attachment and resolves it there",
                a.resource, a.resource
            ),
        );
        return;
    };
    let depth = s.image_desc().is_some_and(|d| d.format.is_depth_stencil());
    let want = depth.then(|| resolve.depth_resolve_mode());
    if a.resolve_mode != want {
        push(
            "resolve.mode_unsupported",
            format!(
                "render pass #{i}: '{}' records resolve mode {:?}, the frame's resolve into '{target_name}' asks for {want:?}",
                a.resource, a.resolve_mode
            ),
        );
    }
    if let Some(mode) = a
        .resolve_mode
        .filter(|&m| !caps.depth_resolve_modes.contains(m))
    {
        push(
            "resolve.mode_unsupported",
            format!(
                "render pass #{i}: '{}' resolves with {mode}, which the device does not support (it supports {})",
                a.resource, caps.depth_resolve_modes
            ),
        );
    }
}

fn describe(d: Option<&crate::graph::ImageDesc>) -> String {
    match d {
        Some(d) => format!(
            "{}, {} samples, {}x{}",
            d.format, d.samples, d.width, d.height
        ),
        None => "not an image of the frame".into(),
    }
}

/// True when `a`, a multisampled attachment resolved on write-back by its render pass (which
/// ends at position `end`), is stored although nothing after the render pass uses it and its
/// content does not survive the frame.
fn stores_resolved_samples(
    graph: &Graph,
    plan: &Plan,
    end: usize,
    a: &Attachment,
    source: ResourceId,
) -> bool {
    if a.store_op != StoreOp::Store || a.resolve_target.is_none() || a.samples <= 1 {
        return false;
    }
    let r = graph.resource(source);
    if r.survives_frame() {
        return false;
    }
    let used_later = plan.order.iter().skip(end + 1).any(|n| {
        graph
            .find_pass(n)
            .is_some_and(|p| graph.pass(p).uses.iter().any(|u| u.resource == source))
    });
    !used_later
}

/// `msaa.separate_resolve` of the frame: a kept transfer pass reads a multisampled image that
/// an earlier kept raster pass wrote as an attachment.
fn separate_resolves(
    graph: &Graph,
    plan: &Plan,
    position: &HashMap<&str, usize>,
    push: &mut impl FnMut(&'static str, String),
) {
    for (pos, name) in plan.order.iter().enumerate() {
        let Some(p) = graph.find_pass(name) else {
            continue;
        };
        let pass = graph.pass(p);
        if pass.kind != PassKind::Transfer {
            continue;
        }
        for u in pass.uses.iter().filter(|u| u.access == Access::TransferSrc) {
            let Some(r) = graph.resources.get(u.resource.index()) else {
                continue;
            };
            if r.image_desc().is_none_or(|d| d.samples <= 1) {
                continue;
            }
            let writer = graph.passes.iter().find(|w| {
                w.kind == PassKind::Raster
                    && position.get(w.name.as_str()).is_some_and(|&wp| wp < pos)
                    && w.uses.iter().any(|v| {
                        v.resource == u.resource && v.access.is_attachment() && v.access.writes()
                    })
            });
            if let Some(w) = writer {
                push(
                    "msaa.separate_resolve",
                    format!(
                        "transfer pass '{}' reads multisampled '{}' (transfer_src) that raster pass '{}' wrote: resolve it on write-back in '{}' (a resolve use with from) instead of a separate resolve",
                        pass.name, r.name, w.name, w.name
                    ),
                );
            }
        }
    }
}
