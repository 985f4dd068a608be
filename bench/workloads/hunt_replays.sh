#!/usr/bin/env bash
# hunt_replays.sh: how many replays `pecan hunt` spends on pcompress (correct: every prediction
# is refuted, so the ranking's cost is its total), per hunt: predictions, sound ones, replays,
# refuted, confirmed, and the wall time of the hunt without exploring.
#
# Usage: bench/workloads/hunt_replays.sh [PECAN] [PROGRAM] [RUNS]
#   PECAN    the pecan binary (default build/cli/pecan); an older build measures "before"
#   PROGRAM  the instrumented pcompress (default build/bench/workloads/pcompress)
#   RUNS     hunts (default 3; each records a new run)
set -euo pipefail
pecan=${1:-build/cli/pecan}
program=${2:-build/bench/workloads/pcompress}
runs=${3:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/pecan-hunt-replays.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '%-4s %12s %6s %8s %8s %10s %8s\n' run predictions sound replays refuted confirmed seconds
for ((run = 1; run <= runs; run++)); do
  started=$(date +%s%N)
  "$pecan" hunt --no-explore -o "$work/out-$run" -- "$program" >"$work/hunt-$run.log" 2>&1 || true
  elapsed=$((($(date +%s%N) - started) / 1000000))
  python3 - "$work/out-$run/verdicts.json" "$run" "$elapsed" <<'PY'
import json, sys
verdicts = json.load(open(sys.argv[1]))
counts = verdicts["counts"]
findings = verdicts["findings"]
sound = sum(1 for f in findings if f.get("sound") or f.get("happens_before_race"))
replays = sum(1 for f in findings if (f.get("verdict") or {}).get("outcome"))
print(f'{sys.argv[2]:<4} {counts["predicted"]:>12} {sound:>6} {replays:>8} {counts["refuted"]:>8} '
      f'{counts["confirmed"]:>10} {int(sys.argv[3]) / 1000:>8.1f}')
PY
done
echo "($pecan on $program; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg))"
