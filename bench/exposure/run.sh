#!/usr/bin/env bash
# run.sh: the exposure benchmark. Builds every program natively and with pecan's wrappers, runs
# each native binary RUNS times and prints per program how often it failed and how soon.
#
# Usage: bench/exposure/run.sh [BUILD_DIR] [RUNS]
#   BUILD_DIR  a pecan build tree holding recorder/wrappers/pecan-cc (default: build)
#   RUNS       runs per program and strategy (default: 200)
# A run fails when it exits non-zero, dies of a signal, or is still running after RUN_TIMEOUT
# seconds (a deadlock or hang). Correct twins (`Expected failure: none`) must never fail.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
runs=${2:-200}
run_timeout=5
jobs=$(nproc)
wrappers=$build_dir/recorder/wrappers
for wrapper in pecan-cc pecan-c++; do
  [ -x "$wrappers/$wrapper" ] || { echo "run.sh: no $wrappers/$wrapper; build pecan first" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pecan-exposure.XXXXXX")
trap 'rm -rf "$work"' EXIT
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

# stress_native NAME: runs the native binary RUNS times; writes "FAILURES FIRST_FAILURE HANGS".
stress_native() {
  local name=$1 failures=0 hangs=0 first=- status
  exec 2>/dev/null # keep bash's "Aborted" job reports out of the table
  for ((run = 1; run <= runs; run++)); do
    status=0
    timeout "$run_timeout" "$work/$name.native" >/dev/null 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
      failures=$((failures + 1))
      [ "$status" -eq 124 ] && hangs=$((hangs + 1))
      [ "$first" = - ] && first=$run
    fi
  done
  echo "$failures $first $hangs" >"$work/$name.stress"
}

# strategy_columns header | NAME PECAN_BINARY: the per-strategy columns of the table. This is
# where `pecan fuzz --strategy random|pct --depth 2|3 --runs RUNS -o DIR -- PECAN_BINARY` goes
# (exit 1 when a run failed; DIR/fuzz.json lists runs: [{seed, outcome, failure: {kind,
# message}}]). Each column prints "failed/RUNS first-failing-run"; until then it prints nothing.
strategy_columns() {
  :
}

expected_failure() {
  sed -n 's|^// Expected failure: ||p' "$1" | head -n 1
}

export -f compile_program stress_native
started=$(date +%s)
sources=("$here"/*.c "$here"/*.cpp)

echo "Building ${#sources[@]} programs (native and pecan) with $jobs jobs..." >&2
printf '%s\0' "${sources[@]}" | xargs -0 -P "$jobs" -I{} bash -c 'compile_program "$1"' _ {}

echo "Running each native binary $runs times (timeout ${run_timeout}s per run)..." >&2
for source in "${sources[@]}"; do basename "${source%.*}"; done |
  xargs -P "$jobs" -I{} bash -c 'stress_native "$1"' _ {}

printf '%-32s %-10s %-22s %-10s' program expected native first-fail
strategy_columns header
printf '\n'
false_failures=0
correct_programs=0
for source in "${sources[@]}"; do
  name=$(basename "${source%.*}")
  expected=$(expected_failure "$source")
  read -r failures first hangs <"$work/$name.stress"
  native="$failures/$runs"
  [ "$hangs" -gt 0 ] && native="$native (${hangs} timed out)"
  printf '%-32s %-10s %-22s %-10s' "$name" "$expected" "$native" "$first"
  strategy_columns "$name" "$work/$name.pecan"
  printf '\n'
  if [ "$expected" = none ]; then
    correct_programs=$((correct_programs + 1))
    false_failures=$((false_failures + failures))
  fi
done

echo
echo "Correct twins: $false_failures false failures in $((correct_programs * runs)) runs of $correct_programs programs (must be 0)"
echo "Total time: $(($(date +%s) - started)) s"
[ "$false_failures" -eq 0 ]
