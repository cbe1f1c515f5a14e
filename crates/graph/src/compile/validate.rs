//! Phase 1, validate: every rule a graph must satisfy before it can be planned.
//!
//! Checks unique names, resource shapes, that a memoryless resource is an image and not an
//! output and a presented one an image (what [`Origin`](crate::graph::Origin) cannot say; its
//! other combinations cannot be built), the transient memory limit (each footprint, the size
//! rounded up to the placement alignment in checked arithmetic, and their sum over every
//! transient resource declared, at most [`MAX_TRANSIENT_BYTES`]), that each access fits its
//! pass and resource, one use per resource per pass, resolve sources, one depth/stencil
//! attachment per raster pass, and that every read of a transient resource has an earlier
//! writer; then the coverage rules (`validate/coverage.rs`: covered content is read only with
//! the same coverage). Returns the first broken rule, naming the pass and resource, the values
//! that break it, and what it needs.
//!
//! Two passes over the same rules: [`validate`] first runs the screen [`all_rules_hold`], which
//! only answers "every rule holds" (one sweep, one byte of facts per resource, the access
//! rules read from a table, no error built), and only when it does not is the graph walked
//! again rule by rule ([`validate_rule_by_rule`]) to name the first broken rule. The screen
//! accepts exactly the graphs the rule-by-rule walk accepts (a property test compares the
//! two), so errors and their order come from one place. Cost: O(passes + uses) for a valid
//! graph, names checked for uniqueness in one open-addressing table reused for resources
//! and passes; an invalid graph pays the walk as well.

mod coverage;
mod screen;

pub use screen::all_rules_hold;

use crate::access::Access;
use crate::caps::Capabilities;
use crate::compile::memory::lifetimes::effective_alignment;
use crate::error::{human_bytes, shape, CompileError, ResolveRule, MAX_TRANSIENT_BYTES};
use crate::graph::{
    ClearValue, Graph, HistoryRole, Origin, PassKind, QueueKind, Resource, ResourceKind,
};
use crate::name::Name;

/// Position of the first name equal to an earlier one, if any: the name checks of
/// [`validate_resources`] and [`validate_passes`] then need no set of their own.
fn first_duplicate(count: usize, name: impl Fn(usize) -> Name) -> Option<usize> {
    first_duplicate_in(&mut Vec::new(), (0..count).map(&name), &name)
}

/// [`first_duplicate`] over the names `names` (read once, in order; `name(j)` reads name `j`
/// again when two slots collide), with the slot table in `slots` (cleared and resized here)
/// so that one allocation serves several lists.
///
/// Open addressing over indices into `names` (one allocation, at most half full). Names are
/// interned, so a name's [identity](Name::identity) stands for its text: the slot comes from
/// the high bits of the identity times an odd constant, and a collision is settled by
/// comparing identities, without reading a byte of any name.
fn first_duplicate_in(
    slots: &mut Vec<u32>,
    names: impl ExactSizeIterator<Item = Name>,
    name: impl Fn(usize) -> Name,
) -> Option<usize> {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let size = (names.len() * 2).next_power_of_two().max(8);
    let shift = 64 - size.trailing_zeros();
    let mask = size - 1;
    slots.clear();
    slots.resize(size, u32::MAX);
    for (i, n) in names.enumerate() {
        let mut at = ((n.identity() as u64).wrapping_mul(K) >> shift) as usize & mask;
        loop {
            match slots[at] {
                u32::MAX => {
                    slots[at] = i as u32;
                    break;
                }
                j if name(j as usize) == n => return Some(i),
                _ => at = (at + 1) & mask,
            }
        }
    }
    None
}

/// Largest image dimension accepted (Vulkan's common `maxImageDimension2D` is 16384; leave room).
const MAX_DIMENSION: u32 = 65536;

/// Most array layers of an image.
const MAX_LAYERS: u32 = 2048;

/// Checks every rule, the coverage rules (`coverage.rs`) last; `Ok` means the graph can be
/// compiled.
pub fn validate(graph: &Graph, caps: &Capabilities) -> Result<(), CompileError> {
    if screen::all_rules_hold(graph, caps) {
        debug_assert!(validate_rule_by_rule(graph, caps).is_ok());
    } else {
        validate_rule_by_rule(graph, caps)?;
    }
    // Coverage rules read the other rules' results (declared ids, one use per resource).
    coverage::check(graph)
}

/// Checks every rule one after the other and names the first broken one; same result as
/// [`validate`] before its coverage rules, which it runs only for graphs its screen does not
/// pass.
pub fn validate_rule_by_rule(graph: &Graph, caps: &Capabilities) -> Result<(), CompileError> {
    validate_resources(graph, caps)?;
    match validate_passes(graph, caps)? {
        Some(pass) => check_limits(pass, caps),
        None => Ok(()),
    }
}

/// Attachment counts of a raster pass stay within the device limits.
fn check_limits(pass: &crate::graph::Pass, caps: &Capabilities) -> Result<(), CompileError> {
    let count = |f: fn(Access) -> bool| pass.uses.iter().filter(|u| f(u.access)).count() as u32;
    let colour = count(|a| {
        matches!(
            a,
            Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite
        )
    });
    let input = count(|a| a == Access::InputAttachment);
    if colour > caps.max_color_attachments {
        return Err(CompileError::InvalidPass {
            pass: pass.name.to_string(),
            rule: format!(
                "{colour} colour attachments: the device allows at most {} (max_color_attachments)",
                caps.max_color_attachments
            ),
        });
    }
    if input > caps.max_input_attachments {
        return Err(CompileError::InvalidPass {
            pass: pass.name.to_string(),
            rule: format!(
                "{input} input attachments: the device allows at most {} (max_input_attachments)",
                caps.max_input_attachments
            ),
        });
    }
    Ok(())
}

/// The error for a use of `resource` as `access` in `pass` that breaks `rule`.
fn mismatch(
    pass: &crate::graph::Pass,
    resource: &Resource,
    access: Access,
    rule: String,
) -> CompileError {
    CompileError::AccessMismatch {
        pass: pass.name.as_str().into(),
        pass_kind: pass.kind,
        resource: resource.name.as_str().into(),
        shape: shape(resource).into(),
        access,
        rule: rule.into(),
    }
}

fn validate_resources(graph: &Graph, caps: &Capabilities) -> Result<(), CompileError> {
    let duplicate = first_duplicate(graph.resources.len(), |i| graph.resources[i].name);
    let alignment = effective_alignment(caps);
    let (mut total, mut largest) = (0u64, None);
    for (i, r) in graph.resources.iter().enumerate() {
        let invalid = |rule: String| CompileError::InvalidResource {
            resource: r.name.to_string(),
            rule,
        };
        if r.name.is_empty() {
            return Err(invalid(format!(
                "resource #{i} has an empty name: every resource needs a non-empty name"
            )));
        }
        if duplicate == Some(i) {
            return Err(CompileError::DuplicateResource {
                resource: r.name.to_string(),
            });
        }
        match &r.kind {
            ResourceKind::Image(d) => {
                if d.width == 0
                    || d.height == 0
                    || d.width > MAX_DIMENSION
                    || d.height > MAX_DIMENSION
                {
                    return Err(invalid(format!(
                        "extent {}×{}: width and height must each be between 1 and {MAX_DIMENSION}",
                        d.width, d.height
                    )));
                }
                if !matches!(d.samples, 1 | 2 | 4 | 8 | 16 | 32 | 64) {
                    return Err(invalid(format!(
                        "{} samples: the sample count must be a power of two from 1 to 64",
                        d.samples
                    )));
                }
                let max_mips = 32 - d.width.max(d.height).leading_zeros();
                if d.mips == 0 || d.mips > max_mips {
                    return Err(invalid(format!(
                        "{} mips on a {}×{} extent: mips must be between 1 and {max_mips} (the full mip chain)",
                        d.mips, d.width, d.height
                    )));
                }
                if d.samples > 1 && d.mips > 1 {
                    return Err(invalid(format!(
                        "{} samples and {} mips: a multisampled image has exactly one mip",
                        d.samples, d.mips
                    )));
                }
                if d.layers == 0 || d.layers > MAX_LAYERS {
                    return Err(invalid(format!(
                        "{} layers: layers must be between 1 and {MAX_LAYERS}",
                        d.layers
                    )));
                }
                if d.cube && (d.layers != 6 || d.width != d.height || d.samples != 1) {
                    return Err(invalid(format!(
                        "a cube map of {} layers, {}×{}, {} samples: a cube map has 6 square \
                         single-sampled layers",
                        d.layers, d.width, d.height, d.samples
                    )));
                }
            }
            ResourceKind::Buffer { size } => {
                if *size == 0 {
                    return Err(invalid(
                        "a buffer of 0 bytes: a buffer needs at least one byte".into(),
                    ));
                }
            }
        }
        if r.size == Some(0) {
            return Err(invalid(
                "size 0: a size override needs at least one byte".into(),
            ));
        }
        if let Some(rule) = memoryless_rule(r) {
            return Err(invalid(rule));
        }
        if let Some(rule) = present_rule(r) {
            return Err(invalid(rule));
        }
        if r.is_kept_across_plans() && r.output {
            return Err(invalid(
                "a persistent output: a persistent resource's content is kept for later frames' passes, not handed out of the frame (declare an output, or an import, to hand content out)".into(),
            ));
        }
        if let Some(rule) = unwritten_history_rule(graph, crate::graph::ResourceId(i as u32)) {
            return Err(invalid(rule));
        }
        if !r.is_persistent() {
            total = check_memory(r, alignment, total, &mut largest)?;
        }
    }
    Ok(())
}

/// The rule a history resource breaks when no pass writes this frame's content: the content
/// the next frame reads would never change.
fn unwritten_history_rule(graph: &Graph, id: crate::graph::ResourceId) -> Option<String> {
    let r = graph.resource(id);
    if !r.is_history() || r.discard_on_last_use() {
        return None; // (the previous half of a pair is read only)
    }
    let written = graph
        .passes
        .iter()
        .any(|p| p.uses.iter().any(|u| u.resource == id && u.access.writes()));
    (!written).then(|| {
        "a history resource that no pass writes: a history resource keeps what this frame writes for the next frame's previous uses, so some pass writes it".into()
    })
}

/// The rule a `previous` use breaks, if any: it reads, and the resource is a history
/// resource holding the previous content.
fn check_previous_use(resource: &Resource, access: Access) -> Result<(), String> {
    if !resource.is_history() {
        return Err(
            "a previous use of a resource that is not a history resource: only history resources keep the previous frame's content".into(),
        );
    }
    if access.writes() {
        return Err(
            "a previous use that writes: the previous frame's content is read only (write this frame's with an ordinary use)".into(),
        );
    }
    if matches!(
        resource.origin,
        Origin::History(HistoryRole::Current { .. })
    ) {
        return Err(
            "a previous use of this frame's half of a double-buffered history resource: previous uses read its '(previous)' half".into(),
        );
    }
    Ok(())
}

/// The rule a memoryless requirement breaks, if any: a memoryless image lives only in tile
/// memory, so it is not an `output` (nor an import, which cannot be built memoryless; a frame
/// file that declares one gets the same words from its loader) and not a buffer.
pub(crate) fn memoryless_rule(r: &Resource) -> Option<String> {
    if !r.declared_memoryless() {
        return None;
    }
    if r.output {
        return Some(memoryless_outside_frame("output"));
    }
    r.image_desc().is_none().then(|| MEMORYLESS_BUFFER.into())
}

/// The rule a memoryless buffer breaks.
pub(crate) const MEMORYLESS_BUFFER: &str =
    "a buffer declared memoryless: only images (attachments) can be memoryless";

/// The rule a presented buffer breaks.
pub(crate) const PRESENT_BUFFER: &str = "exit present on a buffer: only images are presented";

/// The rule broken by a memoryless resource that is also `what` (imported, output, or
/// both).
pub(crate) fn memoryless_outside_frame(what: &str) -> String {
    format!(
        "declared memoryless and {what}: an imported or output resource lives outside the frame and cannot be memoryless"
    )
}

/// The rule a presented resource breaks, if any: only images are presented.
pub(crate) fn present_rule(r: &Resource) -> Option<String> {
    (r.is_presented() && r.image_desc().is_none()).then(|| PRESENT_BUFFER.into())
}

/// Bytes a transient resource occupies in a memory block: its size rounded up to
/// `alignment`, or `None` when it is over [`MAX_TRANSIENT_BYTES`] (checked arithmetic: a
/// size near 2^64 does not wrap).
pub(super) fn transient_footprint(r: &Resource, alignment: u64) -> Option<u64> {
    let bytes = r.bytes().max(1);
    let footprint = bytes.checked_next_multiple_of(alignment.max(1))?;
    (footprint <= MAX_TRANSIENT_BYTES).then_some(footprint)
}

/// The memory limit for transient resource `r`, given the `total` footprint and the
/// `largest` (footprint, name) of the transient resources declared before it: the new total,
/// or the error naming `r` and the bytes.
fn check_memory<'g>(
    r: &'g Resource,
    alignment: u64,
    total: u64,
    largest: &mut Option<(u64, &'g str)>,
) -> Result<u64, CompileError> {
    let limit = format!(
        "{MAX_TRANSIENT_BYTES} bytes ({})",
        human_bytes(MAX_TRANSIENT_BYTES)
    );
    let what = match r.kind {
        ResourceKind::Image(_) => format!("({}) ", shape(r)),
        ResourceKind::Buffer { .. } => "(buffer) ".to_string(),
    };
    let bytes = r.bytes();
    let error = |bytes: u64, detail: String| CompileError::MemoryLimit {
        resource: r.name.to_string(),
        bytes,
        detail,
    };
    if bytes > MAX_TRANSIENT_BYTES {
        return Err(error(
            bytes,
            format!(
                "{what}needs {bytes} bytes ({}): a transient resource needs at most {limit}",
                human_bytes(bytes)
            ),
        ));
    }
    let Some(footprint) = transient_footprint(r, alignment) else {
        let aligned = u128::from(bytes.max(1)).next_multiple_of(u128::from(alignment));
        return Err(error(
            u64::try_from(aligned).unwrap_or(u64::MAX),
            format!(
                "{what}needs {bytes} bytes, {aligned} once rounded up to the placement alignment of {alignment} bytes: a transient resource occupies at most {limit}"
            ),
        ));
    };
    let earlier = *largest;
    if earlier.is_none_or(|(f, _)| footprint > f) {
        *largest = Some((footprint, &r.name));
    }
    match total.checked_add(footprint) {
        Some(sum) if sum <= MAX_TRANSIENT_BYTES => Ok(sum),
        sum => {
            let sum = sum.unwrap_or(u64::MAX);
            let most = match earlier {
                Some((f, name)) if f >= footprint => {
                    format!(", the largest '{name}' with {}", human_bytes(f))
                }
                _ => String::new(),
            };
            Err(error(
                sum,
                format!(
                    "{what}occupies {} and brings the transient resources declared up to it to {sum} bytes ({}{most}): a frame's transient resources occupy at most {limit} together",
                    human_bytes(footprint),
                    human_bytes(sum)
                ),
            ))
        }
    }
}

/// Every rule about passes and their uses, pass by pass; returns the first pass over the
/// attachment limits (checked by [`check_limits`] once every pass has passed the other
/// rules, so that those errors come first).
fn validate_passes<'g>(
    graph: &'g Graph,
    caps: &Capabilities,
) -> Result<Option<&'g crate::graph::Pass>, CompileError> {
    let mut over_limit = None;
    let duplicate = first_duplicate(graph.passes.len(), |i| graph.passes[i].name);
    let mut written = vec![false; graph.resources.len()];
    for (i, pass) in graph.passes.iter().enumerate() {
        let invalid = |rule: String| CompileError::InvalidPass {
            pass: pass.name.to_string(),
            rule,
        };
        if pass.name.is_empty() {
            return Err(invalid(format!(
                "pass #{i} has an empty name: every pass needs a non-empty name"
            )));
        }
        if duplicate == Some(i) {
            return Err(CompileError::DuplicatePass {
                pass: pass.name.to_string(),
            });
        }
        if pass.kind == PassKind::Raster && pass.queue == QueueKind::AsyncCompute {
            return Err(invalid(
                "a raster pass on the async_compute queue: raster passes run on the graphics queue"
                    .into(),
            ));
        }
        // Counts for the rules checked after the uses.
        let (mut attachments, mut depth, mut colour, mut input) = (0u32, 0u32, 0u32, 0u32);
        for (k, u) in pass.uses.iter().enumerate() {
            let Some(resource) = graph.resources.get(u.resource.index()) else {
                return Err(CompileError::UnknownResource {
                    pass: pass.name.to_string(),
                    resource: format!("#{}", u.resource.index()),
                });
            };
            let mismatch = |rule: String| mismatch(pass, resource, u.access, rule);
            // Uses per pass are few: a scan beats hashing.
            if let Some(earlier) = pass.uses[..k].iter().find(|v| v.resource == u.resource) {
                return Err(CompileError::DuplicateUse {
                    pass: pass.name.to_string(),
                    resource: resource.name.to_string(),
                    first: earlier.access.name(),
                    second: u.access.name(),
                });
            }
            u.access
                .check(pass.kind, resource.target())
                .map_err(|rule| mismatch(rule.to_string()))?;
            if u.clear && !u.access.can_clear() {
                return Err(mismatch(format!(
                    "a clear on a {} use: only written attachments and transfer/storage destinations can be cleared",
                    u.access
                )));
            }
            if resource.is_presented() && pass.queue == QueueKind::AsyncCompute {
                return Err(mismatch(
                    "an image that exits in present used on the async_compute queue: presented images are used on the graphics queue, where the transition to PRESENT_SRC_KHR and the present signal are recorded".into(),
                ));
            }
            if let Some(value) = u.clear_value {
                check_clear_value(resource, u.clear, value).map_err(mismatch)?;
            }
            if let (Some(mode), false) = (u.resolve_mode, u.access == Access::Resolve) {
                return Err(mismatch(format!(
                    "a resolve mode ({mode}) on a {} use: only a resolve into a depth/stencil image takes a mode",
                    u.access
                )));
            }
            match (u.access, u.from) {
                (Access::Resolve, None) => return Err(mismatch(
                    "a resolve without 'from': a resolve names its multisampled source with 'from'"
                        .into(),
                )),
                (Access::Resolve, Some(from)) => check_resolve(graph, caps, pass, u, from)?,
                (_, Some(from)) => {
                    let named = graph
                        .resources
                        .get(from.index())
                        .map_or_else(|| format!("#{}", from.index()), |r| r.name.to_string());
                    return Err(mismatch(format!(
                        "'from' names '{named}' on a {} use: only a resolve names a source with 'from'",
                        u.access
                    )));
                }
                (_, None) => {}
            }
            if let Some(d) = resource.image_desc() {
                if d.samples > 1
                    && matches!(
                        u.access,
                        Access::StorageRead
                            | Access::StorageWrite
                            | Access::StorageReadWrite
                            | Access::TransferSrc
                            | Access::TransferDst
                    )
                {
                    return Err(mismatch(format!(
                        "a {} use of an image of {} samples: multisampled images are used as attachments, sampled or resolved only",
                        u.access, d.samples
                    )));
                }
            }
            if u.previous {
                check_previous_use(resource, u.access).map_err(mismatch)?;
            }
            let needs_content = u.access.reads(u.clear);
            if needs_content
                && !written[u.resource.index()]
                && matches!(
                    resource.origin,
                    Origin::History(HistoryRole::Current { .. })
                )
            {
                return Err(mismatch(format!(
                    "the first use of this frame's content of double-buffered history resource '{}' needs earlier content: that half holds content two frames old at entry, so its first use writes it (read the previous frame's content with a previous use)",
                    resource.name
                )));
            }
            if needs_content && !written[u.resource.index()] && resource.is_per_frame() {
                return Err(mismatch(
                    "the first use of a per_frame resource needs earlier content: a per_frame resource (a different object every frame) holds nothing at the start of the frame, so its first use writes or clears it".into(),
                ));
            }
            if needs_content
                && !written[u.resource.index()]
                && !resource.is_imported()
                && !resource.content_at_entry()
            {
                let later = graph.passes[i + 1..]
                    .iter()
                    .find(|p| {
                        p.uses
                            .iter()
                            .any(|v| v.resource == u.resource && v.access.writes())
                    })
                    .map_or_else(Box::default, |p| {
                        format!(" (its first writer, '{}', comes later)", p.name).into()
                    });
                return Err(CompileError::ReadBeforeWrite {
                    pass: pass.name.to_string(),
                    resource: resource.name.to_string(),
                    access: u.access.name().to_string(),
                    later,
                });
            }
            // Each resource is used once per pass (checked above): marking it now is marking
            // it after the pass.
            if u.access.writes() {
                written[u.resource.index()] = true;
            }
            attachments += u32::from(u.access.is_attachment());
            match u.access {
                Access::DepthWrite | Access::DepthRead => depth += 1,
                Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite => colour += 1,
                Access::InputAttachment => input += 1,
                _ => {}
            }
        }
        if attachments > 1 {
            check_attachment_extents(graph, pass)?;
        }
        if depth > 1 {
            check_one_depth_attachment(graph, pass)?;
        }
        if over_limit.is_none()
            && (colour > caps.max_color_attachments || input > caps.max_input_attachments)
        {
            over_limit = Some(pass);
        }
    }
    Ok(over_limit)
}

/// A clear value goes with a clear of an image, of the kind its format is cleared with.
pub(super) fn check_clear_value(
    resource: &Resource,
    clear: bool,
    value: ClearValue,
) -> Result<(), String> {
    if !clear {
        return Err(
            "a clear_value without clear: a clear value is given only on a use that clears".into(),
        );
    }
    match resource.image_desc() {
        None => Err("a clear_value on a buffer: buffers are cleared with zeros".into()),
        Some(d) if !value.fits(d.format) => Err(if d.format.is_depth_stencil() {
            "a colour clear_value on a depth/stencil format: depth/stencil images clear to {\"depth\": d, \"stencil\": s}".into()
        } else {
            "a depth/stencil clear_value on a colour format: colour images clear to [r, g, b, a]"
                .into()
        }),
        Some(_) => Ok(()),
    }
}

/// A resolve target is single-sampled, the source a multisampled attachment of the same pass
/// with the same format and extent: a colour attachment for a colour target (which always
/// averages, so it takes no mode), the pass's depth/stencil attachment for a depth/stencil
/// target, resolved with a mode the device supports, once per pass.
fn check_resolve(
    graph: &Graph,
    caps: &Capabilities,
    pass: &crate::graph::Pass,
    resolve: &crate::graph::Use,
    from: crate::graph::ResourceId,
) -> Result<(), CompileError> {
    let target = resolve.resource;
    let describe = |id: crate::graph::ResourceId| match graph.resources.get(id.index()) {
        Some(r) => (r.name.as_str().into(), shape(r)),
        None => (
            format!("#{}", id.index()).into(),
            "not declared".to_string(),
        ),
    };
    let error = |rule: ResolveRule, used: &str| {
        let ((source_name, source_shape), (target, target_shape)) =
            (describe(from), describe(target));
        CompileError::ResolveMismatch {
            pass: pass.name.as_str().into(),
            source_name,
            source_shape: format!("{source_shape}{used}").into(),
            target,
            target_shape: target_shape.into(),
            rule,
        }
    };
    let (Some(t), Some(s)) = (
        graph.resources.get(target.index()),
        graph.resources.get(from.index()),
    ) else {
        return Err(error(ResolveRule::Undeclared, ""));
    };
    let (Some(td), Some(sd)) = (t.image_desc(), s.image_desc()) else {
        return Err(error(ResolveRule::NotImages, ""));
    };
    if td.samples != 1 || sd.samples == 1 {
        return Err(error(ResolveRule::SampleCounts, ""));
    }
    if td.format != sd.format || td.width != sd.width || td.height != sd.height {
        return Err(error(ResolveRule::FormatAndExtent, ""));
    }
    let depth = td.format.is_depth_stencil();
    let source_is_attachment = pass.uses.iter().any(|u| {
        u.resource == from
            && match u.access {
                Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite => !depth,
                Access::DepthWrite | Access::DepthRead => depth,
                _ => false,
            }
    });
    if !source_is_attachment {
        let used = match pass.uses.iter().find(|u| u.resource == from) {
            Some(u) => format!("; used as {}", u.access),
            None => "; not otherwise used by the pass".to_string(),
        };
        let rule = if depth {
            ResolveRule::SourceNotDepthAttachment
        } else {
            ResolveRule::SourceNotAttachment
        };
        return Err(error(rule, &used));
    }
    if !depth {
        if let Some(mode) = resolve.resolve_mode {
            return Err(error(ResolveRule::ModeOnColour(mode), ""));
        }
        // A Vulkan colour attachment has one resolve attachment in its subpass.
        let first = pass
            .uses
            .iter()
            .find(|u| u.access == Access::Resolve && u.from == Some(from));
        if let Some(first) = first.filter(|u| u.resource != target) {
            let already = format!(
                "; already resolved into '{}'",
                graph.resource(first.resource).name
            );
            return Err(error(ResolveRule::SecondColourResolve, &already));
        }
        return Ok(());
    }
    let mode = resolve.depth_resolve_mode();
    if !caps.depth_resolve_modes.contains(mode) {
        return Err(error(
            ResolveRule::ModeUnsupported {
                mode,
                supported: caps.depth_resolve_modes,
            },
            "",
        ));
    }
    // The first depth/stencil resolve of the pass is the one (a subpass has one
    // depth/stencil resolve attachment).
    let is_depth_resolve = |u: &crate::graph::Use| {
        u.access == Access::Resolve
            && graph
                .resources
                .get(u.resource.index())
                .and_then(|r| r.image_desc())
                .is_some_and(|d| d.format.is_depth_stencil())
    };
    if let Some(first) = pass.uses.iter().find(|u| is_depth_resolve(u)) {
        if first.resource != target {
            let already = format!(
                "; already resolved into '{}'",
                graph.resource(first.resource).name
            );
            return Err(error(ResolveRule::SecondDepthResolve, &already));
        }
    }
    Ok(())
}

/// A raster pass has at most one depth/stencil attachment (`depth_write` or `depth_read`):
/// a Vulkan subpass has a single depth/stencil reference.
fn check_one_depth_attachment(
    graph: &Graph,
    pass: &crate::graph::Pass,
) -> Result<(), CompileError> {
    let depth = |a| matches!(a, Access::DepthWrite | Access::DepthRead);
    let mut uses = pass.uses.iter().filter(|u| depth(u.access));
    if let (Some(first), Some(second)) = (uses.next(), uses.next()) {
        return Err(mismatch(
            pass,
            graph.resource(second.resource),
            second.access,
            format!(
                "'{}' is already its depth/stencil attachment ({}): a raster pass has at most one",
                graph.resource(first.resource).name,
                first.access
            ),
        ));
    }
    Ok(())
}

/// All attachments of a raster pass share one extent and one sample count (resolve targets
/// are single-sampled by definition).
fn check_attachment_extents(graph: &Graph, pass: &crate::graph::Pass) -> Result<(), CompileError> {
    let mut first: Option<(&str, u32, u32, u32)> = None;
    for u in pass.uses.iter().filter(|u| u.access.is_attachment()) {
        let r = graph.resource(u.resource);
        let Some(d) = r.image_desc() else { continue };
        let samples = if u.access == Access::Resolve {
            None
        } else {
            Some(d.samples)
        };
        match first {
            None => first = Some((&r.name, d.width, d.height, samples.unwrap_or(0))),
            Some((name, w, h, s)) => {
                let sample_mismatch = matches!(samples, Some(x) if s != 0 && x != s);
                if w != d.width || h != d.height || sample_mismatch {
                    let theirs = if s == 0 {
                        format!("{w}×{h}")
                    } else {
                        format!("{w}×{h} with {s} sample{}", if s == 1 { "" } else { "s" })
                    };
                    return Err(mismatch(
                        pass,
                        r,
                        u.access,
                        format!("'{name}' is {theirs}: every attachment of a raster pass has the same extent and sample count"),
                    ));
                }
                if s == 0 {
                    first = Some((name, w, h, samples.unwrap_or(0)));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::first_duplicate;
    use crate::name::Name;

    /// The first position whose name appeared before, by comparing every pair.
    fn naive(names: &[String]) -> Option<usize> {
        (0..names.len()).find(|&i| names[..i].contains(&names[i]))
    }

    #[test]
    fn first_duplicate_agrees_with_pairwise_comparison() {
        // Names that share prefixes and differ in their last bytes only, of several
        // lengths (under, at and over one 8-byte word), plus empty names.
        let base: Vec<String> = (0..300)
            .map(|i| match i % 4 {
                0 => format!("p{i}"),
                1 => format!("pass_number_{i}"),
                2 => format!("{i:08}"),
                _ => format!("r{}", i * 7919 % 1000),
            })
            .collect();
        for dup_at in [
            None,
            Some((5, 299)),
            Some((0, 1)),
            Some((120, 121)),
            Some((7, 64)),
        ] {
            let mut names = base.clone();
            if let Some((from, to)) = dup_at {
                names[to] = names[from].clone();
            }
            // Each name made afresh from its own text (not copied), as a frame file does.
            let interned: Vec<Name> = names.iter().map(|n| Name::from(n.as_str())).collect();
            let got = first_duplicate(names.len(), |i| interned[i]);
            assert_eq!(got, naive(&names), "duplicate {dup_at:?}");
        }
        let empty = [Name::default(), Name::from("a"), Name::from(String::new())];
        assert_eq!(first_duplicate(3, |i| empty[i]), Some(2));
        assert_eq!(first_duplicate(0, |_| Name::default()), None);
    }
}
