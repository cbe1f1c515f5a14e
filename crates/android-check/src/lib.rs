//! Building and checking Tessera's Android library without the NDK.
//!
//! - [`table`]: the platform's API as data (`crates/android/platform/api.tsv`).
//! - [`stubs`]: stub `libc.so`, `libm.so`, `libdl.so`, `liblog.so`, `libandroid.so` for a
//!   minSdk and arch, with version scripts, to link against with `--no-undefined`.
//! - [`elf`] and [`check`]: the rules the linked `.so` must keep (strong references at or
//!   below minSdk, NEEDED, exports, SONAME, 16 KiB LOAD alignment).
//! - [`zip`]: the APK keeps the `.so` stored at a 16 KiB-aligned offset.
//!
//! `scripts/android-apk.sh` runs the binary; docs/android.md says what this proves.

pub mod check;
pub mod elf;
pub mod stubs;
pub mod table;
pub mod tools;
pub mod zip;
