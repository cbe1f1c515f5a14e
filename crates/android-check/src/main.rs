//! `tessera-android-check`: the stub libraries, the checks on the linked library and on
//! the APK (scripts/android-apk.sh runs it; docs/android.md).

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use tessera_android_check::{check, elf, stubs, table, zip};

#[derive(Parser, Debug)]
#[command(
    about = "Stub libraries from the platform's API table, and the checks on Tessera's Android library and APK"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Builds the stub libraries (libc.so, libm.so, ...) for an arch and API level.
    Stubs {
        #[arg(long, default_value = "arm64")]
        arch: String,
        #[arg(long, default_value_t = 28)]
        api: u32,
        /// The API table (default: crates/android/platform/api.tsv).
        #[arg(long)]
        table: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Checks a linked shared library: strong references at or below the API level,
    /// NEEDED, exports, SONAME, LOAD alignment. Exit status 1 on any violation.
    Elf {
        #[arg(long, default_value = "arm64")]
        arch: String,
        #[arg(long, default_value_t = 28)]
        api: u32,
        #[arg(long)]
        table: Option<PathBuf>,
        /// An expected export (repeat); default: android_main and ANativeActivity_onCreate.
        #[arg(long = "export")]
        exports: Vec<String>,
        #[arg(long, default_value = "libtessera_android.so")]
        soname: String,
        #[arg(long, default_value_t = 16384)]
        page_size: u64,
        library: PathBuf,
    },
    /// Checks that an archive (the APK) stores an entry uncompressed at an aligned offset.
    ZipEntry {
        #[arg(long, default_value_t = 16384)]
        align: u64,
        archive: PathBuf,
        entry: String,
    },
}

fn load_table(path: Option<PathBuf>) -> Result<table::Table> {
    table::Table::load(path.as_deref().unwrap_or(table::Table::default_path()))
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Stubs {
            arch,
            api,
            table,
            out,
        } => {
            let arch = table::Arch::from_name(&arch)?;
            let built = stubs::build_stubs(&load_table(table)?, arch, api, &out)?;
            for so in built {
                println!("{}", so.display());
            }
        }
        Command::Elf {
            arch,
            api,
            table,
            mut exports,
            soname,
            page_size,
            library,
        } => {
            if exports.is_empty() {
                exports = vec!["android_main".into(), "ANativeActivity_onCreate".into()];
            }
            let rules = check::Rules {
                arch: table::Arch::from_name(&arch)?,
                api,
                exports,
                soname: Some(soname),
                page_size,
            };
            let data = std::fs::read(&library)
                .with_context(|| format!("cannot read {}", library.display()))?;
            let facts = elf::read(&data).with_context(|| format!("in {}", library.display()))?;
            let report = check::check(&facts, &load_table(table)?, &rules);
            print!("{}", report.summary(&facts));
            if !report.passed() {
                bail!(
                    "{} breaks {} rule(s) (above)",
                    library.display(),
                    report.violations.len()
                );
            }
            println!("{}: all checks passed", library.display());
        }
        Command::ZipEntry {
            align,
            archive,
            entry,
        } => {
            let data = std::fs::read(&archive)
                .with_context(|| format!("cannot read {}", archive.display()))?;
            let e = zip::check_stored_aligned(&data, &entry, align)
                .with_context(|| format!("in {}", archive.display()))?;
            println!(
                "{}: {} stored at offset {:#x} ({} bytes), a multiple of {align:#x}",
                archive.display(),
                e.name,
                e.data_offset,
                e.size
            );
        }
    }
    Ok(())
}
