#!/bin/bash
# compare_analyze.sh OLD NEW TRACE [ROUNDS] [ANALYZE ARGS...]
#
# CPU time (user + system) and peak memory of two `pecan` builds analyzing one recorded trace,
# run side by side, one on each of two cores, swapping cores every round (as compare_builds.sh
# does for bench_analyzer): on a shared VM whose speed drifts, their ratio holds where runs one
# after the other do not. Prints each round and the means. Needs two cores and taskset.
#
#   bench/analyzer/compare_analyze.sh /tmp/pecan_old build/cli/pecan t.pecan 6
#   bench/analyzer/compare_analyze.sh /tmp/pecan_old build/cli/pecan t.pecan 4 --patterns race
set -euo pipefail
if [[ $# -lt 3 ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1 new=$2 trace=$3 rounds=${4:-6}
shift $(($# < 4 ? 3 : 4))
extra=("$@")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # core binary name
  if ! /usr/bin/time -f "%U %S %M" -o "$out/$3.time" taskset -c "$1" "$2" analyze "$trace" \
    -f json -o "$out/$3.json" "${extra[@]}" > /dev/null 2> "$out/$3.err"; then
    echo "compare_analyze.sh: $2 failed on $trace: $(tail -1 "$out/$3.err")" >&2
    return 1
  fi
}
for round in $(seq "$rounds"); do
  run $((round % 2)) "$old" old &
  first=$!
  run $(((round + 1) % 2)) "$new" new &
  second=$!
  wait $first && wait $second || exit 1
  echo "$(awk '{ printf "%.2f %d", $1 + $2, $3 / 1024 }' "$out/old.time")" \
    "$(awk '{ printf "%.2f %d", $1 + $2, $3 / 1024 }' "$out/new.time")"
done | awk '{ printf "old %s s %s MB, new %s s %s MB\n", $1, $2, $3, $4; old += $1; new += $3 }
  END { if (NR) printf "means: old %.2f s, new %.2f s; new/old %.3f\n", old / NR, new / NR, new / old }'
