#!/usr/bin/env bash
# Recorder benchmark: builds each program in this folder three ways (native, full ThreadSanitizer,
# pecan-cc/pecan-c++), runs each build RUNS times and prints the median wall times, the slowdowns,
# the events recorded per second and the trace's bytes per event on disk. It also runs the pecan
# build without recording ("calls"): the cost of the compiler's instrumentation calls alone,
# which no recorder can go below.
#
# Usage: bench/recorder/run.sh [BUILD_DIR] [RUNS]
#   BUILD_DIR  a configured and built pecan build tree (default: build); needs its `pecan`,
#              libpecan_rt.so and build-tree wrappers (cmake --build BUILD_DIR --target pecan pecan_rt)
#   RUNS       runs per build and program (default 5); the median counts
# Environment: CC / CXX pick the compilers of all three builds (default gcc / g++);
#   PECAN_BENCH_PROGRAMS limits the programs (e.g. "matmul lockfree_stack");
#   PECAN_BENCH_RECORD_ARGS adds options to `pecan record` (e.g. --no-func-events).
# Wall time of a pecan run is the one `pecan record` reports for the program (start to exit,
# the trace flushed), measured the same way as the native and TSan runs: spawn to exit.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
cc=${CC:-gcc}
cxx=${CXX:-g++}
pecan="$build/cli/pecan"
wrappers="$build/recorder/wrappers"
for needed in "$pecan" "$wrappers/pecan-cc" "$wrappers/pecan-c++"; do
  [ -x "$needed" ] || { echo "run.sh: $needed is missing; build pecan and pecan_rt in $build first" >&2; exit 2; }
done

# name, source, arguments: each a few hundred ms natively on one core pair.
programs=(
  "matmul matmul.c 448 4"
  "producer_consumer producer_consumer.cpp 300000 2 2"
  "lockfree_stack lockfree_stack.cpp 1500000 4"
)

work=$(mktemp -d "${TMPDIR:-/tmp}/pecan-bench-recorder.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Seconds from spawn to exit of one run of "$@", output discarded.
time_run() {
  local start=$EPOCHREALTIME
  "$@" >/dev/null
  local end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }'
}

printf '%-18s %9s %9s %7s %8s %9s %7s %12s %10s %8s\n' program native_s tsan_s tsan_x calls_x pecan_s pecan_x events Mevents/s B/event
for entry in "${programs[@]}"; do
  read -r name source arguments <<<"$entry"
  if [ -n "${PECAN_BENCH_PROGRAMS:-}" ] && [[ " $PECAN_BENCH_PROGRAMS " != *" $name "* ]]; then
    continue
  fi
  case $source in
    *.c) compiler=$cc wrapper=(env PECAN_CC="$cc" "$wrappers/pecan-cc") ;;
    *) compiler=$cxx wrapper=(env PECAN_CXX="$cxx" "$wrappers/pecan-c++") ;;
  esac
  flags=(-O2 -g -pthread)
  "$compiler" "${flags[@]}" "$here/$source" -o "$work/$name.native"
  "$compiler" "${flags[@]}" -fsanitize=thread "$here/$source" -o "$work/$name.tsan"
  "${wrapper[@]}" "${flags[@]}" "$here/$source" -o "$work/$name.pecan"
  read -r -a argv <<<"$arguments"

  native=() tsan=() calls=() recorded=()
  events=0 bytes=0
  for ((run = 0; run < runs; run++)); do
    native+=("$(time_run "$work/$name.native" "${argv[@]}")")
    tsan+=("$(time_run env TSAN_OPTIONS=exitcode=0 "$work/$name.tsan" "${argv[@]}")")
    calls+=("$(time_run env -u PECAN_MODE "$work/$name.pecan" "${argv[@]}")")
    trace="$work/$name.trace"
    # shellcheck disable=SC2086
    report=$("$pecan" record ${PECAN_BENCH_RECORD_ARGS:-} -o "$trace" -- "$work/$name.pecan" "${argv[@]}" 2>&1 >/dev/null)
    if [[ $report =~ recorded\ ([0-9]+)\ events.*\ in\ ([0-9.]+)\ s ]]; then
      events=${BASH_REMATCH[1]}
      recorded+=("${BASH_REMATCH[2]}")
    else
      echo "run.sh: unexpected output of pecan record: $report" >&2
      exit 1
    fi
    bytes=$(stat -c %s "$trace")
    rm -f "$trace"
  done
  native_s=$(printf '%s\n' "${native[@]}" | median)
  tsan_s=$(printf '%s\n' "${tsan[@]}" | median)
  calls_s=$(printf '%s\n' "${calls[@]}" | median)
  pecan_s=$(printf '%s\n' "${recorded[@]}" | median)
  awk -v n="$name" -v a="$native_s" -v t="$tsan_s" -v c="$calls_s" -v p="$pecan_s" -v e="$events" -v b="$bytes" 'BEGIN {
    printf "%-18s %9.3f %9.3f %6.1fx %7.1fx %9.3f %6.1fx %12d %10.1f %8.3f\n", n, a, t, t / a, c / a, p, p / a, e, e / p / 1e6, b / e
  }'
done
echo "(median of $runs runs; $cc / $cxx; $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
