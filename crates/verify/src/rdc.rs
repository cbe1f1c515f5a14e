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
    let stem = rdc
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "capture".into());
    let xml =
        std::env::temp_dir().join(format!("tessera-verify-{}-{stem}.xml", std::process::id()));
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
    let text = std::fs::read_to_string(&xml);
    let _ = std::fs::remove_file(&xml);
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
