#!/usr/bin/env bash
# Runs Tessera's whole test suite on a fresh Debian 12 machine: installs what is missing
# (Debian packages, Rust components), then format, lint and tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages (scripts/deps.sh, shared with scripts/run.sh): what the build needs and
# what the tests need besides, and what the APK build needs.
source scripts/deps.sh
need_cargo
install_missing "${build_packages[@]}" "${run_packages[@]}" "${test_packages[@]}" \
    "${android_packages[@]}"
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== cargo fmt"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== Android: cargo check + clippy of the NativeActivity library"
# Every Android code path must compile, with the lints, on both ABIs (docs/android.md).
rustup target add aarch64-linux-android armv7-linux-androideabi >/dev/null
for target in aarch64-linux-android armv7-linux-androideabi; do
    cargo clippy -p tessera-android --target "$target" --locked -- -D warnings
done
echo "== Android: the APK, linked and packaged without the NDK, and its checks"
# target/android/tessera.apk (arm64-v8a): stub libraries from crates/android/platform/api.tsv,
# a --no-undefined link at minSdk 28, the ELF checks, aapt/zipalign/apksigner, the badging.
bash scripts/android-apk.sh
echo "== cargo test"
# Property tests draw the same cases on every machine and run, so that a submission passes or
# fails on its code alone; set PROPTEST_RNG_SEED (and PROPTEST_CASES) to explore further.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261204}"
# Release mode: the GPU tests (tessera-vk, tessera-synth, lavapipe with validation) are slow in debug.
# --no-fail-fast: every failing test binary is reported in one run (the exit status is
# still non-zero when any fails).
cargo test --workspace --locked --release --no-fail-fast
echo "== benches compile"
cargo bench --workspace --locked --no-run
echo "all tests passed"
