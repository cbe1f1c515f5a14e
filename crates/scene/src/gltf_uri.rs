//! Which bytes a glTF buffer or image URI names, and whether they may be read at all.
//!
//! A model is a folder of files, so its URIs may name only a `data:` URI or a relative path
//! that stays inside the model's folder (percent-encoded, as the glTF spec allows). Anything
//! else — `..` leaving the folder, an absolute path, `file://` or any other scheme — is
//! refused before it is resolved: a model could otherwise read any file of the machine and,
//! through a crafted accessor, reflect its bytes into an error message. Symbolic links out of
//! the folder are refused where the file is read ([`crate::assets::Assets::read_inside`]).

use std::path::{Component, Path, PathBuf};

/// What a URI names.
#[derive(Debug, PartialEq)]
pub(crate) enum Source {
    /// The decoded bytes of a `data:` URI.
    Data(Vec<u8>),
    /// A file inside `folder` (already normalised, lexically inside it).
    File {
        /// The model's folder.
        folder: PathBuf,
        /// The file.
        path: PathBuf,
    },
}

/// Resolves `uri` of the model file `model`; the error says why it is refused.
pub(crate) fn resolve(model: &Path, uri: &str) -> Result<Source, String> {
    if uri.is_empty() {
        return Err("the URI is empty".into());
    }
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((_, b64)) = rest.split_once(";base64,") else {
            return Err("data URI is not base64".into());
        };
        return base64_decode(b64)
            .map(Source::Data)
            .ok_or_else(|| "data URI has invalid base64".into());
    }
    if let Some(scheme) = scheme(uri) {
        return Err(format!(
            "URI '{uri}' has the scheme '{scheme}:'; only data URIs and relative paths \
             inside the model's folder are read"
        ));
    }
    let rel =
        percent_decode(uri).ok_or_else(|| format!("URI '{uri}' has invalid percent-encoding"))?;
    let rel = Path::new(&rel);
    if rel.has_root() || rel.is_absolute() {
        return Err(format!(
            "URI '{uri}' is an absolute path; only relative paths inside the model's folder are read"
        ));
    }
    let rel = crate::assets::normalize(rel);
    match rel.components().next() {
        None => Err(format!("URI '{uri}' names the model's folder, not a file")),
        Some(Component::Normal(_)) => {
            let folder = model.parent().unwrap_or(Path::new("")).to_path_buf();
            Ok(Source::File {
                path: crate::assets::normalize(&folder.join(&rel)),
                folder,
            })
        }
        Some(_) => Err(format!(
            "URI '{uri}' leaves the model's folder; only files inside it are read"
        )),
    }
}

/// The scheme of an absolute URI (`http` of `http://x`, `file` of `file:///x`): letters,
/// digits, `+`, `-` and `.` before the first `:`, starting with a letter. A drive letter
/// (`C:/x`) reads as a scheme too, which refuses it as well.
fn scheme(uri: &str) -> Option<&str> {
    let (head, _) = uri.split_once(':')?;
    let mut chars = head.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(head)
}

/// Standard base64 (with or without padding); `None` on a character outside the alphabet.
pub(crate) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Decodes `%XX` escapes of a relative URI; `None` when malformed, not UTF-8 or holding NUL.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return None;
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(uri: &str) -> Result<PathBuf, String> {
        match resolve(Path::new("models/m.gltf"), uri)? {
            Source::File { folder, path } => {
                assert_eq!(folder, Path::new("models"));
                Ok(path)
            }
            Source::Data(_) => panic!("{uri} is not a data URI"),
        }
    }

    #[test]
    fn base64_round_trip() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64_decode("AAECAw==").unwrap(), [0, 1, 2, 3]);
        assert!(base64_decode("a*b").is_none());
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b.bin").unwrap(), "a b.bin");
        assert!(percent_decode("a%2").is_none());
        assert!(percent_decode("a%ff").is_none());
        assert!(percent_decode("a%00b").is_none());
    }

    #[test]
    fn relative_paths_inside_the_folder_resolve() {
        assert_eq!(file("a.bin").unwrap(), Path::new("models/a.bin"));
        assert_eq!(
            file("sub/../a%20b.bin").unwrap(),
            Path::new("models/a b.bin")
        );
        assert_eq!(file("./tex/t.png").unwrap(), Path::new("models/tex/t.png"));
        assert_eq!(
            resolve(
                Path::new("m.gltf"),
                "data:application/octet-stream;base64,AAE="
            )
            .unwrap(),
            Source::Data(vec![0, 1])
        );
    }

    #[test]
    fn everything_leaving_the_folder_is_refused() {
        for (uri, why) in [
            ("", "empty"),
            ("../x.bin", "leaves the model's folder"),
            ("a/../../x.bin", "leaves the model's folder"),
            ("%2e%2e/x.bin", "leaves the model's folder"),
            ("/etc/passwd", "absolute path"),
            ("%2Fetc%2Fpasswd", "absolute path"),
            ("//host/x.bin", "absolute path"),
            ("file:///etc/passwd", "scheme 'file:'"),
            ("file:x.bin", "scheme 'file:'"),
            ("http://example.com/x.bin", "scheme 'http:'"),
            ("C:/x.bin", "scheme 'C:'"),
            (".", "names the model's folder"),
            ("a%zz", "invalid percent-encoding"),
        ] {
            let e = file(uri).unwrap_err();
            assert!(e.contains(why), "{uri:?}: {e}");
        }
    }
}
