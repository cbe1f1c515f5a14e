//! The screen of [`super::validate`]: does every rule hold? One sweep over resources and
//! passes that answers yes or no and builds no error.
//!
//! Each resource is reduced to one byte while its shape is checked: its target class for
//! the access rules (buffer, colour or depth/stencil image, single- or multisampled), whether
//! it is imported, and whether an earlier pass wrote it. What the rule-by-rule walk derives
//! per use by matching on the access, the pass kind and the target (does the access fit, may
//! it clear, does it need earlier content, does it write, which attachment counts it adds) is
//! one row of [`AccessRules`], built once per process from the `Access` methods that the walk
//! itself calls, so the two cannot drift apart. Every rule is folded into one flag with
//! branch-free `&`/`|`; the few rules that need more than a table (resolve sources, one
//! extent per render pass) call the walk's own helpers.
//!
//! Invariant: `all_rules_hold` is true exactly when [`super::validate_rule_by_rule`] is
//! `Ok` (a property test compares them on random valid and invalid graphs). Cost: a few
//! instructions per use and per resource, the duplicate-name table, one byte per resource.

use super::{
    check_attachment_extents, check_clear_value, check_resolve, first_duplicate_in,
    transient_footprint, MAX_DIMENSION, MAX_LAYERS,
};
use crate::access::{Access, Target};
use crate::caps::Capabilities;
use crate::compile::memory::lifetimes::effective_alignment;
use crate::error::MAX_TRANSIENT_BYTES;
use crate::format::Format;
use crate::graph::{Graph, Origin, PassKind, QueueKind, ResourceKind};
use std::sync::OnceLock;

/// Target classes of a resource byte (its low three bits); the access table holds one bit
/// per class.
const BUFFER: u8 = 0;
const COLOUR: u8 = 1;
const DEPTH: u8 = 2;
/// Added to `COLOUR`/`DEPTH` for a multisampled image.
const MULTISAMPLED: u8 = 2;
const CLASS: u8 = 0b111;
/// Resource byte: owned outside the graph (its content may be read before any write).
const IMPORTED: u8 = 1 << 3;
/// Resource byte: written by an earlier pass.
const WRITTEN: u8 = 1 << 4;

/// Packed attachment counts of a pass: 16 bits each for attachments, depth/stencil,
/// colour and input attachments.
const ATTACHMENT: u64 = 1;
const DEPTH_COUNT: u64 = 1 << 16;
const COLOUR_COUNT: u64 = 1 << 32;
const INPUT_COUNT: u64 = 1 << 48;
/// Passes with more uses than this could carry one count into the next: the walk decides.
const MAX_PACKED_USES: usize = 0xffff;

/// What the rules say about one access kind.
#[derive(Clone, Copy, Default)]
struct AccessRule {
    /// Per pass kind (in `PassKind` order), one bit per target class the access may use.
    fits: [u8; 3],
    /// Needs earlier content without a clear / with one.
    reads: [bool; 2],
    writes: bool,
    can_clear: bool,
    resolve: bool,
    /// What the use adds to the pass's packed counts.
    counts: u64,
}

/// [`AccessRule`] of every access kind, indexed by `Access as usize`.
struct AccessRules([AccessRule; ACCESS_KINDS]);

const ACCESS_KINDS: usize = Access::ALL.len();
const PASS_KINDS: [PassKind; 3] = [PassKind::Raster, PassKind::Compute, PassKind::Transfer];

impl AccessRules {
    /// The table, built on first use from the `Access` methods the rule-by-rule walk uses.
    fn get() -> &'static AccessRules {
        static RULES: OnceLock<AccessRules> = OnceLock::new();
        RULES.get_or_init(AccessRules::build)
    }

    fn build() -> AccessRules {
        // `Access::check` tells colour from depth/stencil images by the format only.
        let targets = [
            (BUFFER, Target::Buffer),
            (COLOUR, Target::Image(Format::R8G8B8A8_UNORM)),
            (DEPTH, Target::Image(Format::D32_SFLOAT)),
        ];
        let mut rules = [AccessRule::default(); ACCESS_KINDS];
        debug_assert_eq!(Access::ALL.len(), ACCESS_KINDS);
        for &a in Access::ALL {
            let storage_or_transfer = matches!(
                a,
                Access::StorageRead
                    | Access::StorageWrite
                    | Access::StorageReadWrite
                    | Access::TransferSrc
                    | Access::TransferDst
            );
            let rule = &mut rules[a as usize];
            for (k, &kind) in PASS_KINDS.iter().enumerate() {
                debug_assert_eq!(kind as usize, k);
                for (class, target) in targets {
                    if a.check(kind, target).is_ok() {
                        rule.fits[k] |= 1 << class;
                        // Multisampled images are attachments, sampled or resolved only.
                        if class != BUFFER && !storage_or_transfer {
                            rule.fits[k] |= 1 << (class + MULTISAMPLED);
                        }
                    }
                }
            }
            rule.reads = [a.reads(false), a.reads(true)];
            rule.writes = a.writes();
            rule.can_clear = a.can_clear();
            rule.resolve = a == Access::Resolve;
            rule.counts = u64::from(a.is_attachment()) * ATTACHMENT
                + match a {
                    Access::DepthWrite | Access::DepthRead => DEPTH_COUNT,
                    Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite => {
                        COLOUR_COUNT
                    }
                    Access::InputAttachment => INPUT_COUNT,
                    _ => 0,
                };
        }
        AccessRules(rules)
    }
}

/// True when every rule of the validate phase holds for `graph`: exactly when
/// [`super::validate_rule_by_rule`] is `Ok`, without naming the broken rule.
pub fn all_rules_hold(graph: &Graph, caps: &Capabilities) -> bool {
    // History resources, persistent outputs and `previous` uses have rules of their own:
    // rule by rule.
    if graph
        .resources
        .iter()
        .any(|r| r.is_history() || (r.is_kept_across_plans() && r.output))
        || graph
            .passes
            .iter()
            .any(|p| p.uses.iter().any(|u| u.previous))
    {
        return false;
    }
    let Some(mut resources) = resource_bytes(graph, caps) else {
        return false;
    };
    let mut slots = Vec::new();
    let resource_names = graph.resources.iter().map(|r| r.name);
    let pass_names = graph.passes.iter().map(|p| p.name);
    if first_duplicate_in(&mut slots, resource_names, |i| graph.resources[i].name).is_some()
        || first_duplicate_in(&mut slots, pass_names, |i| graph.passes[i].name).is_some()
    {
        return false;
    }
    drop(slots);
    let rules = &AccessRules::get().0;
    for pass in &graph.passes {
        if pass.name.is_empty()
            || (pass.kind == PassKind::Raster && pass.queue == QueueKind::AsyncCompute)
            || pass.uses.len() > MAX_PACKED_USES
        {
            return false;
        }
        let kind = pass.kind as usize;
        let mut ok = true;
        let mut counts = 0u64;
        for (i, u) in pass.uses.iter().enumerate() {
            let Some(byte) = resources.get_mut(u.resource.index()) else {
                return false;
            };
            let r = &rules[u.access as usize];
            let facts = *byte;
            let needs_content = r.reads[usize::from(u.clear)];
            ok &= (r.fits[kind] >> (facts & CLASS)) & 1 != 0;
            ok &= !u.clear | r.can_clear;
            ok &= !needs_content | (facts & (WRITTEN | IMPORTED) != 0);
            if pass.queue == QueueKind::AsyncCompute {
                ok &= !graph.resources[u.resource.index()].is_presented();
            }
            if let Some(v) = u.clear_value {
                ok &= check_clear_value(&graph.resources[u.resource.index()], u.clear, v).is_ok();
            }
            ok &= u.resolve_mode.is_none() | r.resolve;
            ok &= match u.from {
                None => !r.resolve,
                Some(from) => r.resolve && check_resolve(graph, caps, pass, u, from).is_ok(),
            };
            // Uses per pass are few: a scan beats hashing.
            ok &= !pass.uses[..i].iter().any(|v| v.resource == u.resource);
            if r.writes {
                *byte = facts | WRITTEN;
            }
            counts += r.counts;
        }
        let count = |unit: u64| ((counts / unit) & 0xffff) as u32;
        if !ok
            || count(DEPTH_COUNT) > 1
            || count(COLOUR_COUNT) > caps.max_color_attachments
            || count(INPUT_COUNT) > caps.max_input_attachments
            || (count(ATTACHMENT) > 1 && check_attachment_extents(graph, pass).is_err())
        {
            return false;
        }
    }
    true
}

/// One byte per resource (class, imported), or `None` when a resource breaks a rule of its
/// own (name, shape, flags, memory limit).
fn resource_bytes(graph: &Graph, caps: &Capabilities) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(graph.resources.len());
    let alignment = effective_alignment(caps);
    let mut total = 0u64;
    for r in &graph.resources {
        if !r.is_persistent() {
            total = total.checked_add(transient_footprint(r, alignment)?)?;
            if total > MAX_TRANSIENT_BYTES {
                return None;
            }
        }
        let mut bad =
            r.name.is_empty() | (r.size == Some(0)) | (r.declared_memoryless() & r.output);
        let class = match &r.kind {
            ResourceKind::Image(d) => {
                let full_chain = 32 - d.width.max(d.height).leading_zeros();
                bad |= (d.width.wrapping_sub(1) >= MAX_DIMENSION)
                    | (d.height.wrapping_sub(1) >= MAX_DIMENSION)
                    // A power of two from 1 to 64 (`is_power_of_two` counts bits in software
                    // on the baseline target).
                    | (d.samples.wrapping_sub(1) >= 64)
                    | (d.samples & d.samples.wrapping_sub(1) != 0)
                    | (d.mips.wrapping_sub(1) >= full_chain)
                    | ((d.samples > 1) & (d.mips > 1))
                    | (d.layers.wrapping_sub(1) >= MAX_LAYERS)
                    | (d.cube & ((d.layers != 6) | (d.width != d.height) | (d.samples != 1)));
                let base = if d.format.is_depth_stencil() {
                    DEPTH
                } else {
                    COLOUR
                };
                base + if d.samples > 1 { MULTISAMPLED } else { 0 }
            }
            ResourceKind::Buffer { size } => {
                bad |= (*size == 0) | r.declared_memoryless() | r.is_presented();
                BUFFER
            }
        };
        if bad {
            return None;
        }
        // A per_frame resource holds nothing at entry: like a transient, it is written first.
        // A persistent one holds an earlier frame's content.
        let kept_from_outside = matches!(r.origin, Origin::Imported(_) | Origin::Persistent { .. });
        bytes.push(class | if kept_from_outside { IMPORTED } else { 0 });
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::TargetClass;

    /// The table agrees with `Access::check` and the multisample rule for every access,
    /// pass kind and format (the table is built from three representative targets).
    #[test]
    fn access_table_agrees_with_the_rules_for_every_format() {
        let rules = &AccessRules::get().0;
        for &a in Access::ALL {
            for (k, &kind) in PASS_KINDS.iter().enumerate() {
                let fits = rules[a as usize].fits[k];
                assert_eq!(
                    fits & (1 << BUFFER) != 0,
                    a.check(kind, Target::Buffer).is_ok()
                );
                for &f in Format::ALL {
                    let target = Target::Image(f);
                    let class = if target.class() == TargetClass::DepthStencil {
                        DEPTH
                    } else {
                        COLOUR
                    };
                    let single = a.check(kind, target).is_ok();
                    assert_eq!(fits & (1 << class) != 0, single, "{a:?} {kind:?} {f:?}");
                    let ms_forbidden = matches!(
                        a,
                        Access::StorageRead
                            | Access::StorageWrite
                            | Access::StorageReadWrite
                            | Access::TransferSrc
                            | Access::TransferDst
                    );
                    assert_eq!(
                        fits & (1 << (class + MULTISAMPLED)) != 0,
                        single && !ms_forbidden,
                        "{a:?} {kind:?} {f:?} multisampled"
                    );
                }
            }
        }
    }
}
