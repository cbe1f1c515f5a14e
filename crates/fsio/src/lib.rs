//! The one way Tessera touches files it is named: [`read_limited`] reads a regular file with
//! its size limit enforced while reading (never a FIFO, a device or `/dev/stdin`, which
//! could block or never end), and [`Output`] writes a result only as a regular file,
//! through a temporary file in the target's folder renamed over it, never over one of the
//! command's inputs or a special file.
#![forbid(unsafe_code)]

mod output;
mod read;
mod text;

pub use output::{Output, OutputError};
pub use read::{human_bytes, read_limited, read_limited_to_string, ReadError};
pub use text::line_column;
