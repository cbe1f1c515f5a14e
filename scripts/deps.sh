# What Tessera needs from Debian 12, shared by scripts/run.sh and scripts/test.sh (each
# sources this file, so the two lists cannot drift apart).
#
# build_packages: what building the `tessera` binary needs: a C compiler for mimalloc (the
# binary's allocator; libmimalloc-sys builds it from source), the Vulkan loader, and the
# shaderc/glslang/SPIRV-Tools archives that tessera-vk links statically
# (.cargo/config.toml, crates/vk/build.rs).
build_packages=(gcc libvulkan-dev libshaderc-dev glslang-tools spirv-tools)
# run_packages: what the demo needs: lavapipe (Vulkan on the CPU, for a machine without a
# GPU), the validation layers (`tessera run` and `tessera render` validate by default), and
# the X11 libraries winit opens at run time for the window (libX11-xcb, libXcursor,
# libXrandr, libXi, libxkbcommon-x11).
run_packages=(mesa-vulkan-drivers vulkan-validationlayers
    libx11-xcb1 libxcursor1 libxrandr2 libxi6 libxkbcommon-x11-0)
# test_packages: what the tests need besides: headless Chromium for the
# viewer's page tests (crates/viewer/tests/browser.rs), and RenderDoc (librenderdoc.so and
# renderdoccmd) for the capture tests (crates/synth/tests/capture_gpu.rs), and Khronos' glTF sample
# models, valid and broken (assimp-testmodels), for the scene and renderer corpus tests, and
# an X server (xvfb) for the window tests (crates/app/tests/run_cli.rs, ui_cli.rs), and
# xdotool for the one that clicks through the X server.
test_packages=(chromium librenderdoc renderdoccmd assimp-testmodels xvfb xdotool)
# android_packages: the NDK-less APK build of the tests (scripts/android-apk.sh,
# docs/android.md): clang-14 and lld-14 (stub libraries, crt objects, the link),
# llvm-14 (llvm-objcopy, llvm-ar), aapt with the API-29 framework-res.apk it compiles the
# manifest against, zipalign, apksigner and keytool (the JDK) for the debug signature.
# Installed by scripts/test.sh only.
android_packages=(clang-14 lld-14 llvm-14 aapt apksigner zipalign android-framework-res
    openjdk-17-jdk-headless)

# install_missing PACKAGE...: installs those of the packages that are not installed
# (apt-get, through sudo when not root); does nothing when all are.
install_missing() {
    local missing=() p
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    echo "installing: ${missing[*]}"
    local sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || {
            echo "error: not root and no sudo: install ${missing[*]} as root" >&2
            return 1
        }
        sudo_cmd=(sudo)
    fi
    "${sudo_cmd[@]}" apt-get update -q
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q "${missing[@]}"
}

# need_cargo: stops with a clear message when the Rust toolchain is absent.
need_cargo() {
    command -v cargo >/dev/null || {
        echo "error: cargo not found: install the Rust toolchain (rustup), then run this again" >&2
        return 1
    }
}
