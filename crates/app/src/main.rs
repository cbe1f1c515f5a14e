//! `tessera`: the Tessera command-line tool and renderer.

#![forbid(unsafe_code)]

use tessera::cli;

/// mimalloc keeps freed pages for reuse: glibc's malloc may hand the ~1.5 MB a large graph
/// compile frees back to the kernel and fault it in again on the next compile, ~0.3 ms of
/// a 1,000-pass compile (docs/perf.md).
#[cfg(not(target_os = "android"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    match cli::run() {
        Ok(code) => code,
        Err(e) if e.downcast_ref::<cli::UsageError>().is_some() => {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            std::process::ExitCode::from(2)
        }
        Err(e) => {
            // Not eprintln!: it panics when standard error is closed too.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
