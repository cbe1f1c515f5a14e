//! Random valid frame graphs.
//!
//! A graph is drawn as raw choices (numbers and flags, which shrink well) and then built by
//! [`build`], which repairs every choice into a valid use: an access that does not fit the
//! pass or the resource is replaced by the next one that does, reads of transient resources
//! nobody wrote yet become writes, attachments keep one extent and sample count per pass,
//! and a resolve is only emitted when the pass writes a matching multisampled colour
//! attachment, or (into a depth/stencil image, with a mode) has a matching multisampled
//! depth attachment. The result always passes `validate`.

use proptest::prelude::*;
use tessera_graph::graph::{
    Graph, ImageDesc, Import, Origin, PassKind, QueueKind, Resource, ResourceKind, Use,
};
use tessera_graph::{Access, Format, ResolveMode};

/// Shape limits of generated graphs.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Number of resources (inclusive range).
    pub resources: (usize, usize),
    /// Number of passes (inclusive range).
    pub passes: (usize, usize),
    /// Most uses drawn per pass (some are dropped by the repair).
    pub max_uses: usize,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            resources: (3, 14),
            passes: (2, 40),
            max_uses: 5,
        }
    }
}

/// Raw choices for one resource.
#[derive(Clone, Debug)]
pub struct RawResource {
    kind: u8,
    format: u8,
    big: bool,
    mips: u8,
    layers: u8,
    size: u16,
    imported: bool,
    output: bool,
    clear_on_first_use: bool,
    discard_on_last_use: bool,
}

/// Raw choices for one use.
#[derive(Clone, Debug)]
pub struct RawUse {
    resource: u8,
    access: u8,
    clear: bool,
}

/// Raw choices for one pass.
#[derive(Clone, Debug)]
pub struct RawPass {
    kind: u8,
    async_queue: bool,
    side_effects: bool,
    uses: Vec<RawUse>,
}

/// Raw choices for a whole graph.
#[derive(Clone, Debug)]
pub struct RawGraph {
    resources: Vec<RawResource>,
    passes: Vec<RawPass>,
}

fn raw_resource() -> impl Strategy<Value = RawResource> {
    (
        (
            any::<u8>(),
            any::<u8>(),
            any::<bool>(),
            any::<u8>(),
            any::<u8>(),
            any::<u16>(),
        ),
        (
            prop::bool::weighted(0.3),
            prop::bool::weighted(0.2),
            any::<bool>(),
            prop::bool::weighted(0.3),
        ),
    )
        .prop_map(
            |((kind, format, big, mips, layers, size), (imported, output, cofu, dolu))| {
                RawResource {
                    kind,
                    format,
                    big,
                    mips,
                    layers,
                    size,
                    imported,
                    output,
                    clear_on_first_use: cofu,
                    discard_on_last_use: dolu,
                }
            },
        )
}

fn raw_pass(max_uses: usize) -> impl Strategy<Value = RawPass> {
    let raw_use = (any::<u8>(), any::<u8>(), prop::bool::weighted(0.25)).prop_map(
        |(resource, access, clear)| RawUse {
            resource,
            access,
            clear,
        },
    );
    (
        any::<u8>(),
        prop::bool::weighted(0.4),
        prop::bool::weighted(0.15),
        prop::collection::vec(raw_use, 1..=max_uses.max(1)),
    )
        .prop_map(|(kind, async_queue, side_effects, uses)| RawPass {
            kind,
            async_queue,
            side_effects,
            uses,
        })
}

/// Raw graphs within `config`'s limits.
pub fn raw_graph(config: GenConfig) -> impl Strategy<Value = RawGraph> {
    let resources = prop::collection::vec(raw_resource(), config.resources.0..=config.resources.1);
    let passes =
        prop::collection::vec(raw_pass(config.max_uses), config.passes.0..=config.passes.1);
    (resources, passes).prop_map(|(resources, passes)| RawGraph { resources, passes })
}

/// Valid graphs of the default shape (3–14 resources, 2–40 passes).
pub fn valid_graph() -> impl Strategy<Value = Graph> {
    valid_graph_with(GenConfig::default())
}

/// Valid graphs within `config`'s limits.
pub fn valid_graph_with(config: GenConfig) -> impl Strategy<Value = Graph> {
    raw_graph(config).prop_map(|raw| build(&raw))
}

const COLOR_FORMATS: &[Format] = &[
    Format::R8G8B8A8_UNORM,
    Format::R16G16B16A16_SFLOAT,
    Format::B8G8R8A8_SRGB,
    Format::R32_UINT,
    Format::B10G11R11_UFLOAT_PACK32,
];
const MSAA_FORMATS: &[Format] = &[Format::R8G8B8A8_UNORM, Format::R16G16B16A16_SFLOAT];
/// D32 twice: the format of the multisampled depth images, so that depth resolves into a
/// single-sampled one are common.
const DEPTH_FORMATS: &[Format] = &[
    Format::D32_SFLOAT,
    Format::D24_UNORM_S8_UINT,
    Format::D32_SFLOAT,
    Format::D16_UNORM,
];

const RASTER: &[Access] = &[
    Access::ColorWrite,
    Access::ColorWriteAll,
    Access::ColorReadWrite,
    Access::DepthWrite,
    Access::DepthRead,
    Access::InputAttachment,
    Access::Sampled,
    Access::Resolve,
    Access::StorageRead,
    Access::StorageWrite,
    Access::StorageReadWrite,
    Access::Indirect,
];
const COMPUTE: &[Access] = &[
    Access::StorageWrite,
    Access::StorageReadWrite,
    Access::StorageRead,
    Access::Sampled,
    Access::Indirect,
];
const TRANSFER: &[Access] = &[Access::TransferDst, Access::TransferSrc];

fn resource(i: usize, raw: &RawResource) -> Resource {
    let extent = if raw.big { 64 } else { 32 };
    let pick = |list: &[Format]| list[raw.format as usize % list.len()];
    let kind = match raw.kind % 8 {
        0 | 1 => ResourceKind::Image(
            ImageDesc::new(pick(COLOR_FORMATS), extent, extent)
                .mips(1 + u32::from(raw.mips % 3))
                .layers(1 + u32::from(raw.layers % 2)),
        ),
        2 => ResourceKind::Image(ImageDesc::new(pick(DEPTH_FORMATS), extent, extent)),
        3 => ResourceKind::Image(ImageDesc::new(pick(MSAA_FORMATS), extent, extent).samples(4)),
        4 => ResourceKind::Image(ImageDesc::new(Format::D32_SFLOAT, extent, extent).samples(4)),
        _ => ResourceKind::Buffer {
            size: 16 + u64::from(raw.size),
        },
    };
    let mut r = match kind {
        ResourceKind::Image(d) => Resource::image(format!("r{i}"), d),
        ResourceKind::Buffer { size } => Resource::buffer(format!("r{i}"), size),
    };
    r.origin = if raw.imported {
        Origin::Imported(Import {
            clear_on_first_use: raw.clear_on_first_use,
            discard_on_last_use: raw.discard_on_last_use,
        })
    } else {
        Origin::TRANSIENT
    };
    r.output = raw.output;
    r
}

/// Extent and sample count shared by the attachments of the pass being built.
#[derive(Default)]
struct Framebuffer {
    extent: Option<(u32, u32)>,
    samples: Option<u32>,
}

/// Builds a valid graph from raw choices.
pub fn build(raw: &RawGraph) -> Graph {
    let mut g = Graph::new("random");
    for (i, r) in raw.resources.iter().enumerate() {
        g.add_resource(resource(i, r));
    }
    let ids: Vec<_> = g.resource_ids().collect();
    let mut written = vec![false; ids.len()];
    for (pi, rp) in raw.passes.iter().enumerate() {
        let kind = match rp.kind % 5 {
            0 | 1 => PassKind::Raster,
            2 | 3 => PassKind::Compute,
            _ => PassKind::Transfer,
        };
        let queue = if kind != PassKind::Raster && rp.async_queue {
            QueueKind::AsyncCompute
        } else {
            QueueKind::Graphics
        };
        let menu = match kind {
            PassKind::Raster => RASTER,
            PassKind::Compute => COMPUTE,
            PassKind::Transfer => TRANSFER,
        };
        let mut uses: Vec<Use> = Vec::new();
        let mut fb = Framebuffer::default();
        for ru in &rp.uses {
            if ids.is_empty() {
                break;
            }
            let r = ru.resource as usize % ids.len();
            if uses.iter().any(|u| u.resource == ids[r]) {
                continue;
            }
            let chosen = (0..menu.len())
                .map(|k| menu[(ru.access as usize + k) % menu.len()])
                .find_map(|access| fit(&g, kind, &uses, &mut fb, &written, r, access, ru.clear));
            if let Some(u) = chosen {
                uses.push(u);
            }
        }
        for u in &uses {
            if u.access.writes() {
                written[u.resource.index()] = true;
            }
        }
        let mut b = g.pass_builder(format!("p{pi}"), kind).on_queue(queue);
        if rp.side_effects {
            b = b.side_effects();
        }
        let id = b.id();
        g.passes[id.index()].uses = uses;
    }
    g
}

/// The use of resource `r` with `access` if it is valid in the pass being built.
#[allow(clippy::too_many_arguments)]
fn fit(
    g: &Graph,
    kind: PassKind,
    uses: &[Use],
    fb: &mut Framebuffer,
    written: &[bool],
    r: usize,
    access: Access,
    clear: bool,
) -> Option<Use> {
    let res = &g.resources[r];
    let id = g.resource_ids().nth(r)?;
    access.check(kind, res.target()).ok()?;
    let clear = clear && access.can_clear();
    let desc = res.image_desc().copied();
    let samples = desc.map_or(1, |d| d.samples);
    let storage_or_transfer = matches!(
        access,
        Access::StorageRead
            | Access::StorageWrite
            | Access::StorageReadWrite
            | Access::TransferSrc
            | Access::TransferDst
    );
    if samples > 1 && storage_or_transfer {
        return None;
    }
    let depth = |a| matches!(a, Access::DepthWrite | Access::DepthRead);
    if depth(access) && uses.iter().any(|u| depth(u.access)) {
        // One depth/stencil attachment per raster pass.
        return None;
    }
    if access.reads(clear) && !written[r] && !res.is_imported() {
        return None;
    }
    let mut from = None;
    let mut resolve_mode = None;
    if access == Access::Resolve {
        let d = desc?;
        if d.samples != 1 {
            return None;
        }
        // A colour target resolves a written colour attachment, a depth/stencil one the
        // pass's depth attachment (once per pass).
        let depth_target = d.format.is_depth_stencil();
        if depth_target
            && uses.iter().any(|u| {
                u.access == Access::Resolve
                    && g.resource(u.resource)
                        .image_desc()
                        .is_some_and(|t| t.format.is_depth_stencil())
            })
        {
            return None;
        }
        from = uses.iter().find_map(|u| {
            let s = g.resource(u.resource).image_desc()?;
            let source = if depth_target {
                matches!(u.access, Access::DepthWrite | Access::DepthRead)
            } else {
                matches!(
                    u.access,
                    Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite
                )
            };
            let resolved = uses
                .iter()
                .any(|v| v.access == Access::Resolve && v.from == Some(u.resource));
            (source
                && !resolved
                && s.samples > 1
                && s.format == d.format
                && (s.width, s.height) == (d.width, d.height))
                .then_some(u.resource)
        });
        from?;
        if depth_target {
            // Every profile supports these; which one follows the resource.
            resolve_mode = [None, Some(ResolveMode::Min), Some(ResolveMode::Max)][r % 3];
        }
    }
    if access.is_attachment() {
        let d = desc?;
        if fb.extent.is_some_and(|e| e != (d.width, d.height)) {
            return None;
        }
        if access != Access::Resolve && fb.samples.is_some_and(|s| s != d.samples) {
            return None;
        }
        fb.extent = Some((d.width, d.height));
        if access != Access::Resolve {
            fb.samples = Some(d.samples);
        }
    }
    Some(Use {
        resource: id,
        access,
        clear,
        from,
        resolve_mode,
        clear_value: None,
        previous: false,
        coverage: None,
    })
}
