//! Real links against the generated stubs (Debian's clang-14 and ld.lld-14, which
//! scripts/test.sh installs): a library calling an API-29 function fails to link at
//! minSdk 28, one calling only older functions links and passes the ELF checks, and the
//! checks catch a library linked without the 16 KiB page size or without a SONAME.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tessera_android_check::check::{self, Rules};
use tessera_android_check::table::{Arch, Table};
use tessera_android_check::{elf, stubs, tools};

const API: u32 = 28;

/// A stub sysroot in `dir`: the stubs for arm64 at API 28 and the project's crt objects.
fn sysroot(dir: &Path) -> PathBuf {
    let table = Table::load(Table::default_path()).unwrap();
    let lib = dir.join("lib");
    stubs::build_stubs(&table, Arch::Arm64, API, &lib).unwrap_or_else(|e| panic!("{e:#}"));
    let crt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../android/platform/crt");
    for name in ["crtbegin_so", "crtend_so"] {
        let out = clang()
            .arg(format!("-DTESSERA_ANDROID_API={API}"))
            .args([
                "-O2",
                "-fPIC",
                "-ffreestanding",
                "-nostdinc",
                "-Wall",
                "-Werror",
                "-c",
            ])
            .arg(crt.join(format!("{name}.c")))
            .arg("-o")
            .arg(lib.join(format!("{name}.o")))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    lib
}

fn clang() -> Command {
    if Command::new(tools::CLANG)
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("{}", tools::missing_message(tools::CLANG));
    }
    let mut c = Command::new(tools::CLANG);
    c.arg(format!("--target=aarch64-linux-android{API}"));
    c
}

/// Links `source` (C, no headers) into `out` as the Android build links: lld, the stubs,
/// the crt objects, --no-undefined; `extra` adds linker flags.
fn link(lib: &Path, source: &str, out: &Path, extra: &[&str]) -> Output {
    let c = out.with_extension("c");
    std::fs::write(&c, source).unwrap();
    clang()
        .arg(format!("--sysroot={}", lib.display()))
        .args(["-fuse-ld=lld", "-shared", "-nodefaultlibs", "-B"])
        .arg(lib)
        .arg("-L")
        .arg(lib)
        .args(["-Wl,--no-undefined"])
        .args(extra)
        .arg(&c)
        .args(["-lc", "-llog", "-o"])
        .arg(out)
        .output()
        .unwrap()
}

const DECLS: &str = "typedef unsigned long size_t;\n\
void *malloc(size_t);\n\
void *reallocarray(void *, size_t, size_t);\n\
int __android_log_write(int, const char *, const char *);\n";

fn rules() -> Rules {
    Rules {
        arch: Arch::Arm64,
        api: API,
        exports: vec!["entry".into()],
        soname: Some("libprobe.so".into()),
        page_size: 16384,
    }
}

fn facts(path: &Path) -> elf::Facts {
    elf::read(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn an_api_29_symbol_fails_the_link_and_older_ones_link() {
    let dir = tempfile::tempdir().unwrap();
    let lib = sysroot(dir.path());
    let table = Table::load(Table::default_path()).unwrap();
    let good_flags = ["-Wl,-z,max-page-size=16384", "-Wl,-soname,libprobe.so"];

    // reallocarray is API 29: not in the API-28 stub, so --no-undefined fails the link.
    let bad = dir.path().join("bad.so");
    let src = format!("{DECLS}void *entry(void) {{ return reallocarray(0, 4, 4); }}\n");
    let out = link(&lib, &src, &bad, &good_flags);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "linked an API-29 call at minSdk 28");
    assert!(
        stderr.contains("undefined symbol: reallocarray"),
        "{stderr}"
    );

    // The control: malloc (always there) and __android_log_write link, and the library
    // passes every check, its references versioned by the stubs' scripts.
    let good = dir.path().join("good.so");
    let src = format!(
        "{DECLS}void *entry(void) {{ __android_log_write(4, \"t\", \"m\"); return malloc(16); }}\n"
    );
    let out = link(&lib, &src, &good, &good_flags);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = facts(&good);
    let report = check::check(&f, &table, &rules());
    assert!(report.passed(), "{}", report.summary(&f));
    assert_eq!(f.needed, ["libc.so", "liblog.so"]);
    let malloc = f.undefined.iter().find(|u| u.name == "malloc").unwrap();
    assert_eq!(malloc.version.as_deref(), Some("LIBC"));
    assert!(!malloc.weak);
    // crtbegin_so's destructor calls __cxa_finalize: the other strong reference.
    assert!(f.undefined.iter().any(|u| u.name == "__cxa_finalize"));
    assert_eq!(report.strong, f.undefined.len());

    // A weak reference to an API-29 symbol links (resolved, or not, at run time) and is
    // reported, not refused.
    let weak = dir.path().join("weak.so");
    let src = format!(
        "{DECLS}__attribute__((weak)) void *reallocarray(void *, size_t, size_t);\n\
         void *entry(void) {{ return reallocarray ? reallocarray(0, 4, 4) : malloc(16); }}\n"
    );
    let out = link(&lib, &src, &weak, &good_flags);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = check::check(&facts(&weak), &table, &rules());
    assert!(report.passed(), "{:?}", report.violations);
    assert_eq!(report.weak_refs, [("reallocarray".to_owned(), Some(29))]);

    // Without max-page-size=16384 the segments are 4 KiB aligned; without -soname there is
    // no SONAME: the checks say so.
    let plain = dir.path().join("plain.so");
    let src = format!("{DECLS}void *entry(void) {{ return malloc(16); }}\n");
    let out = link(&lib, &src, &plain, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = check::check(&facts(&plain), &table, &rules()).violations;
    assert!(v.iter().any(|m| m == "no SONAME (DT_SONAME)"), "{v:?}");
    assert!(v.iter().any(|m| m.contains("aligned to 0x1000")), "{v:?}");
}
