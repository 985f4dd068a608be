#!/usr/bin/env bash
# Start/stop a throw-away single-node Slurm cluster (Debian 12, slurm-wlm 22.05)
# without systemd and without cgroups.  Everything (munge key and socket, logs,
# pid files, spool, state) lives under STATE_DIR; /etc is not touched.
#
#   needs: apt-get install -y --no-install-recommends \
#              slurmctld slurmd slurm-client munge
#   usage: single_node_slurm.sh start STATE_DIR   # then: . STATE_DIR/env
#          single_node_slurm.sh stop  STATE_DIR
#
# - OverSubscribe=FORCE:4 + CR_CPU: up to 4 one-CPU jobs share each CPU, so
#   8 array tasks run at once on 2 cores (no time slicing: PreemptMode=OFF).
# - batch_sched_delay=0: submit->start latency ~1 s instead of ~3 s.
# - kill_invalid_depend: a job whose afterok dependency failed is cancelled
#   instead of pending forever (DependencyNeverSatisfied).
# - slurmctld -c: every start begins with no jobs (nothing from a crashed run
#   is requeued); job ids keep counting up.
# - All traffic goes to 127.0.0.1, so `hostname -s` need not resolve.
# - Ports: SLURMCTLD_PORT / SLURMD_PORT (default 6817 / 6818).
set -euo pipefail

die() { echo "single_node_slurm: $*" >&2; exit 1; }

# Fail with message $1 and the tail of log $2.
die_log() {
  echo "single_node_slurm: $1; last lines of $2:" >&2
  tail -n 15 "$2" >&2 2>/dev/null || true
  exit 1
}

# True if process $1 exists and is not a zombie (pid 1 here reaps slowly).
running() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) && [[ ${st##*) } != Z* ]]
}

# Print the pid in file $1 if it is a running process named $2.
alive() {
  local pid
  [[ -s $1 ]] && pid=$(<"$1") && [[ $pid =~ ^[0-9]+$ ]] && running "$pid" &&
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]] && echo "$pid"
}

# Pids of the processes of the cluster with config $1, found without pid
# files: daemons, slurmstepd and job tasks all have SLURM_CONF=$1 in their
# environment.  So has a caller that sourced STATE_DIR/env, hence only
# processes named like a daemon (regex $2), or job tasks (SLURM_JOB_ID) if $3.
cluster_pids() {
  local e p env
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/} && p=${p%/environ}
    if [[ $p == "$$" ]] || ! running "$p"; then continue; fi
    env=$(tr '\0' '\n' 2>/dev/null <"$e") || continue
    grep -qxF "SLURM_CONF=$1" <<<"$env" || continue
    if [[ $(cat "/proc/$p/comm" 2>/dev/null) =~ ^($2)$ ]] ||
      { [[ -n ${3:-} ]] && grep -q '^SLURM_JOB_ID=' <<<"$env"; }; then
      echo "$p"
    fi
  done
}

do_stop() {
  local d=$1 pids p i jobs
  export SLURM_CONF=$d/slurm.conf
  # Cancel jobs first: a killed slurmd leaves slurmstepd and the jobs running.
  if alive "$d/run/slurmctld.pid" slurmctld >/dev/null &&
    jobs=$(squeue -h -o %A 2>/dev/null) && [[ -n $jobs ]]; then
    # shellcheck disable=SC2086  # one job id per word
    scancel $jobs 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do   # up to 10 s
      [[ -z $(squeue -h -o %A 2>/dev/null) ]] && break
      sleep 0.1
    done
  fi
  # SIGTERM the daemons (by pid file, and any lost one), wait up to 10 s;
  # then SIGKILL all that is left, including jobs of a crashed slurmd.
  pids=$(for f in slurmd slurmctld munged; do alive "$d/run/$f.pid" "$f" || true; done
    cluster_pids "$SLURM_CONF" 'munged|slurmctld|slurmd')
  # shellcheck disable=SC2086  # one pid per word
  [[ -z $pids ]] || kill $pids 2>/dev/null || true
  for p in $pids; do
    for ((i = 0; i < 100; i++)); do running "$p" || break; sleep 0.1; done
  done
  pids=$(cluster_pids "$SLURM_CONF" 'munged|slurm(ctld|d|stepd|scriptd)' tasks)
  # shellcheck disable=SC2086
  [[ -z $pids ]] || kill -9 $pids 2>/dev/null || true
  rm -f "$d"/run/*.pid
}

do_start() {
  local d=$1 host cpus mem_mb conf i f node state started t0
  [[ $(id -u) == 0 ]] || die "must run as root"
  for f in munged mungekey slurmctld slurmd scontrol; do
    command -v "$f" >/dev/null ||
      die "$f not found: apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge"
  done
  mkdir -p "$d"
  d=$(cd "$d" && pwd)          # Slurm wants absolute paths
  conf=$d/slurm.conf
  do_stop "$d"                 # leftovers of an earlier start, stale pid files
  # On any failure from here on, take down what was started.
  # shellcheck disable=SC2064  # expand $d now
  trap "do_stop $(printf %q "$d")" EXIT
  mkdir -p "$d/munge" "$d/run" "$d/log" "$d/state" "$d/spool"
  chmod 700 "$d/munge"         # munged wants a private key dir ...
  chmod 755 "$d/run"           # ... but a socket dir that all can search
  export SLURM_CONF=$conf      # also marks every process (see cluster_pids)

  # --- munge: own key, own socket (nothing in /etc/munge or /run/munge)
  [[ -s $d/munge/munge.key ]] || mungekey --create --keyfile="$d/munge/munge.key"
  : >"$d/log/munged.log"
  munged --key-file="$d/munge/munge.key" --socket="$d/run/munge.socket" \
    --pid-file="$d/run/munged.pid" --log-file="$d/log/munged.log" \
    --seed-file="$d/munge/munged.seed" ||
    die_log "munged failed to start" "$d/log/munged.log"

  # --- slurm.conf: one node named after this host
  host=$(hostname -s)
  cpus=$(nproc)
  mem_mb=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  cat >"$conf" <<EOF
ClusterName=pecan
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${SLURMCTLD_PORT:-6817}
SlurmdPort=${SLURMD_PORT:-6818}
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/run/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
PlugStackConfig=$d/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerParameters=batch_sched_delay=0
DependencyParameters=kill_invalid_depend
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
  : >"$d/plugstack.conf"       # keep /etc/slurm/plugstack.conf.d out
  printf 'export SLURM_CONF=%s\n' "$conf" >"$d/env"

  # --- daemons (both fork into the background)
  : >"$d/log/slurmctld.log"
  : >"$d/log/slurmd.log"
  slurmctld -c -f "$conf" || die_log "slurmctld failed to start" "$d/log/slurmctld.log"
  t0=$(date +%Y-%m-%dT%H:%M:%S)   # same format as SlurmdStartTime
  slurmd -f "$conf" || die_log "slurmd failed to start" "$d/log/slurmd.log"

  # --- wait up to 30 s until this slurmd has registered and the node takes
  # jobs (daemons that died are caught first: scontrol retries for long).
  i=$SECONDS
  while :; do
    for f in slurmctld slurmd; do     # pid files may take a moment to appear
      alive "$d/run/$f.pid" "$f" >/dev/null || ((SECONDS - i < 3)) ||
        die_log "$f is not running" "$d/log/$f.log"
    done
    node=$(timeout 3 scontrol -o show node "$host" 2>/dev/null || true)
    state=$(sed -n 's/.* State=\([^ ]*\).*/\1/p' <<<"$node")
    started=$(sed -n 's/.* SlurmdStartTime=\([^ ]*\).*/\1/p' <<<"$node")
    [[ $state =~ ^(IDLE|MIXED|ALLOCATED)$ && ! $started < $t0 ]] && break
    ((SECONDS - i < 30)) ||
      die_log "node $host not up after 30 s (State=${state:-?})" "$d/log/slurmd.log"
    sleep 0.1
  done
  trap - EXIT
  cat "$d/env"
}

[[ $# == 2 ]] || die "usage: $0 start|stop STATE_DIR"
case $1 in
  start) do_start "$2" ;;
  stop) if [[ -d $2 ]]; then do_stop "$(cd "$2" && pwd)"; fi ;;
  *) die "usage: $0 start|stop STATE_DIR" ;;
esac
