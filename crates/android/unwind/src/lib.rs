//! `libunwind.a` for Tessera's NDK-less Android build: the `_Unwind_*` functions of the
//! `unwinding` crate (pure Rust), linked as a static library so that Rust's std for Android
//! finds the `-lunwind` it asks for. scripts/android-apk.sh builds it, keeps only the
//! `_Unwind_*` symbols global and archives it as `libunwind.a` in the generated sysroot.
#![no_std]

// The unwinder's symbols come from the crate; nothing else is needed here.
extern crate unwinding;
