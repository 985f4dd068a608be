#!/usr/bin/env bash
# run.sh: what AtomRace's noise costs (pecan fuzz --strategy noise). Builds bench/recorder's
# three workloads natively and with pecan's wrappers (smaller inputs than there: noise sleeps),
# and times, median of RUNS: the native program, `pecan record`, `pecan record` with the
# AtomRace monitor and no noise, and with the monitor and each heuristic's default noise
# (`pecan fuzz --strategy noise`'s defaults: random, 20 per mille of all accesses; location, 200
# per mille of 4 instructions of the first run's shared locations; each a 10 µs sleep, then a
# yield).
#
# Usage: bench/noise/run.sh [BUILD_DIR] [RUNS]   (default: build 5)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
recorder=$here/../recorder
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
pecan="$build/cli/pecan"
wrappers="$build/recorder/wrappers"
for needed in "$pecan" "$wrappers/pecan-cc" "$wrappers/pecan-c++"; do
  [ -x "$needed" ] || { echo "run.sh: $needed is missing; build pecan in $build first" >&2; exit 2; }
done

programs=(
  "matmul matmul.c 200 4"
  "producer_consumer producer_consumer.cpp 100000 2 2"
  "lockfree_stack lockfree_stack.cpp 300000 4"
)

work=$(mktemp -d "${TMPDIR:-/tmp}/pecan-bench-noise.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

time_run() {
  local start=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  local end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }'
}

printf '%-18s %9s %9s %9s %9s %9s\n' program native_s record_x monitor_x random_x location_x
for entry in "${programs[@]}"; do
  read -r name source arguments <<<"$entry"
  case $source in
    *.c) compiler=cc wrapper=("$wrappers/pecan-cc") ;;
    *) compiler=c++ wrapper=("$wrappers/pecan-c++") ;;
  esac
  flags=(-O2 -g -pthread)
  "$compiler" "${flags[@]}" "$recorder/$source" -o "$work/$name.native"
  "${wrapper[@]}" "${flags[@]}" "$recorder/$source" -o "$work/$name.pecan"
  read -r -a argv <<<"$arguments"
  report=$work/$name.noise
  native=() recorded=() monitor=()
  for ((run = 0; run < runs; run++)); do
    native+=("$(time_run "$work/$name.native" "${argv[@]}")")
    recorded+=("$(time_run "$pecan" record -o "$work/t" -- "$work/$name.pecan" "${argv[@]}")")
    monitor+=("$(time_run env PECAN_NOISE_REPORT="$report" "$pecan" record --repeats all -o "$work/t" -- "$work/$name.pecan" "${argv[@]}")")
  done
  # The noise runs as pecan fuzz makes them (each recorded with every repeat, by `pecan record`):
  # the median of their own times in fuzz.json. location's instructions come from a first run.
  for heuristic in random location; do
    "$pecan" fuzz --strategy noise --heuristic "$heuristic" --runs "$runs" -j 1 --timeout 600 \
      -o "$work/$name.$heuristic" -- "$work/$name.pecan" "${argv[@]}" >/dev/null 2>&1 || true
  done
  random=$(python3 -c 'import json,sys,statistics; print(statistics.median(r["seconds"] for r in json.load(open(sys.argv[1]))["runs"]))' "$work/$name.random/fuzz.json")
  location=$(python3 -c 'import json,sys,statistics; print(statistics.median(r["seconds"] for r in json.load(open(sys.argv[1]))["runs"]))' "$work/$name.location/fuzz.json")
  n=$(printf '%s\n' "${native[@]}" | median)
  awk -v name="$name" -v n="$n" -v r="$(printf '%s\n' "${recorded[@]}" | median)" \
    -v m="$(printf '%s\n' "${monitor[@]}" | median)" -v x="$random" -v l="$location" 'BEGIN {
    printf "%-18s %9.3f %8.1fx %8.1fx %8.1fx %8.1fx\n", name, n, r / n, m / n, x / n, l / n
  }'
done
echo "(median of $runs runs; $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
