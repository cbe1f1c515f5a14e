//! Output: standard output through a writer whose errors are returned (a closed pipe ends
//! the program quietly: [`is_broken_pipe`], used by `main`), and files written whole or not
//! at all ([`write_file`]), never over one of the command's own inputs ([`distinct_paths`]).

use anyhow::Context as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Runs `f` on buffered standard output and flushes it; an error (a closed pipe included)
/// is returned with the context "writing to standard output".
pub fn print(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    f(&mut out)
        .and_then(|()| out.flush())
        .context("writing to standard output")
}

/// True when `e` comes from writing to a closed pipe (`tessera plan ... | head -1`): the
/// reader has all it wanted, so the program ends quietly with success, as Unix tools do.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Writes `bytes` to `path` so that a failure never leaves a truncated file: into a new
/// file beside it, renamed over it once complete (a symbolic link is followed, so the file
/// it names is replaced). A path that exists and is not a regular file (`/dev/stdout`, a
/// FIFO) is written directly.
pub fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let shown = path.display();
    let target = match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return std::fs::write(path, bytes).with_context(|| format!("writing {shown}"));
        }
        Ok(_) => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        Err(_) => path.to_path_buf(),
    };
    let name = target
        .file_name()
        .with_context(|| format!("writing {shown}: not a file name"))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let temp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| -> io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        f.write_all(bytes)?;
        if let Ok(m) = std::fs::metadata(&target) {
            f.set_permissions(m.permissions())?;
        }
        drop(f);
        std::fs::rename(&temp, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.with_context(|| format!("writing {shown}"))
}

/// The file a path names, for comparing paths: canonical when it (or its directory) exists.
fn identity(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(dir), path.file_name()) {
        (Ok(d), Some(n)) => d.join(n),
        _ => path.to_path_buf(),
    }
}

/// Refuses outputs that would overwrite an input or each other: each entry is the option
/// that names the path (`FILE`, `--html`, ...) and the path.
pub fn distinct_paths(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> anyhow::Result<()> {
    let ids: Vec<PathBuf> = outputs.iter().map(|(_, p)| identity(p)).collect();
    for (i, (what, path)) in outputs.iter().enumerate() {
        if let Some((input, _)) = inputs.iter().find(|(_, p)| identity(p) == ids[i]) {
            anyhow::bail!(
                "{what} {} is the input {input}: refusing to overwrite it",
                path.display()
            );
        }
        if let Some(j) = ids[..i].iter().position(|id| *id == ids[i]) {
            anyhow::bail!(
                "{} and {what} both write {}: give each output its own path",
                outputs[j].0,
                path.display()
            );
        }
    }
    Ok(())
}
