#!/usr/bin/env bash
# Replay benchmark through the real runtime: builds two programs with pecan-cc, records each,
# writes the clip of the whole recorded run (`pecan clips --recorded`) and replays it RUNS
# times. Prints the median wall times (native, record, replay), the replay's events per second
# and, for the program that switches threads at almost every step, the cost per switch. Then the
# deterministic tail: a clip of the run's first 10 steps only (`pecan clips --recorded --steps
# 10`), so the rest of the run is serialized under the replay's seeded continuation; its time,
# the steps and switches it executed (from the clip of the executed run) and its steps/s.
#
# Usage: bench/replayer/run.sh [BUILD_DIR] [RUNS]
#   BUILD_DIR  a built pecan build tree (default: build): its pecan, libpecan_rt.so, wrappers
#   RUNS       runs per program (default 5); the median counts
# long_run stays on one thread (millions of events, two switches); ping_pong alternates two
# threads through semaphores. Times are spawn to exit of the whole command (pecan replay
# included: its start-up is a few ms).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-build}" && pwd)
runs=${2:-5}
pecan="$build/cli/pecan"
wrapper="$build/recorder/wrappers/pecan-cc"
for needed in "$pecan" "$wrapper"; do
  [ -x "$needed" ] || { echo "run.sh: $needed is missing; build pecan and pecan_rt in $build first" >&2; exit 2; }
done

# name, source, pecan record options, arguments. long_run records every access (--repeats all):
# by default its loop's repeats are counted, not recorded, and the replay would be 2,150 steps.
programs=(
  "long_run long_run.c --repeats=all 3000"
  "ping_pong ping_pong.c --repeats=drop 20000"
)

work=$(mktemp -d "${TMPDIR:-/tmp}/pecan-bench-replayer.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
time_run() {
  local start=$EPOCHREALTIME
  "$@" >/dev/null 2>&1
  local end=$EPOCHREALTIME
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.4f\n", e - s }'
}

printf '%-10s %9s %9s %9s %9s %9s %11s %12s | %8s %9s %9s %11s\n' program native_s record_s replay_s steps switches Msteps/s us/switch tail_s steps switches Msteps/s
for entry in "${programs[@]}"; do
  read -r name source record_options arguments <<<"$entry"
  read -r -a argv <<<"$arguments"
  cc -O2 -g -pthread "$here/$source" -o "$work/$name.native"
  "$wrapper" -O2 -g -pthread "$here/$source" -o "$work/$name"
  "$pecan" record -q "$record_options" -o "$work/$name.pecan" -- "$work/$name" "${argv[@]}" >/dev/null
  "$pecan" clips "$work/$name.pecan" --recorded -o "$work/$name.clips" >/dev/null
  clip="$work/$name.clips/recorded.clip"
  shape=$("$pecan" dump "$clip" | sed -n 's/^ *steps *\([0-9]*\) in \([0-9]*\) runs.*/\1 \2/p')
  read -r steps run_count <<<"$shape"
  # A replay that does not follow the clip to its end is not a measurement.
  "$pecan" replay -q "$clip" -- "$work/$name" "${argv[@]}" >/dev/null ||
    { echo "run.sh: the replay of $name did not follow its recorded run" >&2; exit 1; }
  # The tail: the first 10 steps from the clip, the rest under the seeded continuation. One
  # replay writes the clip of what it executed, to count its steps and switches.
  "$pecan" clips "$work/$name.pecan" --recorded --steps 10 -o "$work/$name.head" >/dev/null
  head_clip="$work/$name.head/recorded.clip"
  PECAN_EXECUTED_CLIP_ALWAYS=1 "$pecan" replay -q --failure-clip "$work/$name.executed.clip" \
    "$head_clip" -- "$work/$name" "${argv[@]}" >/dev/null ||
    { echo "run.sh: the replay of $name's first 10 steps did not run to the end" >&2; exit 1; }
  tail_shape=$("$pecan" dump "$work/$name.executed.clip" | sed -n 's/^ *steps *\([0-9]*\) in \([0-9]*\) runs.*/\1 \2/p')
  read -r tail_steps tail_runs <<<"$tail_shape"
  native=() recorded=() replayed=() tailed=()
  for ((run = 0; run < runs; run++)); do
    native+=("$(time_run "$work/$name.native" "${argv[@]}")")
    recorded+=("$(time_run "$pecan" record -q "$record_options" -o "$work/again.pecan" -- "$work/$name" "${argv[@]}")")
    replayed+=("$(time_run "$pecan" replay -q "$clip" -- "$work/$name" "${argv[@]}")")
    tailed+=("$(time_run "$pecan" replay -q "$head_clip" -- "$work/$name" "${argv[@]}")")
  done
  awk -v n="$name" -v a="$(printf '%s\n' "${native[@]}" | median)" \
      -v r="$(printf '%s\n' "${recorded[@]}" | median)" -v p="$(printf '%s\n' "${replayed[@]}" | median)" \
      -v s="$steps" -v w="$((run_count - 1))" -v t="$(printf '%s\n' "${tailed[@]}" | median)" \
      -v ts="$tail_steps" -v tw="$((tail_runs - 1))" 'BEGIN {
    printf "%-10s %9.3f %9.3f %9.3f %9d %9d %11.2f %12.2f | %8.3f %9d %9d %11.2f\n", n, a, r, p, s, w, s / p / 1e6, (w > 1000) ? p / w * 1e6 : 0, t, ts, tw, ts / t / 1e6
  }'
done
echo "(median of $runs runs; $(nproc) cores; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "us/switch: the whole replay time divided by the switches (an upper bound; 0 when the program barely switches)"
