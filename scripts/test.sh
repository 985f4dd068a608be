#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what is missing, builds everything with
# warnings as errors and runs the whole suite through ctest; then rebuilds the analyzer, trace
# format, schedule generator and their tests with AddressSanitizer + UBSan and runs those again.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash scripts/setup.sh

cmake -S . -B build-test -DPECAN_WERROR=ON -DPECAN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-test -j"$jobs"
ctest --test-dir build-test --output-on-failure -j"$jobs"

# The sanitizer build leaves out the runtime (it is loaded into user programs, which do not
# carry the sanitizer runtime) and the end-to-end tests that need it.
cmake -S . -B build-asan -DPECAN_WERROR=ON -DPECAN_SANITIZE=ON -DPECAN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure -j"$jobs"
