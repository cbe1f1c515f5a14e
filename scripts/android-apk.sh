#!/usr/bin/env bash
# Builds target/android/tessera.apk (arm64-v8a, minSdk 28) from a clean checkout without the
# Android NDK or SDK, with Debian's clang-14/lld-14, aapt, zipalign and apksigner
# (android_packages in scripts/deps.sh; scripts/test.sh installs them and runs this), and
# checks what can be checked without a device (docs/android.md, "The APK in CI"):
#
#  1. a sysroot under target/android/sysroot: stub libc/libm/libdl/liblog/libandroid.so
#     generated from crates/android/platform/api.tsv for API 28 (with version scripts), the
#     project's crtbegin_so.o/crtend_so.o (crates/android/platform/crt) and libunwind.a
#     from the `unwinding` crate (crates/android/unwind);
#  2. `cargo build --release --target aarch64-linux-android -p tessera-android`, linked by
#     crates/android/platform/aarch64-linux-android-clang with --no-undefined;
#  3. the ELF checks on the .so (tessera-android-check elf): strong references at API <= 28,
#     NEEDED only platform libraries, exports android_main and ANativeActivity_onCreate,
#     a SONAME, 16 KiB LOAD alignment;
#  4. the APK: aapt (the repository's manifest, assets/ and config/), the .so stored
#     uncompressed at a 16 KiB-aligned offset, zipalign, apksigner with a debug key made
#     here (kept under target/android, never committed), apksigner verify, aapt badging.
#
# Exits non-zero with a message on any failed step or check.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

api=28
target_sdk=34
triple=aarch64-linux-android
abi=arm64-v8a
package=dev.tessera.app
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
out="$target_dir/android"
sysroot="$out/sysroot"
libdir="$sysroot/usr/lib/$triple"
framework=/usr/share/android-framework-res/framework-res.apk

fail() {
    echo "android-apk: error: $*" >&2
    exit 1
}
step() { echo "== android-apk: $*"; }

for tool in clang-14 ld.lld-14 llvm-objcopy-14 llvm-ar-14 aapt zipalign apksigner keytool; do
    command -v "$tool" >/dev/null ||
        fail "$tool not found: install android_packages of scripts/deps.sh (scripts/test.sh does)"
done
[ -f "$framework" ] || fail "$framework not found: install android-framework-res"
command -v cargo >/dev/null || fail "cargo not found: install the Rust toolchain (rustup)"
rustup target add "$triple" >/dev/null

mkdir -p "$out"
start=$(date +%s)

step "the checker (tessera-android-check)"
cargo build --release --locked -p tessera-android-check
checker="$target_dir/release/tessera-android-check"

step "sysroot: stub libraries for API $api from crates/android/platform/api.tsv"
rm -rf "$sysroot"
"$checker" stubs --arch arm64 --api "$api" --out "$libdir/$api" >/dev/null

step "sysroot: crtbegin_so.o, crtend_so.o (crates/android/platform/crt)"
for crt in crtbegin_so crtend_so; do
    clang-14 --target="$triple$api" -DTESSERA_ANDROID_API="$api" -O2 -fPIC -ffreestanding \
        -nostdinc -Wall -Wextra -Werror -c "crates/android/platform/crt/$crt.c" \
        -o "$libdir/$api/$crt.o"
done

step "sysroot: libunwind.a from the unwinding crate (crates/android/unwind)"
unwind_dir="$out/unwind"
CARGO_TARGET_DIR="$unwind_dir" cargo build --release --locked \
    --manifest-path crates/android/unwind/Cargo.toml --target "$triple"
# One relocatable object of the whole static library, in which only _Unwind_* stay global
# (its copies of core and compiler_builtins become local, so they cannot clash with std's),
# without the embedded bitcode and debug info.
ld.lld-14 -r --whole-archive "$unwind_dir/$triple/release/libtessera_android_unwind.a" \
    -o "$unwind_dir/unwind-all.o"
llvm-objcopy-14 --wildcard --keep-global-symbol='_Unwind_*' --remove-section=.llvmbc \
    --remove-section=.llvmcmd --strip-debug "$unwind_dir/unwind-all.o" "$unwind_dir/unwind.o"
rm -f "$libdir/libunwind.a"
llvm-ar-14 rcs "$libdir/libunwind.a" "$unwind_dir/unwind.o"

step "cargo build --release --target $triple -p tessera-android"
# The linker's path stays fixed (cargo rebuilds when it changes); what it links against
# comes from the environment.
export TESSERA_ANDROID_SYSROOT="$sysroot" TESSERA_ANDROID_API="$api"
export CARGO_TARGET_AARCH64_LINUX_ANDROID_LINKER="$root/crates/android/platform/aarch64-linux-android-clang"
build_start=$(date +%s)
cargo build --release --locked --target "$triple" -p tessera-android
echo "cargo build: $(($(date +%s) - build_start)) s"
so="$target_dir/$triple/release/libtessera_android.so"

step "ELF checks on libtessera_android.so"
"$checker" elf --arch arm64 --api "$api" "$so" ||
    fail "libtessera_android.so breaks the rules above"

step "APK: stage the library (debug info stripped) and the assets"
stage="$out/apk-stage"
rm -rf "$stage"
mkdir -p "$stage/native/lib/$abi" "$stage/assets"
llvm-objcopy-14 --strip-debug "$so" "$stage/native/lib/$abi/libtessera_android.so"
cp -r assets/. "$stage/assets/"
mkdir -p "$stage/assets/config"
cp -r config/. "$stage/assets/config/"
# Gradle takes the package name and versions from build.gradle.kts; aapt needs them in the
# manifest (the same values as there).
sed -e "s|<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">|<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"$package\" android:versionCode=\"1\" android:versionName=\"0.1.0\">|" \
    crates/android/gradle/app/src/main/AndroidManifest.xml >"$stage/AndroidManifest.xml"
grep -q "package=\"$package\"" "$stage/AndroidManifest.xml" ||
    fail "could not add the package name to the manifest (its <manifest> line changed?)"

step "APK: aapt package, zipalign (16 KiB), apksigner"
unaligned="$out/tessera-unaligned.apk"
aligned="$out/tessera-aligned.apk"
apk="$out/tessera.apk"
rm -f "$unaligned" "$aligned" "$apk"
# -0 so: native libraries stored, not compressed (the platform maps them from the APK).
aapt package -f --debug-mode --min-sdk-version "$api" --target-sdk-version "$target_sdk" \
    -M "$stage/AndroidManifest.xml" -I "$framework" -A "$stage/assets" -0 so \
    -F "$unaligned" "$stage/native"
# Every stored entry at a multiple of 16 KiB (zipalign's -p would give the .so 4 KiB only).
zipalign -f 16384 "$unaligned" "$aligned"
keystore="$out/debug.keystore"
if [ ! -f "$keystore" ]; then
    keytool -genkeypair -keystore "$keystore" -storepass android -keypass android \
        -alias androiddebugkey -keyalg RSA -keysize 2048 -validity 10000 \
        -dname "CN=Android Debug,O=Android,C=US" >/dev/null 2>&1 ||
        fail "keytool could not make the debug key"
fi
apksigner sign --ks "$keystore" --ks-pass pass:android --key-pass pass:android \
    --out "$apk" "$aligned"
rm -f "$unaligned" "$aligned" "$apk.idsig"

step "APK checks"
apksigner verify --verbose "$apk" >"$out/verify.txt" ||
    fail "apksigner verify failed: $(cat "$out/verify.txt")"
# minSdk 28: apksigner signs with scheme v3 (Android 9+), which a v2 check would miss.
grep -qE "^Verified using v[23] scheme \(APK Signature Scheme v[23]\): true" "$out/verify.txt" ||
    fail "the APK has no v2 or v3 signature: $(cat "$out/verify.txt")"
zipalign -c -p 4 "$apk" || fail "zipalign -c -p 4 fails on the signed APK"
"$checker" zip-entry --align 16384 "$apk" "lib/$abi/libtessera_android.so" ||
    fail "the .so is not stored at a 16 KiB-aligned offset"
aapt dump badging "$apk" >"$out/badging.txt" || fail "aapt dump badging failed"
# expect LINE: the badging has LINE (leading blanks aside: uses-feature lines are indented).
expect() {
    sed 's/^ *//' "$out/badging.txt" | grep -qxF "$1" ||
        fail "aapt dump badging has no line '$1'; it says:
$(cat "$out/badging.txt")"
}
expect "sdkVersion:'$api'"
expect "targetSdkVersion:'$target_sdk'"
expect "launchable-activity: name='android.app.NativeActivity'  label='' icon=''"
expect "native-code: '$abi'"
# Vulkan 1.1 (0x401000) required, and level 0.
expect "uses-feature: name='android.hardware.vulkan.version' version='4198400'"
expect "uses-feature: name='android.hardware.vulkan.level'"
expect "application-debuggable"
grep -q "^package: name='$package'" "$out/badging.txt" || fail "badging names no package $package"
# NativeActivity loads lib<lib_name>.so: the manifest's name must be the library's.
aapt dump xmltree "$apk" AndroidManifest.xml >"$out/manifest.txt"
grep -A1 '"android.app.lib_name"' "$out/manifest.txt" | grep -qF '="tessera_android"' ||
    fail "the manifest's android.app.lib_name is not tessera_android (libtessera_android.so)"
aapt list "$apk" >"$out/contents.txt"
for f in assets/config/default.toml assets/scenes/courtyard.toml "lib/$abi/libtessera_android.so"; do
    grep -qxF "$f" "$out/contents.txt" || fail "$f is not in the APK"
done

echo "android-apk: $apk ($(stat -c %s "$apk") bytes) in $(($(date +%s) - start)) s"
