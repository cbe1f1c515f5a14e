//! The platform's API as data: `crates/android/platform/api.tsv`, which
//! `scripts/android-api-table.py` derives from AOSP's `*.map.txt` symbol lists.

use anyhow::{bail, Context, Result};
use std::fmt;
use std::path::Path;

/// An Android ABI, as the symbol lists name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    Arm,
    Arm64,
    X86,
    X86_64,
    Riscv64,
}

impl Arch {
    pub const ALL: [Arch; 5] = [
        Arch::Arm,
        Arch::Arm64,
        Arch::X86,
        Arch::X86_64,
        Arch::Riscv64,
    ];

    /// The name the lists (and `--arch`) use.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Arm => "arm",
            Arch::Arm64 => "arm64",
            Arch::X86 => "x86",
            Arch::X86_64 => "x86_64",
            Arch::Riscv64 => "riscv64",
        }
    }

    pub fn from_name(name: &str) -> Result<Arch> {
        Arch::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .with_context(|| format!("unknown arch {name:?} (arm, arm64, x86, x86_64, riscv64)"))
    }

    /// The target triple clang takes (with the API level appended).
    pub fn triple(self) -> &'static str {
        match self {
            Arch::Arm => "armv7a-linux-androideabi",
            Arch::Arm64 => "aarch64-linux-android",
            Arch::X86 => "i686-linux-android",
            Arch::X86_64 => "x86_64-linux-android",
            Arch::Riscv64 => "riscv64-linux-android",
        }
    }

    /// The ELF `e_machine` of this arch's objects.
    pub fn e_machine(self) -> u16 {
        use object::elf;
        match self {
            Arch::Arm => elf::EM_ARM,
            Arch::Arm64 => elf::EM_AARCH64,
            Arch::X86 => elf::EM_386,
            Arch::X86_64 => elf::EM_X86_64,
            Arch::Riscv64 => elf::EM_RISCV,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A function or a data object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Function,
    Data,
}

/// One row: `symbol` of `library`, in version node `version`, from API `api` on `arches`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub library: String,
    pub version: String,
    pub symbol: String,
    pub kind: Kind,
    pub weak: bool,
    /// The first API level; `None`: never (`future`).
    pub api: Option<u32>,
    pub arches: Vec<Arch>,
    /// From this API level on the symbol carries its version node; below, unversioned.
    pub versioned: Option<u32>,
}

impl Row {
    /// Whether an app built for `arch` at `api` may use this row's symbol.
    pub fn available(&self, arch: Arch, api: u32) -> bool {
        self.arches.contains(&arch) && self.api.is_some_and(|a| a <= api)
    }

    /// Whether a stub for `api` gives the symbol its version node.
    pub fn versioned_at(&self, api: u32) -> bool {
        self.versioned.map_or(true, |v| v <= api)
    }
}

/// The whole table.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub rows: Vec<Row>,
}

const HEADER: &str = "library\tversion\tsymbol\tkind\tweak\tapi\tarches\tversioned";

impl Table {
    /// The committed table, `crates/android/platform/api.tsv`, from this crate's folder.
    pub fn default_path() -> &'static Path {
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../android/platform/api.tsv"
        ))
    }

    pub fn load(path: &Path) -> Result<Table> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the API table {}", path.display()))?;
        Table::parse(&text).with_context(|| format!("in {}", path.display()))
    }

    /// Reads the TSV: `#` comment lines, the column header, then rows.
    pub fn parse(text: &str) -> Result<Table> {
        let mut rows = Vec::new();
        let mut header = false;
        for (i, line) in text.lines().enumerate() {
            let lineno = i + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            if !header {
                if line != HEADER {
                    bail!("line {lineno}: expected the column header {HEADER:?}");
                }
                header = true;
                continue;
            }
            rows.push(parse_row(line).with_context(|| format!("line {lineno}: {line:?}"))?);
        }
        if !header {
            bail!("no column header {HEADER:?}");
        }
        Ok(Table { rows })
    }

    /// The libraries the table knows (`libc`, `libm`, ...), in first-appearance order.
    pub fn libraries(&self) -> Vec<&str> {
        let mut libs: Vec<&str> = Vec::new();
        for r in &self.rows {
            if !libs.contains(&r.library.as_str()) {
                libs.push(&r.library);
            }
        }
        libs
    }

    /// Every row naming `symbol` on `arch`, at any level.
    pub fn lookup<'a>(&'a self, symbol: &'a str, arch: Arch) -> impl Iterator<Item = &'a Row> {
        self.rows
            .iter()
            .filter(move |r| r.symbol == symbol && r.arches.contains(&arch))
    }
}

fn parse_row(line: &str) -> Result<Row> {
    let cells: Vec<&str> = line.split('\t').collect();
    let [library, version, symbol, kind, weak, api, arches, versioned] = cells[..] else {
        bail!("expected 8 tab-separated cells, found {}", cells.len());
    };
    let kind = match kind {
        "function" => Kind::Function,
        "data" => Kind::Data,
        _ => bail!("kind {kind:?} is neither function nor data"),
    };
    let weak = match weak {
        "yes" => true,
        "no" => false,
        _ => bail!("weak {weak:?} is neither yes nor no"),
    };
    let api = match api {
        "future" => None,
        n => Some(n.parse().with_context(|| format!("api {n:?}"))?),
    };
    let arches = if arches == "all" {
        Arch::ALL.to_vec()
    } else {
        arches
            .split(',')
            .map(Arch::from_name)
            .collect::<Result<_>>()?
    };
    let versioned = match versioned {
        "-" => None,
        n => Some(n.parse().with_context(|| format!("versioned {n:?}"))?),
    };
    if symbol.is_empty() || library.is_empty() || version.is_empty() {
        bail!("empty library, version or symbol");
    }
    Ok(Row {
        library: library.to_owned(),
        version: version.to_owned(),
        symbol: symbol.to_owned(),
        kind,
        weak,
        api,
        arches,
        versioned,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# comment\n\
library\tversion\tsymbol\tkind\tweak\tapi\tarches\tversioned\n\
libc\tLIBC\tmalloc\tfunction\tno\t0\tall\t-\n\
libc\tLIBC_Q\treallocarray\tfunction\tno\t29\tall\t-\n\
libc\tLIBC\t__atomic_inc\tfunction\tno\t0\tarm\t-\n\
libc\tLIBC\tenviron\tdata\tno\t0\tall\t-\n\
libdl\tLIBC_N\tandroid_get_application_target_sdk_version\tfunction\tno\t24\tall\t29\n\
libc\tLIBC_37\tsoon\tfunction\tyes\tfuture\tarm64,x86_64\t-\n";

    #[test]
    fn parses_rows_and_their_availability() {
        let t = Table::parse(SAMPLE).unwrap();
        assert_eq!(t.rows.len(), 6);
        assert_eq!(t.libraries(), ["libc", "libdl"]);
        let malloc = t.lookup("malloc", Arch::Arm64).next().unwrap();
        assert!(malloc.available(Arch::Arm64, 28));
        let ra = t.lookup("reallocarray", Arch::Arm64).next().unwrap();
        assert!(!ra.available(Arch::Arm64, 28));
        assert!(ra.available(Arch::Arm64, 29));
        assert_eq!(t.lookup("__atomic_inc", Arch::Arm64).count(), 0);
        assert_eq!(t.lookup("__atomic_inc", Arch::Arm).count(), 1);
        assert_eq!(
            t.lookup("environ", Arch::X86).next().unwrap().kind,
            Kind::Data
        );
        let sdk = t
            .lookup("android_get_application_target_sdk_version", Arch::Arm64)
            .next()
            .unwrap();
        assert!(!sdk.versioned_at(28) && sdk.versioned_at(29));
        let soon = t.lookup("soon", Arch::Arm64).next().unwrap();
        assert!(soon.weak && !soon.available(Arch::Arm64, 1000));
    }

    #[test]
    fn rejects_malformed_rows() {
        let head = "library\tversion\tsymbol\tkind\tweak\tapi\tarches\tversioned\n";
        for bad in [
            "libc\tLIBC\tmalloc\tfunction\tno\t0\tall\n",
            "libc\tLIBC\tmalloc\tfunc\tno\t0\tall\t-\n",
            "libc\tLIBC\tmalloc\tfunction\tmaybe\t0\tall\t-\n",
            "libc\tLIBC\tmalloc\tfunction\tno\tP\tall\t-\n",
            "libc\tLIBC\tmalloc\tfunction\tno\t0\tmips\t-\n",
        ] {
            assert!(Table::parse(&format!("{head}{bad}")).is_err(), "{bad:?}");
        }
        assert!(Table::parse("libc\tLIBC\tmalloc\tfunction\tno\t0\tall\t-\n").is_err());
    }

    /// The committed table: derived from the lists, with what the build relies on.
    #[test]
    fn committed_table_holds_the_platform_facts() {
        let t = Table::load(Table::default_path()).unwrap();
        assert_eq!(
            t.libraries(),
            ["libc", "libm", "libdl", "liblog", "libandroid"]
        );
        let at = |sym: &str| {
            t.lookup(sym, Arch::Arm64)
                .filter_map(|r| r.api)
                .min()
                .unwrap_or_else(|| panic!("{sym} not in the table"))
        };
        assert!(at("malloc") <= 21);
        assert_eq!(at("reallocarray"), 29);
        assert_eq!(at("copy_file_range"), 34);
        assert!(at("ANativeActivity_finish") <= 28);
        assert!(at("__android_log_write") <= 28);
        // Where the data came from: each list's mirror, path and commit in the header.
        let text = std::fs::read_to_string(Table::default_path()).unwrap();
        for lib in ["libc", "libm", "libdl", "liblog", "libandroid"] {
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("#   {lib}.map.txt: github.com/aosp-mirror/")))
                .unwrap_or_else(|| panic!("the header names no source for {lib}"));
            let commit = line.rsplit(" @ ").next().unwrap();
            assert!(
                commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{line}"
            );
        }
        // Platform-private blocks and apex/llndk symbols are not for apps.
        assert_eq!(
            t.lookup("android_get_LD_LIBRARY_PATH", Arch::Arm64).count(),
            0
        );
        assert_eq!(
            t.lookup("android_logger_list_alloc", Arch::Arm64).count(),
            0
        );
    }
}
