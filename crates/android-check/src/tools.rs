//! The Debian LLVM tools the stubs and tests run, with a clear message when one is missing.

use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::process::Command;

pub const CLANG: &str = "clang-14";
pub const LLD: &str = "ld.lld-14";

/// What to install for `tool`.
pub fn missing_message(tool: &str) -> String {
    format!(
        "{tool} not found: install Debian's clang-14 lld-14 (android_packages in scripts/deps.sh; \
         scripts/test.sh installs them)"
    )
}

/// Runs `tool` with `args`; an error with its stderr when it fails.
pub fn run<'a>(tool: &str, args: impl IntoIterator<Item = &'a OsStr>) -> Result<()> {
    let out = Command::new(tool).args(args).output();
    let out = match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(missing_message(tool)),
        r => r.with_context(|| format!("cannot run {tool}"))?,
    };
    if !out.status.success() {
        bail!(
            "{tool} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}
