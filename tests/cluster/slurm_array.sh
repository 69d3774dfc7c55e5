#!/usr/bin/env bash
# A real Slurm run of a sharded campaign (CTest label `cluster`; docs/scale.md):
#   1. installs Debian's slurm-wlm and munge (root or sudo; nothing else installs them),
#   2. starts munged, slurmctld and slurmd for a one-node cluster on 127.0.0.1 in a scratch
#      directory (ports 16817/16818), all stopped by a trap whatever happens,
#   3. submits examples/cluster/slurm/submit.sh: a 4-task job array of shards (each picks its shard
#      from SLURM_ARRAY_TASK_ID) and a dependent merge job,
#   4. runs one process over the same seed space and checks that the merged report equals it
#      (tests/cluster/compare_reports.py: same clauses, cases, counterexamples, accuracy).
# Usage: slurm_array.sh CLI SUT WORKDIR [CASES_PER_SHARD]   (the broken SUT gives counterexamples)
set -euo pipefail
cli=$(realpath "$1") sut=$(realpath "$2") work=$3 cases=${4:-500}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shards=4 seed=23
fail() { echo "FAIL: $*" >&2; exit 1; }
start=$(date +%s.%N)

sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends slurm-wlm munge > /dev/null
fi
installed=$(date +%s.%N)

rm -rf "$work" && mkdir -p "$work"/{state,spool,munge,campaign}
work=$(realpath "$work")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do "${sudo_cmd[@]}" kill "$pid" 2> /dev/null || true; done
  sleep 1
  for pid in "${pids[@]}"; do "${sudo_cmd[@]}" kill -9 "$pid" 2> /dev/null || true; done
}
trap cleanup EXIT INT TERM

# munge: a fresh key and socket of our own, so a system munged (if any) is left alone.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 711 "$work/munge" && chmod 400 "$work/munge/munge.key"
"${sudo_cmd[@]}" munged --force --foreground --socket="$work/munge/socket" \
  --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" > "$work/munge/out" 2>&1 &
pids+=($!)

cat > "$work/slurm.conf" << CONF
ClusterName=aclnnconform
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
for _ in $(seq 50); do [ -S "$work/munge/socket" ] && break; sleep 0.1; done
[ -S "$work/munge/socket" ] || fail "munged did not start: $(cat "$work/munge/munged.log")"
"${sudo_cmd[@]}" env SLURM_CONF="$SLURM_CONF" slurmctld -D -i -f "$SLURM_CONF" > "$work/slurmctld.out" 2>&1 &
pids+=($!)
"${sudo_cmd[@]}" env SLURM_CONF="$SLURM_CONF" slurmd -D -N localhost -f "$SLURM_CONF" > "$work/slurmd.out" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 60); do
  node_state=$(sinfo -h -o '%t' 2> /dev/null || true)
  if grep -qE '^(idle|mix|alloc)' <<< "$node_state"; then up=1 && break; fi
  sleep 0.5
done
[ -n "$up" ] || { tail -20 "$work"/slurm*.log; fail "the Slurm node did not come up"; }
ready=$(date +%s.%N)

# The documented example, as a user submits it.
merge_job=$(cd "$work/campaign" && ACLNN_CONFORM=$cli SUT=$sut OUT=$work/campaign SHARDS=$shards \
  CASES_PER_SHARD=$cases SEED=$seed TIER=smoke "$root/examples/cluster/slurm/submit.sh")
echo "submitted: merge job $merge_job after a $shards-task array"
done_=""
for _ in $(seq 1200); do
  state=$(scontrol show job "$merge_job" 2> /dev/null | grep -oE 'JobState=[A-Z_]+' | cut -d= -f2)
  case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) done_=1 && break ;; esac
  sleep 0.5
done
[ -n "$done_" ] || { squeue; fail "the merge job did not finish"; }
finished=$(date +%s.%N)
# The merge job's exit status is the verdict: 1 (deviations) for the broken SUT, 0 for a
# conformant one; anything else (2: a shard missing or of another campaign) is a failure.
exit_code=$(scontrol show job "$merge_job" | grep -oE ' ExitCode=[0-9]+' | cut -d= -f2)
[ "$exit_code" -le 1 ] || fail "merge job exit status $exit_code: $(cat "$work"/campaign/*merge*.log)"
for i in $(seq 0 $((shards - 1))); do
  grep -q '"shard": "'"$i/$shards"'"' "$work/campaign/shard-$i/report.json" ||
    fail "shard-$i did not run shard $i/$shards"
  grep -q '"shard_source": "SLURM_ARRAY_TASK_ID"' "$work/campaign/shard-$i/report.json" ||
    fail "shard-$i did not take its shard from Slurm"
done
[ -s "$work/campaign/merged/report.json" ] || fail "no merged report ($(cat "$work"/campaign/*merge*.log))"

# One process over the same seed space.
set +e
"$cli" run --sut "$sut" --cases $((cases * shards)) --seed $seed --tier smoke --jobs 1 --no-corpus \
  --quiet --out "$work/single" > "$work/single.log" 2>&1
set -e
python3 "$here/compare_reports.py" "$work/campaign/merged/report.json" "$work/single/report.json" ||
  fail "the merged Slurm report differs from one process"
end=$(date +%s.%N)
python3 - "$start" "$installed" "$ready" "$finished" "$end" "$work" << 'PY'
import json, sys
start, installed, ready, finished, end = map(float, sys.argv[1:6])
work = sys.argv[6]
shard_seconds = [json.load(open(f"{work}/campaign/shard-{i}/report.json"))["seconds"] for i in range(4)]
merged = json.load(open(f"{work}/campaign/merged/report.json"))
single = json.load(open(f"{work}/single/report.json"))
print(f"figures: install {installed - start:.1f} s, cluster up {ready - installed:.1f} s, "
      f"array + merge {finished - ready:.1f} s (shards {', '.join(f'{s:.1f}' for s in shard_seconds)} s), "
      f"single process {single['seconds']:.1f} s; {merged['cases']} cases, "
      f"{len(merged['deviations'])} counterexamples; total {end - start:.1f} s")
PY
echo "Slurm array + merge job equals one process"
