#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine with the Rust toolchain: installs what building
# Tessera needs (scripts/deps.sh, shared with scripts/test.sh), then compiles the example
# deferred frame and prints its plan report. Extra arguments go to `tessera plan`
# (e.g. `bash scripts/run.sh --json`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
need_cargo
install_missing "${build_packages[@]}"
exec cargo run --release --locked -- plan assets/graphs/deferred.json "$@"
