//! Loading a frame description (docs/frame-format.md "Input") from JSON or TOML.
//!
//! Parsing is strict (unknown fields are errors, so a typo cannot silently change a frame)
//! and reports 1-based line and column. A file is read up to [`MAX_FILE_BYTES`] (frame and
//! plan files alike, [`read_text`]); a UTF-8 byte-order mark is skipped; the text must be an
//! object (a TOML table) with `resources` and `passes`, so an empty file, a JSON array or a
//! stray value is an error rather than an empty frame. Names are resolved to ids here and the
//! resource flags become an [`Origin`] (a combination that has none is an error here, in the
//! words the validate phase used when the flags were the graph's own); every other rule is
//! left to the compiler's `validate` phase so files and the builder API give the same
//! messages.

use crate::access::Access;
use crate::caps::Capabilities;
use crate::compile::validate::{memoryless_outside_frame, MEMORYLESS_BUFFER, PRESENT_BUFFER};
use crate::error::{CompileError, FrameFileError};
use crate::format::Format;
use crate::graph::{
    ClearValue, Exit, Graph, HistoryRole, ImageDesc, Import, Origin, PassKind, PerFrameExit,
    PerFrameImport, QueueKind, Resource, ResourceKind, Use,
};
use crate::resolve::{ResolveMode, ResolveModes};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use tessera_fsio::line_column;

/// Largest frame or plan file read, in bytes (64 MiB: a 10,000-pass frame is a few MiB).
/// Larger files, and endless ones like `/dev/zero`, are an error naming the limit.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// What every frame file is, said in the errors of files that are not one.
const FRAME_SHAPE: &str =
    "a frame is an object (in TOML, a table) with `resources` and `passes` lists (docs/frame-format.md)";

/// A frame file as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameFile {
    /// Frame name.
    #[serde(default)]
    pub name: String,
    /// Device profile name or object.
    #[serde(default)]
    pub device: Option<DeviceSpec>,
    /// Resources.
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
    /// Passes in submission order.
    #[serde(default)]
    pub passes: Vec<PassSpec>,
}

/// `device`: a profile name or a profile with overrides.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum DeviceSpec {
    /// A profile name.
    Profile(String),
    /// A profile with fields overridden.
    Custom(DeviceOverrides),
}

/// Field names of a device object, in the order of [`DeviceOverrides`].
const DEVICE_FIELDS: &[&str] = &[
    "profile",
    "async_compute",
    "lazily_allocated",
    "max_color_attachments",
    "max_input_attachments",
    "tile_bits_per_pixel",
    "placement_alignment",
    "buffer_image_granularity",
    "depth_resolve_modes",
];

/// A string is a profile name, an object a [`DeviceOverrides`]; anything else is an error
/// that names the field, the value found and both accepted forms (an untagged derive would
/// only say that no variant matched).
impl<'de> Deserialize<'de> for DeviceSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Spec;
        impl<'de> Visitor<'de> for Spec {
            type Value = DeviceSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "`device` to be a profile name (")?;
                for (i, p) in Capabilities::PROFILES.iter().enumerate() {
                    write!(f, "{}\"{p}\"", if i == 0 { "" } else { ", " })?;
                }
                write!(
                    f,
                    ") or an object with any of the fields {}",
                    DEVICE_FIELDS.join(", ")
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DeviceSpec, E> {
                Ok(DeviceSpec::Profile(v.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<DeviceSpec, A::Error> {
                DeviceOverrides::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(DeviceSpec::Custom)
            }
        }
        d.deserialize_any(Spec)
    }
}

/// Fields of a device object.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceOverrides {
    /// Base profile (default `desktop`).
    pub profile: Option<String>,
    /// Override: async compute queue present.
    pub async_compute: Option<bool>,
    /// Override: lazily allocated memory present.
    pub lazily_allocated: Option<bool>,
    /// Override: max colour attachments.
    pub max_color_attachments: Option<u32>,
    /// Override: max input attachments.
    pub max_input_attachments: Option<u32>,
    /// Override: tile budget in bits per pixel (0 = none).
    pub tile_bits_per_pixel: Option<u32>,
    /// Override: placement alignment in bytes.
    pub placement_alignment: Option<u64>,
    /// Override: buffer/image granularity in bytes.
    pub buffer_image_granularity: Option<u64>,
    /// Override: supported depth/stencil resolve modes (a list of names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_resolve_modes: Option<ResolveModes>,
}

/// A resource entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceSpec {
    /// Unique name.
    pub name: String,
    /// `image` or `buffer`.
    pub kind: ResourceKindSpec,
    /// Image format name.
    pub format: Option<String>,
    /// Image width.
    pub width: Option<u32>,
    /// Image height.
    pub height: Option<u32>,
    /// MSAA samples.
    pub samples: Option<u32>,
    /// Mip levels.
    pub mips: Option<u32>,
    /// Array layers.
    pub layers: Option<u32>,
    /// A cube map (six square layers sampled through a cube view).
    #[serde(default, skip_serializing_if = "is_false")]
    pub cube: bool,
    /// Bytes (buffers: required; images: overrides the estimate).
    pub size: Option<u64>,
    /// Owned outside the graph.
    #[serde(default)]
    pub imported: bool,
    /// A result of the frame.
    #[serde(default)]
    pub output: bool,
    /// Imported: earlier content not needed.
    #[serde(default)]
    pub clear_on_first_use: bool,
    /// Imported: content not needed afterwards.
    #[serde(default)]
    pub discard_on_last_use: bool,
    /// Must stay in tile memory.
    #[serde(default)]
    pub memoryless: bool,
    /// Imported: the state it leaves the frame in (`keep`, `present`).
    #[serde(default, skip_serializing_if = "Exit::is_keep")]
    pub exit: Exit,
    /// Imported: a different object every frame (a swapchain image).
    #[serde(default, skip_serializing_if = "is_false")]
    pub per_frame: bool,
    /// Kept by the graph from one frame to the next: passes read the previous frame's
    /// content with `"previous": true` uses (a history resource, [`Origin::History`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub history: bool,
    /// Kept by the graph across frames and re-plans, written only while its content is
    /// stale (a persistent resource, [`Origin::Persistent`]).
    #[serde(default, skip_serializing_if = "is_false")]
    pub persistent: bool,
    /// With `persistent`: the content an earlier frame left is still valid, so the passes
    /// that only write it are skipped.
    #[serde(default, skip_serializing_if = "is_false")]
    pub valid: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `image` | `buffer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKindSpec {
    /// An image.
    Image,
    /// A buffer.
    Buffer,
}

/// A pass entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PassSpec {
    /// Unique name.
    pub name: String,
    /// Raster, compute or transfer.
    pub kind: PassKind,
    /// Requested queue.
    #[serde(default = "graphics")]
    pub queue: QueueKind,
    /// Never culled.
    #[serde(default)]
    pub side_effects: bool,
    /// Uses, at most one per resource.
    #[serde(default)]
    pub uses: Vec<UseSpec>,
}

fn graphics() -> QueueKind {
    QueueKind::Graphics
}

/// A use entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UseSpec {
    /// Resource name.
    pub resource: String,
    /// Access kind.
    pub access: Access,
    /// Clear at this use.
    #[serde(default)]
    pub clear: bool,
    /// For `resolve`: the multisampled source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// For a `resolve` into a depth/stencil image: how the samples combine (default
    /// `sample_zero`; a colour resolve always averages and takes none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ResolveMode>,
    /// With `clear`: the value cleared to (default colour 0, depth 1.0, stencil 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clear_value: Option<ClearValue>,
    /// Reads the previous frame's content of a history resource.
    #[serde(default, skip_serializing_if = "is_false")]
    pub previous: bool,
    /// Coverage by this depth/stencil image: a colour write writes only the pixels it
    /// covers, a read reads only those ([`Use::coverage`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<String>,
}

/// Text syntax of a frame file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// JSON.
    Json,
    /// TOML with the same structure.
    Toml,
}

impl Syntax {
    /// TOML for `.toml` files, JSON otherwise.
    pub fn of_path(path: &Path) -> Syntax {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("toml") => Syntax::Toml,
            _ => Syntax::Json,
        }
    }
}

/// The top level of a frame file as parsed: [`FrameFile`] with `resources` and `passes`
/// required (their absence is a [`FrameFileError::Shape`], not an empty frame).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameFileIn {
    #[serde(default)]
    name: String,
    #[serde(default)]
    device: Option<DeviceSpec>,
    resources: Option<Vec<ResourceSpec>>,
    passes: Option<Vec<PassSpec>>,
}

/// Reads a frame or plan file as text through `tessera-fsio`: a regular file only (a FIFO,
/// a device such as `/dev/zero` or a directory is refused before it is opened, so nothing
/// blocks or fills memory), at most [`MAX_FILE_BYTES`] (enforced while reading, so a file
/// that grows is caught too), UTF-8 (an error names the line and column of the first bad
/// byte), a leading byte-order mark dropped.
pub fn read_text(path: &Path) -> Result<String, FrameFileError> {
    let shown = path.display().to_string();
    let bytes = tessera_fsio::read_limited(path, MAX_FILE_BYTES, "frame and plan files")
        .map_err(|e| read_error(&shown, e))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_string()),
        Err(e) => {
            let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
            let (line, column) = line_column(valid, valid.len());
            Err(FrameFileError::Parse {
                path: shown,
                line,
                column,
                message: "invalid UTF-8 (frame and plan files are UTF-8 text)".to_string(),
            })
        }
    }
}

/// A read error as a [`FrameFileError::Io`] whose message says what is wrong after the path
/// (the fsio message starts with the path too; it is not repeated): "FILE: no such file".
fn read_error(shown: &str, e: tessera_fsio::ReadError) -> FrameFileError {
    use tessera_fsio::ReadError;
    let error = match e {
        ReadError::Io { error, .. } => error,
        ReadError::NotFound { .. } => {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")
        }
        ReadError::NotRegular { kind, .. } => std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a regular file ({kind}); frame and plan files are read from regular files only"),
        ),
        ReadError::TooLarge { .. } => std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than the {} MiB limit of frame and plan files",
                MAX_FILE_BYTES >> 20
            ),
        ),
        other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
    };
    FrameFileError::Io {
        path: shown.to_string(),
        error,
    }
}

/// Reads, parses and resolves a frame file.
pub fn load(path: &Path) -> Result<(Graph, Capabilities), FrameFileError> {
    let text = read_text(path)?;
    parse(&text, Syntax::of_path(path), &path.display().to_string())
}

/// Parses frame text; `origin` names it in messages.
pub fn parse(
    text: &str,
    syntax: Syntax,
    origin: &str,
) -> Result<(Graph, Capabilities), FrameFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let shape = |message: String| FrameFileError::Shape {
        path: origin.to_string(),
        message,
    };
    if text.trim().is_empty() {
        return Err(shape(format!("the file is empty: {FRAME_SHAPE}")));
    }
    if syntax == Syntax::Json {
        json_top_level_is_an_object(text, origin)?;
    }
    let file: FrameFileIn = match syntax {
        Syntax::Json => serde_json::from_str(text).map_err(|e| FrameFileError::Parse {
            path: origin.to_string(),
            line: e.line(),
            // serde_json counts an end of input at the start of a line as column 0.
            column: e.column().max(1),
            message: e
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
                .to_string(),
        })?,
        Syntax::Toml => toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| line_column(text, s.start))
                .unwrap_or((1, 1));
            FrameFileError::Parse {
                path: origin.to_string(),
                line,
                column,
                message: e.message().to_string(),
            }
        })?,
    };
    let missing: Vec<&str> = [
        ("`resources`", file.resources.is_none()),
        ("`passes`", file.passes.is_none()),
    ]
    .into_iter()
    .filter_map(|(name, missing)| missing.then_some(name))
    .collect();
    if !missing.is_empty() {
        return Err(shape(format!(
            "{} {} missing: {FRAME_SHAPE}; either may be an empty list",
            missing.join(" and "),
            if missing.len() == 1 { "is" } else { "are" }
        )));
    }
    let file = FrameFile {
        name: file.name,
        device: file.device,
        resources: file.resources.unwrap_or_default(),
        passes: file.passes.unwrap_or_default(),
    };
    let caps = file
        .device_capabilities()
        .map_err(|message| FrameFileError::Device {
            path: origin.to_string(),
            message,
        })?;
    let graph = file.to_graph().map_err(|error| FrameFileError::Graph {
        path: origin.to_string(),
        error,
    })?;
    Ok((graph, caps))
}

/// A JSON frame's first value is an object: serde would read an array as a struct's fields
/// in order (so `[]` would be an empty frame). Other syntax errors are left to the parser.
fn json_top_level_is_an_object(text: &str, origin: &str) -> Result<(), FrameFileError> {
    let Some((at, c)) = text.char_indices().find(|(_, c)| !c.is_whitespace()) else {
        return Ok(());
    };
    let found = match c {
        '[' => "an array",
        '"' => "a string",
        't' | 'f' => "a boolean",
        'n' => "null",
        '-' | '0'..='9' => "a number",
        _ => return Ok(()),
    };
    let (line, column) = line_column(text, at);
    Err(FrameFileError::Parse {
        path: origin.to_string(),
        line,
        column,
        message: format!("found {found} where the frame's object starts: {FRAME_SHAPE}"),
    })
}

impl FrameFile {
    /// The frame file that describes `graph` on `caps`, every device field spelled out (a
    /// device that is not a named profile, such as the executor's real device, is written
    /// as `desktop` with its fields; `memory_classes` are not part of the format). Loading it
    /// gives `graph` back.
    pub fn describe(graph: &Graph, caps: &Capabilities) -> FrameFile {
        // The declared form: the previous half of a double-buffered history resource is
        // its current half read with `previous` uses.
        let declared = |id: crate::graph::ResourceId| match graph.resource(id).origin {
            Origin::History(HistoryRole::Previous { current }) => current,
            _ => id,
        };
        let resources = graph
            .resources
            .iter()
            .filter(|r| !matches!(r.origin, Origin::History(HistoryRole::Previous { .. })))
            .map(|r| {
                let d = r.image_desc();
                ResourceSpec {
                    name: r.name.to_string(),
                    kind: if d.is_some() {
                        ResourceKindSpec::Image
                    } else {
                        ResourceKindSpec::Buffer
                    },
                    format: d.map(|d| d.format.name().to_string()),
                    width: d.map(|d| d.width),
                    height: d.map(|d| d.height),
                    samples: d.map(|d| d.samples),
                    mips: d.map(|d| d.mips),
                    layers: d.map(|d| d.layers),
                    cube: d.is_some_and(|d| d.cube),
                    size: match r.kind {
                        ResourceKind::Buffer { size } => Some(size),
                        ResourceKind::Image(_) => r.size,
                    },
                    imported: r.is_imported(),
                    output: r.output,
                    // (This frame's half of a double-buffered history resource clears on
                    // its first use as lowered, not as declared: a history resource takes
                    // neither flag.)
                    clear_on_first_use: !r.is_history() && r.clear_on_first_use(),
                    discard_on_last_use: !r.is_history() && r.discard_on_last_use(),
                    memoryless: r.declared_memoryless(),
                    exit: r.exit(),
                    per_frame: r.is_per_frame(),
                    history: r.is_history(),
                    persistent: r.is_kept_across_plans(),
                    valid: r.persistent_valid() == Some(true),
                }
            })
            .collect();
        let passes = graph
            .passes
            .iter()
            .map(|p| PassSpec {
                name: p.name.to_string(),
                kind: p.kind,
                queue: p.queue,
                side_effects: p.side_effects,
                uses: p
                    .uses
                    .iter()
                    .map(|u| UseSpec {
                        resource: graph.resource(declared(u.resource)).name.to_string(),
                        access: u.access,
                        clear: u.clear,
                        from: u.from.map(|f| graph.resource(f).name.to_string()),
                        mode: u.resolve_mode,
                        clear_value: u.clear_value,
                        previous: u.previous,
                        coverage: u.coverage.map(|d| graph.resource(d).name.to_string()),
                    })
                    .collect(),
            })
            .collect();
        // A device name (the executor's facts) is not a profile: its fields go over desktop's.
        let base = if Capabilities::profile(&caps.profile).is_some() {
            caps.profile.as_str()
        } else {
            "desktop"
        };
        let device = DeviceSpec::Custom(DeviceOverrides {
            profile: Some(base.to_string()),
            async_compute: Some(caps.async_compute),
            lazily_allocated: Some(caps.lazily_allocated),
            max_color_attachments: Some(caps.max_color_attachments),
            max_input_attachments: Some(caps.max_input_attachments),
            tile_bits_per_pixel: Some(caps.tile_bits_per_pixel),
            placement_alignment: Some(caps.placement_alignment),
            buffer_image_granularity: Some(caps.buffer_image_granularity),
            depth_resolve_modes: Some(caps.depth_resolve_modes),
        });
        FrameFile {
            name: graph.name.to_string(),
            device: Some(device),
            resources,
            passes,
        }
    }

    /// The device the file asks for (default `desktop`).
    pub fn device_capabilities(&self) -> Result<Capabilities, String> {
        let unknown = |p: &str| {
            format!(
                "unknown profile '{p}' (known: {})",
                Capabilities::PROFILES.join(", ")
            )
        };
        match &self.device {
            None => Ok(Capabilities::desktop()),
            Some(DeviceSpec::Profile(p)) => Capabilities::profile(p).ok_or_else(|| unknown(p)),
            Some(DeviceSpec::Custom(o)) => {
                let base = o.profile.as_deref().unwrap_or("desktop");
                let mut c = Capabilities::profile(base).ok_or_else(|| unknown(base))?;
                if let Some(v) = o.async_compute {
                    c.async_compute = v;
                }
                if let Some(v) = o.lazily_allocated {
                    c.lazily_allocated = v;
                }
                if let Some(v) = o.max_color_attachments {
                    c.max_color_attachments = v;
                }
                if let Some(v) = o.max_input_attachments {
                    c.max_input_attachments = v;
                }
                if let Some(v) = o.tile_bits_per_pixel {
                    c.tile_bits_per_pixel = v;
                }
                if let Some(v) = o.placement_alignment {
                    if !v.is_power_of_two() {
                        return Err(format!("placement_alignment {v} is not a power of two"));
                    }
                    c.placement_alignment = v;
                }
                if let Some(v) = o.buffer_image_granularity {
                    if !v.is_power_of_two() {
                        return Err(format!(
                            "buffer_image_granularity {v} is not a power of two"
                        ));
                    }
                    c.buffer_image_granularity = v;
                }
                if let Some(v) = o.depth_resolve_modes {
                    c.depth_resolve_modes = v;
                }
                Ok(c)
            }
        }
    }

    /// Resolves names into a [`Graph`].
    pub fn to_graph(&self) -> Result<Graph, CompileError> {
        let mut graph = Graph::new(self.name.clone());
        for spec in &self.resources {
            graph.add_resource(spec.to_resource()?);
        }
        let mut ids = HashMap::new();
        for (id, r) in graph.resource_ids().zip(&graph.resources) {
            if ids.insert(r.name, id).is_some() {
                return Err(CompileError::DuplicateResource {
                    resource: r.name.to_string(),
                });
            }
        }
        for spec in &self.passes {
            let mut uses = Vec::with_capacity(spec.uses.len());
            for u in &spec.uses {
                let lookup = |name: &str| {
                    ids.get(name)
                        .copied()
                        .ok_or_else(|| CompileError::UnknownResource {
                            pass: spec.name.clone(),
                            resource: name.to_string(),
                        })
                };
                let from = u.from.as_deref().map(lookup).transpose()?;
                let coverage = u.coverage.as_deref().map(lookup).transpose()?;
                uses.push(Use {
                    resource: lookup(&u.resource)?,
                    access: u.access,
                    clear: u.clear,
                    from,
                    resolve_mode: u.mode,
                    clear_value: u.clear_value,
                    previous: u.previous,
                    coverage,
                });
            }
            let queue = spec.queue;
            let mut b = graph
                .pass_builder(spec.name.clone(), spec.kind)
                .on_queue(queue);
            if spec.side_effects {
                b = b.side_effects();
            }
            let id = b.id();
            graph.passes[id.index()].uses = uses;
        }
        // Every graph a frame file makes has its history resources' buffering decided.
        crate::history::lower_in_place(&mut graph);
        Ok(graph)
    }
}

/// The name of the first flag of `flags` that is set.
fn first_set(flags: &[(bool, &'static str)]) -> Option<&'static str> {
    flags.iter().find_map(|&(set, flag)| set.then_some(flag))
}

impl ResourceSpec {
    fn to_resource(&self) -> Result<Resource, CompileError> {
        let invalid = |rule: String| CompileError::InvalidResource {
            resource: self.name.clone(),
            rule,
        };
        let image = self.kind == ResourceKindSpec::Image;
        let kind = match self.kind {
            ResourceKindSpec::Image => {
                let format_name = self
                    .format
                    .as_deref()
                    .ok_or_else(|| invalid("an image needs a 'format'".into()))?;
                let format = Format::from_name(format_name)
                    .ok_or_else(|| invalid(format!("unknown format '{format_name}'")))?;
                let width = self
                    .width
                    .ok_or_else(|| invalid("an image needs a 'width'".into()))?;
                let height = self
                    .height
                    .ok_or_else(|| invalid("an image needs a 'height'".into()))?;
                ResourceKind::Image(ImageDesc {
                    format,
                    width,
                    height,
                    samples: self.samples.unwrap_or(1),
                    mips: self.mips.unwrap_or(1),
                    layers: self.layers.unwrap_or(1),
                    cube: self.cube,
                })
            }
            ResourceKindSpec::Buffer => {
                if self.format.is_some()
                    || self.width.is_some()
                    || self.height.is_some()
                    || self.samples.is_some()
                    || self.mips.is_some()
                    || self.layers.is_some()
                    || self.cube
                {
                    return Err(invalid(
                        "a buffer has no format, width, height, samples, mips, layers or cube"
                            .into(),
                    ));
                }
                let size = self
                    .size
                    .ok_or_else(|| invalid("a buffer needs a 'size'".into()))?;
                ResourceKind::Buffer { size }
            }
        };
        Ok(Resource {
            name: self.name.clone().into(),
            kind,
            size: match self.kind {
                ResourceKindSpec::Image => self.size,
                ResourceKindSpec::Buffer => None,
            },
            origin: self.origin(image).map_err(invalid)?,
            output: self.output,
        })
    }

    /// The resource's [`Origin`] from the file's flags, or the rule a combination of them
    /// breaks (the flags that apply to imports only on a transient, `present` on anything
    /// but a per-frame image that keeps its content, `memoryless` on an import, an output or
    /// a buffer). The rules are checked in the order the validate phase checks the rules
    /// left to it, in the same words: a memoryless output or buffer and a presented buffer
    /// are rejected there too, for graphs built in code.
    fn origin(&self, image: bool) -> Result<Origin, String> {
        if self.valid && !self.persistent {
            return Err(
                "valid without persistent: only a persistent resource's content is declared still valid".into(),
            );
        }
        if self.persistent {
            let other = first_set(&[
                (self.history, "history"),
                (self.imported, "imported"),
                (self.per_frame, "per_frame"),
                (self.memoryless, "memoryless"),
                (self.output, "output"),
                (self.clear_on_first_use, "clear_on_first_use"),
                (self.discard_on_last_use, "discard_on_last_use"),
                (self.exit != Exit::Keep, "exit present"),
            ]);
            if let Some(flag) = other {
                return Err(format!(
                    "persistent and {flag}: a persistent resource is owned by the graph and keeps its content across frames until it is declared stale, so it takes none of the history, import, output or memoryless flags"
                ));
            }
            return Ok(Origin::Persistent { valid: self.valid });
        }
        if self.history {
            let other = first_set(&[
                (self.imported, "imported"),
                (self.per_frame, "per_frame"),
                (self.memoryless, "memoryless"),
                (self.clear_on_first_use, "clear_on_first_use"),
                (self.discard_on_last_use, "discard_on_last_use"),
                (self.exit != Exit::Keep, "exit present"),
            ]);
            if let Some(flag) = other {
                return Err(format!(
                    "history and {flag}: a history resource is owned by the graph and keeps its content from one frame to the next, so it takes none of the import or memoryless flags"
                ));
            }
            return Ok(Origin::HISTORY);
        }
        if self.memoryless && (self.imported || self.output) {
            return Err(memoryless_outside_frame(
                match (self.imported, self.output) {
                    (true, true) => "imported and output",
                    (true, false) => "imported",
                    _ => "output",
                },
            ));
        }
        if self.memoryless && !image {
            return Err(MEMORYLESS_BUFFER.into());
        }
        if !self.imported && (self.clear_on_first_use || self.discard_on_last_use) {
            let flag = if self.clear_on_first_use {
                "clear_on_first_use"
            } else {
                "discard_on_last_use"
            };
            return Err(format!(
                "{flag} on a transient resource (not imported): clear_on_first_use and discard_on_last_use apply to imported resources only"
            ));
        }
        if !self.imported && (self.exit != Exit::Keep || self.per_frame) {
            let flag = if self.per_frame {
                "per_frame"
            } else {
                "exit present"
            };
            return Err(format!(
                "{flag} on a transient resource (not imported): exit and per_frame apply to imported resources only"
            ));
        }
        let present = self.exit == Exit::Present;
        if present && !image {
            return Err(PRESENT_BUFFER.into());
        }
        if present && !self.per_frame {
            return Err(
                "exit present without per_frame: a presented image goes to the presentation engine and comes back through an acquire, so it is declared per_frame".into(),
            );
        }
        if present && self.discard_on_last_use {
            return Err(
                "exit present and discard_on_last_use: a presented image's content is needed after the frame".into(),
            );
        }
        Ok(match (self.imported, self.per_frame) {
            (false, _) => Origin::Transient {
                memoryless: self.memoryless,
            },
            (true, false) => Origin::Imported(Import {
                clear_on_first_use: self.clear_on_first_use,
                discard_on_last_use: self.discard_on_last_use,
            }),
            (true, true) => Origin::ImportedPerFrame(PerFrameImport {
                clear_on_first_use: self.clear_on_first_use,
                exit: if present {
                    PerFrameExit::Present
                } else if self.discard_on_last_use {
                    PerFrameExit::Discard
                } else {
                    PerFrameExit::Keep
                },
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_have_line_and_column() {
        let err = parse(
            "{\n  \"passes\": [\n    {\"name\": 3}\n  ]\n}",
            Syntax::Json,
            "f.json",
        )
        .unwrap_err();
        match err {
            FrameFileError::Parse { line, column, .. } => assert_eq!((line, column), (3, 14)),
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn toml_errors_have_line_and_column() {
        let text = "name = \"x\"\n[[passes]]\nname = \"p\"\nkind = \"rastr\"\n";
        let err = parse(text, Syntax::Toml, "f.toml").unwrap_err();
        match err {
            FrameFileError::Parse { line, .. } => assert_eq!(line, 4),
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn unknown_fields_and_resources_are_errors() {
        assert!(parse(
            r#"{"resources": [], "passes": [], "extra": 1}"#,
            Syntax::Json,
            "f"
        )
        .is_err());
        let e = parse(
            r#"{"resources": [], "passes": [{"name": "p", "kind": "compute", "uses": [{"resource": "nope", "access": "storage_write"}]}]}"#,
            Syntax::Json,
            "f",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("'p' uses unknown resource 'nope'"),
            "{e}"
        );
    }

    #[test]
    fn device_overrides_apply() {
        let (_, caps) = parse(
            r#"{"device": {"profile": "mali", "tile_bits_per_pixel": 128}, "resources": [], "passes": []}"#,
            Syntax::Json,
            "f",
        )
        .unwrap();
        assert!(caps.lazily_allocated);
        assert_eq!(caps.tile_bits_per_pixel, 128);
        let e = parse(
            r#"{"device": "voodoo", "resources": [], "passes": []}"#,
            Syntax::Json,
            "f",
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown profile 'voodoo'"), "{e}");
    }

    /// What the error of `text` says, as one line.
    fn error_of(text: &str, syntax: Syntax) -> String {
        parse(text, syntax, "f").unwrap_err().to_string()
    }

    #[test]
    fn a_bom_is_skipped() {
        let text = "\u{feff}{\"resources\": [], \"passes\": []}";
        assert!(parse(text, Syntax::Json, "f").is_ok());
        assert!(parse("\u{feff}resources = []\npasses = []\n", Syntax::Toml, "f").is_ok());
    }

    #[test]
    fn what_is_not_a_frame_says_what_a_frame_is() {
        for (text, syntax, needle) in [
            (
                "",
                Syntax::Json,
                "f: the file is empty: a frame is an object",
            ),
            (
                "  \n",
                Syntax::Toml,
                "f: the file is empty: a frame is an object",
            ),
            (
                "# only a comment\n",
                Syntax::Toml,
                "`resources` and `passes` are missing",
            ),
            (
                "[]",
                Syntax::Json,
                "f:1:1: found an array where the frame's object starts",
            ),
            ("\n  3", Syntax::Json, "f:2:3: found a number"),
            ("{}", Syntax::Json, "`resources` and `passes` are missing"),
            (r#"{"resources": []}"#, Syntax::Json, "`passes` is missing"),
        ] {
            let e = error_of(text, syntax);
            assert!(e.contains(needle), "{text:?}: {e}");
            assert!(e.contains("`resources` and `passes`"), "{text:?}: {e}");
        }
    }

    #[test]
    fn columns_are_one_based_at_the_end_of_input() {
        match parse("{\n", Syntax::Json, "f").unwrap_err() {
            FrameFileError::Parse { line, column, .. } => assert_eq!((line, column), (2, 1)),
            other => panic!("unexpected {other}"),
        }
        match parse("{\"resources\": [", Syntax::Json, "f").unwrap_err() {
            FrameFileError::Parse { line, column, .. } => {
                assert_eq!(line, 1);
                assert!(column >= 1);
            }
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn a_bad_device_names_the_field_the_value_and_the_forms() {
        let e = error_of(
            r#"{"device": 3, "resources": [], "passes": []}"#,
            Syntax::Json,
        );
        assert!(e.starts_with("f:1:"), "{e}");
        for needle in ["integer `3`", "`device`", "\"mali\"", "tile_bits_per_pixel"] {
            assert!(e.contains(needle), "{needle}: {e}");
        }
        let e = error_of("device = true\nresources = []\npasses = []\n", Syntax::Toml);
        assert!(
            e.contains("boolean `true`") && e.contains("`device`"),
            "{e}"
        );
        let e = error_of(
            r#"{"device": {"profile": "mali", "tiles": 1}, "resources": [], "passes": []}"#,
            Syntax::Json,
        );
        assert!(
            e.contains("unknown field `tiles`") && e.contains("tile_bits_per_pixel"),
            "{e}"
        );
    }

    #[test]
    fn reads_are_bounded_and_utf8_errors_have_a_position() {
        let e = read_text(Path::new("/dev/zero")).unwrap_err().to_string();
        assert_eq!(
            e,
            "/dev/zero: not a regular file (a character device); frame and plan files are read from regular files only"
        );
        let dir = std::env::temp_dir().join(format!("tessera-frame-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("latin1.json");
        std::fs::write(&bad, b"{\n  \"name\": \"caf\xe9\"}").unwrap();
        let e = read_text(&bad).unwrap_err().to_string();
        assert!(
            e.ends_with("latin1.json:2:15: invalid UTF-8 (frame and plan files are UTF-8 text)"),
            "{e}"
        );
        let bom = dir.join("bom.json");
        std::fs::write(&bom, b"\xEF\xBB\xBF{}").unwrap();
        assert_eq!(read_text(&bom).unwrap(), "{}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn fifos_directories_and_large_files_are_refused_with_a_clear_error() {
        let dir =
            std::env::temp_dir().join(format!("tessera-frame-file-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = read_text(&dir).unwrap_err().to_string();
        assert!(e.contains("not a regular file (a directory)"), "{e}");
        let fifo = dir.join("frame.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Opening a FIFO for reading would block forever: refused before opening.
            let e = read_text(&fifo).unwrap_err().to_string();
            assert!(
                e.ends_with("frame.json: not a regular file (a FIFO); frame and plan files are read from regular files only"),
                "{e}"
            );
            assert!(load(&fifo).is_err());
        }
        let big = dir.join("big.json");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = read_text(&big).unwrap_err().to_string();
        assert!(e.contains("larger than the 64 MiB limit"), "{e}");
        let e = read_text(&dir.join("missing.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.json: "), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Each combination of resource flags that has no [`Origin`] is an error of the loader,
    /// in the words (and the order of rules) the validate phase used when the flags were the
    /// graph's own; every legal combination becomes the origin it says.
    #[test]
    fn resource_flags_become_an_origin_or_the_rule_they_break() {
        let load = |kind: &str, flags: &str| {
            let shape = if kind == "image" {
                r#""kind": "image", "format": "R8G8B8A8_UNORM", "width": 8, "height": 8"#
            } else {
                r#""kind": "buffer", "size": 64"#
            };
            let text =
                format!(r#"{{"resources": [{{"name": "r", {shape}{flags}}}], "passes": []}}"#);
            let file: FrameFile = serde_json::from_str(&text).expect("a frame file");
            file.to_graph()
                .map(|g| g.resources[0].origin)
                .map_err(|e| e.to_string())
        };
        let outside =
            "an imported or output resource lives outside the frame and cannot be memoryless";
        let transient_use =
            "clear_on_first_use and discard_on_last_use apply to imported resources only";
        let transient_exit = "exit and per_frame apply to imported resources only";
        for (kind, flags, rule) in [
            ("image", r#", "memoryless": true, "imported": true"#, format!("declared memoryless and imported: {outside}")),
            ("image", r#", "memoryless": true, "imported": true, "output": true"#, format!("declared memoryless and imported and output: {outside}")),
            ("image", r#", "memoryless": true, "output": true, "per_frame": true"#, format!("declared memoryless and output: {outside}")),
            ("buffer", r#", "memoryless": true, "clear_on_first_use": true"#, "a buffer declared memoryless: only images (attachments) can be memoryless".into()),
            ("image", r#", "clear_on_first_use": true, "discard_on_last_use": true"#, format!("clear_on_first_use on a transient resource (not imported): {transient_use}")),
            ("image", r#", "discard_on_last_use": true, "per_frame": true"#, format!("discard_on_last_use on a transient resource (not imported): {transient_use}")),
            ("image", r#", "per_frame": true, "exit": "present""#, format!("per_frame on a transient resource (not imported): {transient_exit}")),
            ("image", r#", "exit": "present""#, format!("exit present on a transient resource (not imported): {transient_exit}")),
            ("buffer", r#", "imported": true, "exit": "present""#, "exit present on a buffer: only images are presented".into()),
            ("image", r#", "imported": true, "exit": "present", "discard_on_last_use": true"#, "exit present without per_frame: a presented image goes to the presentation engine and comes back through an acquire, so it is declared per_frame".into()),
            ("image", r#", "imported": true, "per_frame": true, "exit": "present", "discard_on_last_use": true"#, "exit present and discard_on_last_use: a presented image's content is needed after the frame".into()),
        ] {
            assert_eq!(load(kind, flags), Err(format!("resource 'r': {rule}")), "{kind}{flags}");
        }
        let per_frame = |clear_on_first_use, exit| {
            Ok(Origin::ImportedPerFrame(PerFrameImport {
                clear_on_first_use,
                exit,
            }))
        };
        for (kind, flags, origin) in [
            ("image", "", Ok(Origin::TRANSIENT)),
            ("image", r#", "memoryless": true"#, Ok(Origin::MEMORYLESS)),
            ("buffer", r#", "output": true"#, Ok(Origin::TRANSIENT)),
            ("buffer", r#", "imported": true"#, Ok(Origin::IMPORTED)),
            (
                "image",
                r#", "imported": true, "clear_on_first_use": true, "discard_on_last_use": true"#,
                Ok(Origin::Imported(Import {
                    clear_on_first_use: true,
                    discard_on_last_use: true,
                })),
            ),
            (
                "buffer",
                r#", "imported": true, "per_frame": true"#,
                Ok(Origin::PER_FRAME),
            ),
            (
                "image",
                r#", "imported": true, "per_frame": true, "discard_on_last_use": true"#,
                per_frame(false, PerFrameExit::Discard),
            ),
            (
                "image",
                r#", "imported": true, "per_frame": true, "exit": "present", "clear_on_first_use": true"#,
                per_frame(true, PerFrameExit::Present),
            ),
        ] {
            assert_eq!(load(kind, flags), origin, "{kind}{flags}");
        }
    }
}
