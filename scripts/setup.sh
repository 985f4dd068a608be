#!/usr/bin/env bash
# Installs the Debian packages pecan needs to build, test and run. Idempotent: installs only
# what is missing and prints nothing when everything is already present. Needs root or sudo.
set -euo pipefail

packages=(
  cmake make g++ clang             # build; clang is also a supported compiler for instrumented programs
  libclang-rt-14-dev               # clang's sanitizer runtimes (the test script's ASan + UBSan build)
  pkg-config
  libboost-graph-dev               # the partial/temporal order graph (analyzer)
  libprotobuf-dev protobuf-compiler  # trace, clip and report schemas
  libzstd-dev                      # compression of trace chunks
  catch2                           # unit tests (v2)
  libcli11-dev                     # the pecan command line
  libdw-dev libelf-dev             # offline symbolization of sites (elfutils)
  nlohmann-json3-dev               # JSON and SARIF reports
  python3-jsonschema               # the SARIF test validates reports against the OASIS schema
  gdb                              # pecan replay --gdb
  chromium                         # headless browser: the triage test loads summary.html in it
  slurmctld slurmd slurm-client munge  # a single-node Slurm: triage shards as a real job array
  time                             # /usr/bin/time: peak memory in bench/triage
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
