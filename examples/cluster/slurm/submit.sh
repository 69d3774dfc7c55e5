#!/bin/bash
# Submits an N-shard aclnn-conform campaign as a Slurm job array plus a merge job that runs when
# every shard has finished. Prints the merge job's id; the report is in $OUT/merged/.
#   SUT=/path/libmy_aclnn.so OUT=/shared/campaign SHARDS=4 CASES_PER_SHARD=5000 \
#     examples/cluster/slurm/submit.sh [extra sbatch options, e.g. --partition=cpu]
# OUT must be on a file system every node sees. Optional: SEED, TIER, ACLNN_CONFORM (path of the
# CLI), CONFORM_ARGS (more `aclnn-conform run` options, e.g. "--ops GeluBackward --soc ascend910").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${SUT:?set SUT}" "${OUT:?set OUT}" "${SHARDS:=4}" "${CASES_PER_SHARD:=5000}"
export SUT OUT SHARDS CASES_PER_SHARD SHARD_MIN=0
mkdir -p "$OUT"
cd "$OUT"
array=$(sbatch --parsable --array=0-$((SHARDS - 1)) "$@" "$here/conformance-shard.sbatch")
array=${array%%;*}
sbatch --parsable --dependency=afterany:"$array" "$@" "$here/conformance-merge.sbatch"
