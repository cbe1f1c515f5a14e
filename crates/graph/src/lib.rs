//! # tessera-graph
//!
//! Tessera's render graph compiler. A frame is declared as resources and passes that use
//! them ([`Graph`], built in code or loaded from a frame file by [`frame_file`]); [`compile`]
//! turns it into a [`Plan`]: execution order, culling, dependency levels, queues, render
//! passes, barriers, cross-queue syncs and memory placement. The plan is plain data and
//! serializes to the JSON documented in `docs/frame-format.md`. [`check`] replays any plan
//! against its graph and verifies every invariant independently of the compiler.
//!
//! No Vulkan here: device facts come in as [`Capabilities`], and the executor maps the
//! graph's stage/access/layout vocabulary ([`sync`]) to Vulkan.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod access;
pub mod caps;
pub mod check;
pub mod compile;
pub mod error;
pub mod format;
pub mod frame_file;
pub mod graph;
pub mod hash;
pub mod history;
pub mod name;
pub mod plan;
pub mod report;
pub mod resolve;
pub mod sync;

pub use access::Access;
pub use caps::{Capabilities, CompileOptions, MemoryClasses, MemoryKind};
pub use compile::{compile, Compiler};
pub use error::{CompileError, FrameFileError};
pub use format::Format;
pub use graph::{
    ClearValue, Exit, Graph, HistoryRole, ImageDesc, Import, Origin, PassId, PassKind,
    PerFrameExit, PerFrameImport, QueueKind, Resource, ResourceId, Use,
};
pub use name::Name;
pub use plan::Plan;
pub use resolve::{ResolveMode, ResolveModes};
