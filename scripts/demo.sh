#!/usr/bin/env bash
# The README's first command: installs what is missing, builds pecan and the bundled examples,
# then hunts the bugs of PECAN's Figure 1 example (examples/pecan_figure1.c): one recorded run,
# the races it predicts, a bug-hatching clip for each, and a replay that proves each one.
# Usage: bash scripts/demo.sh [EXAMPLE] [HUNT OPTIONS...]   (default: pecan_figure1)
set -euo pipefail
cd "$(dirname "$0")/.."
example=${1:-pecan_figure1}
shift || true

bash scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target pecan pecan_rt "pecan_example_$example"

echo
echo "\$ build/cli/pecan hunt -o build/demo-$example $* -- build/examples/$example"
status=0
build/cli/pecan hunt -o "build/demo-$example" "$@" -- "build/examples/$example" || status=$?
# pecan hunt exits 1 when it confirmed a bug: for the demo that is success.
[ "$status" -le 1 ] || exit "$status"
