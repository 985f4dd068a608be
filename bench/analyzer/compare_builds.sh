#!/bin/bash
# compare_builds.sh [--alone] OLD NEW [ROUNDS] [PATTERNS] [SIZE] [TRACE_DIR]
#
# CPU time (user + system) of two bench_analyzer builds run side by side, one on each of two
# cores, swapping cores every round: both see the same machine at the same moment, so their
# ratio holds on a machine whose speed drifts from minute to minute (a shared VM), where runs
# one after the other do not. They do share the memory bandwidth and last-level cache, so the
# absolute times are above those of a run alone. Needs two cores and taskset.
#
# --alone: one run at a time instead, alternating, each with the memory latency the build
# measured just before it (memory_latency.h; "-" from builds that do not print it): the latency
# says whether a set of runs came in a fast phase of the machine or a slow one.
#
#   bench/analyzer/compare_builds.sh /tmp/bench_old build/bench/analyzer/bench_analyzer 6 all 1e7
#   bench/analyzer/compare_builds.sh --alone /tmp/bench_old build/bench/analyzer/bench_analyzer 10
set -euo pipefail
alone=false
if [[ ${1:-} == --alone ]]; then
  alone=true
  shift
fi
if [[ $# -lt 2 ]]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1 new=$2 rounds=${3:-6} patterns=${4:-all} size=${5:-1e7} traces=${6:-/tmp/benchfiles}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# core binary file: runs the bench (on that core, unless "-"); writes "cpu-seconds latency-ns" to
# the file. The CPU is the measured child's ("cpu s") where the build prints it: the process's
# total would also count its latency probes. Older builds print neither.
run() {
  local pin=()
  [[ $1 != - ]] && pin=(taskset -c "$1")
  /usr/bin/time -f "%U %S" -o "$3.time" "${pin[@]}" "$2" --from-file "$traces" \
    --patterns "$patterns" --sizes "$size" > "$3.out"
  local cpu latency
  if grep -q "cpu s" "$3.out"; then
    cpu=$(awk '/cpu s/ { for (k = 1; k <= NF; ++k) if ($k != "s" && ++n && $k == "cpu") column = n }
               column && $1 ~ /^[0-9]+$/ { printf "%.2f", $column }' "$3.out")
  else
    cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$3.time")
  fi
  latency=$(awk '/memory latency before/ { print $4 }' "$3.out")
  echo "$cpu ${latency:--}" > "$3"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

if ! $alone; then
  for round in $(seq "$rounds"); do
    first=$((round % 2)) second=$(((round + 1) % 2))
    run "$first" "$old" "$out/old" &
    run "$second" "$new" "$out/new" &
    wait
    echo "$(cut -d' ' -f1 "$out/old") $(cut -d' ' -f1 "$out/new")"
  done | awk '{ old += $1; new += $2; pairs = pairs sprintf(" %s/%s", $1, $2); wins += $2 < $1 }
    END { printf "old %.2f s, new %.2f s (means); new/old %.3f; new faster in %d of %d pairs:%s\n",
                 old / NR, new / NR, new / old, wins, NR, pairs }'
  exit 0
fi

for round in $(seq "$rounds"); do
  order=(old new)
  ((round % 2)) || order=(new old)
  for name in "${order[@]}"; do
    if [[ $name == old ]]; then run - "$old" "$out/run"; else run - "$new" "$out/run"; fi
    echo "$name $(cat "$out/run")"
  done
done > "$out/runs"
awk '{ printf "%s %s s%s\n", $1, $2, $3 == "-" ? "" : " (latency " $3 " ns)" }' "$out/runs"
for name in old new; do
  cpus=$(awk -v n=$name '$1 == n { print $2 }' "$out/runs" | sort -n)
  latencies=$(awk -v n=$name '$1 == n && $3 != "-" { print $3 }' "$out/runs")
  printf "%s: %s-%s s, median %s" $name "$(echo "$cpus" | head -1)" "$(echo "$cpus" | tail -1)" \
    "$(echo "$cpus" | median)"
  [[ -n $latencies ]] && printf "; latency before its runs: median %s ns" "$(echo "$latencies" | median)"
  echo
done
