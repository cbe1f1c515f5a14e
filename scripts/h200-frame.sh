#!/usr/bin/env bash
# The whole frame on the H200 machine of the `device` tool, on its real async-compute queue:
# the full-frame, post-chain and renderer GPU tests (validation and synchronization
# validation on; the golden comparisons are lavapipe's pictures, so they are skipped), then
# `tessera render` at 1080p and 4K with validation on (zero messages) and off (GPU times).
# Carries .bin/{tessera,full_frame_gpu,post_gpu,render_gpu,debug_views_gpu}.gz, .bin/gltf2.tgz,
# .gl/ and .vvl/ (scripts/h200-gpu-tests.sh says where they come from).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
dpkg -x .vvl/*.deb /tmp/vvl
export VK_LAYER_PATH=/tmp/vvl/usr/share/vulkan/explicit_layer.d
export LD_LIBRARY_PATH=/tmp/vvl/usr/lib/x86_64-linux-gnu
mkdir -p /usr/share/assimp/models && tar xzf .bin/gltf2.tgz -C /usr/share/assimp/models
mkdir -p /tmp/bin && for b in .bin/*.gz; do gunzip -c "$b" > "/tmp/bin/$(basename "$b" .gz)"; done
chmod +x /tmp/bin/*
out="${OUT:-/tmp}"
echo "=== full frame: every optimisation, bit-exact at frame 10 on the real async queue"
/tmp/bin/full_frame_gpu --skip golden 2>&1 | tail -8
echo "=== post chain"
/tmp/bin/post_gpu 2>&1 | tail -10
echo "=== renderer GPU tests (no golden comparisons)"
/tmp/bin/render_gpu --skip golden --skip the_golden 2>&1 | tail -6
echo "=== debug views (each differs from the others; goldens skipped)"
/tmp/bin/debug_views_gpu --skip each_debug_view 2>&1 | tail -4
echo "=== render 1920x1080, validation on"
/tmp/bin/tessera render --width 1920 --height 1080 --frames 30 --out "$out/h200-1080p.png" 2>&1 | tail -40
echo "=== render 1920x1080, validation off (timing)"
/tmp/bin/tessera render --width 1920 --height 1080 --frames 120 --no-validation --json --out "$out/h200-1080p.png" > "$out/h200-1080p.json" 2>&1
/tmp/bin/tessera render --width 1920 --height 1080 --frames 120 --no-validation --out "$out/h200-1080p.png" 2>&1 | tail -34
echo "=== render 3840x2160, validation off (timing)"
/tmp/bin/tessera render --width 3840 --height 2160 --frames 60 --no-validation --json --out "$out/h200-4k.png" > "$out/h200-4k.json" 2>&1
/tmp/bin/tessera render --width 3840 --height 2160 --frames 60 --no-validation --out "$out/h200-4k.png" 2>&1 | tail -34
echo "=== render 1920x1080, every optimisation off, validation on"
/tmp/bin/tessera render --width 1920 --height 1080 --frames 10 --no-optimize --out "$out/h200-1080p-none.png" 2>&1 | tail -3
