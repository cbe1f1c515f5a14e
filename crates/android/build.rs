//! Link arguments of the Android library, the same on every build path: CI's NDK-less build
//! (scripts/android-apk.sh), `cargo ndk` and Gradle (docs/android.md).
//!
//! - `-z max-page-size=16384`: LOAD segments aligned to 16 KiB, so the library loads on
//!   devices with 16 KiB pages (Android 15+; Google Play requires it for new apps).
//! - `-soname,libtessera_android.so`: rustc gives a cdylib no DT_SONAME; the platform's
//!   loader and tools identify a library by it.
//! - `--no-undefined`: every symbol resolved at link time against the platform's libraries
//!   of the minSdk, so a call into a newer API fails the build, not the app on a phone.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // The NDK-less build (scripts/android-apk.sh) regenerates its sysroot (stubs, crt,
    // libunwind.a) on every run: relinking then keeps its link checks real. With the NDK
    // the variable is unset and this does nothing.
    println!("cargo:rerun-if-env-changed=TESSERA_ANDROID_SYSROOT");
    if let Some(sysroot) = std::env::var_os("TESSERA_ANDROID_SYSROOT") {
        println!(
            "cargo:rerun-if-changed={}",
            std::path::Path::new(&sysroot).display()
        );
    }
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("android") {
        for arg in [
            "-Wl,-z,max-page-size=16384",
            "-Wl,-soname,libtessera_android.so",
            "-Wl,--no-undefined",
        ] {
            println!("cargo:rustc-cdylib-link-arg={arg}");
        }
    }
}
