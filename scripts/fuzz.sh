#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang-14 + ASan + UBSan in build-fuzz/, runs
# each for a fixed time from its seed corpus, then replays the seeds and every past crasher.
# New inputs libFuzzer finds stay in build-fuzz/corpus/<target>/ (the checked-in corpus is not
# changed); a crash leaves crash-* in build-fuzz/artifacts/<target>/: add it to
# tests/fuzz/<target>/crashers/ with the fix.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 20 s; all four targets)
set -euo pipefail
shopt -s nullglob

root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(trace_reader clip_reader std_import pattern_parser)
build="$root/build-fuzz"
jobs="${PECAN_FUZZ_JOBS:-2}"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DPECAN_FUZZ=ON -DPECAN_WERROR=ON \
  -DPECAN_BUILD_BENCHMARKS=OFF -DPECAN_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$jobs" --target "${targets[@]/#/fuzz_}"

status=0
for target in "${targets[@]}"; do
  seeds="$root/tests/fuzz/$target/corpus"
  crashers="$root/tests/fuzz/$target/crashers"
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  echo "fuzz: $target for ${seconds}s"
  # -rss_limit_mb: an input that makes a reader allocate beyond it is a finding (issue 20).
  if ! "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=512 \
      -timeout=10 -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "$seeds" \
      2>"$build/fuzz_$target.log"; then
    echo "fuzz: $target FAILED; see $build/fuzz_$target.log and $artifacts" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz_$target.log" || true
  echo "fuzz: $target: replaying the seeds and crashers"
  "$build/tests/fuzz/fuzz_$target" -rss_limit_mb=1024 -malloc_limit_mb=512 "$seeds"/* "$crashers"/* \
    2>>"$build/fuzz_$target.log" || { echo "fuzz: $target replay FAILED" >&2; status=1; }
done
exit $status
