#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine with the Rust toolchain: installs what building
# Tessera and rendering need (scripts/deps.sh, shared with scripts/test.sh), then renders the
# built-in courtyard headless through the graph into frame.png and prints the plan summary,
# GPU time per pass and the validation message count. Extra arguments go to `tessera render`
# (e.g. `bash scripts/run.sh --width 320 --height 180 --json`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
need_cargo
install_missing "${build_packages[@]}" "${run_packages[@]}"
exec cargo run --release --locked -- render "$@"
