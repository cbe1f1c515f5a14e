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
//! Cost: O(uses).

use super::load_store::{AttachmentDraft, UseIndex};
use super::{BreakDraft, RenderPassGrouping};
use crate::caps::{Capabilities, CompileOptions};
use crate::error::CompileError;
use crate::graph::{Graph, ResourceId};
use crate::plan::{LoadOp, StoreOp};

/// Why a resource cannot stay in tile memory: the pass that breaks it and the rule.
fn why_not(
    graph: &Graph,
    grouping: &RenderPassGrouping,
    index: &UseIndex<'_>,
    attachments: &[Vec<AttachmentDraft>],
    breaks: &[BreakDraft],
    resource: ResourceId,
) -> Option<(String, String)> {
    let r = graph.resource(resource);
    let uses = &index.uses[resource.index()];
    let (_, first_pass, _) = uses.first()?;
    if r.imported || r.output {
        return Some((
            graph.pass(*first_pass).name.to_string(),
            "imported and output resources live outside the frame".into(),
        ));
    }
    let home = grouping.group_of[first_pass.index()];
    for (_, pass, u) in uses {
        let name = &graph.pass(*pass).name;
        if !u.access.is_attachment() {
            return Some((
                name.to_string(),
                format!("it uses '{}' as {}, not as an attachment", r.name, u.access),
            ));
        }
        let group = grouping.group_of[pass.index()];
        if group != home {
            let home_passes = home
                .map(|g| grouping.groups[g as usize].as_slice())
                .unwrap_or_default();
            let end = home_passes.last().copied().unwrap_or(*first_pass);
            let why = breaks
                .iter()
                .find(|b| b.after == end)
                .map(|b| {
                    format!(
                        " (break before '{}': {})",
                        graph.pass(b.before).name,
                        b.reason
                    )
                })
                .unwrap_or_default();
            return Some((
                name.to_string(),
                format!(
                    "it uses '{}' outside the render pass of '{}', which ends at '{}'{why}",
                    r.name,
                    graph.pass(*first_pass).name,
                    graph.pass(end).name
                ),
            ));
        }
    }
    let home = home? as usize;
    let a = attachments[home].iter().find(|a| a.resource == resource)?;
    let subpass = |i: u32| graph.pass(grouping.groups[home][i as usize]).name.clone();
    if a.load == LoadOp::Load {
        return Some((
            subpass(a.first_subpass).to_string(),
            "its first use needs earlier content (load LOAD)".into(),
        ));
    }
    if a.store == StoreOp::Store {
        return Some((
            subpass(a.last_subpass).to_string(),
            "its content is needed after the render pass (store STORE)".into(),
        ));
    }
    None
}

/// Marks memoryless attachments in `attachments` and returns, per resource, whether it is
/// memoryless; errors for a declared-memoryless resource the graph cannot keep so.
pub fn decide(
    graph: &Graph,
    caps: &Capabilities,
    options: &CompileOptions,
    grouping: &RenderPassGrouping,
    index: &UseIndex<'_>,
    attachments: &mut [Vec<AttachmentDraft>],
    breaks: &[BreakDraft],
) -> Result<Vec<bool>, CompileError> {
    let mut memoryless = vec![false; graph.resources.len()];
    if !options.memoryless {
        return Ok(memoryless);
    }
    for (id, r) in graph.resource_ids().zip(&graph.resources) {
        if r.image_desc().is_none() || index.uses[id.index()].is_empty() {
            continue;
        }
        let blocked = why_not(graph, grouping, index, attachments, breaks, id);
        match (&blocked, r.memoryless && options.merge) {
            (Some((pass, rule)), true) => {
                return Err(CompileError::MemorylessBroken {
                    resource: r.name.to_string(),
                    pass: pass.clone(),
                    rule: rule.clone(),
                });
            }
            (Some((pass, rule)), false) => {
                log::trace!("'{}' is not memoryless: '{pass}': {rule}", r.name)
            }
            (None, _) if caps.lazily_allocated => {
                log::debug!(
                    "'{}' is memoryless: it lives in one render pass, never loaded or stored",
                    r.name
                );
                memoryless[id.index()] = true;
            }
            (None, _) => log::trace!(
                "'{}' could be memoryless but the device has no lazily allocated memory",
                r.name
            ),
        }
    }
    for a in attachments.iter_mut().flatten() {
        a.memoryless = memoryless[a.resource.index()];
    }
    Ok(memoryless)
}
