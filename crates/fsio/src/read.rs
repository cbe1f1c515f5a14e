//! Bounded reads of regular files.

use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing is at the path.
    #[error("{}: no such file", path.display())]
    NotFound {
        /// The path as named.
        path: PathBuf,
    },
    /// The path names a directory, a FIFO, a device or a socket.
    #[error("{}: not a regular file ({kind}); only regular files are read", path.display())]
    NotRegular {
        /// The path as named.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// The file holds more than the limit (found while reading: a growing file counts).
    #[error("{}: larger than the {} limit of {what}", path.display(), human_bytes(*limit))]
    TooLarge {
        /// The path as named.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
        /// What kind of file this is ("configuration files").
        what: String,
    },
    /// Not valid UTF-8 (for [`read_limited_to_string`]).
    #[error("{}: not UTF-8 text (invalid byte at offset {offset})", path.display())]
    NotUtf8 {
        /// The path as named.
        path: PathBuf,
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// Any other error of the operating system.
    #[error("{}: {error}", path.display())]
    Io {
        /// The path as named.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

/// `bytes` in binary units for messages: `64 KiB`, `1.50 GiB`, `8 EiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut unit = 0;
    while unit + 1 < UNITS.len() && bytes >> (10 * (unit + 1)) != 0 {
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} bytes");
    }
    let value = bytes as f64 / (1u64 << (10 * unit)) as f64;
    if bytes % (1u64 << (10 * unit)) == 0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// Reads the regular file at `path`, at most `limit` bytes: a larger file, or one that grows
/// past the limit while it is read, is refused without reading more than `limit + 1` bytes.
/// `what` names the kind of file in the error ("configuration files"). Anything but a
/// regular file (after following symbolic links) is refused before it is opened, so a FIFO
/// or `/dev/zero` can neither block nor fill memory.
pub fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, ReadError> {
    let io = |error: std::io::Error| match error.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound {
            path: path.to_path_buf(),
        },
        _ => ReadError::Io {
            path: path.to_path_buf(),
            error,
        },
    };
    let not_regular = |meta: &std::fs::Metadata| ReadError::NotRegular {
        path: path.to_path_buf(),
        kind: kind_of(meta),
    };
    let too_large = || ReadError::TooLarge {
        path: path.to_path_buf(),
        limit,
        what: what.to_string(),
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let file = open_for_reading(path).map_err(io)?;
    // Checked again on the open file: the path may have been replaced since.
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_limited`] as UTF-8 text; a leading byte-order mark is dropped.
pub fn read_limited_to_string(path: &Path, limit: u64, what: &str) -> Result<String, ReadError> {
    let bytes = read_limited(path, limit, what)?;
    let start = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            text.drain(..start);
            Ok(text)
        }
        Err(e) => Err(ReadError::NotUtf8 {
            path: path.to_path_buf(),
            offset: e.utf8_error().valid_up_to(),
        }),
    }
}

/// Opens without blocking on a FIFO swapped in after the check (`O_NONBLOCK` on Unix; it
/// has no effect on regular files).
fn open_for_reading(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        const O_NONBLOCK: i32 = 0o4000;
        options.custom_flags(O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_file_within_its_limit_and_refuses_one_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, b"\xEF\xBB\xBFhello").unwrap();
        assert_eq!(read_limited_to_string(&path, 8, "tests").unwrap(), "hello");
        let e = read_limited(&path, 7, "test files").unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { limit: 7, .. }), "{e}");
        assert!(e.to_string().contains("limit of test files"), "{e}");
    }

    #[test]
    fn refuses_devices_directories_and_fifos_without_reading_them() {
        let e = read_limited(Path::new("/dev/zero"), 1 << 20, "tests").unwrap_err();
        assert!(
            matches!(
                e,
                ReadError::NotRegular {
                    kind: "a character device",
                    ..
                }
            ),
            "{e}"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = read_limited(dir.path(), 1 << 20, "tests").unwrap_err();
        assert!(
            matches!(
                e,
                ReadError::NotRegular {
                    kind: "a directory",
                    ..
                }
            ),
            "{e}"
        );
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Would block forever if it were opened for reading.
            let e = read_limited(&fifo, 1 << 20, "tests").unwrap_err();
            assert!(
                matches!(e, ReadError::NotRegular { kind: "a FIFO", .. }),
                "{e}"
            );
        }
    }

    #[test]
    fn a_missing_file_says_so_once() {
        let e = read_limited(Path::new("/no/such/file.toml"), 10, "tests").unwrap_err();
        assert!(matches!(e, ReadError::NotFound { .. }), "{e}");
        assert_eq!(e.to_string(), "/no/such/file.toml: no such file");
    }

    #[test]
    fn invalid_utf8_names_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, b"ab\xffc").unwrap();
        let e = read_limited_to_string(&path, 10, "tests").unwrap_err();
        assert!(matches!(e, ReadError::NotUtf8 { offset: 2, .. }), "{e}");
    }
}
