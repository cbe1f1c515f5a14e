//! Errors: every message names the pass and the resource, the values that break a rule, and
//! what the rule needs.

use crate::access::Access;
use crate::graph::PassKind;
use crate::resolve::{ResolveMode, ResolveModes};
use thiserror::Error;

/// A graph that cannot be compiled.
///
/// Every message is one line that says what the frame has (the names and the values that
/// break the rule) and then, after a colon, what the rule needs.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompileError {
    /// Two resources share a name.
    #[error("resource '{resource}' is declared twice: resource names must be unique")]
    DuplicateResource {
        /// The repeated name.
        resource: String,
    },
    /// Two passes share a name.
    #[error("pass '{pass}' is declared twice: pass names must be unique")]
    DuplicatePass {
        /// The repeated name.
        pass: String,
    },
    /// A resource description is unusable.
    #[error("resource '{resource}': {rule}")]
    InvalidResource {
        /// The resource.
        resource: String,
        /// What it has, then the broken rule.
        rule: String,
    },
    /// A pass description is unusable.
    #[error("pass '{pass}': {rule}")]
    InvalidPass {
        /// The pass.
        pass: String,
        /// What it has, then the broken rule.
        rule: String,
    },
    /// A use names a resource that does not exist.
    #[error("pass '{pass}' uses unknown resource '{resource}': no such resource is declared")]
    UnknownResource {
        /// The pass.
        pass: String,
        /// The unknown name (`#index` for an index past the graph's resources).
        resource: String,
    },
    /// A pass uses a resource twice.
    #[error("pass '{pass}' uses '{resource}' twice, as {first} and as {second}: a pass uses each resource at most once")]
    DuplicateUse {
        /// The pass.
        pass: String,
        /// The resource.
        resource: String,
        /// The access of the first use.
        first: &'static str,
        /// The access of the second use.
        second: &'static str,
    },
    /// An access that does not fit the pass or the resource.
    #[error("pass '{pass}' ({pass_kind}) uses '{resource}' ({shape}) as {access}: {rule}")]
    AccessMismatch {
        /// The pass.
        pass: Box<str>,
        /// Its kind.
        pass_kind: PassKind,
        /// The resource.
        resource: Box<str>,
        /// Its shape ([`shape`]).
        shape: Box<str>,
        /// The access kind.
        access: Access,
        /// What does not fit, then the broken rule.
        rule: Box<str>,
    },
    /// A resolve whose source and target do not fit each other.
    #[error("pass '{pass}' resolves '{source_name}' ({source_shape}) into '{target}' ({target_shape}): {rule}")]
    ResolveMismatch {
        /// The pass.
        pass: Box<str>,
        /// The multisampled source (`from`).
        source_name: Box<str>,
        /// Its shape ([`shape`]), and how the pass uses it when not as a colour attachment.
        source_shape: Box<str>,
        /// The resolve target.
        target: Box<str>,
        /// Its shape.
        target_shape: Box<str>,
        /// The broken rule.
        rule: ResolveRule,
    },
    /// A read of a transient resource that nothing wrote before.
    #[error("pass '{pass}' reads '{resource}' ({access}) but no earlier pass writes it and it is not imported{later}: a transient resource is written before it is read")]
    ReadBeforeWrite {
        /// The pass.
        pass: String,
        /// The resource.
        resource: String,
        /// The access kind.
        access: String,
        /// Empty, or where the first write is when a later pass makes it.
        later: Box<str>,
    },
    /// A resource declared memoryless cannot stay in tile memory.
    #[error("resource '{resource}' is declared memoryless but pass '{pass}' breaks it: {rule}")]
    MemorylessBroken {
        /// The resource.
        resource: String,
        /// The pass that breaks it.
        pass: String,
        /// What the pass does, then the rule.
        rule: String,
    },
    /// A transient resource, or all of them together, needs more memory than a plan can
    /// hold ([`MAX_TRANSIENT_BYTES`]).
    #[error("resource '{resource}' {detail}")]
    MemoryLimit {
        /// The resource (for the total: the one whose bytes take it over the limit).
        resource: String,
        /// The bytes that break the limit: the resource's size or footprint, or the total.
        bytes: u64,
        /// What needs the bytes, then the rule.
        detail: String,
    },
}

/// The rule a resolve breaks ([`CompileError::ResolveMismatch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ResolveRule {
    /// Source or target is not a declared resource.
    #[error("the resolve source and target are declared resources")]
    Undeclared,
    /// Source or target is a buffer.
    #[error("a resolve source and target are images")]
    NotImages,
    /// The target is multisampled or the source is not.
    #[error("a resolve goes from a multisampled image into a single-sampled one")]
    SampleCounts,
    /// Formats or extents differ.
    #[error("a resolve target needs the source's format and extent")]
    FormatAndExtent,
    /// The pass does not write the source as a colour attachment.
    #[error("the resolve source is a colour attachment written by the same pass")]
    SourceNotAttachment,
    /// A resolve into a depth/stencil image whose source is not the pass's depth/stencil
    /// attachment.
    #[error("the source of a depth/stencil resolve is the same pass's depth/stencil attachment (depth_write or depth_read)")]
    SourceNotDepthAttachment,
    /// A mode on a colour resolve.
    #[error("a colour resolve averages the samples and takes no mode ('{0}' given): only a depth/stencil resolve takes a mode")]
    ModeOnColour(ResolveMode),
    /// A depth/stencil resolve mode the device does not support.
    #[error("the device supports the depth/stencil resolve modes {supported}, not '{mode}'")]
    ModeUnsupported {
        /// The mode asked for (`sample_zero` when the use names none).
        mode: ResolveMode,
        /// The device's modes ([`crate::Capabilities::depth_resolve_modes`]).
        supported: ResolveModes,
    },
    /// A second depth/stencil resolve in one pass.
    #[error("a pass has one depth/stencil resolve")]
    SecondDepthResolve,
    /// A colour attachment resolved twice in one pass.
    #[error("a colour attachment has one resolve target in a pass")]
    SecondColourResolve,
}

/// Most bytes of memory a transient resource may occupy, and all the transient resources of
/// a frame together (each size rounded up to the placement alignment): 2^48 bytes (256 TiB),
/// far above any device's memory, and low enough that every sum, offset and end of a memory
/// plan fits in 64 bits with room to spare.
pub const MAX_TRANSIENT_BYTES: u64 = 1 << 48;

/// A resource's shape in messages: `R8G8B8A8_UNORM, 4 samples, 1920×1080` (mips and layers
/// when there are more than one), or `buffer, 64 bytes`.
pub fn shape(resource: &crate::graph::Resource) -> String {
    match &resource.kind {
        crate::graph::ResourceKind::Image(d) => {
            let plural =
                |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
            let mut s = format!(
                "{}, {}, {}×{}",
                d.format,
                plural(d.samples, "sample", "samples"),
                d.width,
                d.height
            );
            if d.mips != 1 {
                s.push_str(&format!(", {}", plural(d.mips, "mip", "mips")));
            }
            if d.cube {
                s.push_str(", cube");
            } else if d.layers != 1 {
                s.push_str(&format!(", {}", plural(d.layers, "layer", "layers")));
            }
            s
        }
        crate::graph::ResourceKind::Buffer { size } => format!("buffer, {size} bytes"),
    }
}

/// `bytes` in binary units for messages (one formatting for every crate).
pub use tessera_fsio::human_bytes;

/// Compile errors stay small enough to return by value, also inside a [`FrameFileError`]
/// (clippy's `result_large_err` threshold is 128 bytes): long variants hold `Box<str>`.
const _: () = assert!(std::mem::size_of::<CompileError>() <= 96);

/// A frame file that cannot be read or parsed.
///
/// Each message is complete on its own (file, then what is wrong): the wrapped errors are
/// part of the text, not a `source` chain, so `{:#}` printers do not repeat them.
#[derive(Debug, Error)]
pub enum FrameFileError {
    /// The file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Syntax or schema error at a position.
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The file parsed but describes an invalid frame.
    #[error("{path}: {error}")]
    Graph {
        /// The file.
        path: String,
        /// The rule broken.
        error: CompileError,
    },
    /// Unknown device profile or bad device override.
    #[error("{path}: device: {message}")]
    Device {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The text parsed but is not shaped like a frame (empty, not an object, no `passes`).
    #[error("{path}: {message}")]
    Shape {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}
