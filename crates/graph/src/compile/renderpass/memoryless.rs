//! Memoryless attachments: images that never leave tile memory.
//!
//! A transient image (not imported, not an output) is memoryless when every kept use of it is
//! an attachment use by a subpass of one render pass, and there its load is `CLEAR` or
//! `DONT_CARE` and its store `DONT_CARE`: no DRAM is ever read or written, so it takes
//! `TRANSIENT_ATTACHMENT` usage with `LAZILY_ALLOCATED` memory and no bytes in the aliasing
//! blocks. That needs a device with lazily allocated memory and `CompileOptions::memoryless`.
//!
//! A resource the author *declared* memoryless states a requirement on the frame: it must pass
//! the same test in the render passes of the reference compile, the default one with
//! reordering, merging, memoryless attachments and async compute on ([`is_reference`]), for
//! the device at hand; otherwise compiling fails with [`CompileError::MemorylessBroken`]
//! naming the first pass that breaks it. That holds in every mode and on every device (so a
//! regression is loud in desktop CI too): a compile with any of those options off runs the
//! reference's phases up to the render passes first (`compile`). When the reference keeps it
//! in tile memory but this plan cannot (no lazily allocated memory on the device, the
//! memoryless optimisation off, or this compile's render passes split it), it is placed in
//! ordinary memory like any transient and the plan lists it in
//! `memory.memoryless_fallbacks` with the reason: the frame still runs in every mode.
//! Cost: O(resources) over the per-resource facts of the load/store sweep; the uses are
//! indexed per resource, and the reason put in words, only for that error, a fallback (or a
//! trace log). The reference run doubles the front of the compile for frames with a
//! declared-memoryless resource compiled with an option off; other compiles pay nothing.

use super::load_store::{Attachments, Facts, UseIndex};
use super::{Breaks, RenderPassGrouping};
use crate::access::Access;
use crate::caps::{Capabilities, CompileOptions};
use crate::compile::Schedule;
use crate::error::CompileError;
use crate::graph::{Graph, PassId, ResourceId};
use crate::plan::{LoadOp, MemorylessFallback, StoreOp};

/// Why a resource cannot stay in tile memory; the text is written only when it is shown.
#[derive(Clone, Copy, Debug)]
enum Blocked {
    /// Imported or output (named pass: its first use).
    Lives(PassId),
    /// A use that is not an attachment use.
    NotAttachment(PassId, Access),
    /// A use outside the render pass of the first use, which ends at `end`.
    Outside {
        pass: PassId,
        first: PassId,
        end: PassId,
    },
    /// The first use loads earlier content.
    Loads(PassId),
    /// The content is stored after the render pass.
    Stores(PassId),
}

/// Why a resource cannot stay in tile memory: the pass that breaks it and the rule.
fn why_not(
    graph: &Graph,
    grouping: &RenderPassGrouping,
    index: &UseIndex<'_>,
    attachments: &Attachments,
    resource: ResourceId,
) -> Option<Blocked> {
    let r = graph.resource(resource);
    let uses = index.of(resource);
    let (_, first_pass, _) = *uses.first()?;
    if r.is_persistent() || r.output {
        return Some(Blocked::Lives(first_pass));
    }
    let home = grouping.group_of[first_pass.index()];
    for &(_, pass, u) in uses {
        if !u.access.is_attachment() {
            return Some(Blocked::NotAttachment(pass, u.access));
        }
        if grouping.group_of[pass.index()] != home {
            let end = home
                .and_then(|g| grouping.groups[g as usize].last().copied())
                .unwrap_or(first_pass);
            return Some(Blocked::Outside {
                pass,
                first: first_pass,
                end,
            });
        }
    }
    let home = home? as usize;
    let a = attachments
        .of(home)
        .iter()
        .find(|a| a.resource == resource)?;
    let subpass = |i: u32| grouping.groups[home][i as usize];
    if a.load == LoadOp::Load {
        return Some(Blocked::Loads(subpass(a.first_subpass)));
    }
    if a.store == StoreOp::Store {
        return Some(Blocked::Stores(subpass(a.last_subpass)));
    }
    None
}

/// The pass and the rule of `blocked`, in words.
fn explain(
    graph: &Graph,
    breaks: &Breaks,
    resource: ResourceId,
    blocked: Blocked,
) -> (String, String) {
    let name = |p: PassId| graph.pass(p).name.to_string();
    let r = &graph.resource(resource).name;
    match blocked {
        Blocked::Lives(p) => (
            name(p),
            "it is imported or an output, so its content lives outside the frame: a memoryless image lives in one render pass".into(),
        ),
        Blocked::NotAttachment(p, access) => (
            name(p),
            format!("it uses '{r}' as {access}, not as an attachment: a memoryless image is used as an attachment only"),
        ),
        Blocked::Outside { pass, first, end } => {
            let why = breaks
                .drafts
                .iter()
                .find(|b| b.after == end)
                .map(|b| {
                    format!(
                        " (break before '{}': {})",
                        graph.pass(b.before).name,
                        breaks.reason(b)
                    )
                })
                .unwrap_or_default();
            (
                name(pass),
                format!(
                    "it uses '{r}' outside the render pass of '{}', which ends at '{}'{why}: a memoryless image lives in one render pass",
                    graph.pass(first).name,
                    graph.pass(end).name
                ),
            )
        }
        Blocked::Loads(p) => (
            name(p),
            "its first use keeps earlier content (load LOAD): a memoryless image is cleared or fully written at its first use".into(),
        ),
        Blocked::Stores(p) => (
            name(p),
            "its content is needed after the render pass (store STORE): a memoryless image's content ends with its render pass".into(),
        ),
    }
}

/// Whether [`why_not`] finds a reason, decided from the per-resource facts alone (for a
/// resource some kept pass uses).
fn blocked(
    graph: &Graph,
    grouping: &RenderPassGrouping,
    facts: &Facts,
    attachments: &Attachments,
    resource: ResourceId,
    first: PassId,
) -> bool {
    let r = graph.resource(resource);
    if r.is_persistent() || r.output || !facts.in_one_render_pass(resource) {
        return true;
    }
    let Some(home) = grouping.group_of[first.index()] else {
        return false;
    };
    attachments
        .of(home as usize)
        .iter()
        .find(|a| a.resource == resource)
        .is_some_and(|a| a.load == LoadOp::Load || a.store == StoreOp::Store)
}

/// True when a compile with `options` plans the render passes that judge declared-memoryless
/// resources: reordering, merging, memoryless attachments and async compute on (the default;
/// aliasing and sync minimisation come after the render passes and do not matter).
pub fn is_reference(options: &CompileOptions) -> bool {
    options.reorder && options.merge && options.memoryless && options.async_compute
}

/// The options of the reference compile for a compile with `options` (see [`is_reference`]).
pub fn reference_options(options: &CompileOptions) -> CompileOptions {
    CompileOptions {
        alias: options.alias,
        minimize_syncs: options.minimize_syncs,
        ..CompileOptions::ALL
    }
}

/// The optimisations of the reference that `options` turns off, in words.
fn switched_off(options: &CompileOptions) -> String {
    let off: Vec<&str> = [
        (options.reorder, "reorder"),
        (options.merge, "merge"),
        (options.async_compute, "async_compute"),
    ]
    .iter()
    .filter(|(on, _)| !on)
    .map(|&(_, name)| name)
    .collect();
    off.join(", ")
}

/// Marks memoryless attachments in `attachments` and returns, per resource, whether it is
/// memoryless, and the declared-memoryless resources placed in ordinary memory with the
/// reason. A declared resource that the render passes cannot keep in tile memory is an error
/// in the reference compile ([`is_reference`]); any other compile of the frame runs the
/// reference as well (`compile`), so that the error does not depend on the options, and
/// here it falls back to ordinary memory.
#[allow(clippy::too_many_arguments)] // the phase's inputs, each read once
pub fn decide(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    schedule: &Schedule,
    grouping: &RenderPassGrouping,
    facts: &Facts,
    attachments: &mut Attachments,
    breaks: &Breaks,
) -> Result<(Vec<bool>, Vec<MemorylessFallback>), CompileError> {
    let mut memoryless = vec![false; graph.resources.len()];
    let mut fallbacks = Vec::new();
    let mut fall_back = |id: ResourceId, reason: String| {
        fallbacks.push(MemorylessFallback {
            resource: graph.resource(id).name,
            reason,
        })
    };
    if !options.memoryless {
        for (id, r) in graph.resource_ids().zip(&graph.resources) {
            if r.declared_memoryless() && facts.first_user(id).is_some() {
                fall_back(id, "the memoryless optimisation is off".into());
            }
        }
        return Ok((memoryless, fallbacks));
    }
    let strict = is_reference(options);
    // Built only to explain a resource that cannot stay in tile memory.
    let mut index: Option<UseIndex<'_>> = None;
    let mut explain_why = |id: ResourceId| {
        let index = index.get_or_insert_with(|| UseIndex::new(graph, schedule));
        let b = why_not(graph, grouping, index, attachments, id);
        debug_assert!(b.is_some(), "the facts and the uses agree");
        b.map(|b| explain(graph, breaks, id, b))
    };
    let trace = log::log_enabled!(log::Level::Trace);
    for (id, r) in graph.resource_ids().zip(&graph.resources) {
        // A resource used outside one render pass is blocked; that matters only when it is
        // declared memoryless (an error or a fallback) or for the trace. Most resources end
        // here.
        if !facts.in_one_render_pass(id) && !r.declared_memoryless() && !trace {
            continue;
        }
        if r.image_desc().is_none() {
            continue;
        }
        let Some(first) = facts.first_user(id) else {
            continue;
        };
        let blocked = blocked(graph, grouping, facts, attachments, id, first);
        if blocked && r.declared_memoryless() {
            let (pass, rule) = explain_why(id).unwrap_or_default();
            if strict {
                return Err(CompileError::MemorylessBroken {
                    resource: r.name.to_string(),
                    pass,
                    rule,
                });
            }
            fall_back(
                id,
                format!(
                    "with {} off, pass '{pass}' breaks it: {rule}",
                    switched_off(options)
                ),
            );
        } else if blocked {
            if trace {
                let (pass, rule) = explain_why(id).unwrap_or_default();
                log::trace!("'{}' is not memoryless: '{pass}': {rule}", r.name);
            }
        } else if caps.lazily_allocated {
            log::debug!(
                "'{}' is memoryless: it lives in one render pass, never loaded or stored",
                r.name
            );
            memoryless[id.index()] = true;
        } else {
            if r.declared_memoryless() {
                fall_back(id, "the device has no lazily allocated memory".into());
            }
            log::trace!(
                "'{}' could be memoryless but the device has no lazily allocated memory",
                r.name
            );
        }
    }
    for a in &mut attachments.drafts {
        a.memoryless = memoryless[a.resource.index()];
    }
    Ok((memoryless, fallbacks))
}
