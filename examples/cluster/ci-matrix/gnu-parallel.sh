#!/bin/bash
# Shards on one big machine or over ssh hosts with GNU parallel: `{#}` is the job's sequence
# number (1-based), so shard I = {#} - 1 goes in --shard as a plain flag ("shard_source": "flag").
# Exit statuses 1 and 3 of a shard are results; the merge's status is the verdict.
#   SUT=/path/libmy_aclnn.so SHARDS=16 examples/cluster/ci-matrix/gnu-parallel.sh [-S host1,host2]
set -euo pipefail
: "${SUT:?set SUT}" "${SHARDS:=8}" "${CASES_PER_SHARD:=5000}" "${OUT:=campaign}"
seq 1 "$SHARDS" | parallel --halt never "$@" \
  "aclnn-conform run --sut $SUT --shard \$(({#} - 1))/$SHARDS --cases $CASES_PER_SHARD --jobs 1 \
     --no-corpus --quiet --out $OUT/shard-{#}; s=\$?; [ \$s -le 1 ] || [ \$s -eq 3 ]" || true
aclnn-conform merge "$OUT"/shard-* --out "$OUT/merged"
