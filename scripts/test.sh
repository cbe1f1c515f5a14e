#!/usr/bin/env bash
# Runs Tessera's whole test suite on a fresh Debian 12 machine: installs what is missing
# (Debian packages, Rust components), then format, lint and tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need: lavapipe (Vulkan on the CPU), the validation layers
# (synchronization validation), the loader, and shaderc/glslang/SPIRV-Tools archives that
# tessera-vk links statically (.cargo/config.toml, crates/vk/build.rs), and headless Chromium
# for the viewer's page tests (crates/viewer/tests/browser.rs), and RenderDoc (librenderdoc.so
# and renderdoccmd) for the capture tests (crates/vk/tests/capture_gpu.rs), and a C compiler
# for mimalloc, the binary's allocator (libmimalloc-sys builds it from source).
packages=(gcc mesa-vulkan-drivers vulkan-validationlayers libvulkan-dev libshaderc-dev glslang-tools spirv-tools chromium librenderdoc renderdoccmd)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q "${missing[@]}"
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== cargo fmt"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo test"
# Release mode: the GPU tests (tessera-vk, lavapipe with validation) are slow in debug.
cargo test --workspace --locked --release
echo "== benches compile"
cargo bench --workspace --locked --no-run
echo "all tests passed"
