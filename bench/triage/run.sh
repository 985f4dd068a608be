#!/usr/bin/env bash
# run.sh: `pecan triage` sharded over N machines, measured on one. Records a corpus of TRACES
# traces (the bundled examples, round robin: what a test suite's nightly run leaves), then
# triages it whole and in 2 and 4 shards:
#   - each shard alone, as it would run on a machine of its own (--jobs 2 on this 2-core
#     machine): its wall time and peak memory (/usr/bin/time's maximum resident set size);
#   - all N shards at once on this one node (--jobs 1 each when N > 1), then the merge;
#   - the merge of the N parts: wall time and peak memory.
# Then the 100-node projection from measured parts: the corpus cut into 100 shards, each shard
# triaged alone (as on its own node) and the 100 parts merged; projected wall time = the
# slowest shard + the merge (scheduling latency not included).
#
# Usage: bench/triage/run.sh [BUILD_DIR] [TRACES]   (default: build 1000)
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
count=${2:-1000}
pecan="$build/cli/pecan"
examples="$build/examples"
[ -x "$pecan" ] || { echo "run.sh: $pecan is missing; build pecan in $build first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
programs=(lost_update pecan_figure1 lazy_init account_invariant openjms_init_race
          racefuzzer_example drfinder_hidden_race jigsaw_event_queue queue_size_pop
          correct_condvar correct_fork_join correct_publication)
for p in "${programs[@]}"; do
  [ -x "$examples/$p" ] || { echo "run.sh: $examples/$p is missing; build the examples" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pecan-bench-triage.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
mkdir -p "$work/traces"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$build/recorder/wrappers/pecan-c++" -O2 -g -pthread "$here/../recorder/producer_consumer.cpp" \
  -o "$work/producer_consumer"

# The corpus: two recordings at a time.
record() {
  local i=$1 name
  if ((i % 20 == 19)); then
    name=$(printf '%04d' "$i")-producer_consumer.pecan
    "$pecan" record -q -o "$work/traces/$name" -- "$work/producer_consumer" \
      $((1000 + i * 37 % 9000)) 2 2 >/dev/null 2>&1
  else
    read -r -a list <<<"$PROGRAMS"
    local p=${list[$((i % ${#list[@]}))]}
    "$pecan" record -q -o "$work/traces/$(printf '%04d' "$i")-$p.pecan" -- "$examples/$p" >/dev/null 2>&1
  fi
}
export -f record
export pecan examples work PROGRAMS="${programs[*]}"
seq 0 $((count - 1)) | xargs -P 2 -I{} bash -c 'record {}'
bytes=$(du -sb "$work/traces" | cut -f1)
echo "corpus: $(find "$work/traces" -name '*.pecan' | wc -l) traces, $((bytes / 1024)) KiB"

# "seconds peak-KiB" of one command, its output discarded.
measure() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>&1 || [ $? -le 1 ]
  cat "$work/time"
}
cd "$work"

printf '\n%-8s %-24s %-24s %-20s %-18s\n' shards "slowest shard alone" "all at once, one node" "merge" "same as whole?"
for n in 1 2 4; do
  slowest=0 peak=0
  for ((k = 0; k < n; k++)); do
    read -r s m < <(measure "$pecan" triage traces --shard "$k/$n" -o "alone-$n/$k" --jobs 2)
    slowest=$(awk -v a="$slowest" -v b="$s" 'BEGIN { print (b > a) ? b : a }')
    [ "$m" -gt "$peak" ] && peak=$m
  done
  jobs=$((n > 1 ? 1 : 2))
  start=$EPOCHREALTIME
  for ((k = 0; k < n; k++)); do
    "$pecan" triage traces --shard "$k/$n" -o "together-$n/$k" --jobs "$jobs" >/dev/null 2>&1 &
  done
  wait
  together=$(awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.2f", e - s }')
  parts=()
  for ((k = 0; k < n; k++)); do parts+=("together-$n/$k"); done
  read -r ms mm < <(measure "$pecan" triage merge -o "merged-$n" "${parts[@]}")
  if [ "$n" = 1 ]; then cp -r merged-1 whole; fi
  same=$(cmp -s <(grep -v '"seconds"' whole/summary.json) <(grep -v '"seconds"' "merged-$n/summary.json") &&
         diff -rq whole/clips "merged-$n/clips" >/dev/null && echo yes || echo NO)
  printf '%-8s %-24s %-24s %-20s %-18s\n' "$n" "${slowest} s, $((peak / 1024)) MiB" \
    "$(awk -v t="$together" -v m="$ms" 'BEGIN { printf "%.2f s with merge", t + m }')" \
    "${ms} s, $((mm / 1024)) MiB" "$same"
done

# 100 nodes, one shard each: every shard measured alone, then the merge of the 100 parts.
slowest=0 total=0 peak=0
for ((k = 0; k < 100; k++)); do
  read -r s m < <(measure "$pecan" triage traces --shard "$k/100" -o "p100/$k" --jobs 2)
  slowest=$(awk -v a="$slowest" -v b="$s" 'BEGIN { print (b > a) ? b : a }')
  total=$(awk -v a="$total" -v b="$s" 'BEGIN { print a + b }')
  [ "$m" -gt "$peak" ] && peak=$m
done
parts=()
for ((k = 0; k < 100; k++)); do parts+=("p100/$k"); done
read -r ms mm < <(measure "$pecan" triage merge -o merged-100 "${parts[@]}")
same=$(cmp -s <(grep -v '"seconds"' whole/summary.json) <(grep -v '"seconds"' merged-100/summary.json) &&
       diff -rq whole/clips merged-100/clips >/dev/null && echo yes || echo NO)
echo
echo "100 shards of $count traces, each alone: slowest $slowest s (sum $total s), peak $((peak / 1024)) MiB;"
echo "merge of 100 parts: $ms s, $((mm / 1024)) MiB; merged result the same as the whole triage: $same"
awk -v s="$slowest" -v m="$ms" 'BEGIN { printf "projected on 100 nodes: %.2f s (slowest shard + merge)\n", s + m }'
