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
# The test binary reads the frames from TESSERA_ASSETS (else where it was built).
export TESSERA_ASSETS="$PWD/assets"
for f in assets/graphs/*.json; do
    for mode in "" --no-optimize --emulate-async; do
        echo "=== $f $mode"
        .bin/tessera exec "$f" --frames 10 $mode 2>&1 | tail -2
    done
done
echo "=== deferred, full report"
.bin/tessera exec assets/graphs/deferred.json --frames 10
echo "=== scenario 3 on the real async queue, full report"
.bin/tessera exec assets/graphs/async_scenario3.json --frames 10
echo "=== informational: real async queue without the wait before 'sky' (expect mismatches or messages; not guaranteed)"
.bin/tessera exec assets/graphs/async_scenario3.json --frames 10 --drop-waits-before sky 2>&1 | tail -1
echo "=== GPU tests"
.bin/exec_gpu 2>&1 | tail -25
