//! Errors: every message names the pass, the resource and the rule that was broken.

use thiserror::Error;

/// A graph that cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompileError {
    /// Two resources share a name.
    #[error("resource '{resource}' is declared twice (rule: resource names are unique)")]
    DuplicateResource {
        /// The repeated name.
        resource: String,
    },
    /// Two passes share a name.
    #[error("pass '{pass}' is declared twice (rule: pass names are unique)")]
    DuplicatePass {
        /// The repeated name.
        pass: String,
    },
    /// A resource description is unusable.
    #[error("resource '{resource}': {rule}")]
    InvalidResource {
        /// The resource.
        resource: String,
        /// The broken rule.
        rule: String,
    },
    /// A pass description is unusable.
    #[error("pass '{pass}': {rule}")]
    InvalidPass {
        /// The pass.
        pass: String,
        /// The broken rule.
        rule: String,
    },
    /// A use names a resource that does not exist.
    #[error("pass '{pass}' uses unknown resource '{resource}'")]
    UnknownResource {
        /// The pass.
        pass: String,
        /// The unknown name.
        resource: String,
    },
    /// A pass uses a resource twice.
    #[error("pass '{pass}' uses resource '{resource}' more than once (rule: at most one use per resource)")]
    DuplicateUse {
        /// The pass.
        pass: String,
        /// The resource.
        resource: String,
    },
    /// An access that does not fit the pass or the resource.
    #[error("pass '{pass}' uses '{resource}' as {access}: {rule}")]
    AccessMismatch {
        /// The pass.
        pass: String,
        /// The resource.
        resource: String,
        /// The access kind.
        access: String,
        /// The broken rule.
        rule: String,
    },
    /// A read of a transient resource that nothing wrote before.
    #[error("pass '{pass}' reads '{resource}' ({access}) but no earlier pass writes it and it is not imported")]
    ReadBeforeWrite {
        /// The pass.
        pass: String,
        /// The resource.
        resource: String,
        /// The access kind.
        access: String,
    },
    /// A resource declared memoryless cannot stay in tile memory.
    #[error("resource '{resource}' is declared memoryless but pass '{pass}' breaks it: {rule}")]
    MemorylessBroken {
        /// The resource.
        resource: String,
        /// The pass that breaks it.
        pass: String,
        /// Why.
        rule: String,
    },
}

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
