//! The frame graph as declared: resources and passes in arenas, addressed by typed ids.
//!
//! Declaring never fails and never panics: every rule (unique names, fitting accesses,
//! reads that have a writer, ...) is checked by the `validate` phase of the compiler, so the
//! builder and the frame-file loader share one set of rules and one set of messages. Who owns
//! a resource and what a frame may do to its content is an [`Origin`], whose variants carry
//! only the settings that apply to them: contradictory settings (import settings on a
//! transient, a presented image that is not a per-frame import, a memoryless import) cannot
//! be declared at all, and the frame-file loader rejects them as it reads the flags.

use crate::access::{Access, Target};
// (Defined with the access rules it selects; part of the graph's vocabulary.)
pub use crate::access::PassKind;
use crate::format::Format;
use crate::name::Name;
use crate::resolve::ResolveMode;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Index of a resource in its graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub(crate) u32);

/// Index of a pass in its graph (declaration = submission order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PassId(pub(crate) u32);

impl ResourceId {
    /// Position in [`Graph::resources`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl PassId {
    /// Position in [`Graph::passes`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Shape of an image resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageDesc {
    /// Texel format.
    pub format: Format,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// MSAA samples per pixel.
    pub samples: u32,
    /// Mip levels.
    pub mips: u32,
    /// Array layers.
    pub layers: u32,
    /// A cube map: six layers, one per face (+X, -X, +Y, -Y, +Z, -Z), square, sampled
    /// through a cube view (an environment map).
    pub cube: bool,
}

impl ImageDesc {
    /// A single-sampled, single-mip, single-layer image.
    pub fn new(format: Format, width: u32, height: u32) -> Self {
        ImageDesc {
            format,
            width,
            height,
            samples: 1,
            mips: 1,
            layers: 1,
            cube: false,
        }
    }

    /// A cube map of `side`×`side` faces: six layers, sampled through a cube view.
    pub fn cube(format: Format, side: u32) -> Self {
        ImageDesc {
            layers: 6,
            cube: true,
            ..ImageDesc::new(format, side, side)
        }
    }

    /// With `samples` MSAA samples.
    pub fn samples(mut self, samples: u32) -> Self {
        self.samples = samples;
        self
    }

    /// With `mips` mip levels.
    pub fn mips(mut self, mips: u32) -> Self {
        self.mips = mips;
        self
    }

    /// With `layers` array layers.
    pub fn layers(mut self, layers: u32) -> Self {
        self.layers = layers;
        self
    }

    /// Size estimate: Σ over mips of w·h·layers·samples·bytes-per-texel.
    pub fn estimated_bytes(&self) -> u64 {
        let texel = u64::from(self.format.bytes_per_texel());
        let per_layer = u64::from(self.layers) * u64::from(self.samples) * texel;
        (0..self.mips.min(32))
            .map(|m| {
                let w = u64::from((self.width >> m).max(1));
                let h = u64::from((self.height >> m).max(1));
                w.saturating_mul(h).saturating_mul(per_layer)
            })
            .fold(0u64, u64::saturating_add)
    }

    /// Bytes of one mip-0 layer of all samples: what one attachment load or store moves.
    pub fn attachment_bytes(&self) -> u64 {
        u64::from(self.width)
            .saturating_mul(u64::from(self.height))
            .saturating_mul(u64::from(self.samples))
            .saturating_mul(u64::from(self.format.bytes_per_texel()))
    }
}

/// What kind of resource, with its shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// An image.
    Image(ImageDesc),
    /// A buffer of `size` bytes.
    Buffer {
        /// Size in bytes.
        size: u64,
    },
}

/// A declared resource.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Resource {
    /// Unique name, used in messages, dumps and debug labels.
    pub name: Name,
    /// Image or buffer, with its shape.
    pub kind: ResourceKind,
    /// Byte size that overrides the estimate (the backend's real size, or the frame file's).
    pub size: Option<u64>,
    /// Who owns it and how long its content lives: transient (with the memoryless
    /// requirement), imported, or imported anew every frame (with what the frame may do to
    /// an import's content at entry and at exit).
    pub origin: Origin,
    /// A result of the frame: passes that feed it are never culled, and its content is read
    /// after the frame. A cull root, not an owner: a transient or an imported resource may be
    /// one (only a memoryless one may not, which the validate phase rejects).
    pub output: bool,
}

/// Who owns a resource and how long its content lives. Each variant carries only the
/// settings that apply to it, so a transient with import settings, a presented image that
/// is not a per-frame import, or a memoryless import cannot be built.
///
/// In frame files these are the flags `imported`, `per_frame`, `clear_on_first_use`,
/// `discard_on_last_use`, `exit` and `memoryless` (docs/frame-format.md); the loader turns
/// them into an origin and rejects the combinations that have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// Created and owned by the graph for this frame: its memory may be shared with other
    /// transients (aliasing), its content is not needed before its first writer nor after
    /// its last use (unless it is an `output`).
    Transient {
        /// The author requires it to stay in tile memory (an image only, never an
        /// `output`): an error when the render passes cannot keep it there.
        memoryless: bool,
    },
    /// Owned outside the graph, the same object every frame (history, a read-back target):
    /// never aliased; its content survives from one frame to the next unless said otherwise.
    Imported(Import),
    /// Owned outside the graph, a different object every frame (e.g. a swapchain image): no
    /// previous-frame hazard; its content is not needed at entry, it enters in `UNDEFINED`,
    /// and its first use is ordered by a semaphore the frame waits on (the plan's
    /// `external` entry says where).
    ImportedPerFrame(PerFrameImport),
    /// Owned by the graph and kept from one frame to the next (temporal feedback: a TAA
    /// history, an adapted exposure): passes read *the previous frame's* content with
    /// `previous` uses and write this frame's with ordinary ones. Never aliased; its bytes
    /// are counted in the plan's memory. The compiler decides how many physical resources
    /// it needs ([`crate::history`]): one when every read of the previous content comes
    /// before this frame's first use, else two alternating by frame parity.
    History(HistoryRole),
    /// Owned by the graph and kept across frames and re-plans, one physical resource (never
    /// double-buffered, never aliased; its bytes are counted in the plan's `persistent`
    /// entries): content written by passes that need not run every frame (an environment
    /// cubemap, a lookup table). While `valid`, a pass that writes it and nothing else that
    /// is needed is culled (the plan's `skipped`) and its readers read the content an earlier
    /// frame left; when not valid, its writers are roots (the content is for later frames).
    /// It enters and leaves every frame in a resting state: an image in
    /// `SHADER_READ_ONLY_OPTIMAL`, readable by fragment and compute shaders (a buffer:
    /// readable by shaders), whatever the previous frame's plan was.
    Persistent {
        /// The content an earlier frame left is still what the writers would write.
        valid: bool,
    },
}

/// What a history resource is, before and after the compiler decides its buffering
/// ([`crate::history::lower`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HistoryRole {
    /// As declared: one resource whose previous content `previous` uses read.
    Declared,
    /// One physical resource: every read of the previous content (the content it enters
    /// the frame with) comes before this frame's first use.
    Single,
    /// Double-buffered, this frame's content: its content at entry is not needed (it is
    /// two frames old); `previous` is its twin, the other physical resource.
    Current {
        /// The resource holding the previous frame's content this frame.
        previous: ResourceId,
    },
    /// Double-buffered, the previous frame's content (read only; its content after the
    /// frame is not needed: next frame it is `current`'s, overwritten).
    Previous {
        /// The resource holding this frame's content.
        current: ResourceId,
    },
}

impl Default for Origin {
    fn default() -> Self {
        Origin::TRANSIENT
    }
}

/// What a frame may do to the content of an import that is the same object every frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Import {
    /// Earlier content is not needed at the first use.
    pub clear_on_first_use: bool,
    /// Content is not needed after the last use.
    pub discard_on_last_use: bool,
}

/// What a frame may do to the content of an import that is a different object every frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PerFrameImport {
    /// Earlier content is not needed at the first use.
    pub clear_on_first_use: bool,
    /// What becomes of it after its last use.
    pub exit: PerFrameExit,
}

/// What becomes of a per-frame import after its last use: kept as its last use leaves it,
/// its content discarded, or presented (a presented image's content is needed after the
/// frame, so it is never discarded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PerFrameExit {
    /// Left as its last use leaves it, content kept (the default).
    #[default]
    Keep,
    /// Left as its last use leaves it; its content is not needed afterwards
    /// (`discard_on_last_use`).
    Discard,
    /// An image ending the frame in `PRESENT_SRC_KHR` ([`Exit::Present`]).
    Present,
}

impl Origin {
    /// Transient, not required to be memoryless.
    pub const TRANSIENT: Origin = Origin::Transient { memoryless: false };
    /// Transient and required to stay in tile memory.
    pub const MEMORYLESS: Origin = Origin::Transient { memoryless: true };
    /// Imported, the same object every frame, its content kept across frames.
    pub const IMPORTED: Origin = Origin::Imported(Import {
        clear_on_first_use: false,
        discard_on_last_use: false,
    });
    /// Imported, a different object every frame, kept as its last use leaves it.
    pub const PER_FRAME: Origin = Origin::ImportedPerFrame(PerFrameImport {
        clear_on_first_use: false,
        exit: PerFrameExit::Keep,
    });
    /// A swapchain image: imported anew every frame and presented at its end.
    pub const PRESENTED: Origin = Origin::ImportedPerFrame(PerFrameImport {
        clear_on_first_use: false,
        exit: PerFrameExit::Present,
    });
    /// A history resource as declared (the compiler decides its buffering).
    pub const HISTORY: Origin = Origin::History(HistoryRole::Declared);
}

/// The layout a persistent image ([`Origin::Persistent`]) enters and leaves every frame in.
pub const PERSISTENT_REST_LAYOUT: crate::sync::Layout =
    crate::sync::Layout::SHADER_READ_ONLY_OPTIMAL;

/// The state a resource leaves the frame in ([`Resource::exit`]; in frame files, `exit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// As its last use leaves it (the default).
    #[default]
    Keep,
    /// An image ending the frame in `PRESENT_SRC_KHR`, handed to the presentation engine.
    Present,
}

impl Exit {
    /// True for the default (frame files and plans omit it).
    pub fn is_keep(&self) -> bool {
        *self == Exit::Keep
    }
}

/// The value an attachment or a transfer destination is cleared to.
///
/// Equality and hashing compare the bit patterns of the floats, so a graph holding clear
/// values stays `Eq + Hash` for the compile cache (`-0.0` and `0.0` differ, a NaN equals
/// itself). In frame files and plans a colour is `[r, g, b, a]`, a depth/stencil value
/// `{"depth": d, "stencil": s}`.
#[derive(Clone, Copy, Debug)]
pub enum ClearValue {
    /// A colour, as the attachment's format reads it (float, or integer values as floats).
    Color([f32; 4]),
    /// A depth and a stencil value.
    DepthStencil {
        /// Depth (1.0 is the far plane; 0.0 with reversed Z).
        depth: f32,
        /// Stencil.
        stencil: u32,
    },
}

impl ClearValue {
    /// The value a clear without one uses: colour 0, depth 1.0 and stencil 0.
    pub fn default_for(format: Format) -> ClearValue {
        if format.is_depth_stencil() {
            ClearValue::DepthStencil {
                depth: 1.0,
                stencil: 0,
            }
        } else {
            ClearValue::Color([0.0; 4])
        }
    }

    /// True when the value is of the kind `format` is cleared with (colour or depth/stencil).
    pub fn fits(&self, format: Format) -> bool {
        matches!(self, ClearValue::DepthStencil { .. }) == format.is_depth_stencil()
    }

    fn key(&self) -> (u8, [u32; 4]) {
        match *self {
            ClearValue::Color(c) => (0, c.map(f32::to_bits)),
            ClearValue::DepthStencil { depth, stencil } => (1, [depth.to_bits(), stencil, 0, 0]),
        }
    }
}

impl PartialEq for ClearValue {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for ClearValue {}

impl std::hash::Hash for ClearValue {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl Serialize for ClearValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match *self {
            ClearValue::Color(c) => c.serialize(s),
            ClearValue::DepthStencil { depth, stencil } => {
                let mut st = s.serialize_struct("ClearValue", 2)?;
                st.serialize_field("depth", &depth)?;
                st.serialize_field("stencil", &stencil)?;
                st.end()
            }
        }
    }
}

/// `[r, g, b, a]` or `{"depth": d, "stencil": s}` (`stencil` defaults to 0); anything else
/// is an error that names both forms.
impl<'de> Deserialize<'de> for ClearValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ClearValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "`clear_value` to be a colour [r, g, b, a] or {\"depth\": d, \"stencil\": s}",
                )
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ClearValue, A::Error> {
                let mut c = [0.0f32; 4];
                for (i, v) in c.iter_mut().enumerate() {
                    *v = seq
                        .next_element()?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))?;
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(5, &self));
                }
                Ok(ClearValue::Color(c))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ClearValue, A::Error> {
                let (mut depth, mut stencil) = (None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "depth" if depth.is_some() => {
                            return Err(de::Error::duplicate_field("depth"))
                        }
                        "stencil" if stencil.is_some() => {
                            return Err(de::Error::duplicate_field("stencil"))
                        }
                        "depth" => depth = Some(map.next_value()?),
                        "stencil" => stencil = Some(map.next_value()?),
                        other => {
                            return Err(de::Error::unknown_field(other, &["depth", "stencil"]))
                        }
                    }
                }
                Ok(ClearValue::DepthStencil {
                    depth: depth.ok_or_else(|| de::Error::missing_field("depth"))?,
                    stencil: stencil.unwrap_or(0),
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl Resource {
    /// Transient image with default flags.
    pub fn image(name: impl Into<Name>, desc: ImageDesc) -> Self {
        Self::new(name.into(), ResourceKind::Image(desc))
    }

    /// Transient buffer with default flags.
    pub fn buffer(name: impl Into<Name>, size: u64) -> Self {
        Self::new(name.into(), ResourceKind::Buffer { size })
    }

    fn new(name: Name, kind: ResourceKind) -> Self {
        Resource {
            name,
            kind,
            size: None,
            origin: Origin::TRANSIENT,
            output: false,
        }
    }

    /// Owned outside the graph (either kind of import).
    pub fn is_imported(&self) -> bool {
        matches!(
            self.origin,
            Origin::Imported(_) | Origin::ImportedPerFrame(_)
        )
    }

    /// Kept from one frame to the next by the graph ([`Origin::History`], any role).
    pub fn is_history(&self) -> bool {
        matches!(self.origin, Origin::History(_))
    }

    /// A persistent resource ([`Origin::Persistent`]): `Some(valid)`, `None` for any other.
    pub fn persistent_valid(&self) -> Option<bool> {
        match self.origin {
            Origin::Persistent { valid } => Some(valid),
            _ => None,
        }
    }

    /// A persistent resource ([`Origin::Persistent`]), valid or not.
    pub fn is_kept_across_plans(&self) -> bool {
        matches!(self.origin, Origin::Persistent { .. })
    }

    /// Not a transient (an import, a history or a persistent resource): never aliased, never memoryless,
    /// its object lives longer than a frame.
    pub fn is_persistent(&self) -> bool {
        !matches!(self.origin, Origin::Transient { .. })
    }

    /// For one of a double-buffered history pair, its twin (the other physical resource):
    /// the resource whose uses of the previous frame this one's entry state follows.
    pub fn history_twin(&self) -> Option<ResourceId> {
        match self.origin {
            Origin::History(HistoryRole::Current { previous }) => Some(previous),
            Origin::History(HistoryRole::Previous { current }) => Some(current),
            _ => None,
        }
    }

    /// Imported as a different object every frame (a swapchain image).
    pub fn is_per_frame(&self) -> bool {
        matches!(self.origin, Origin::ImportedPerFrame(_))
    }

    /// A transient that the author requires to stay in tile memory.
    pub fn declared_memoryless(&self) -> bool {
        matches!(self.origin, Origin::Transient { memoryless: true })
    }

    /// An import whose earlier content is not needed at its first use.
    pub fn clear_on_first_use(&self) -> bool {
        match self.origin {
            Origin::Transient { .. } | Origin::Persistent { .. } => false,
            // This frame's half of a double-buffered history holds content two frames old.
            Origin::History(role) => matches!(role, HistoryRole::Current { .. }),
            Origin::Imported(i) => i.clear_on_first_use,
            Origin::ImportedPerFrame(i) => i.clear_on_first_use,
        }
    }

    /// An import whose content is not needed after its last use.
    pub fn discard_on_last_use(&self) -> bool {
        match self.origin {
            Origin::Transient { .. } | Origin::Persistent { .. } => false,
            // The previous frame's half is overwritten as next frame's current one.
            Origin::History(role) => matches!(role, HistoryRole::Previous { .. }),
            Origin::Imported(i) => i.discard_on_last_use,
            Origin::ImportedPerFrame(i) => i.exit == PerFrameExit::Discard,
        }
    }

    /// The state the resource leaves the frame in ([`Exit::Present`] for a presented
    /// per-frame import, [`Exit::Keep`] for every other resource).
    pub fn exit(&self) -> Exit {
        match self.origin {
            Origin::ImportedPerFrame(PerFrameImport {
                exit: PerFrameExit::Present,
                ..
            }) => Exit::Present,
            _ => Exit::Keep,
        }
    }

    /// True for a presented per-frame import ([`Resource::exit`] is [`Exit::Present`]).
    pub fn is_presented(&self) -> bool {
        self.exit() == Exit::Present
    }

    /// True when its content at the start of the frame is needed: an import of the same
    /// object every frame without `clear_on_first_use`, or a history resource holding the
    /// previous frame's content (a transient holds nothing yet, a per-frame import is a new
    /// object, this frame's half of a double-buffered history is two frames old).
    pub fn content_at_entry(&self) -> bool {
        matches!(
            self.origin,
            Origin::Imported(Import {
                clear_on_first_use: false,
                ..
            }) | Origin::History(
                HistoryRole::Declared | HistoryRole::Single | HistoryRole::Previous { .. }
            ) | Origin::Persistent { .. }
        )
    }

    /// The image shape, if it is an image.
    pub fn image_desc(&self) -> Option<&ImageDesc> {
        match &self.kind {
            ResourceKind::Image(d) => Some(d),
            ResourceKind::Buffer { .. } => None,
        }
    }

    /// What accesses are checked against.
    pub fn target(&self) -> Target {
        match &self.kind {
            ResourceKind::Image(d) => Target::Image(d.format),
            ResourceKind::Buffer { .. } => Target::Buffer,
        }
    }

    /// Bytes of memory the resource needs (override, or estimate).
    pub fn bytes(&self) -> u64 {
        self.size.unwrap_or(match &self.kind {
            ResourceKind::Image(d) => d.estimated_bytes(),
            ResourceKind::Buffer { size } => *size,
        })
    }

    /// True when a later frame (or someone outside the graph) may read the content after the
    /// frame ends.
    pub fn survives_frame(&self) -> bool {
        self.output || (self.is_persistent() && !self.discard_on_last_use())
    }
}

/// Queue a pass asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueKind {
    /// The graphics queue (always present).
    Graphics,
    /// A dedicated compute queue, where the device has one.
    AsyncCompute,
}

impl QueueKind {
    /// Name used in the plan.
    pub fn name(self) -> &'static str {
        match self {
            QueueKind::Graphics => "graphics",
            QueueKind::AsyncCompute => "async_compute",
        }
    }
}

/// As frame files spell it: `raster`, `compute`, `transfer`.
impl fmt::Display for PassKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PassKind::Raster => "raster",
            PassKind::Compute => "compute",
            PassKind::Transfer => "transfer",
        })
    }
}

impl fmt::Display for QueueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One use of one resource by one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    /// The resource used.
    pub resource: ResourceId,
    /// How it is used.
    pub access: Access,
    /// Clear the attachment (or destination) at this use.
    pub clear: bool,
    /// For `resolve`: the multisampled attachment resolved into this resource.
    pub from: Option<ResourceId>,
    /// For a `resolve` into a depth/stencil image only: how the samples combine; `None`
    /// means [`ResolveMode::SampleZero`], the mode every device with depth resolve has. A
    /// colour resolve always averages and takes no mode (validation refuses one).
    pub resolve_mode: Option<ResolveMode>,
    /// With `clear`: the value cleared to; `None` is the default (colour 0, depth 1.0,
    /// stencil 0; [`ClearValue::default_for`]).
    pub clear_value: Option<ClearValue>,
    /// Reads the previous frame's content of a history resource ([`Origin::History`]), not
    /// this frame's. A pass may use a history resource twice: once this way, once not.
    pub previous: bool,
    /// Coverage by a depth/stencil image `D` (frame files: `"coverage": "D"`). On a colour
    /// write: the pass writes every pixel its depth attachment `D` covers and leaves the
    /// others undefined, so the use replaces earlier content (no load, no clear). On a
    /// read: the pass reads only the pixels `D` covers. Validation checks that covered
    /// content is read with the same coverage ([`Use::covered_write`]).
    pub coverage: Option<ResourceId>,
}

impl Use {
    /// A use of `resource` with `access`, no clear.
    pub fn new(resource: ResourceId, access: Access) -> Self {
        Use {
            resource,
            access,
            clear: false,
            from: None,
            resolve_mode: None,
            clear_value: None,
            previous: false,
            coverage: None,
        }
    }

    /// True for a colour write with coverage: it replaces the content (every pixel that is
    /// ever read is written), though it does not write every pixel.
    pub fn covered_write(&self) -> bool {
        self.coverage.is_some() && matches!(self.access, Access::ColorWrite | Access::ColorWriteAll)
    }

    /// True when what the use leaves keeps earlier content ([`Access::keeps_content`]), which
    /// a covered write does not: the pixels it leaves are never read.
    pub fn keeps_content(&self) -> bool {
        self.access.keeps_content(self.clear) && !self.covered_write()
    }

    /// The mode of a depth/stencil resolve: its own, or [`ResolveMode::SampleZero`].
    pub fn depth_resolve_mode(&self) -> ResolveMode {
        self.resolve_mode.unwrap_or(ResolveMode::SampleZero)
    }

    /// The value this use clears an image of `format` to: its own, or the default.
    pub fn clear_value_or_default(&self, format: Format) -> ClearValue {
        self.clear_value
            .unwrap_or_else(|| ClearValue::default_for(format))
    }
}

/// A declared pass.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pass {
    /// Unique name.
    pub name: Name,
    /// Raster, compute or transfer.
    pub kind: PassKind,
    /// Queue the author asks for; raster passes always run on graphics.
    pub queue: QueueKind,
    /// Never culled (writes something outside the graph's view).
    pub side_effects: bool,
    /// At most one use per resource.
    pub uses: Vec<Use>,
}

impl Pass {
    /// True when `u`, one of this pass's uses, is a depth/stencil attachment the pass
    /// resolves on write-back: the resolve reads it at the end of the subpass as well
    /// ([`crate::access::SyncScope::with_resolve_read`]).
    pub fn resolves_depth_source(&self, u: &Use) -> bool {
        matches!(u.access, Access::DepthWrite | Access::DepthRead)
            && self
                .uses
                .iter()
                .any(|v| v.access == Access::Resolve && v.from == Some(u.resource))
    }

    /// The scope of its use `u` (`scope`, from [`Access::scope`] or a table of it), widened
    /// by a depth/stencil resolve's read when the pass resolves that attachment.
    pub fn use_scope(&self, u: &Use, scope: crate::access::SyncScope) -> crate::access::SyncScope {
        if self.resolves_depth_source(u) {
            scope.with_resolve_read()
        } else {
            scope
        }
    }
}

/// A frame graph: resources and passes in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Graph {
    /// Frame name, for reports.
    pub name: Name,
    /// Resources, indexed by [`ResourceId`].
    pub resources: Vec<Resource>,
    /// Passes in submission order, indexed by [`PassId`].
    pub passes: Vec<Pass>,
}

impl Graph {
    /// An empty graph.
    pub fn new(name: impl Into<Name>) -> Self {
        Graph {
            name: name.into(),
            ..Default::default()
        }
    }

    /// The resource behind an id.
    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.index()]
    }

    /// The pass behind an id.
    pub fn pass(&self, id: PassId) -> &Pass {
        &self.passes[id.index()]
    }

    /// All pass ids in declaration order.
    pub fn pass_ids(&self) -> impl Iterator<Item = PassId> + '_ {
        (0..self.passes.len() as u32).map(PassId)
    }

    /// All resource ids in declaration order.
    pub fn resource_ids(&self) -> impl Iterator<Item = ResourceId> + '_ {
        (0..self.resources.len() as u32).map(ResourceId)
    }

    /// Finds a resource by name.
    pub fn find_resource(&self, name: &str) -> Option<ResourceId> {
        self.resources
            .iter()
            .position(|r| r.name == name)
            .map(|i| ResourceId(i as u32))
    }

    /// Finds a pass by name.
    pub fn find_pass(&self, name: &str) -> Option<PassId> {
        self.passes
            .iter()
            .position(|p| p.name == name)
            .map(|i| PassId(i as u32))
    }

    /// Adds a resource and returns its id.
    pub fn add_resource(&mut self, resource: Resource) -> ResourceId {
        self.resources.push(resource);
        ResourceId(self.resources.len() as u32 - 1)
    }

    /// Declares a transient image.
    pub fn image(&mut self, name: impl Into<Name>, desc: ImageDesc) -> ResourceId {
        self.add_resource(Resource::image(name, desc))
    }

    /// Declares a history image: kept from one frame to the next ([`Origin::History`]).
    pub fn history_image(&mut self, name: impl Into<Name>, desc: ImageDesc) -> ResourceId {
        let id = self.image(name, desc);
        self.resources[id.index()].origin = Origin::HISTORY;
        id
    }

    /// Declares a history buffer ([`Origin::History`]).
    pub fn history_buffer(&mut self, name: impl Into<Name>, size: u64) -> ResourceId {
        let id = self.buffer(name, size);
        self.resources[id.index()].origin = Origin::HISTORY;
        id
    }

    /// Declares a persistent image ([`Origin::Persistent`]): kept across frames, its writers
    /// skipped while `valid`.
    pub fn persistent_image(
        &mut self,
        name: impl Into<Name>,
        desc: ImageDesc,
        valid: bool,
    ) -> ResourceId {
        let id = self.image(name, desc);
        self.resources[id.index()].origin = Origin::Persistent { valid };
        id
    }

    /// Declares a persistent buffer ([`Origin::Persistent`]).
    pub fn persistent_buffer(
        &mut self,
        name: impl Into<Name>,
        size: u64,
        valid: bool,
    ) -> ResourceId {
        let id = self.buffer(name, size);
        self.resources[id.index()].origin = Origin::Persistent { valid };
        id
    }

    /// Declares a transient buffer.
    pub fn buffer(&mut self, name: impl Into<Name>, size: u64) -> ResourceId {
        self.add_resource(Resource::buffer(name, size))
    }

    /// Changes a declared resource's origin or output flag.
    pub fn resource_mut(&mut self, id: ResourceId) -> &mut Resource {
        &mut self.resources[id.index()]
    }

    /// Declares a pass; configure it through the returned builder.
    pub fn pass_builder(&mut self, name: impl Into<Name>, kind: PassKind) -> PassBuilder<'_> {
        self.passes.push(Pass {
            name: name.into(),
            kind,
            queue: QueueKind::Graphics,
            side_effects: false,
            uses: Vec::new(),
        });
        let id = PassId(self.passes.len() as u32 - 1);
        PassBuilder { graph: self, id }
    }

    /// Declares a raster pass.
    pub fn raster(&mut self, name: impl Into<Name>) -> PassBuilder<'_> {
        self.pass_builder(name, PassKind::Raster)
    }

    /// Declares a compute pass.
    pub fn compute(&mut self, name: impl Into<Name>) -> PassBuilder<'_> {
        self.pass_builder(name, PassKind::Compute)
    }

    /// Declares a transfer pass.
    pub fn transfer(&mut self, name: impl Into<Name>) -> PassBuilder<'_> {
        self.pass_builder(name, PassKind::Transfer)
    }
}

/// Fluent configuration of a pass just declared.
#[derive(Debug)]
pub struct PassBuilder<'g> {
    graph: &'g mut Graph,
    id: PassId,
}

impl PassBuilder<'_> {
    fn pass(&mut self) -> &mut Pass {
        &mut self.graph.passes[self.id.index()]
    }

    /// Uses `resource` with `access`.
    pub fn uses(mut self, resource: ResourceId, access: Access) -> Self {
        self.pass().uses.push(Use::new(resource, access));
        self
    }

    /// Uses `resource` with `access`, cleared at this use to the default value.
    pub fn clears(mut self, resource: ResourceId, access: Access) -> Self {
        self.pass().uses.push(Use {
            clear: true,
            ..Use::new(resource, access)
        });
        self
    }

    /// Uses `resource` with `access`, cleared at this use to `value`.
    pub fn clears_to(mut self, resource: ResourceId, access: Access, value: ClearValue) -> Self {
        self.pass().uses.push(Use {
            clear: true,
            clear_value: Some(value),
            ..Use::new(resource, access)
        });
        self
    }

    /// Reads the previous frame's content of the history resource `resource` with `access`
    /// ([`Use::previous`]).
    pub fn reads_previous(mut self, resource: ResourceId, access: Access) -> Self {
        self.pass().uses.push(Use {
            previous: true,
            ..Use::new(resource, access)
        });
        self
    }

    /// Resolves the multisampled attachment `from` into `target`.
    pub fn resolves(mut self, target: ResourceId, from: ResourceId) -> Self {
        self.pass().uses.push(Use {
            from: Some(from),
            ..Use::new(target, Access::Resolve)
        });
        self
    }

    /// Resolves the multisampled depth/stencil attachment `from` (this pass's depth
    /// attachment) into the single-sampled `target` with `mode`.
    pub fn resolves_depth(
        mut self,
        target: ResourceId,
        from: ResourceId,
        mode: ResolveMode,
    ) -> Self {
        self.pass().uses.push(Use {
            from: Some(from),
            resolve_mode: Some(mode),
            ..Use::new(target, Access::Resolve)
        });
        self
    }

    /// Uses `resource` with `access` covered by the depth/stencil image `depth`
    /// ([`Use::coverage`]).
    pub fn covered(mut self, resource: ResourceId, access: Access, depth: ResourceId) -> Self {
        self.pass().uses.push(Use {
            coverage: Some(depth),
            ..Use::new(resource, access)
        });
        self
    }

    /// Asks for the async-compute queue.
    pub fn on_queue(mut self, queue: QueueKind) -> Self {
        self.pass().queue = queue;
        self
    }

    /// Marks the pass as never culled.
    pub fn side_effects(mut self) -> Self {
        self.pass().side_effects = true;
        self
    }

    /// The id of the pass.
    pub fn id(self) -> PassId {
        self.id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_estimate_sums_mips() {
        let d = ImageDesc::new(Format::R8G8B8A8_UNORM, 4, 4).mips(3);
        assert_eq!(d.estimated_bytes(), (16 + 4 + 1) * 4);
        let msaa = ImageDesc::new(Format::R8G8B8A8_UNORM, 1920, 1080).samples(4);
        assert_eq!(msaa.attachment_bytes(), 1920 * 1080 * 16);
    }

    #[test]
    fn builder_records_uses_in_order() {
        let mut g = Graph::new("t");
        let a = g.image("a", ImageDesc::new(Format::R8G8B8A8_UNORM, 8, 8));
        let p = g
            .raster("p")
            .clears(a, Access::ColorWrite)
            .side_effects()
            .id();
        assert_eq!(
            g.pass(p).uses,
            vec![Use {
                resource: a,
                access: Access::ColorWrite,
                clear: true,
                from: None,
                resolve_mode: None,
                clear_value: None,
                previous: false,
                coverage: None,
            }]
        );
        assert!(g.pass(p).side_effects);
        assert_eq!(g.find_pass("p"), Some(p));
    }
}
