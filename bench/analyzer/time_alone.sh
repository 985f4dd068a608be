#!/bin/bash
# time_alone.sh OLD NEW [ROUNDS] [PATTERNS] [SIZE] [TRACE_DIR]
#
# CPU time (user + system) of two bench_analyzer builds run one at a time, alternating, with the
# memory latency measured just before each run where the build prints it (memory_latency.h). On
# a shared VM both drift together from minute to minute: the latency says whether a set of runs
# came in a fast phase of the machine or a slow one. For a ratio of two builds, compare_builds.sh
# runs them side by side instead.
#
#   bench/analyzer/time_alone.sh /tmp/bench_old build/bench/analyzer/bench_analyzer 10 all 1e7
set -euo pipefail
if [[ $# -lt 2 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1 new=$2 rounds=${3:-10} patterns=${4:-all} size=${5:-1e7} traces=${6:-/tmp/benchfiles}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # name binary: one run; prints "name cpu-seconds latency-ns" (latency "-" if not printed)
  /usr/bin/time -f "%U %S" -o "$out/time" "$2" --from-file "$traces" --patterns "$patterns" \
    --sizes "$size" > "$out/out"
  if grep -q "cpu s" "$out/out"; then  # the measured child's CPU, without the latency probes
    cpu=$(awk '/cpu s/ { for (k = 1; k <= NF; ++k) if ($k != "s" && ++n && $k == "cpu") column = n }
               column && $1 ~ /^[0-9]+$/ { printf "%.2f", $column }' "$out/out")
  else
    cpu=$(awk '{printf "%.2f", $1 + $2}' "$out/time")
  fi
  latency=$(awk '/memory latency before/ { print $4 }' "$out/out")
  echo "$1 $cpu ${latency:--}"
}
for round in $(seq "$rounds"); do
  if ((round % 2)); then run old "$old"; run new "$new"; else run new "$new"; run old "$old"; fi
done | tee "$out/runs" | awk '{ printf "%s %s s%s\n", $1, $2, $3 == "-" ? "" : " (latency " $3 " ns)" }'
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for name in old new; do
  cpus=$(awk -v n=$name '$1 == n { print $2 }' "$out/runs")
  latencies=$(awk -v n=$name '$1 == n && $3 != "-" { print $3 }' "$out/runs")
  printf "%s: %s-%s s, median %s" $name "$(echo "$cpus" | sort -n | head -1)" \
    "$(echo "$cpus" | sort -n | tail -1)" "$(echo "$cpus" | median)"
  [[ -n "$latencies" ]] && printf "; latency before its runs: median %s ns" "$(echo "$latencies" | median)"
  echo
done
