//! Where the loader's bytes come from. On Android the scene, its glTF models and their
//! buffers and textures live inside the APK and are readable only through the NDK's
//! `AAssetManager`, not `std::fs`; on the desktop they are plain files. [`Assets`] is the one
//! seam between the two: a single call that reads a whole file with a byte cap. Every file
//! this crate reads goes through it ([`crate::load_from`]); [`Files`] is the desktop store,
//! [`Memory`] a map for tests and embedding, and the Android store lives in the app.
//!
//! Relative references (a glTF buffer or image URI, a scene file's model) are joined to the
//! referring file's directory and passed through [`normalize`], so `../textures/x.png`
//! names the same asset on every store; `AAssetManager` in particular rejects `..`.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use tessera_fsio::ReadError;

/// Why a store could not hand over a file's bytes.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// Nothing exists at the path.
    #[error("no such file")]
    NotFound,
    /// The file holds more than the caller's limit.
    #[error("{len} bytes, the limit is {limit}")]
    TooLarge {
        /// The file's length in bytes.
        len: u64,
        /// The limit the caller passed.
        limit: u64,
    },
    /// The file exists but reading it failed.
    #[error(transparent)]
    Io(std::io::Error),
    /// The path names a directory, a FIFO, a device or a socket, which could block or never
    /// end; only regular files are read.
    #[error("not a regular file ({0}); only regular files are read")]
    NotRegular(&'static str),
    /// The path resolves (through a symbolic link) to a file outside the folder it must stay in.
    #[error("resolves to a file outside {}", .0.display())]
    Outside(PathBuf),
}

/// A read-only store of files addressed by path. Implementations must not read more than
/// `limit` bytes into memory: a file longer than that is [`AssetError::TooLarge`].
pub trait Assets: Send + Sync + std::fmt::Debug {
    /// The whole content of the file at `path`, or why not.
    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, AssetError>;

    /// [`Assets::read`] of `path`, which lies lexically inside `folder` (the caller checks
    /// that), refused with [`AssetError::Outside`] where the store can follow links out of
    /// it. A store without links (an APK, [`Memory`]) needs nothing more than `read`.
    fn read_inside(&self, folder: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, AssetError> {
        let _ = folder;
        self.read(path, limit)
    }
}

/// Resolves `.` and `name/..` lexically (no file-system access): `a/./b/../c` → `a/c`.
///
/// A `..` that would climb above the start of a relative path is kept (`../a/../b` →
/// `../b`): on the desktop it legitimately leaves the working directory, and a store with a
/// root (the APK's assets, [`Memory`]) then simply finds nothing there, an error naming the
/// path, rather than silently reading a different file as clamping would. Above the root of
/// an absolute path `..` is dropped (`/../a` → `/a`), as the OS does. A path that resolves
/// to nothing (`a/..`) becomes the empty path.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// The desktop store: regular files read through [`tessera_fsio::read_limited`] (a FIFO or
/// device is refused before it is opened; the limit holds while reading), at paths as given
/// (relative to the working directory, or absolute), or below a root with [`Files::under`].
#[derive(Clone, Debug, Default)]
pub struct Files {
    root: Option<PathBuf>,
}

impl Files {
    /// Files at paths as given.
    pub fn new() -> Self {
        Files { root: None }
    }

    /// Files below `root`: a relative path is joined to it (an absolute one is used as is,
    /// like [`Path::join`]; this is a convenience, not a sandbox).
    pub fn under(root: impl Into<PathBuf>) -> Self {
        Files {
            root: Some(root.into()),
        }
    }
}

impl Files {
    fn full(&self, path: &Path) -> PathBuf {
        match &self.root {
            Some(r) => r.join(path),
            None => path.to_path_buf(),
        }
    }
}

/// [`tessera_fsio`]'s refusal as the store's.
fn asset_error(e: ReadError) -> AssetError {
    match e {
        ReadError::NotFound { .. } => AssetError::NotFound,
        ReadError::NotRegular { kind, .. } => AssetError::NotRegular(kind),
        ReadError::TooLarge { path, limit, .. } => AssetError::TooLarge {
            // Only for the message: the file was not read past the limit.
            len: std::fs::metadata(&path).map_or(limit.saturating_add(1), |m| m.len()),
            limit,
        },
        ReadError::NotUtf8 { path, .. } => AssetError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: not UTF-8", path.display()),
        )),
        ReadError::Io { error, .. } => AssetError::Io(error),
    }
}

impl Assets for Files {
    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, AssetError> {
        tessera_fsio::read_limited(&self.full(path), limit, "scene inputs").map_err(asset_error)
    }

    /// Both paths are canonicalised (every symbolic link resolved) and the file must stay
    /// inside the folder; the resolved file is what is read.
    fn read_inside(&self, folder: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, AssetError> {
        let io = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::NotFound => AssetError::NotFound,
            _ => AssetError::Io(e),
        };
        let folder = self.full(folder);
        let real_folder = std::fs::canonicalize(if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &folder
        })
        .map_err(io)?;
        let real = std::fs::canonicalize(self.full(path)).map_err(io)?;
        if !real.starts_with(&real_folder) {
            return Err(AssetError::Outside(folder));
        }
        tessera_fsio::read_limited(&real, limit, "scene inputs").map_err(asset_error)
    }
}

/// An in-memory store: normalised path → bytes. Lookups normalise too, so `a/./b.bin` and
/// `a/c/../b.bin` find what was inserted as `a/b.bin`.
#[derive(Clone, Default)]
pub struct Memory {
    files: BTreeMap<PathBuf, Vec<u8>>,
}

impl Memory {
    /// An empty store.
    pub fn new() -> Self {
        Memory::default()
    }

    /// Adds (or replaces) the file at `path`.
    pub fn insert(&mut self, path: impl AsRef<Path>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(normalize(path.as_ref()), bytes.into());
    }

    /// [`Memory::insert`], by value, for building a store in one expression.
    pub fn with(mut self, path: impl AsRef<Path>, bytes: impl Into<Vec<u8>>) -> Self {
        self.insert(path, bytes);
        self
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Paths and sizes: the bytes themselves would drown the output.
        f.debug_map()
            .entries(self.files.iter().map(|(p, b)| (p, b.len())))
            .finish()
    }
}

impl Assets for Memory {
    fn read(&self, path: &Path, limit: u64) -> Result<Vec<u8>, AssetError> {
        let bytes = self
            .files
            .get(&normalize(path))
            .ok_or(AssetError::NotFound)?;
        let len = bytes.len() as u64;
        if len > limit {
            return Err(AssetError::TooLarge { len, limit });
        }
        Ok(bytes.clone())
    }
}

/// Reads `path` from `assets`, at most `limit` bytes, as a [`crate::SceneError`] naming the
/// path once.
pub(crate) fn read(
    assets: &dyn Assets,
    path: &Path,
    limit: u64,
) -> Result<Vec<u8>, crate::SceneError> {
    assets.read(path, limit).map_err(|e| scene_error(path, e))
}

/// [`read`] of a file that must stay inside `folder` ([`Assets::read_inside`]).
pub(crate) fn read_inside(
    assets: &dyn Assets,
    folder: &Path,
    path: &Path,
    limit: u64,
) -> Result<Vec<u8>, crate::SceneError> {
    assets
        .read_inside(folder, path, limit)
        .map_err(|e| scene_error(path, e))
}

fn scene_error(path: &Path, e: AssetError) -> crate::SceneError {
    use crate::SceneError;
    let path = path.to_path_buf();
    match e {
        AssetError::NotFound => SceneError::NotFound { path },
        AssetError::TooLarge { len, limit } => SceneError::TooLarge {
            path,
            object: "file".into(),
            message: format!("{len} bytes, the limit is {limit}"),
        },
        AssetError::NotRegular(kind) => SceneError::NotRegular { path, kind },
        AssetError::Outside(folder) => SceneError::Outside { path, folder },
        AssetError::Io(source) => SceneError::Io { path, source },
    }
}

/// `rel` resolved against the directory of the file `from`, normalised.
pub(crate) fn beside(from: &Path, rel: impl AsRef<Path>) -> PathBuf {
    normalize(&from.parent().unwrap_or(Path::new("")).join(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(p: &str) -> PathBuf {
        normalize(Path::new(p))
    }

    #[test]
    fn normalize_resolves_dots() {
        assert_eq!(n("a/./b/../c"), Path::new("a/c"));
        assert_eq!(n("./a/b/"), Path::new("a/b"));
        assert_eq!(
            n("models/x/../../textures/t.png"),
            Path::new("textures/t.png")
        );
        assert_eq!(n("a/.."), Path::new(""));
        assert_eq!(n(""), Path::new(""));
    }

    #[test]
    fn normalize_keeps_dotdot_above_a_relative_start() {
        assert_eq!(n("../a"), Path::new("../a"));
        assert_eq!(n("a/../../b"), Path::new("../b"));
        assert_eq!(n("../../a/./b/.."), Path::new("../../a"));
    }

    #[test]
    fn normalize_drops_dotdot_above_an_absolute_root() {
        assert_eq!(n("/../a"), Path::new("/a"));
        assert_eq!(n("/x/../../a/b"), Path::new("/a/b"));
    }

    #[test]
    fn memory_normalises_and_caps() {
        let m = Memory::new().with("a/./b.bin", vec![1, 2, 3]);
        assert_eq!(m.read(Path::new("a/c/../b.bin"), 3).unwrap(), [1, 2, 3]);
        assert!(matches!(
            m.read(Path::new("a/b.bin"), 2),
            Err(AssetError::TooLarge { len: 3, limit: 2 })
        ));
        assert!(matches!(
            m.read(Path::new("b.bin"), 10),
            Err(AssetError::NotFound)
        ));
        assert!(matches!(
            m.read(Path::new("../a/b.bin"), 10),
            Err(AssetError::NotFound)
        ));
    }

    #[test]
    fn files_distinguish_missing_and_caps() {
        let dir = std::env::temp_dir().join(format!("tessera-assets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("f.bin"), [7u8; 10]).unwrap();
        let files = Files::under(&dir);
        assert_eq!(files.read(Path::new("f.bin"), 10).unwrap(), [7u8; 10]);
        assert!(matches!(
            files.read(Path::new("f.bin"), 9),
            Err(AssetError::TooLarge { len: 10, limit: 9 })
        ));
        assert!(matches!(
            files.read(Path::new("missing.bin"), 10),
            Err(AssetError::NotFound)
        ));
        assert_eq!(Files::new().read(&dir.join("f.bin"), 10).unwrap().len(), 10);
    }
}
