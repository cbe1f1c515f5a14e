#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine with the Rust toolchain: installs what building
# Tessera and running it need (scripts/deps.sh, shared with scripts/test.sh), then runs the
# desktop demo, `tessera run` (`cargo run --release`): a window on the built-in courtyard
# with live toggles and the UI. Where no display exists it says so and renders a few
# frames headless into frame.png instead, printing the plan summary, GPU time per pass and
# the validation message count. Extra arguments go to `tessera run`
# (e.g. `bash scripts/run.sh --width 1920 --height 1080 --present-mode mailbox`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
need_cargo
install_missing "${build_packages[@]}" "${run_packages[@]}"
exec cargo run --release --locked -- run "$@"
