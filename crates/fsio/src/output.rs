//! Outputs written safely: only as regular files, never over an input, whole or not at all.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why an output cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path exists and is not a regular file (a device, FIFO, directory or symbolic link).
    #[error("{option} {}: exists and is {kind}; outputs are written only as regular files", path.display())]
    NotRegular {
        /// The option that names it (`--out`).
        option: String,
        /// The path as named.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// The path ends in a separator, so it names a folder, not a file.
    #[error("{option} {}: names a folder; give a file name", path.display())]
    Folder {
        /// The option that names it.
        option: String,
        /// The path as named.
        path: PathBuf,
    },
    /// The folder it would go into is missing or not a folder.
    #[error("{option} {}: the folder {} does not exist", path.display(), folder.display())]
    NoFolder {
        /// The option that names it.
        option: String,
        /// The path as named.
        path: PathBuf,
        /// The folder.
        folder: PathBuf,
    },
    /// The output is also one of the command's inputs.
    #[error("{option} {}: is the input {input}; refusing to overwrite it", path.display())]
    IsInput {
        /// The option that names the output.
        option: String,
        /// The path as named.
        path: PathBuf,
        /// The option (or argument) that names the input.
        input: String,
    },
    /// Two outputs name the same file.
    #[error("{first} and {second} both write {}; give each output its own path", path.display())]
    Same {
        /// The option of the first.
        first: String,
        /// The option of the second.
        second: String,
        /// The path.
        path: PathBuf,
    },
    /// The file system refused (permissions, a full disk...).
    #[error("{option} {}: {error}", path.display())]
    Io {
        /// The option that names it.
        option: String,
        /// The path as named.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

/// A file a command will write, checked before any work is done: if it exists it is a
/// regular file (not a symbolic link, device or FIFO), its folder exists and takes a new
/// file. [`Output::write`] writes a temporary file created exclusively in that folder and
/// renames it over the target, so a failure never leaves a truncated or half-written file
/// and the temporary file is removed.
#[derive(Clone, Debug)]
pub struct Output {
    option: String,
    path: PathBuf,
}

impl Output {
    /// Checks `path`, named by `option` (`--out`), as an output.
    pub fn new(option: &str, path: &Path) -> Result<Output, OutputError> {
        let out = Output {
            option: option.to_string(),
            path: path.to_path_buf(),
        };
        let text = path.as_os_str().to_string_lossy();
        if text.is_empty() || text.ends_with('/') || path.file_name().is_none() {
            return Err(OutputError::Folder {
                option: out.option,
                path: out.path,
            });
        }
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.file_type().is_file() => {
                return Err(OutputError::NotRegular {
                    option: out.option,
                    path: out.path,
                    kind: kind_of(&meta),
                })
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(out.io(error)),
        }
        let folder = out.folder();
        if !folder.is_dir() {
            return Err(OutputError::NoFolder {
                option: out.option,
                path: out.path,
                folder,
            });
        }
        // Writable now, not only after the work: a temporary file is made and removed.
        tempfile::Builder::new()
            .prefix(".tessera-")
            .tempfile_in(&folder)
            .map_err(|e| out.io(e))?;
        Ok(out)
    }

    /// The path as named.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Refuses outputs that are one of the `inputs` (option, path) or the same file as
    /// another output, comparing resolved paths.
    pub fn check_distinct(
        outputs: &[&Output],
        inputs: &[(&str, &Path)],
    ) -> Result<(), OutputError> {
        let ids: Vec<PathBuf> = outputs.iter().map(|o| identity(&o.path)).collect();
        for (i, out) in outputs.iter().enumerate() {
            if let Some((input, _)) = inputs.iter().find(|(_, p)| identity(p) == ids[i]) {
                return Err(OutputError::IsInput {
                    option: out.option.clone(),
                    path: out.path.clone(),
                    input: input.to_string(),
                });
            }
            if let Some(j) = ids[..i].iter().position(|id| *id == ids[i]) {
                return Err(OutputError::Same {
                    first: outputs[j].option.clone(),
                    second: out.option.clone(),
                    path: out.path.clone(),
                });
            }
        }
        Ok(())
    }

    /// Writes `bytes` as the whole file.
    pub fn write(&self, bytes: &[u8]) -> Result<(), OutputError> {
        self.write_with(|f| f.write_all(bytes))
    }

    /// Writes the file through `fill`, which gets the temporary file; only when it returns
    /// `Ok` is the file renamed over the target.
    pub fn write_with(
        &self,
        fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
    ) -> Result<(), OutputError> {
        // Checked again: the path may have become a link or a device since `new`.
        if let Ok(meta) = std::fs::symlink_metadata(&self.path) {
            if !meta.file_type().is_file() {
                return Err(OutputError::NotRegular {
                    option: self.option.clone(),
                    path: self.path.clone(),
                    kind: kind_of(&meta),
                });
            }
        }
        let mut temp = tempfile::Builder::new()
            .prefix(".tessera-")
            .suffix(".partial")
            .tempfile_in(self.folder())
            .map_err(|e| self.io(e))?;
        fill(temp.as_file_mut())
            .and_then(|()| temp.as_file_mut().flush())
            .map_err(|e| self.io(e))?;
        let permissions = match std::fs::metadata(&self.path) {
            Ok(m) => m.permissions(),
            Err(_) => default_permissions(),
        };
        temp.as_file()
            .set_permissions(permissions)
            .map_err(|e| self.io(e))?;
        // On failure the temporary file is dropped, which removes it.
        temp.persist(&self.path).map_err(|e| self.io(e.error))?;
        Ok(())
    }

    fn folder(&self) -> PathBuf {
        match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    fn io(&self, error: std::io::Error) -> OutputError {
        OutputError::Io {
            option: self.option.clone(),
            path: self.path.clone(),
            error,
        }
    }
}

#[cfg(unix)]
fn default_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::Permissions::from_mode(0o644)
}

#[cfg(not(unix))]
fn default_permissions() -> std::fs::Permissions {
    std::fs::metadata(".").map(|m| m.permissions()).unwrap()
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        return "a symbolic link";
    }
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// The file a path names, for comparing paths: canonical when it (or its folder) exists.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_a_new_file_and_replaces_an_old_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        let out = Output::new("--out", &path).unwrap();
        out.write(b"one").unwrap();
        out.write(b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, b"old").unwrap();
        let out = Output::new("--out", &path).unwrap();
        let e = out
            .write_with(|f| {
                f.write_all(b"half")?;
                Err(std::io::Error::other("encoder failed"))
            })
            .unwrap_err();
        assert!(e.to_string().contains("encoder failed"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn special_files_links_and_folders_are_refused() {
        let e = Output::new("--capture", Path::new("/dev/null")).unwrap_err();
        assert!(
            matches!(
                e,
                OutputError::NotRegular {
                    kind: "a device",
                    ..
                }
            ),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = Output::new("--out", dir.path()).unwrap_err();
        assert!(
            matches!(
                e,
                OutputError::NotRegular {
                    kind: "a folder",
                    ..
                }
            ),
            "{e}"
        );
        let e = Output::new("--out", &dir.path().join("d/")).unwrap_err();
        assert!(matches!(e, OutputError::Folder { .. }), "{e}");
        let e = Output::new("--out", &dir.path().join("missing/a.png")).unwrap_err();
        assert!(matches!(e, OutputError::NoFolder { .. }), "{e}");
        #[cfg(unix)]
        {
            let target = dir.path().join("target.txt");
            std::fs::write(&target, b"keep").unwrap();
            let link = dir.path().join("link.txt");
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let e = Output::new("--out", &link).unwrap_err();
            assert!(matches!(
                e,
                OutputError::NotRegular {
                    kind: "a symbolic link",
                    ..
                }
            ));
            assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        }
    }

    #[test]
    fn an_output_that_is_an_input_or_another_output_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let scene = dir.path().join("s.toml");
        std::fs::write(&scene, "x").unwrap();
        let same_by_another_name = dir.path().join(".").join("s.toml");
        let out = Output::new("--out", &same_by_another_name).unwrap();
        let e = Output::check_distinct(&[&out], &[("--scene", &scene)]).unwrap_err();
        assert!(matches!(e, OutputError::IsInput { .. }), "{e}");
        let a = Output::new("--json", &dir.path().join("r")).unwrap();
        let b = Output::new("--html", &dir.path().join("r")).unwrap();
        let e = Output::check_distinct(&[&a, &b], &[]).unwrap_err();
        assert!(matches!(e, OutputError::Same { .. }), "{e}");
        let c = Output::new("--html", &dir.path().join("r.html")).unwrap();
        Output::check_distinct(&[&a, &c], &[("--scene", &scene)]).unwrap();
    }
}
