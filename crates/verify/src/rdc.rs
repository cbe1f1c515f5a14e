//! Turning an `.rdc` file into RenderDoc's structured XML with `renderdoccmd convert`.
//!
//! The conversion reads the capture's chunks without replaying them, so it needs no GPU
//! and works on any machine with RenderDoc installed. The XML goes to a temporary file
//! that is removed once read: the capture's folder is left as it was.

use crate::VerifyError;
use std::path::Path;
use std::process::Command;

/// The program that converts captures.
pub const RENDERDOCCMD: &str = "renderdoccmd";

/// The largest XML read from a conversion (a capture of a big frame is tens of MiB).
pub const MAX_XML_BYTES: u64 = 1 << 30;

/// Converts `rdc` to XML and returns the XML text.
pub fn convert(rdc: &Path) -> Result<String, VerifyError> {
    let meta = std::fs::metadata(rdc)
        .map_err(|e| VerifyError::Convert(format!("{}: {e}", rdc.display())))?;
    if !meta.is_file() {
        return Err(VerifyError::Convert(format!(
            "{}: not a file (a RenderDoc capture, .rdc, is expected)",
            rdc.display()
        )));
    }
    // A private folder made for this conversion (mode 0700, unguessable name): nothing
    // planted in the temporary folder can be written through, and the XML's name is fixed
    // and short, whatever the capture's name.
    let mut builder = tempfile::Builder::new();
    builder.prefix("tessera-verify-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o700));
    }
    let dir = builder.tempdir().map_err(|e| {
        VerifyError::Convert(format!(
            "making a temporary folder for {RENDERDOCCMD}'s XML in {}: {e}",
            std::env::temp_dir().display()
        ))
    })?;
    let xml = dir.path().join("capture.xml");
    let out = Command::new(RENDERDOCCMD)
        .arg("convert")
        .arg("-f")
        .arg(rdc)
        .arg("-o")
        .arg(&xml)
        .args(["-c", "xml"])
        .output()
        .map_err(|e| {
            VerifyError::Convert(format!(
                "{RENDERDOCCMD} is needed to read RenderDoc captures and could not be run ({e}): \
                 install RenderDoc (Debian: apt-get install renderdoccmd)"
            ))
        })?;
    let text = tessera_fsio::read_limited_to_string(&xml, MAX_XML_BYTES, "converted captures");
    // Removes the folder and the XML (also when this returns early, by drop).
    let _ = dir.close();
    if !out.status.success() {
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return Err(VerifyError::Convert(format!(
            "{}: {RENDERDOCCMD} convert failed (is it a RenderDoc capture?): {}",
            rdc.display(),
            said.trim()
        )));
    }
    text.map_err(|e| {
        VerifyError::Convert(format!(
            "{}: {RENDERDOCCMD} wrote no readable XML: {e}",
            rdc.display()
        ))
    })
}
