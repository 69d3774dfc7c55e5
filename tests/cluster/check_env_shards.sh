#!/usr/bin/env bash
# Shards picked from the scheduler's environment, without a scheduler: four runs with a Slurm job
# array's variables and three with a Kubernetes Indexed Job's merge into reports equal to one
# process over the whole seed space (tests/cluster/compare_reports.py), and record their source.
# The real Slurm run is tests/cluster/slurm_array.sh (label `cluster`).
set -uo pipefail
cli=$1 broken=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
common=(--sut "$broken" --tier smoke --seed 11 --jobs 1 --no-corpus --quiet)
run() { "$@" > "$work/last.log" 2>&1; local rc=$?; [ $rc -le 1 ] || { cat "$work/last.log"; fail "exit $rc: $*"; }; }

# sbatch --array=1-4: tasks 1..4 are shards 0..3.
for id in 1 2 3 4; do
  SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4 SLURM_ARRAY_TASK_COUNT=4 \
    run "$cli" run "${common[@]}" --cases 90 --out "$work/slurm-$id"
done
grep -q '"shard": "3/4"' "$work/slurm-4/report.json" || fail "task 4 of 1-4 is not shard 3/4"
grep -q '"shard_source": "SLURM_ARRAY_TASK_ID"' "$work/slurm-4/report.json" || fail "no Slurm source"
run "$cli" merge "$work"/slurm-{1,2,3,4} --out "$work/slurm-merged"
run "$cli" run "${common[@]}" --cases 360 --out "$work/single-360"
python3 "$here/compare_reports.py" "$work/slurm-merged/report.json" "$work/single-360/report.json" ||
  fail "merged Slurm shards differ from one process"

# Kubernetes Indexed Job with completions: 3.
for index in 0 1 2; do
  JOB_COMPLETION_INDEX=$index run "$cli" run "${common[@]}" --cases 90 --shard-count 3 \
    --out "$work/k8s-$index"
done
grep -q '"shard_source": "JOB_COMPLETION_INDEX"' "$work/k8s-2/report.json" || fail "no k8s source"
run "$cli" merge "$work"/k8s-{0,1,2} --out "$work/k8s-merged"
run "$cli" run "${common[@]}" --cases 270 --out "$work/single-270"
python3 "$here/compare_reports.py" "$work/k8s-merged/report.json" "$work/single-270/report.json" ||
  fail "merged Indexed Job shards differ from one process"

# The counterexamples compared must exist (the broken library deviates), and bad set-ups are
# usage errors naming the variable.
grep -q '"clause"' "$work/single-360/report.json" || fail "no counterexample to compare"
JOB_COMPLETION_INDEX=0 "$cli" run "${common[@]}" --cases 1 --out "$work/x" > "$work/last.log" 2>&1
[ $? -eq 2 ] && grep -q -- "--shard-count" "$work/last.log" || fail "index without count accepted"
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=7 SLURM_ARRAY_TASK_COUNT=3 \
  "$cli" run "${common[@]}" --cases 1 --out "$work/x" > "$work/last.log" 2>&1
[ $? -eq 2 ] && grep -q "SLURM_ARRAY_TASK_COUNT" "$work/last.log" || fail "a list array accepted"
"$cli" run "${common[@]}" --cases 1 --shard 4/4 --out "$work/x" > "$work/last.log" 2>&1
[ $? -eq 2 ] && grep -q -- "--shard: .4/4" "$work/last.log" || fail "--shard 4/4 accepted"
echo "environment shards merge into the single-process report (Slurm array, Indexed Job)"
