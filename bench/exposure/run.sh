#!/usr/bin/env bash
# run.sh: the exposure benchmark. Builds every program natively and with pecan's wrappers, runs
# each native binary RUNS times and each pecan binary FUZZ_RUNS times under each `pecan fuzz`
# strategy, and prints per program and strategy how often it failed and how soon.
#
# Usage: bench/exposure/run.sh [BUILD_DIR] [RUNS] [FUZZ_RUNS]
#   BUILD_DIR  a pecan build tree holding recorder/wrappers/pecan-cc and cli/pecan (default: build)
#   RUNS       native runs per program (default: 200)
#   FUZZ_RUNS  pecan fuzz runs per program and strategy (default: RUNS)
# Environment: STRATEGIES (default "random pct2 pct3"; also "racefuzzer", "drfinder",
# "noise-random", "noise-variable", "noise-location" (AtomRace's heuristics); "" for native stress
# only; add "hunt" for
# HUNT_RUNS runs of `pecan hunt`, default 5: each records a new run, predicts, replays and, when
# nothing failed, explores for the rest of its default 60 s budget; its column adds the mean
# wall time of a hunt and "cK": how many of 10 replays of the first exposing hunt's failure clip
# failed again);
# PROGRAMS (names without extension, default all).
# A native run fails when it exits non-zero, dies of a signal, or is still running after 5 s (a
# deadlock or hang); a fuzz run when pecan fuzz says it failed (its --timeout is 3 s); a hunt when
# one of its replays made the program fail (a deadlocked replay included) or its recorded run
# deadlocked or hung. Correct twins (`Expected failure: none`) must never fail.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
runs=${2:-200}
fuzz_runs=${3:-$runs}
hunt_runs=${HUNT_RUNS:-5}
run_timeout=5
fuzz_timeout=3
jobs=$(nproc)
wrappers=$build_dir/recorder/wrappers
pecan=$build_dir/cli/pecan
# The pecan fuzz strategies measured (STRATEGIES="random pct2 pct3" by default; "" for native only).
read -r -a strategies <<<"${STRATEGIES-random pct2 pct3}"
for wrapper in pecan-cc pecan-c++; do
  [ -x "$wrappers/$wrapper" ] || { echo "run.sh: no $wrappers/$wrapper; build pecan first" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pecan-exposure.XXXXXX")
[ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
[ "${#strategies[@]}" -eq 0 ] || [ -x "$pecan" ] || { echo "run.sh: no $pecan; build pecan first" >&2; exit 2; }
export here work runs run_timeout wrappers

# compile_program SOURCE: builds $work/NAME.native and $work/NAME.pecan with the same flags.
compile_program() {
  local source=$1 name native_compiler pecan_compiler standard
  name=$(basename "${source%.*}")
  case $source in
    *.c) native_compiler=cc; pecan_compiler=$wrappers/pecan-cc; standard=-std=c11 ;;
    *) native_compiler=c++; pecan_compiler=$wrappers/pecan-c++; standard=-std=c++20 ;;
  esac
  local flags=("$standard" -O1 -g -pthread -UNDEBUG -Wall -Wextra -Werror)
  "$native_compiler" "${flags[@]}" "$source" -o "$work/$name.native"
  "$pecan_compiler" "${flags[@]}" "$source" -o "$work/$name.pecan"
}

# stress_native NAME: runs the native binary RUNS times; writes "FAILURES FIRST_FAILURE HANGS
# MILLISECONDS" (the time of all runs).
stress_native() {
  local name=$1 failures=0 hangs=0 first=- status started
  exec 2>/dev/null # keep bash's "Aborted" job reports out of the table
  started=$(date +%s%N)
  for ((run = 1; run <= runs; run++)); do
    status=0
    timeout "$run_timeout" "$work/$name.native" >/dev/null 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
      failures=$((failures + 1))
      [ "$status" -eq 124 ] && hangs=$((hangs + 1))
      [ "$first" = - ] && first=$run
    fi
  done
  echo "$failures $first $hangs $((($(date +%s%N) - started) / 1000000))" >"$work/$name.stress"
}

# fuzz_strategy NAME STRATEGY: runs `pecan fuzz` FUZZ_RUNS times on the pecan binary under one
# strategy (random, pct2, pct3, racefuzzer) and writes "FAILED FIRST_FAILING_RUN FAILURE_KINDS
# ERRORS RUNS_WITH_A_REAL_RACE RUNS" (racefuzzer runs nothing when the first run shows no race).
fuzz_strategy() {
  local name=$1 strategy=$2 options out
  case $strategy in
    random) options=(--strategy random) ;;
    pct*) options=(--strategy pct --depth "${strategy#pct}") ;;
    racefuzzer) options=(--strategy racefuzzer) ;;
    drfinder) options=(--strategy drfinder) ;;
    noise-*) options=(--strategy noise --heuristic "${strategy#noise-}") ;;
  esac
  out=$work/$name.$strategy
  "$pecan" fuzz "${options[@]}" --runs "$fuzz_runs" --timeout "$fuzz_timeout" -j "$jobs" -o "$out" \
    -- "$work/$name.pecan" >"$out.log" 2>&1 || true
  python3 - "$out/fuzz.json" >"$out.result" <<'PY'
import json, sys
try:
    summary = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("- - - error 0 0 0 0")
    sys.exit()
runs = summary["runs"]
failing = [r for r in runs if r["outcome"] == "failed"]
first = min((r["seed"] - summary["seed"] + 1 for r in failing), default="-")
kinds = ",".join(sorted({r["failure"]["kind"] for r in failing})) or "-"
with_race = sum(1 for r in runs if r.get("races_total", 0) > 0)
# Distinct races (and atomicity violations) by their instructions, over all runs.
def key(finding):
    return tuple(finding[p]["site"].get("text", "") + finding[p]["kind"]
                 for p in ("first", "second", "third") if p in finding)
distinct = len({key(f) for r in runs for f in r.get("races", [])})
mean_ms = round(1000 * sum(r.get("seconds", 0) for r in runs) / max(len(runs), 1))
print(len(failing), first, kinds, summary["counts"]["errors"], with_race, len(runs), distinct,
      mean_ms)
PY
}

# hunt_program NAME: runs `pecan hunt` HUNT_RUNS times on the pecan binary and writes "EXPOSED
# FIRST_EXPOSING_HUNT FAILURE_KINDS ERRORS" like fuzz_strategy.
hunt_program() {
  local name=$1 run out status
  local started
  for ((run = 1; run <= hunt_runs; run++)); do
    out=$work/$name.hunt-$run
    status=0
    started=$(date +%s%N)
    "$pecan" hunt --record-timeout 10 --timeout 10 -j "$jobs" -o "$out" -- "$work/$name.pecan" \
      >"$out.log" 2>&1 || status=$?
    echo "$status $((($(date +%s%N) - started) / 1000000))" >"$out.status"
  done
  python3 - "$work/$name.hunt" "$hunt_runs" "$pecan" "$work/$name.pecan" \
    >"$work/$name.hunt.result" <<'PY'
import json, subprocess, sys
prefix, hunts, pecan, program = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
exposed, first, kinds, errors, milliseconds = 0, "-", set(), 0, 0
clip = None  # the failure clip of the first exposing hunt
for run in range(1, hunts + 1):
    status, elapsed = (int(field) for field in open(f"{prefix}-{run}.status").read().split())
    milliseconds += elapsed
    try:
        verdicts = json.load(open(f"{prefix}-{run}/verdicts.json"))
    except (OSError, ValueError):
        errors += 1
        continue
    failures = []  # (kind, clip that reproduces it)
    for f in verdicts["findings"]:
        if f.get("failed") and f.get("verdict"):
            failures.append((f["verdict"]["failure"], f["verdict"].get("failure_clip")))
    if verdicts.get("observed_hang"):
        hang = verdicts["observed_hang"]
        failures.append((hang.get("kind") or "hang", hang.get("clip")))
    # Exploring after the predictions: a fuzz run's failure whose clip failed every check.
    failures += [(f["kind"], f["clip"]) for f in verdicts.get("explore", {}).get("failures", [])
                 if f["checks_failed"] == f["checks"]]
    if status not in (0, 1):
        errors += 1
    if failures:
        exposed += 1
        first = run if first == "-" else first
        kinds.update(kind for kind, _ in failures)
        clip = clip or next((c for _, c in failures if c), None)
# "Reproducible": the first exposing hunt's failure clip replayed 10 times, each must fail again
# (the replay's bound is the hunt's --timeout plus 2 s, as hunt's own checks).
reproduced = "-"
if clip:
    reproduced = 0
    for _ in range(10):
        replay = subprocess.run([pecan, "replay", "--json", "--timeout", "12", clip, "--", program],
                                capture_output=True, text=True)
        lines = [l for l in replay.stdout.splitlines() if l.startswith("{")]
        verdict = json.loads(lines[-1]) if lines else {}
        reproduced += bool(verdict.get("failure"))
print(exposed, first, ",".join(sorted(kinds)) or "-", errors, reproduced, hunts, 0,
      round(milliseconds / hunts))
PY
}

# strategy_columns header | NAME: the per-strategy columns, "failed/RUNS first-failing-run";
# racefuzzer adds "rN", the runs that created a real race on their targeted pair ("no races":
# the first run showed none to target); drfinder "rN", the runs whose trace shows a race under
# happens-before; noise-* "rN dD", the runs that caught a race or atomicity violation and how many
# distinct ones (by instructions) they caught.
strategy_columns() {
  local strategy failed first kinds errors with_race done_runs distinct mean_ms
  for strategy in "${strategies[@]}"; do
    if [ "$1" = header ]; then
      if [ "$strategy" = hunt ]; then printf ' %-22s' hunt; else printf ' %-18s' "$strategy"; fi
      continue
    fi
    read -r failed first kinds errors with_race done_runs distinct mean_ms <"$work/$1.$strategy.result"
    if [ "$failed" = - ]; then
      printf ' %-18s' "error"
    elif [ "$strategy" = hunt ]; then
      printf ' %-22s' "$failed/$(runs_of "$strategy") $first $((mean_ms / 1000))s c$with_race"
    elif [[ $strategy == noise-* ]]; then
      printf ' %-18s' "$failed/$(runs_of "$strategy") $first r$with_race d$distinct"
    elif [ "$strategy" = racefuzzer ] && [ "$done_runs" = 0 ]; then
      printf ' %-18s' "no races"
    elif [ "$strategy" = racefuzzer ] || [ "$strategy" = drfinder ]; then
      printf ' %-18s' "$failed/$(runs_of "$strategy") $first r$with_race"
    else
      printf ' %-18s' "$failed/$(runs_of "$strategy") $first"
    fi
  done
}

runs_of() {
  if [ "$1" = hunt ]; then echo "$hunt_runs"; else echo "$fuzz_runs"; fi
}

strategy_false_failures() {
  local total=0 strategy failed first kinds errors with_race done_runs distinct mean_ms
  for strategy in "${strategies[@]}"; do
    read -r failed first kinds errors with_race done_runs distinct mean_ms <"$work/$1.$strategy.result"
    [ "$failed" = - ] && failed=$(runs_of "$strategy") errors=0
    total=$((total + failed + errors))
  done
  echo "$total"
}

expected_failure() {
  sed -n 's|^// Expected failure: ||p' "$1" | head -n 1
}

export -f compile_program stress_native
started=$(date +%s)
sources=()
for source in "$here"/*.c "$here"/*.cpp; do
  name=$(basename "${source%.*}")
  # PROGRAMS="a b" measures only those programs (default: all).
  if [ -z "${PROGRAMS:-}" ] || [[ " $PROGRAMS " == *" $name "* ]]; then sources+=("$source"); fi
done

echo "Building ${#sources[@]} programs (native and pecan) with $jobs jobs..." >&2
printf '%s\0' "${sources[@]}" | xargs -0 -P "$jobs" -I{} bash -c 'compile_program "$1"' _ {}

echo "Running each native binary $runs times (timeout ${run_timeout}s per run)..." >&2
for source in "${sources[@]}"; do basename "${source%.*}"; done |
  xargs -P "$jobs" -I{} bash -c 'stress_native "$1"' _ {}

if [ "${#strategies[@]}" -gt 0 ]; then
  echo "Running pecan fuzz (${strategies[*]}) $fuzz_runs times per program ($jobs runs at a time; hunt $hunt_runs times)..." >&2
  for source in "${sources[@]}"; do
    for strategy in "${strategies[@]}"; do
      if [ "$strategy" = hunt ]; then
        hunt_program "$(basename "${source%.*}")"
      else
        fuzz_strategy "$(basename "${source%.*}")" "$strategy"
      fi
    done
  done
fi

printf '%-32s %-10s %-22s %-10s' program expected native first-fail
strategy_columns header
printf '\n'
false_failures=0
fuzz_false_failures=0
correct_programs=0
for source in "${sources[@]}"; do
  name=$(basename "${source%.*}")
  expected=$(expected_failure "$source")
  read -r failures first hangs native_ms <"$work/$name.stress"
  native="$failures/$runs"
  [ "$hangs" -gt 0 ] && native="$native (${hangs} timed out)"
  printf '%-32s %-10s %-22s %-10s' "$name" "$expected" "$native" "$first"
  strategy_columns "$name"
  printf '\n'
  if [ "$expected" = none ]; then
    correct_programs=$((correct_programs + 1))
    false_failures=$((false_failures + failures))
    fuzz_false_failures=$((fuzz_false_failures + $(strategy_false_failures "$name")))
  fi
done

echo
echo "Correct twins: $false_failures false failures in $((correct_programs * runs)) native runs of $correct_programs programs (must be 0)"
if [ "${#strategies[@]}" -gt 0 ]; then
  per_program=0
  for strategy in "${strategies[@]}"; do per_program=$((per_program + $(runs_of "$strategy"))); done
  echo "Correct twins under pecan fuzz/hunt: $fuzz_false_failures false failures or errors in $((correct_programs * per_program)) runs (must be 0)"
fi
# Noise's cost: the mean time of a noise run (recorded, with its noise) against a native run,
# over the programs whose native runs did not hang.
for strategy in "${strategies[@]}"; do
  [[ $strategy == noise-* ]] || continue
  python3 - "$work" "$strategy" "$runs" "${sources[@]}" <<'PY'
import os, sys
work, strategy, runs, sources = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
native = noise = 0.0
programs = caught = with_race = total_runs = 0
for source in sources:
    name = os.path.splitext(os.path.basename(source))[0]
    failures, first, hangs, native_ms = open(f"{work}/{name}.stress").read().split()
    fields = open(f"{work}/{name}.{strategy}.result").read().split()
    if fields[0] == "-":
        continue
    with_race += int(fields[4]); total_runs += int(fields[5]); caught += int(fields[4]) > 0
    if int(hangs) > 0:
        continue
    programs += 1
    native += int(native_ms) / runs
    noise += int(fields[7])
print(f"{strategy}: races or atomicity violations caught in {with_race} of {total_runs} runs "
      f"({caught} of {len(sources)} programs); mean run {noise / max(programs, 1):.0f} ms "
      f"(recorded, with noise) against {native / max(programs, 1):.1f} ms native "
      f"over {programs} programs")
PY
done
echo "Total time: $(($(date +%s) - started)) s"
[ "$false_failures" -eq 0 ] && [ "$fuzz_false_failures" -eq 0 ]
