//! Memoryless attachments: images that never leave tile memory.
//!
//! A transient image (not imported, not an output) is memoryless when every kept use of it is
//! an attachment use by a subpass of one render pass, and there its load is `CLEAR` or
//! `DONT_CARE` and its store `DONT_CARE`: no DRAM is ever read or written, so it takes
//! `TRANSIENT_ATTACHMENT` usage with `LAZILY_ALLOCATED` memory and no bytes in the aliasing
//! blocks. That needs a device with lazily allocated memory and `CompileOptions::memoryless`.
//!
//! A resource the author *declared* memoryless must pass the same test whenever merging and
//! memoryless are both on (on every device, so that a regression is loud in desktop CI too;
//! without lazily allocated memory it is then placed like any transient): otherwise compiling
//! fails with [`CompileError::MemorylessBroken`] naming the first pass that breaks it.
//! Cost: O(resources) over the per-resource facts of the load/store sweep; the uses are
//! indexed per resource, and the reason put in words, only for that error (or a trace log).

use super::load_store::{Attachments, Facts, UseIndex};
use super::{Breaks, RenderPassGrouping};
use crate::access::Access;
use crate::caps::{Capabilities, CompileOptions};
use crate::compile::Schedule;
use crate::error::CompileError;
use crate::graph::{Graph, PassId, ResourceId};
use crate::plan::{LoadOp, StoreOp};

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
    if r.imported || r.output {
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
            "imported and output resources live outside the frame".into(),
        ),
        Blocked::NotAttachment(p, access) => (
            name(p),
            format!("it uses '{r}' as {access}, not as an attachment"),
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
                    "it uses '{r}' outside the render pass of '{}', which ends at '{}'{why}",
                    graph.pass(first).name,
                    graph.pass(end).name
                ),
            )
        }
        Blocked::Loads(p) => (
            name(p),
            "its first use needs earlier content (load LOAD)".into(),
        ),
        Blocked::Stores(p) => (
            name(p),
            "its content is needed after the render pass (store STORE)".into(),
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
    if r.imported || r.output || !facts.in_one_render_pass(resource) {
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

/// Marks memoryless attachments in `attachments` and returns, per resource, whether it is
/// memoryless; errors for a declared-memoryless resource the graph cannot keep so.
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
) -> Result<Vec<bool>, CompileError> {
    let mut memoryless = vec![false; graph.resources.len()];
    if !options.memoryless {
        return Ok(memoryless);
    }
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
        // declared memoryless (an error) or for the trace. Most resources end here.
        if !facts.in_one_render_pass(id) && !r.memoryless && !trace {
            continue;
        }
        if r.image_desc().is_none() {
            continue;
        }
        let Some(first) = facts.first_user(id) else {
            continue;
        };
        let blocked = blocked(graph, grouping, facts, attachments, id, first);
        if blocked && r.memoryless && options.merge {
            let (pass, rule) = explain_why(id).unwrap_or_default();
            return Err(CompileError::MemorylessBroken {
                resource: r.name.to_string(),
                pass,
                rule,
            });
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
            log::trace!(
                "'{}' could be memoryless but the device has no lazily allocated memory",
                r.name
            );
        }
    }
    for a in &mut attachments.drafts {
        a.memoryless = memoryless[a.resource.index()];
    }
    Ok(memoryless)
}
