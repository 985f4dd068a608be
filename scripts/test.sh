#!/usr/bin/env bash
# The project's test command (README, .ci/run): installs what is missing, builds everything with
# gcc and warnings as errors and runs the whole suite through ctest; then rebuilds the analyzer,
# trace format, schedule generator and their tests with clang and AddressSanitizer + UBSan and
# runs those again; builds the runtime with clang too, so both supported compilers build every
# part; and fuzzes the readers of untrusted input for a short fixed time.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

bash scripts/setup.sh

cmake -S . -B build-test -DPECAN_WERROR=ON -DPECAN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-test -j"$jobs"
ctest --test-dir build-test --output-on-failure -j"$jobs"

# The sanitizer build leaves out the runtime (it is loaded into user programs, which do not
# carry the sanitizer runtime) and the end-to-end tests that need it.
CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan -DPECAN_WERROR=ON -DPECAN_SANITIZE=ON \
  -DPECAN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure -j"$jobs"

# The runtime, with clang (its tests above ran it built by gcc).
CC=clang-14 CXX=clang++-14 cmake -S . -B build-clang-rt -DPECAN_WERROR=ON -DPECAN_BUILD_TESTS=OFF \
  -DPECAN_BUILD_BENCHMARKS=OFF -DPECAN_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build-clang-rt -j"$jobs" --target pecan_rt

# The readers of untrusted input (trace reader and chunk decoder, clip reader, STD importer,
# pattern parser) under libFuzzer with ASan + UBSan, 15 s each from their seed corpora, then
# every seed and past crasher again (scripts/fuzz.sh; tests/fuzz/).
bash scripts/fuzz.sh 15
