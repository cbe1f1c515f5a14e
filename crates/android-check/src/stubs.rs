//! Stub libraries: one dummy definition per symbol an app may use at the chosen API level on
//! the chosen arch, and a version script giving each its version node, so that a link with
//! `--no-undefined` fails on any symbol the platform does not offer at that level, and the
//! references it makes carry the version nodes the device's libraries define.

use crate::table::{Arch, Kind, Table};
use crate::tools;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The assembly and the version script of one library's stub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StubSource {
    pub library: String,
    pub assembly: String,
    pub version_script: String,
    /// How many symbols the stub defines.
    pub symbols: usize,
}

/// The stub of `library` for `arch` at `api`.
pub fn stub_source(table: &Table, library: &str, arch: Arch, api: u32) -> StubSource {
    let mut assembly = format!(
        "// Stub {library}.so for {arch} at API {api}, generated from api.tsv: links only.\n"
    );
    // Version nodes in first-appearance order, each with its symbols.
    let mut nodes: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for row in &table.rows {
        if row.library != library || !row.available(arch, api) {
            continue;
        }
        if !seen.insert(row.symbol.as_str()) {
            continue;
        }
        let bind = if row.weak { ".weak" } else { ".globl" };
        let sym = &row.symbol;
        match row.kind {
            Kind::Function => {
                let _ = writeln!(
                    assembly,
                    ".text\n{bind} {sym}\n.type {sym}, %function\n{sym}:\n.zero 4\n.size {sym}, 4"
                );
            }
            Kind::Data => {
                let _ = writeln!(
                    assembly,
                    ".data\n.balign 8\n{bind} {sym}\n.type {sym}, %object\n{sym}:\n.zero 8\n.size {sym}, 8"
                );
            }
        }
        if row.versioned_at(api) {
            match nodes.iter_mut().find(|(n, _)| *n == row.version) {
                Some((_, syms)) => syms.push(sym.clone()),
                None => nodes.push((row.version.clone(), vec![sym.clone()])),
            }
        }
    }
    let mut version_script = String::new();
    for (node, syms) in &nodes {
        let _ = writeln!(version_script, "{node} {{\n  global:");
        for s in syms {
            let _ = writeln!(version_script, "    {s};");
        }
        let _ = writeln!(version_script, "}};");
    }
    StubSource {
        library: library.to_owned(),
        assembly,
        version_script,
        symbols: seen.len(),
    }
}

/// Builds every library's stub into `out` (`libc.so`, `libm.so`, ...): assembled with
/// clang-14, linked with ld.lld-14. Returns the paths.
pub fn build_stubs(table: &Table, arch: Arch, api: u32, out: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let work = out.join("stub-src");
    std::fs::create_dir_all(&work)?;
    let mut built = Vec::new();
    for library in table.libraries() {
        let src = stub_source(table, library, arch, api);
        let asm = work.join(format!("{library}.S"));
        let map = work.join(format!("{library}.map"));
        let obj = work.join(format!("{library}.o"));
        std::fs::write(&asm, &src.assembly)?;
        std::fs::write(&map, &src.version_script)?;
        tools::run(
            tools::CLANG,
            [
                format!("--target={}{api}", arch.triple()).as_ref(),
                "-c".as_ref(),
                asm.as_os_str(),
                "-o".as_ref(),
                obj.as_os_str(),
            ],
        )?;
        let so = out.join(format!("{library}.so"));
        tools::run(
            tools::LLD,
            [
                "-shared".as_ref(),
                "--soname".as_ref(),
                format!("{library}.so").as_ref(),
                "--version-script".as_ref(),
                map.as_os_str(),
                obj.as_os_str(),
                "-o".as_ref(),
                so.as_os_str(),
            ],
        )?;
        built.push(so);
    }
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table::parse(
            "library\tversion\tsymbol\tkind\tweak\tapi\tarches\tversioned\n\
libc\tLIBC\tmalloc\tfunction\tno\t0\tall\t-\n\
libc\tLIBC\tenviron\tdata\tno\t0\tall\t-\n\
libc\tLIBC_P\tsyncfs\tfunction\tno\t28\tall\t-\n\
libc\tLIBC_Q\treallocarray\tfunction\tno\t29\tall\t-\n\
libc\tLIBC\t__atomic_inc\tfunction\tno\t0\tarm\t-\n\
libc\tLIBC_N\tlate\tfunction\tyes\t24\tall\t29\n\
libm\tLIBC\tsin\tfunction\tno\t0\tall\t-\n",
        )
        .unwrap()
    }

    #[test]
    fn stub_defines_what_the_level_and_arch_offer() {
        let s = stub_source(&table(), "libc", Arch::Arm64, 28);
        assert_eq!(s.symbols, 4);
        assert!(s
            .assembly
            .contains(".globl malloc\n.type malloc, %function"));
        assert!(s.assembly.contains(".type environ, %object"));
        assert!(s.assembly.contains(".globl syncfs"));
        assert!(s.assembly.contains(".weak late"));
        assert!(!s.assembly.contains("reallocarray"));
        assert!(!s.assembly.contains("__atomic_inc"));
        assert!(!s.assembly.contains("sin"));
        // `late` is unversioned below 29: in no node.
        assert_eq!(
            s.version_script,
            "LIBC {\n  global:\n    malloc;\n    environ;\n};\nLIBC_P {\n  global:\n    syncfs;\n};\n"
        );
        let q = stub_source(&table(), "libc", Arch::Arm, 29);
        assert!(q.assembly.contains("reallocarray") && q.assembly.contains("__atomic_inc"));
        assert!(q.version_script.contains("LIBC_N {\n  global:\n    late;"));
    }
}
