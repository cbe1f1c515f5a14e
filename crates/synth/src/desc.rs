//! What a synthetic pass does, as data shared by the shader generator and the CPU model:
//! its domain (the pixels or invocations it runs over) and its uses with the shapes of their
//! resources. [`passes`] is what the GPU runs (the plan's kept passes in its order, raster
//! passes over their render pass's area); [`declared`] is what the CPU model runs (every
//! pass of the graph in declaration order, raster passes over their own attachments' extent),
//! so a plan that reorders, culls or shrinks wrongly disagrees with the model.
//!
//! Semantics (identical on both sides): element `(x, y)` of the domain starts from
//! `acc = mix(key(pass), x + 65536·y)`; each read use `j` mixes in what it reads (sampled
//! images at the clamped pixel, input attachments at the same pixel, storage images at the
//! pixel when inside the image, else 0, storage buffers at word `(x + W·y) mod N`); then each
//! write use `j` stores `mix(acc, j) & 31` (images; a [`partial`] colour write leaves the
//! pixels [`super::values::untouched`] names as they were) or `mix(acc, j)` (buffer words, at
//! `x + W·y` when `< N`), and read-write buffers `atomicAdd` `mix(acc, j) & 0xFFFF` at
//! `(x + W·y) mod N`. Element (0, 0) rewrites the buffer header. Transfer passes fill each
//! destination with `mix(key, j)` (`& 31` for images) or copy the pass's source when it is
//! the same kind (and, for images, the same format).

use tessera_graph::access::Access;
use tessera_graph::graph::ResourceKind;
use tessera_graph::{Format, Graph, PassKind, Plan};

/// Compute passes with no image run over this many invocations.
pub const BUFFER_DOMAIN: (u32, u32) = (64, 1);

/// The shape of a resource as the synthetic passes see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An image (mip 0, layer 0 matters).
    Image {
        /// Format.
        format: Format,
        /// Width.
        w: u32,
        /// Height.
        h: u32,
        /// Samples.
        samples: u32,
    },
    /// A buffer of `words` 32-bit words (header included).
    Buffer {
        /// Words.
        words: u32,
    },
}

impl Shape {
    /// The shape of a graph resource.
    pub fn of(kind: &ResourceKind) -> Shape {
        match kind {
            ResourceKind::Image(d) => Shape::Image {
                format: d.format,
                w: d.width.max(1),
                h: d.height.max(1),
                samples: d.samples,
            },
            ResourceKind::Buffer { size } => Shape::Buffer {
                words: (*size / 4).min(u64::from(u32::MAX)) as u32,
            },
        }
    }

    /// Data words of a buffer (after the header).
    pub fn data_words(&self) -> u32 {
        match self {
            Shape::Buffer { words } => words.saturating_sub(4).max(1),
            Shape::Image { .. } => 0,
        }
    }
}

/// One use of a synthetic pass.
#[derive(Clone, Debug)]
pub struct SynthUse {
    /// Position in the pass's uses (the `j` of the semantics; also the binding).
    pub j: u32,
    /// Access.
    pub access: Access,
    /// Clear at this use.
    pub clear: bool,
    /// Resource index.
    pub resource: usize,
    /// Its shape.
    pub shape: Shape,
    /// Resolve source.
    pub from: Option<usize>,
}

/// A synthetic pass.
#[derive(Clone, Debug)]
pub struct SynthPass {
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: PassKind,
    /// Domain `(W, H)`.
    pub domain: (u32, u32),
    /// Uses in declaration order.
    pub uses: Vec<SynthUse>,
}

impl SynthPass {
    /// The buffer read as indirect arguments, if any.
    pub fn indirect(&self) -> Option<&SynthUse> {
        self.uses.iter().find(|u| u.access == Access::Indirect)
    }
}

/// Every kept pass of the plan as a synthetic pass, in execution order, as the GPU runs it:
/// a raster pass runs over its render pass's area. An error (the reason) for a pass the
/// synthetic bodies cannot run.
pub fn passes(graph: &Graph, plan: &Plan) -> Result<Vec<SynthPass>, String> {
    let mut area = std::collections::HashMap::new();
    for rp in &plan.render_passes {
        let mut ext = (u32::MAX, u32::MAX);
        for a in &rp.attachments {
            if let Some(Shape::Image { w, h, .. }) = graph
                .find_resource(&a.resource)
                .map(|r| Shape::of(&graph.resource(r).kind))
            {
                ext = (ext.0.min(w), ext.1.min(h));
            }
        }
        if ext.0 == u32::MAX {
            ext = (1, 1);
        }
        for s in &rp.subpasses {
            area.insert(s.to_string(), ext);
        }
    }
    let mut out = Vec::new();
    for name in &plan.order {
        let pid = graph
            .find_pass(name)
            .ok_or_else(|| format!("plan names unknown pass '{name}'"))?;
        let raster_area = area.get(name.as_ref()).copied();
        if graph.pass(pid).kind == PassKind::Raster && raster_area.is_none() {
            return Err(format!("raster pass '{name}' is in no render pass"));
        }
        let p = synth_pass(graph, pid, raster_area.unwrap_or((1, 1)));
        supported(&p)?;
        out.push(p);
    }
    Ok(out)
}

/// Every pass of the graph, culled ones included, in declaration order, as the frame
/// declares it (the CPU model's input, independent of the plan): a raster pass runs over
/// the extent its attachments share (the smallest, `(1, 1)` without attachments).
pub fn declared(graph: &Graph) -> Vec<SynthPass> {
    graph
        .pass_ids()
        .map(|pid| {
            let mut ext = (u32::MAX, u32::MAX);
            for u in graph
                .pass(pid)
                .uses
                .iter()
                .filter(|u| u.access.is_attachment())
            {
                if let Shape::Image { w, h, .. } = Shape::of(&graph.resource(u.resource).kind) {
                    ext = (ext.0.min(w), ext.1.min(h));
                }
            }
            if ext.0 == u32::MAX {
                ext = (1, 1);
            }
            synth_pass(graph, pid, ext)
        })
        .collect()
}

/// One pass as a synthetic pass; `raster_area` is the domain of a raster pass.
fn synth_pass(
    graph: &Graph,
    pid: tessera_graph::graph::PassId,
    raster_area: (u32, u32),
) -> SynthPass {
    let pass = graph.pass(pid);
    let uses: Vec<SynthUse> = pass
        .uses
        .iter()
        .enumerate()
        .map(|(j, u)| SynthUse {
            j: j as u32,
            access: u.access,
            clear: u.clear,
            resource: u.resource.index(),
            shape: Shape::of(&graph.resource(u.resource).kind),
            from: u.from.map(|f| f.index()),
        })
        .collect();
    let domain = match pass.kind {
        PassKind::Raster => raster_area,
        PassKind::Compute => uses
            .iter()
            .find_map(|u| match u.shape {
                Shape::Image { w, h, .. } => Some((w, h)),
                Shape::Buffer { .. } => None,
            })
            .unwrap_or(BUFFER_DOMAIN),
        PassKind::Transfer => (1, 1),
    };
    SynthPass {
        name: pass.name.to_string(),
        kind: pass.kind,
        domain,
        uses,
    }
}

/// Whether the synthetic bodies can run a pass; the reason when not.
fn supported(p: &SynthPass) -> Result<(), String> {
    let name = &p.name;
    let depth = p
        .uses
        .iter()
        .filter(|u| matches!(u.access, Access::DepthWrite | Access::DepthRead))
        .count();
    if depth > 1 {
        return Err(format!(
            "pass '{name}' has {depth} depth attachments; a Vulkan subpass has at most one"
        ));
    }
    for u in &p.uses {
        if let Shape::Image { format, .. } = u.shape {
            if format == Format::S8_UINT {
                return Err(format!(
                    "pass '{name}': stencil-only images are not supported by the synthetic passes"
                ));
            }
            if matches!(
                u.access,
                Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite
            ) && super::values::storage_qualifier(format).is_none()
            {
                return Err(format!(
                    "pass '{name}': format {format} cannot be a storage image in GLSL"
                ));
            }
        }
    }
    Ok(())
}

/// True when use `u` of pass `p` is a partial colour write: `color_write` of a float-like
/// colour format, which leaves the pixels [`super::values::untouched`] names as they were
/// (blending with alpha 0 there, 1 elsewhere). Integer formats cannot blend: written whole.
pub fn partial(u: &SynthUse) -> bool {
    matches!(
        (u.access, u.shape),
        (Access::ColorWrite, Shape::Image { format, .. })
            if super::values::class(format) == super::values::Class::Float
                && !format.is_depth_stencil()
    )
}

/// For a transfer destination `d` of pass `p`: the source it copies from, if the pass has a
/// source of the same kind (same format for images) and the destination is not cleared.
pub fn copy_source<'a>(p: &'a SynthPass, d: &SynthUse) -> Option<&'a SynthUse> {
    if d.clear {
        return None;
    }
    p.uses.iter().find(|s| {
        s.access == Access::TransferSrc
            && match (s.shape, d.shape) {
                (Shape::Buffer { .. }, Shape::Buffer { .. }) => true,
                (
                    Shape::Image {
                        format: a,
                        samples: 1,
                        ..
                    },
                    Shape::Image {
                        format: b,
                        samples: 1,
                        ..
                    },
                ) => a == b,
                _ => false,
            }
    })
}
