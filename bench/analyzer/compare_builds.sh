#!/bin/bash
# compare_builds.sh OLD NEW [ROUNDS] [PATTERNS] [SIZE] [TRACE_DIR]
#
# CPU time (user + system) of two bench_analyzer builds run side by side, one on each of two
# cores, swapping cores every round: both see the same machine at the same moment, so their
# ratio holds on a machine whose speed drifts from minute to minute (a shared VM), where runs
# one after the other do not. They do share the memory bandwidth and last-level cache, so the
# absolute times are above those of a run alone. Needs two cores and taskset.
#
#   bench/analyzer/compare_builds.sh /tmp/bench_old build/bench/analyzer/bench_analyzer 6 all 1e7
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1 new=$2 rounds=${3:-6} patterns=${4:-all} size=${5:-1e7} traces=${6:-/tmp/benchfiles}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpu_seconds() {  # core binary file: runs the bench on that core, writes user + system seconds
  /usr/bin/time -f "%U %S" -o "$3.time" taskset -c "$1" "$2" --from-file "$traces" \
    --patterns "$patterns" --sizes "$size" > "$3.out"
  # The measured child's CPU ("cpu s"), where the build prints it: the process's total would
  # also count its memory latency probes. Older builds print no such column.
  if grep -q "cpu s" "$3.out"; then
    awk '/cpu s/ { for (k = 1; k <= NF; ++k) if ($k != "s" && ++n && $k == "cpu") column = n }
         column && $1 ~ /^[0-9]+$/ { printf "%.2f\n", $column }' "$3.out" > "$3"
  else
    awk '{printf "%.2f\n", $1 + $2}' "$3.time" > "$3"
  fi
}
for round in $(seq "$rounds"); do
  first=$((round % 2)) second=$(((round + 1) % 2))
  cpu_seconds "$first" "$old" "$out/old" &
  cpu_seconds "$second" "$new" "$out/new" &
  wait
  echo "$(cat "$out/old") $(cat "$out/new")"
done | awk '{ old += $1; new += $2; pairs = pairs sprintf(" %s/%s", $1, $2); wins += $2 < $1 }
  END { printf "old %.2f s, new %.2f s (means); new/old %.3f; new faster in %d of %d pairs:%s\n",
               old / NR, new / NR, new / old, wins, NR, pairs }'
