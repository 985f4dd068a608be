#!/bin/bash
# Submits a sharded `pecan triage` to Slurm: a job array of N shards, then the merge as a job
# that depends on all of them (afterok). Prints the two job ids.
#
#   pecan-triage-submit.sh -n N -o OUT [-p PARTITION] [-a 'TRIAGE OPTIONS'] TRACE|DIR...
#
# OUT and the traces must be on storage every node sees, at the same paths; give the traces as
# absolute paths (or submit from a shared directory: the jobs start in the submitting one).
# The merged summary is OUT/summary/summary.html; each shard's part is OUT/parts/K, its log
# OUT/logs/shard-K.log.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage="usage: $(basename "$0") -n N -o OUT [-p PARTITION] [-a 'TRIAGE OPTIONS'] TRACE|DIR..."
shards="" out="" partition="" triage_args=""
while getopts "n:o:p:a:h" option; do
  case $option in
    n) shards=$OPTARG ;;
    o) out=$OPTARG ;;
    p) partition=$OPTARG ;;
    a) triage_args=$OPTARG ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $shards =~ ^[1-9][0-9]*$ && -n $out && $# -gt 0 ]] || { echo "$usage" >&2; exit 2; }
command -v sbatch >/dev/null || { echo "$(basename "$0"): sbatch not found (is Slurm's client installed?)" >&2; exit 2; }
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
extra=()
[[ -n $partition ]] && extra+=(--partition "$partition")
export PECAN_TRACES="$*" PECAN_OUT="$out" PECAN_SHARDS="$shards" PECAN_TRIAGE_ARGS="$triage_args"
export PECAN="${PECAN:-$(command -v pecan || echo pecan)}"
array=$(sbatch --parsable "${extra[@]}" --array="0-$((shards - 1))" --export=ALL \
  --output="$out/logs/shard-%a.log" "$here/pecan-triage-shard.sbatch")
array=${array%%;*}  # --parsable prints "id" or "id;cluster"
merge=$(sbatch --parsable "${extra[@]}" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --export=ALL --output="$out/logs/merge.log" "$here/pecan-triage-merge.sbatch")
merge=${merge%%;*}
echo "shards: job array $array (0-$((shards - 1))); merge: job $merge (after all succeed)"
echo "result: $out/summary/summary.html once job $merge is done"
