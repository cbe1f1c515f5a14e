//! The rules a linked `libtessera_android.so` must keep, checked over its [`Facts`].

use crate::elf::Facts;
use crate::table::{Arch, Table};
use std::fmt::Write as _;

/// What is expected of the library.
#[derive(Debug, Clone)]
pub struct Rules {
    pub arch: Arch,
    /// minSdk: every strong reference must exist at this level or below.
    pub api: u32,
    /// The exact set of dynamic exports.
    pub exports: Vec<String>,
    /// The SONAME, when one is required by name; a SONAME is always required.
    pub soname: Option<String>,
    /// Every LOAD segment's alignment must be a multiple of this (16 KiB pages).
    pub page_size: u64,
}

/// The outcome: the violations (none: the library passes) and the figures.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub violations: Vec<String>,
    pub strong: usize,
    pub weak: usize,
    /// The highest API level a strong reference needs (0: none beyond the first).
    pub highest_api: u32,
    /// The symbol that needs `highest_api`.
    pub highest_symbol: Option<String>,
    /// Weak references, each with the level it appeared at (None: not in the table).
    pub weak_refs: Vec<(String, Option<u32>)>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }

    /// A human summary, violations first.
    pub fn summary(&self, facts: &Facts) -> String {
        let mut s = String::new();
        for v in &self.violations {
            let _ = writeln!(s, "VIOLATION: {v}");
        }
        let _ = writeln!(
            s,
            "undefined symbols: {} ({} strong, {} weak)",
            self.strong + self.weak,
            self.strong,
            self.weak
        );
        let _ = writeln!(
            s,
            "highest API a strong reference needs: {}{}",
            self.highest_api,
            self.highest_symbol
                .as_ref()
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        );
        for (name, api) in &self.weak_refs {
            let at = api.map_or("not in the table".to_owned(), |a| format!("API {a}"));
            let _ = writeln!(s, "weak reference (resolved at run time): {name}, {at}");
        }
        let _ = writeln!(s, "NEEDED: {}", facts.needed.join(" "));
        let _ = writeln!(s, "exports: {}", facts.exports.join(" "));
        let _ = writeln!(s, "SONAME: {}", facts.soname.as_deref().unwrap_or("(none)"));
        let aligns: Vec<String> = facts
            .loads
            .iter()
            .map(|l| format!("{:#x}", l.align))
            .collect();
        let _ = writeln!(s, "LOAD alignments: {}", aligns.join(" "));
        s
    }
}

/// Checks `facts` against `rules`, with `table` the platform's API.
pub fn check(facts: &Facts, table: &Table, rules: &Rules) -> Report {
    let mut r = Report::default();
    let v = &mut r.violations;
    if facts.machine != rules.arch.e_machine() {
        v.push(format!(
            "e_machine {} is not {}'s ({})",
            facts.machine,
            rules.arch,
            rules.arch.e_machine()
        ));
    }
    // NEEDED: platform libraries only.
    let platform: Vec<String> = table
        .libraries()
        .iter()
        .map(|l| format!("{l}.so"))
        .collect();
    for n in &facts.needed {
        if !platform.contains(n) {
            v.push(format!(
                "NEEDED {n} is not a platform library ({})",
                platform.join(", ")
            ));
        }
    }
    // Undefined symbols: each strong one offered at the API level by a NEEDED library, in
    // the version node the reference names.
    for u in &facts.undefined {
        let rows: Vec<_> = table
            .lookup(&u.name, rules.arch)
            .filter(|row| facts.needed.contains(&format!("{}.so", row.library)))
            .collect();
        if u.weak {
            r.weak += 1;
            r.weak_refs
                .push((u.name.clone(), rows.iter().filter_map(|row| row.api).min()));
            continue;
        }
        r.strong += 1;
        let usable: Vec<_> = rows
            .iter()
            .filter(|row| row.available(rules.arch, rules.api))
            .collect();
        let Some(first) = usable.iter().filter_map(|row| row.api).min() else {
            let why = match rows.iter().filter_map(|row| row.api).min() {
                Some(a) => format!("introduced at API {a}, above minSdk {}", rules.api),
                None if rows.is_empty() => "in no NEEDED platform library on this arch".to_owned(),
                None => "never available to apps".to_owned(),
            };
            v.push(format!("strong undefined symbol {}: {why}", u.name));
            continue;
        };
        if let Some(ver) = &u.version {
            if !usable.iter().any(|row| &row.version == ver) {
                v.push(format!(
                    "{} is referenced in version {ver}, which does not define it",
                    u.name
                ));
            }
        }
        if first > r.highest_api {
            r.highest_api = first;
            r.highest_symbol = Some(u.name.clone());
        }
    }
    // Exports: exactly the expected ones.
    for e in &facts.exports {
        if !rules.exports.contains(e) {
            v.push(format!("unexpected export {e}"));
        }
    }
    for e in &rules.exports {
        if !facts.exports.contains(e) {
            v.push(format!("{e} is not exported"));
        }
    }
    match (&facts.soname, &rules.soname) {
        (None, _) => v.push("no SONAME (DT_SONAME)".to_owned()),
        (Some(have), Some(want)) if have != want => v.push(format!("SONAME is {have}, not {want}")),
        _ => {}
    }
    if facts.loads.is_empty() {
        v.push("no LOAD segment".to_owned());
    }
    for l in &facts.loads {
        if l.align % rules.page_size != 0 || l.offset % rules.page_size != l.vaddr % rules.page_size
        {
            v.push(format!(
                "LOAD segment at offset {:#x} vaddr {:#x} is aligned to {:#x}, not a multiple of {:#x}",
                l.offset, l.vaddr, l.align, rules.page_size
            ));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::{Load, Undefined};

    fn table() -> Table {
        Table::parse(
            "library\tversion\tsymbol\tkind\tweak\tapi\tarches\tversioned\n\
libc\tLIBC\tmalloc\tfunction\tno\t0\tall\t-\n\
libc\tLIBC_N\tgetifaddrs\tfunction\tno\t24\tall\t-\n\
libc\tLIBC_Q\treallocarray\tfunction\tno\t29\tall\t-\n\
libc\tLIBC_U\tcopy_file_range\tfunction\tno\t34\tall\t-\n\
liblog\tLIBLOG\t__android_log_write\tfunction\tno\t0\tall\t-\n",
        )
        .unwrap()
    }

    fn rules() -> Rules {
        Rules {
            arch: Arch::Arm64,
            api: 28,
            exports: vec!["android_main".into(), "ANativeActivity_onCreate".into()],
            soname: Some("libtessera_android.so".into()),
            page_size: 16384,
        }
    }

    fn undef(name: &str, weak: bool, version: Option<&str>) -> Undefined {
        Undefined {
            name: name.into(),
            weak,
            version: version.map(Into::into),
        }
    }

    fn good() -> Facts {
        Facts {
            machine: object::elf::EM_AARCH64,
            soname: Some("libtessera_android.so".into()),
            needed: vec!["libc.so".into(), "liblog.so".into()],
            undefined: vec![
                undef("malloc", false, Some("LIBC")),
                undef("getifaddrs", false, Some("LIBC_N")),
                undef("__android_log_write", false, None),
                undef("copy_file_range", true, None),
            ],
            exports: vec!["android_main".into(), "ANativeActivity_onCreate".into()],
            loads: vec![
                Load {
                    offset: 0,
                    vaddr: 0,
                    align: 0x4000,
                },
                Load {
                    offset: 0x1234,
                    vaddr: 0x5234,
                    align: 0x4000,
                },
            ],
        }
    }

    #[test]
    fn a_good_library_passes_with_its_figures() {
        let r = check(&good(), &table(), &rules());
        assert!(r.passed(), "{:?}", r.violations);
        assert_eq!((r.strong, r.weak, r.highest_api), (3, 1, 24));
        assert_eq!(r.highest_symbol.as_deref(), Some("getifaddrs"));
        assert_eq!(r.weak_refs, [("copy_file_range".to_owned(), Some(34))]);
    }

    fn violations(f: impl FnOnce(&mut Facts)) -> Vec<String> {
        let mut facts = good();
        f(&mut facts);
        check(&facts, &table(), &rules()).violations
    }

    #[test]
    fn each_broken_rule_is_reported() {
        let v = violations(|f| {
            f.undefined
                .push(undef("reallocarray", false, Some("LIBC_Q")))
        });
        assert_eq!(
            v,
            ["strong undefined symbol reallocarray: introduced at API 29, above minSdk 28"]
        );
        let v = violations(|f| f.undefined.push(undef("vkCreateInstance", false, None)));
        assert!(v[0].contains("vkCreateInstance: in no NEEDED"), "{v:?}");
        let v = violations(|f| f.undefined[0].version = Some("LIBC_P".into()));
        assert!(v[0].contains("version LIBC_P"), "{v:?}");
        let v = violations(|f| f.needed.push("libvulkan.so".into()));
        assert!(v[0].contains("NEEDED libvulkan.so"), "{v:?}");
        // A symbol of a library that is not NEEDED does not count.
        let v = violations(|f| f.needed.retain(|n| n != "liblog.so"));
        assert!(v[0].contains("__android_log_write"), "{v:?}");
        let v = violations(|f| f.exports.push("_Unwind_RaiseException".into()));
        assert_eq!(v, ["unexpected export _Unwind_RaiseException"]);
        let v = violations(|f| f.exports.retain(|e| e != "android_main"));
        assert_eq!(v, ["android_main is not exported"]);
        let v = violations(|f| f.soname = None);
        assert_eq!(v, ["no SONAME (DT_SONAME)"]);
        let v = violations(|f| f.soname = Some("libmain.so".into()));
        assert_eq!(v, ["SONAME is libmain.so, not libtessera_android.so"]);
        let v = violations(|f| f.loads[1].align = 0x1000);
        assert!(v[0].contains("aligned to 0x1000"), "{v:?}");
        let v = violations(|f| f.loads[1].vaddr = 0x6234);
        assert!(v[0].contains("vaddr 0x6234"), "{v:?}");
        let v = violations(|f| f.machine = object::elf::EM_ARM);
        assert!(v[0].contains("e_machine"), "{v:?}");
    }
}
