//! Merging: which adjacent raster passes become subpasses of one render pass, and why the
//! others were split.
//!
//! Granite-style: for a candidate pass and the render pass still open before it, first list
//! *every* reason not to merge ([`Blocker`]); the pass joins only when the list is empty, and
//! otherwise the list becomes the break reason. The rules:
//! - merging is on and no compute/transfer pass of the graphics queue runs in between; an
//!   async-compute pass in between blocks only when it is not independent of the render
//!   pass ([`super::cross_queue`]);
//! - the pass has attachments, with the render pass's extent and sample count;
//! - no resource is used by the render pass both as an attachment and in another way
//!   (sampled, storage, indirect), and no hazard between its subpasses runs through a
//!   non-attachment use: every read of an earlier subpass's output is an input attachment or
//!   a depth test, so every subpass dependency is same-pixel; and non-attachment uses of one
//!   image agree on its layout (nothing may transition it inside the render pass);
//! - colour attachments within `max_color_attachments`, input attachments within
//!   `max_input_attachments`, and, where the device has a tile budget, Σ bits per texel ×
//!   samples over the colour attachments within `tile_bits_per_pixel`.
//!
//! [`OpenGroup`] holds what the rules need about the render pass being built; the order phase
//! uses the same type to make mergeable passes adjacent. Cost: O(uses of the candidate) per
//! test with a hash map per render pass, O(uses) for the whole grouping.

use super::cross_queue::Crossings;
use super::{BreakDraft, RenderPassGrouping};
use crate::access::{Access, Target};
use crate::caps::{Capabilities, CompileOptions};
use crate::compile::Schedule;
use crate::graph::{Graph, Pass, PassId, PassKind, QueueKind, ResourceId};
use std::collections::HashMap;

/// One reason not to merge a pass into the render pass before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// `CompileOptions::merge` is off.
    MergeOff,
    /// A non-raster pass of the graphics queue runs between the two.
    Between(PassId),
    /// The candidate uses a resource that a pass of the other queue, inside the render pass
    /// in the execution order, also uses: the render pass could have to wait for that pass.
    WaitsOnOtherQueue {
        /// The candidate.
        pass: PassId,
        /// The other-queue pass.
        other: PassId,
        /// A resource both use.
        resource: ResourceId,
    },
    /// A pass of the other queue inside the render pass in the execution order uses one of
    /// its resources (so it is not independent of the render pass, and typically waits for
    /// it): the render pass ends before it.
    OtherQueueInside {
        /// The other-queue pass.
        other: PassId,
        /// A resource it shares with the render pass.
        resource: ResourceId,
    },
    /// The pass has no attachments, so no render area to share.
    NoAttachments(PassId),
    /// Different framebuffer extent.
    Extent {
        /// The candidate.
        pass: PassId,
        /// Its extent.
        extent: (u32, u32),
        /// The render pass's extent.
        group: (u32, u32),
    },
    /// Different sample count.
    Samples {
        /// The candidate.
        pass: PassId,
        /// Its sample count.
        samples: u32,
        /// The render pass's sample count.
        group: u32,
    },
    /// The candidate reads an earlier subpass's output other than as an attachment.
    NotAttachmentRead {
        /// The candidate.
        pass: PassId,
        /// The resource.
        resource: ResourceId,
        /// How the candidate reads it.
        access: Access,
        /// The subpass that wrote it.
        writer: PassId,
    },
    /// A resource would be used as an attachment and in another way in one render pass, or a
    /// hazard would run through non-attachment uses.
    Conflict {
        /// The candidate.
        pass: PassId,
        /// The resource.
        resource: ResourceId,
        /// The candidate's access.
        access: Access,
        /// The subpass already using it.
        other: PassId,
        /// That subpass's access.
        other_access: Access,
    },
    /// Two non-attachment uses of one image need different layouts; nothing can change an
    /// image's layout inside a render pass except its own attachment transitions.
    Layout {
        /// The candidate.
        pass: PassId,
        /// The image.
        resource: ResourceId,
        /// The candidate's access.
        access: Access,
        /// The subpass already using it.
        other: PassId,
        /// That subpass's access.
        other_access: Access,
    },
    /// Too many colour attachments.
    ColorLimit {
        /// Colour attachments the merged render pass would hold.
        count: u32,
        /// `max_color_attachments`.
        limit: u32,
    },
    /// Too many input attachments.
    InputLimit {
        /// Input attachments the merged render pass would hold.
        count: u32,
        /// `max_input_attachments`.
        limit: u32,
    },
    /// The colour attachments would not fit the tile storage.
    TileBudget {
        /// Bits per pixel the merged render pass would need.
        bits: u32,
        /// `tile_bits_per_pixel`.
        budget: u32,
        /// Each colour attachment with its bits per pixel (bits per texel × samples).
        parts: Vec<(ResourceId, u32)>,
    },
}

impl Blocker {
    /// The rule in words, naming passes and resources.
    pub fn describe(&self, graph: &Graph) -> String {
        let p = |id: PassId| graph.pass(id).name.as_str();
        let r = |id: ResourceId| graph.resource(id).name.as_str();
        match self {
            Blocker::MergeOff => "merging is off".to_string(),
            Blocker::Between(x) => {
                format!("{} pass '{}' runs between them", kind_name(graph.pass(*x).kind), p(*x))
            }
            Blocker::WaitsOnOtherQueue { pass, other, resource } => format!(
                "'{}' uses '{}' like '{}' on the {} queue, which runs inside the render pass: the render pass could wait for the other queue inside it",
                p(*pass),
                r(*resource),
                p(*other),
                graph.pass(*other).queue
            ),
            Blocker::OtherQueueInside { other, resource } => format!(
                "'{}' on the {} queue uses '{}' of the render pass and runs inside it in the order: the render pass must end before it",
                p(*other),
                graph.pass(*other).queue,
                r(*resource)
            ),
            Blocker::NoAttachments(x) => format!("'{}' has no attachments", p(*x)),
            Blocker::Extent { pass, extent, group } => format!(
                "extent differs: '{}' renders {}x{}, the render pass {}x{}",
                p(*pass),
                extent.0,
                extent.1,
                group.0,
                group.1
            ),
            Blocker::Samples { pass, samples, group } => format!(
                "sample count differs: '{}' uses {samples} samples, the render pass {group}",
                p(*pass)
            ),
            Blocker::NotAttachmentRead { pass, resource, access: Access::Sampled, writer } => format!(
                "'{}' samples '{}' (sampled, not an input attachment), written by subpass '{}'",
                p(*pass),
                r(*resource),
                p(*writer)
            ),
            Blocker::NotAttachmentRead { pass, resource, access, writer } => format!(
                "'{}' reads '{}' as {access} (not an input attachment), written by subpass '{}'",
                p(*pass),
                r(*resource),
                p(*writer)
            ),
            Blocker::Conflict { pass, resource, access, other, other_access } => {
                if access.is_attachment() {
                    format!(
                        "'{}' uses '{}' as an attachment ({access}) but subpass '{}' uses it as {other_access}",
                        p(*pass),
                        r(*resource),
                        p(*other)
                    )
                } else if other_access.is_attachment() {
                    format!(
                        "'{}' uses '{}' as {access} while it is an attachment ({other_access}) of subpass '{}'",
                        p(*pass),
                        r(*resource),
                        p(*other)
                    )
                } else {
                    format!(
                        "'{}' uses '{}' as {access} after subpass '{}' used it as {other_access}: not a same-pixel dependency",
                        p(*pass),
                        r(*resource),
                        p(*other)
                    )
                }
            }
            Blocker::Layout { pass, resource, access, other, other_access } => format!(
                "'{}' uses '{}' as {access} but subpass '{}' uses it as {other_access}, in another layout",
                p(*pass),
                r(*resource),
                p(*other)
            ),
            Blocker::ColorLimit { count, limit } => format!(
                "the render pass would hold {count} colour attachments (max_color_attachments {limit})"
            ),
            Blocker::InputLimit { count, limit } => format!(
                "the render pass would hold {count} input attachments (max_input_attachments {limit})"
            ),
            Blocker::TileBudget { bits, budget, parts } => {
                let list: Vec<String> = parts.iter().map(|(id, b)| format!("'{}' {b}", r(*id))).collect();
                format!(
                    "tile storage: colour attachments would need {bits} bits per pixel ({}), over the device's {budget}",
                    list.join(" + ")
                )
            }
        }
    }
}

fn kind_name(kind: PassKind) -> &'static str {
    match kind {
        PassKind::Raster => "raster",
        PassKind::Compute => "compute",
        PassKind::Transfer => "transfer",
    }
}

/// What the render pass being built knows about one resource.
#[derive(Clone, Copy, Debug, Default)]
struct GroupUse {
    /// Latest attachment use.
    attachment: Option<(PassId, Access)>,
    /// Latest non-attachment use.
    other: Option<(PassId, Access)>,
    /// Latest subpass that wrote it.
    writer: Option<PassId>,
    /// Counts as a colour attachment (tile storage), with its bits per pixel.
    colour_bits: Option<u32>,
    /// Read as an input attachment.
    input: bool,
}

/// The render pass being built: its subpasses so far and what the merge rules need.
#[derive(Clone, Debug, Default)]
pub struct OpenGroup {
    /// Subpasses so far.
    pub passes: Vec<PassId>,
    extent: Option<(u32, u32)>,
    samples: Option<u32>,
    uses: HashMap<ResourceId, GroupUse>,
    colour: Vec<ResourceId>,
    inputs: u32,
}

/// Extent and sample count of a raster pass's attachments (resolve targets give the extent
/// only); `None` without attachments.
fn frame_of(graph: &Graph, pass: &Pass) -> Option<((u32, u32), Option<u32>)> {
    let mut out: Option<((u32, u32), Option<u32>)> = None;
    for u in pass.uses.iter().filter(|u| u.access.is_attachment()) {
        let Some(d) = graph.resource(u.resource).image_desc() else {
            continue;
        };
        let entry = out.get_or_insert(((d.width, d.height), None));
        if u.access != Access::Resolve && entry.1.is_none() {
            entry.1 = Some(d.samples);
        }
    }
    out
}

/// Bits per pixel a colour attachment takes in tile storage, `None` for depth/stencil and
/// for uses that are no colour attachment in tile memory (resolve targets, non-attachments).
fn colour_bits(graph: &Graph, resource: ResourceId, access: Access) -> Option<u32> {
    if !access.is_attachment() || access == Access::Resolve {
        return None;
    }
    let d = graph.resource(resource).image_desc()?;
    (!d.format.is_depth_stencil()).then(|| d.format.bits_per_texel().saturating_mul(d.samples))
}

impl OpenGroup {
    /// A render pass holding `pass` alone.
    pub fn new(graph: &Graph, pass: PassId) -> Self {
        let mut g = OpenGroup::default();
        g.add(graph, pass);
        g
    }

    /// Every reason why `pass` cannot become the next subpass (empty: it can). The caller
    /// checks the rules about the schedule (merging on, nothing in between).
    pub fn blockers(&self, graph: &Graph, caps: &Capabilities, pass: PassId) -> Vec<Blocker> {
        let mut out = Vec::new();
        let p = graph.pass(pass);
        match frame_of(graph, p) {
            None => out.push(Blocker::NoAttachments(pass)),
            Some((extent, samples)) => {
                if let Some(group) = self.extent.filter(|&g| g != extent) {
                    out.push(Blocker::Extent {
                        pass,
                        extent,
                        group,
                    });
                }
                if let (Some(s), Some(group)) = (samples, self.samples) {
                    if s != group {
                        out.push(Blocker::Samples {
                            pass,
                            samples: s,
                            group,
                        });
                    }
                }
            }
        }
        if self.extent.is_none() && !self.passes.is_empty() {
            out.push(Blocker::NoAttachments(self.passes[0]));
        }
        let mut colour = self.colour.clone();
        let mut inputs = self.inputs;
        for u in &p.uses {
            let known = self.uses.get(&u.resource);
            if let Some(g) = known {
                let target = graph.resource(u.resource).target();
                if let Some(b) = conflict(pass, u.resource, u.access, u.clear, g, target) {
                    out.push(b);
                }
            }
            if colour_bits(graph, u.resource, u.access).is_some() && !colour.contains(&u.resource) {
                colour.push(u.resource);
            }
            if u.access == Access::InputAttachment && !known.is_some_and(|g| g.input) {
                inputs += 1;
            }
        }
        let count = colour.len() as u32;
        if count > caps.max_color_attachments {
            out.push(Blocker::ColorLimit {
                count,
                limit: caps.max_color_attachments,
            });
        }
        if inputs > caps.max_input_attachments {
            out.push(Blocker::InputLimit {
                count: inputs,
                limit: caps.max_input_attachments,
            });
        }
        if caps.tile_bits_per_pixel > 0 {
            let parts: Vec<(ResourceId, u32)> = colour
                .iter()
                .map(|&r| {
                    let bits = self.uses.get(&r).and_then(|g| g.colour_bits).or_else(|| {
                        p.uses
                            .iter()
                            .find(|u| u.resource == r)
                            .and_then(|u| colour_bits(graph, r, u.access))
                    });
                    (r, bits.unwrap_or(0))
                })
                .collect();
            let bits = parts
                .iter()
                .map(|(_, b)| *b)
                .fold(0u32, u32::saturating_add);
            if bits > caps.tile_bits_per_pixel {
                out.push(Blocker::TileBudget {
                    bits,
                    budget: caps.tile_bits_per_pixel,
                    parts,
                });
            }
        }
        out
    }

    /// Adds `pass` as the next subpass (the caller has checked [`OpenGroup::blockers`]).
    pub fn add(&mut self, graph: &Graph, pass: PassId) {
        let p = graph.pass(pass);
        if let Some((extent, samples)) = frame_of(graph, p) {
            self.extent.get_or_insert(extent);
            if self.samples.is_none() {
                self.samples = samples;
            }
        }
        for u in &p.uses {
            let g = self.uses.entry(u.resource).or_default();
            if u.access.is_attachment() {
                g.attachment = Some((pass, u.access));
                if let Some(bits) = colour_bits(graph, u.resource, u.access) {
                    if g.colour_bits.is_none() {
                        self.colour.push(u.resource);
                    }
                    g.colour_bits = Some(bits);
                }
                if u.access == Access::InputAttachment && !g.input {
                    g.input = true;
                    self.inputs += 1;
                }
            } else {
                g.other = Some((pass, u.access));
            }
            if u.access.writes() {
                g.writer = Some(pass);
            }
        }
        self.passes.push(pass);
    }
}

/// The merge rule about one resource the render pass already uses: attachment uses only
/// meet attachment uses, and non-attachment uses never form a hazard.
fn conflict(
    pass: PassId,
    resource: ResourceId,
    access: Access,
    clear: bool,
    g: &GroupUse,
    target: Target,
) -> Option<Blocker> {
    if access.is_attachment() {
        let (other, other_access) = g.other?;
        return Some(Blocker::Conflict {
            pass,
            resource,
            access,
            other,
            other_access,
        });
    }
    if let (Some(writer), true) = (g.writer, access.reads(clear)) {
        return Some(Blocker::NotAttachmentRead {
            pass,
            resource,
            access,
            writer,
        });
    }
    if let Some((other, other_access)) = g.attachment {
        return Some(Blocker::Conflict {
            pass,
            resource,
            access,
            other,
            other_access,
        });
    }
    let (other, other_access) = g.other?;
    let layout = |a: Access| a.scope(PassKind::Raster, target).layout;
    if layout(access) != layout(other_access) {
        return Some(Blocker::Layout {
            pass,
            resource,
            access,
            other,
            other_access,
        });
    }
    (access.writes() || g.writer.is_some()).then_some(Blocker::Conflict {
        pass,
        resource,
        access,
        other,
        other_access,
    })
}

/// Groups the scheduled raster passes into render passes and records a break, with every
/// reason, between each pair of adjacent raster passes left in different render passes.
pub fn group(
    graph: &Graph,
    schedule: &Schedule,
    caps: &Capabilities,
    options: &CompileOptions,
) -> (RenderPassGrouping, Vec<BreakDraft>) {
    let mut grouping = RenderPassGrouping {
        groups: Vec::new(),
        group_of: vec![None; graph.passes.len()],
    };
    let mut breaks = Vec::new();
    let mut open: Option<OpenGroup> = None;
    let mut between: Vec<PassId> = Vec::new();
    let mut crossings = Crossings::default();
    for &pass in &schedule.order {
        if schedule.queue[pass.index()] != QueueKind::Graphics {
            crossings.note(graph, pass);
            continue;
        }
        if graph.pass(pass).kind != PassKind::Raster {
            between.push(pass);
            continue;
        }
        let mut blockers = Vec::new();
        if let Some(g) = &open {
            if !options.merge {
                blockers.push(Blocker::MergeOff);
            } else {
                blockers.extend(between.iter().map(|&b| Blocker::Between(b)));
                blockers.extend(crossings.blocker(graph, pass));
                blockers.extend(g.blockers(graph, caps, pass));
            }
        }
        match open.as_mut() {
            Some(g) if blockers.is_empty() => {
                log::debug!(
                    "merge '{}' into the render pass of '{}'",
                    graph.pass(pass).name,
                    graph.pass(g.passes[0]).name
                );
                g.add(graph, pass);
                crossings.joined(graph, pass);
                let index = grouping.groups.len() - 1;
                grouping.groups[index].push(pass);
                grouping.group_of[pass.index()] = Some(index as u32);
            }
            _ => {
                if let Some(g) = &open {
                    let reasons: Vec<String> = blockers.iter().map(|b| b.describe(graph)).collect();
                    let after = *g.passes.last().unwrap_or(&pass);
                    log::debug!(
                        "break between '{}' and '{}': {}",
                        graph.pass(after).name,
                        graph.pass(pass).name,
                        reasons.join("; ")
                    );
                    breaks.push(BreakDraft {
                        after,
                        before: pass,
                        reasons,
                    });
                }
                grouping.group_of[pass.index()] = Some(grouping.groups.len() as u32);
                grouping.groups.push(vec![pass]);
                open = Some(OpenGroup::new(graph, pass));
                crossings.open(graph, pass);
            }
        }
        between.clear();
    }
    (grouping, breaks)
}
