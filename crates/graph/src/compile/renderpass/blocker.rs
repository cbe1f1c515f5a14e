//! Why a raster pass does not join the render pass before it: [`Blocker`], each reason a
//! rule of [`super::merge`] (or of [`super::cross_queue`]) names, and its words in the
//! plan's break reasons.
//!
//! The merge and the cross-queue analysis both produce blockers; the reasons are written
//! piece by piece ([`Blocker::describe_into`]), without the formatting machinery, and the
//! `WxH` texts of extents are kept across the breaks of one grouping (`ExtentTexts`).

use crate::access::Access;
use crate::graph::{Graph, PassId, PassKind, ResourceId};

/// Appends each piece (a `&str`, or a `u32` written in decimal) to the `String` `out`, one
/// push each: reasons are built without the formatting machinery or an array of pieces.
macro_rules! put {
    ($out:expr, $($piece:expr),+ $(,)?) => {{
        let out: &mut String = $out;
        $(Piece::put($piece, out);)+
    }};
}

/// One reason not to merge a pass into the render pass before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// `CompileOptions::merge` is off.
    MergeOff,
    /// A non-raster pass of the graphics queue runs between the two.
    Between(PassId),
    /// A non-raster pass of the graphics queue runs between the two and reads an attachment
    /// of the render pass (a bloom chain sampling the HDR target): that attachment must leave
    /// tile memory.
    BetweenReads {
        /// The pass in between.
        pass: PassId,
        /// The attachment it reads.
        resource: ResourceId,
        /// How it reads it.
        access: Access,
    },
    /// The candidate uses a resource that a pass of the other queue, inside the render pass
    /// in the execution order, also uses: the render pass could have to wait for that pass.
    /// With `depends_on`, that pass depends on a subpass, so it cannot move before the
    /// render pass (nor the wait for it to the render pass's start); without, the order
    /// phase could have moved it there (it does, with `reorder` on, when nothing else keeps
    /// the candidate out).
    WaitsOnOtherQueue {
        /// The candidate.
        pass: PassId,
        /// The other-queue pass.
        other: PassId,
        /// A resource both use.
        resource: ResourceId,
        /// A subpass of the render pass that `other` depends on (transitively), if any.
        depends_on: Option<PassId>,
    },
    /// A pass of the other queue inside the render pass in the execution order uses one of
    /// its resources (so it is not independent of the render pass, and typically waits for
    /// it): the render pass ends before it. `depends_on` as for
    /// [`Blocker::WaitsOnOtherQueue`].
    OtherQueueInside {
        /// The other-queue pass.
        other: PassId,
        /// A resource it shares with the render pass.
        resource: ResourceId,
        /// A subpass of the render pass that `other` depends on (transitively), if any.
        depends_on: Option<PassId>,
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
    /// The candidate writes (or resolves again, `access` [`Access::Resolve`]) a multisampled
    /// attachment that an earlier subpass resolved: a resolve happens at the end of the
    /// subpass that declares it, so the resolved image would miss the write, and the write
    /// would have to wait for the resolve's read; an attachment has one resolve target per
    /// render pass (a later subpass that only reads the source after its resolve merges).
    WriteAfterResolve {
        /// The candidate.
        pass: PassId,
        /// The multisampled attachment.
        resource: ResourceId,
        /// The candidate's access.
        access: Access,
        /// The subpass that resolved it.
        resolver: PassId,
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
        let mut out = String::new();
        self.describe_into(graph, &mut out);
        out
    }

    /// Appends [`Blocker::describe`]'s text to `out` (pieces pushed one by one: the break
    /// reasons of a large frame are built without the formatting machinery).
    pub fn describe_into(&self, graph: &Graph, out: &mut String) {
        self.describe_with(graph, out, &mut ExtentTexts::default());
    }

    /// [`Blocker::describe_into`] with extents' text kept in `texts` across the breaks of
    /// one grouping.
    pub(super) fn describe_with(&self, graph: &Graph, out: &mut String, texts: &mut ExtentTexts) {
        let p = |id: PassId| graph.pass(id).name.as_str();
        let r = |id: ResourceId| graph.resource(id).name.as_str();
        match self {
            Blocker::MergeOff => put!(out, "merging is off"),
            Blocker::Between(x) => put!(
                out,
                between_text(graph.pass(*x).kind),
                p(*x),
                "' runs between them"
            ),
            Blocker::BetweenReads {
                pass,
                resource,
                access,
            } => put!(
                out,
                between_text(graph.pass(*pass).kind),
                p(*pass),
                "' runs between them and reads '",
                r(*resource),
                "' (",
                access.name(),
                "), an attachment of the render pass, which therefore leaves tile memory"
            ),
            Blocker::NoAttachments(x) => {
                put!(out, "'", p(*x), "' has no attachments")
            }
            Blocker::WaitsOnOtherQueue {
                pass,
                other,
                resource,
                depends_on: None,
            } => put!(
                out,
                "'",
                p(*pass),
                "' uses '",
                r(*resource),
                "' like '",
                p(*other),
                "' on the ",
                graph.pass(*other).queue.name(),
                " queue, which runs inside the render pass: the render pass could wait \
                         for the other queue inside it",
            ),
            Blocker::WaitsOnOtherQueue {
                pass,
                other,
                resource,
                depends_on: Some(subpass),
            } => {
                put!(
                    out,
                    "'",
                    p(*pass),
                    "' uses '",
                    r(*resource),
                    "' like '",
                    p(*other),
                    "', which runs inside the render pass: "
                );
                depends_text(graph, out, *other, *subpass);
            }
            Blocker::OtherQueueInside {
                other,
                resource,
                depends_on: None,
            } => put!(
                out,
                "'",
                p(*other),
                "' on the ",
                graph.pass(*other).queue.name(),
                " queue uses '",
                r(*resource),
                "' of the render pass and runs inside it in the order: the render pass \
                         must end before it",
            ),
            Blocker::OtherQueueInside {
                other,
                resource,
                depends_on: Some(subpass),
            } => {
                put!(
                    out,
                    "'",
                    p(*other),
                    "' runs inside the render pass in the order and uses its '",
                    r(*resource),
                    "': "
                );
                depends_text(graph, out, *other, *subpass);
                put!(out, ", and the render pass must end before it");
            }
            Blocker::Extent {
                pass,
                extent,
                group,
            } => {
                put!(out, "extent differs: '", p(*pass));
                texts.put(out, *extent, *group);
            }
            Blocker::Samples {
                pass,
                samples,
                group,
            } => put!(
                out,
                "sample count differs: '",
                p(*pass),
                "' uses ",
                *samples,
                " samples, the render pass ",
                *group,
                " (the subpasses of a render pass share one sample count: a tiler keeps one \
                 sample layout per tile)"
            ),
            Blocker::WriteAfterResolve {
                pass,
                resource,
                access: Access::Resolve,
                resolver,
            } => put!(
                out,
                "'",
                p(*pass),
                "' resolves '",
                r(*resource),
                "' again after subpass '",
                p(*resolver),
                "' resolved it: a multisampled attachment has one resolve target per render pass"
            ),
            Blocker::WriteAfterResolve {
                pass,
                resource,
                access,
                resolver,
            } => put!(
                out,
                "'",
                p(*pass),
                "' writes '",
                r(*resource),
                "' (",
                access.name(),
                ") after subpass '",
                p(*resolver),
                "' resolved it: a resolve happens at the end of the subpass that declares \
                 it, so the resolved image would miss the write"
            ),
            Blocker::NotAttachmentRead {
                pass,
                resource,
                access: Access::Sampled,
                writer,
            } => put!(
                out,
                "'",
                p(*pass),
                "' samples '",
                r(*resource),
                "' (sampled, not an input attachment), written by subpass '",
                p(*writer),
                "'"
            ),
            Blocker::NotAttachmentRead {
                pass,
                resource,
                access,
                writer,
            } => put!(
                out,
                "'",
                p(*pass),
                "' reads '",
                r(*resource),
                "' as ",
                access.name(),
                " (not an input attachment), written by subpass '",
                p(*writer),
                "'"
            ),
            Blocker::Conflict {
                pass,
                resource,
                access,
                other,
                other_access,
            } => {
                if access.is_attachment() {
                    put!(
                        out,
                        "'",
                        p(*pass),
                        "' uses '",
                        r(*resource),
                        "' as an attachment (",
                        access.name(),
                        ") but subpass '",
                        p(*other),
                        "' uses it as ",
                        other_access.name()
                    )
                } else if other_access.is_attachment() {
                    put!(
                        out,
                        "'",
                        p(*pass),
                        "' uses '",
                        r(*resource),
                        "' as ",
                        access.name(),
                        " while it is an attachment (",
                        other_access.name(),
                        ") of subpass '",
                        p(*other),
                        "'"
                    )
                } else {
                    put!(
                        out,
                        "'",
                        p(*pass),
                        "' uses '",
                        r(*resource),
                        "' as ",
                        access.name(),
                        " after subpass '",
                        p(*other),
                        "' used it as ",
                        other_access.name(),
                        ": not a same-pixel dependency"
                    )
                }
            }
            Blocker::Layout {
                pass,
                resource,
                access,
                other,
                other_access,
            } => put!(
                out,
                "'",
                p(*pass),
                "' uses '",
                r(*resource),
                "' as ",
                access.name(),
                " but subpass '",
                p(*other),
                "' uses it as ",
                other_access.name(),
                ", in another layout"
            ),
            Blocker::ColorLimit { count, limit } => put!(
                out,
                "the render pass would hold ",
                *count,
                " colour attachments (max_color_attachments ",
                *limit,
                ")"
            ),
            Blocker::InputLimit { count, limit } => put!(
                out,
                "the render pass would hold ",
                *count,
                " input attachments (max_input_attachments ",
                *limit,
                ")"
            ),
            Blocker::TileBudget {
                bits,
                budget,
                parts,
            } => {
                put!(
                    out,
                    "tile storage: colour attachments would need ",
                    *bits,
                    " bits per pixel ("
                );
                for (i, (id, b)) in parts.iter().enumerate() {
                    let sep = if i == 0 { "'" } else { " + '" };
                    put!(out, sep, r(*id), "' ", *b);
                    // A multisampled attachment keeps every sample in the tile.
                    if let Some(d) = graph.resource(*id).image_desc().filter(|d| d.samples > 1) {
                        put!(
                            out,
                            " (",
                            d.format.bits_per_texel(),
                            " × ",
                            d.samples,
                            " samples)"
                        );
                    }
                }
                put!(
                    out,
                    "), over the device's ",
                    *budget,
                    " (tile_bits_per_pixel: bits per texel × samples, summed over the colour \
                     attachments)"
                );
            }
        }
    }
}

/// The text of an extent difference after the pass name (`' renders WxH, the render pass
/// WxH`), kept across the breaks of one grouping: a frame has few distinct pairs of extents
/// and many breaks between them, and copying a text is cheaper than writing its digits again.
#[derive(Debug, Default)]
pub(super) struct ExtentTexts(Vec<(u128, String)>);

/// A candidate's extent and its render pass's as one integer (one comparison per entry
/// looked at, instead of four, each a branch the scan would mispredict).
fn extent_pair(extent: (u32, u32), group: (u32, u32)) -> u128 {
    u128::from(packed(extent)) << 64 | u128::from(packed(group))
}

/// Pairs of extents [`ExtentTexts`] keeps at most (a lookup is a scan).
const EXTENT_TEXTS: usize = 16;

/// An extent as one integer: comparing two is one comparison, not two with a branch
/// between them.
fn packed((width, height): (u32, u32)) -> u64 {
    u64::from(width) << 32 | u64::from(height)
}

/// Appends the text of an extent difference after the pass name.
fn put_extents(out: &mut String, extent: (u32, u32), group: (u32, u32)) {
    put!(
        out,
        "' renders ",
        extent.0,
        "x",
        extent.1,
        ", the render pass ",
        group.0,
        "x",
        group.1
    );
}

impl ExtentTexts {
    /// Appends the text of an extent difference after the pass name, kept once written
    /// while the list has room.
    fn put(&mut self, out: &mut String, extent: (u32, u32), group: (u32, u32)) {
        let key = extent_pair(extent, group);
        if let Some((_, text)) = self.0.iter().find(|(k, _)| *k == key) {
            out.push_str(text);
        } else if self.0.len() == EXTENT_TEXTS {
            put_extents(out, extent, group);
        } else {
            let mut text = String::new();
            put_extents(&mut text, extent, group);
            out.push_str(&text);
            self.0.push((key, text));
        }
    }
}

/// A piece of a reason: a text, or a number written in decimal.
trait Piece {
    /// Appends the piece to `out`.
    fn put(self, out: &mut String);
}

impl Piece for &str {
    #[inline(always)]
    fn put(self, out: &mut String) {
        out.push_str(self);
    }
}

impl Piece for u32 {
    fn put(self, out: &mut String) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        let mut n = self;
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        digits[i..].iter().for_each(|&d| out.push(char::from(d)));
    }
}

/// The words of an other-queue pass `other` inside the render pass that depends on its
/// subpass `subpass`, so that no hoisting moves it (or a wait for it) to the render pass's
/// start.
fn depends_text(graph: &Graph, out: &mut String, other: PassId, subpass: PassId) {
    let p = |id: PassId| graph.pass(id).name.as_str();
    put!(
        out,
        "'",
        p(other),
        "' on the ",
        graph.pass(other).queue.name(),
        " queue depends on subpass '",
        p(subpass),
        "' of the render pass, so its wait cannot move to the render pass's start"
    );
}

/// The start of [`Blocker::Between`]'s text, up to the pass name.
fn between_text(kind: PassKind) -> &'static str {
    match kind {
        PassKind::Raster => "raster pass '",
        PassKind::Compute => "compute pass '",
        PassKind::Transfer => "transfer pass '",
    }
}

#[cfg(test)]
mod tests {
    use super::{Blocker, ExtentTexts, EXTENT_TEXTS};
    use crate::access::Access;
    use crate::format::Format;
    use crate::graph::{Graph, ImageDesc};

    /// Extent texts kept across breaks, past the list's capacity too, read as if written
    /// afresh.
    #[test]
    fn kept_extent_texts_read_like_fresh_ones() {
        let mut g = Graph::new("extents");
        let r = g.image("r", ImageDesc::new(Format::R8G8B8A8_UNORM, 4, 4));
        let pass = g
            .raster("p")
            .uses(r, Access::ColorWrite)
            .side_effects()
            .id();
        let mut texts = ExtentTexts::default();
        for i in 0..(EXTENT_TEXTS as u32 + 8) {
            let b = Blocker::Extent {
                pass,
                extent: (i * 10 + 7, 1080 - i),
                group: ((i % 5) * 1000, 3),
            };
            let mut kept = String::new();
            b.describe_with(&g, &mut kept, &mut texts);
            assert_eq!(kept, b.describe(&g));
            assert_eq!(
                kept,
                format!(
                    "extent differs: 'p' renders {}x{}, the render pass {}x3",
                    i * 10 + 7,
                    1080 - i,
                    (i % 5) * 1000
                )
            );
        }
        assert_eq!(texts.0.len(), EXTENT_TEXTS);
    }
}
