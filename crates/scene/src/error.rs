//! The one error type of scene loading. Every variant carries the file so that a message read
//! on its own says where to look; glTF problems also name the object (`mesh 3 primitive 0`),
//! scene-file problems the key.

use std::path::PathBuf;

/// Why a scene did not load.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Nothing is at the path.
    #[error("{}: no such file", path.display())]
    NotFound {
        /// The path as named.
        path: PathBuf,
    },
    /// The path names a directory, a FIFO, a device or a socket: refused before it is
    /// opened, since reading it could block forever or never end.
    #[error("{}: not a regular file ({kind}); only regular files are read", path.display())]
    NotRegular {
        /// The path as named.
        path: PathBuf,
        /// What it is instead ("a FIFO").
        kind: &'static str,
    },
    /// A file a glTF model names resolves, through a symbolic link, outside the model's folder.
    #[error("{}: refused: resolves to a file outside the model's folder {}", path.display(), folder.display())]
    Outside {
        /// The path as named.
        path: PathBuf,
        /// The folder it must stay in.
        folder: PathBuf,
    },
    /// The extension is none the loader knows.
    #[error("{}: unknown scene format (expected .gltf, .glb or .toml)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The glTF parser rejected the file (syntax, schema, GLB container).
    #[error("{}: not a valid glTF file: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's explanation.
        message: String,
    },
    /// The file uses a feature the loader does not implement.
    #[error("{}: {object}: unsupported: {message}", path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// The glTF object (`mesh 0 primitive 1`, `file`).
        object: String,
        /// What is not supported.
        message: String,
    },
    /// A glTF object's content is wrong (out-of-range index, non-finite data, bad accessor,
    /// missing buffer, undecodable image, node cycle).
    #[error("{}: {object}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The glTF object (`mesh 3 primitive 0`, `accessor 2`, `image 1`, `node 4`).
        object: String,
        /// What is wrong.
        message: String,
    },
    /// A count exceeds the loader's caps ([`crate::MAX_VERTICES`] and friends).
    #[error("{}: {object}: too large: {message}", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What is too large.
        object: String,
        /// The count and the cap.
        message: String,
    },
    /// A scene file's key or value is wrong.
    #[error("{}: {key}: {message}", path.display())]
    SceneFile {
        /// The scene file.
        path: PathBuf,
        /// The key (`objects[3].material.roughness`), or `file` for syntax errors without one.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A model a scene file names did not load.
    #[error("{}: {key}: {source}", path.display())]
    Model {
        /// The scene file.
        path: PathBuf,
        /// The key that names the model (`objects[2].model`).
        key: String,
        /// Why the model did not load (names the model's file).
        source: Box<SceneError>,
    },
}
