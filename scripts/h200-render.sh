#!/usr/bin/env bash
# The renderer on the H200 machine of the `device` tool (see scripts/h200-gpu-tests.sh for the
# carried files): `tessera render` of the courtyard at 1080p (validation on: zero messages;
# then off, for GPU times), the executor's lifetime tests and the renderer's GPU tests that do
# not compare with lavapipe's golden images. Carries .bin/{tessera,render_gpu,lifetimes_gpu,
# exec_gpu,gltf2.tgz}, .gl/, .vvl/.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
dpkg -x .vvl/*.deb /tmp/vvl
export VK_LAYER_PATH=/tmp/vvl/usr/share/vulkan/explicit_layer.d
export LD_LIBRARY_PATH=/tmp/vvl/usr/lib/x86_64-linux-gnu
mkdir -p /usr/share/assimp/models && tar xzf .bin/gltf2.tgz -C /usr/share/assimp/models
out="${OUT:-/tmp}"
echo "=== render 1920x1080, validation on"
.bin/tessera render --width 1920 --height 1080 --frames 30 --out "$out/h200-1080p.png" 2>&1 | tail -16
echo "=== render 1920x1080, validation off (timing)"
.bin/tessera render --width 1920 --height 1080 --frames 120 --no-validation --out "$out/h200-1080p-novalidation.png" 2>&1 | tail -14
.bin/tessera render --width 1920 --height 1080 --frames 120 --no-validation --json --out "$out/h200-1080p-novalidation.png" > "$out/h200-1080p.json" 2>&1
echo "=== render 3840x2160, validation off"
.bin/tessera render --width 3840 --height 2160 --frames 60 --no-validation --out "$out/h200-4k.png" 2>&1 | tail -14
echo "=== render, every optimisation off, 1080p, validation on"
.bin/tessera render --width 1920 --height 1080 --frames 10 --no-optimize --out "$out/h200-1080p-none.png" 2>&1 | tail -3
echo "=== renderer GPU tests (no golden comparisons: those are lavapipe's pictures)"
.bin/render_gpu --skip golden --skip the_golden 2>&1 | tail -12
echo "=== executor lifetime tests"
.bin/lifetimes_gpu 2>&1 | tail -14
echo "=== executor GPU tests"
TESSERA_ASSETS="$PWD/assets" .bin/exec_gpu 2>&1 | tail -6
