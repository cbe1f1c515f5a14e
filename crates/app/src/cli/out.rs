//! Output: standard output through a writer whose errors are returned, except a closed pipe,
//! which ends the output quietly ([`print`]) and leaves the exit status to the command's
//! verdict; files through [`tessera_fsio::Output`], checked before any work ([`output`]),
//! never over one of the command's own inputs ([`distinct`]) and written whole or not at all
//! ([`write`]).

use anyhow::Context as _;
use std::io::{self, Write};
use std::path::Path;
use tessera_fsio::Output;

/// The path that names standard output for outputs that allow it (`tessera graph --dot -`).
pub const STDOUT: &str = "-";

/// Runs `f` on buffered standard output and flushes it; an error is returned with the
/// context "writing to standard output". A closed pipe (`tessera check ... | head -1`) is
/// not an error: the reader has what it wanted, and the command goes on to its verdict, so
/// a failing check still exits 1.
pub fn print(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match f(&mut out).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
            // Whatever is still buffered cannot go anywhere: drop it without a second error.
            let _ = out.into_parts();
            Ok(())
        }
        result => result.context("writing to standard output"),
    }
}

/// Checks `path`, named by `option`, as an output before any work is done: a special file,
/// a link, a folder or a missing folder is refused now, not after minutes of rendering.
pub fn output(option: &str, path: &Path) -> anyhow::Result<Output> {
    // A file where the folder should be: "Not a directory" or "does not exist" would mislead.
    if let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty()) {
        if folder.exists() && !folder.is_dir() {
            anyhow::bail!(
                "{option} {}: {} is not a folder",
                path.display(),
                folder.display()
            );
        }
    }
    Ok(Output::new(option, path)?)
}

/// Refuses outputs that are one of the `inputs` (option, path) or each other, comparing
/// resolved paths.
pub fn distinct(outputs: &[&Output], inputs: &[(&str, &Path)]) -> anyhow::Result<()> {
    Ok(Output::check_distinct(outputs, inputs)?)
}

/// Writes `bytes` as the whole of `out` (through a temporary file renamed over it).
pub fn write(out: &Output, bytes: &[u8]) -> anyhow::Result<()> {
    Ok(out.write(bytes)?)
}
