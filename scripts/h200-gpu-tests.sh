#!/usr/bin/env bash
# Runs the GPU checks on the H200 machine of the `device` tool (NVIDIA driver, a real
# async-compute queue). The machine has no Rust and no network: build here, then carry
#   .bin/tessera, .bin/exec_gpu  (stripped release binaries: target/release/tessera and
#                                 target/release/deps/exec_gpu-*)
#   .gl/   the Vulkan loader .debs, .vvl/  the validation layers .deb
# (toolchain notes: the device README's apt-get download recipe).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
dpkg -x .vvl/*.deb /tmp/vvl
export VK_LAYER_PATH=/tmp/vvl/usr/share/vulkan/explicit_layer.d
export LD_LIBRARY_PATH=/tmp/vvl/usr/lib/x86_64-linux-gnu
# The test binary looks for the frames where it was built.
if [ "$PWD" != /work/main ]; then mkdir -p /work/main/crates/vk && ln -sfn "$PWD/assets" /work/main/assets; fi
for f in assets/graphs/*.json; do
    for mode in "" --no-optimize; do
        echo "=== $f $mode"
        .bin/tessera exec "$f" --frames 10 $mode 2>&1 | tail -2
    done
done
echo "=== deferred, full report"
.bin/tessera exec assets/graphs/deferred.json --frames 10
echo "=== GPU tests"
.bin/exec_gpu 2>&1 | tail -15
