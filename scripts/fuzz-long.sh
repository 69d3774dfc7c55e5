#!/usr/bin/env bash
# Long fuzzing campaign: every libFuzzer target (fuzz/) for SECONDS each (default 600), one after
# the other on one core, starting from the seed corpus in fuzz/corpus/<target> and growing a working
# corpus in build-fuzz/fuzz/corpus-long/<target>. Prints executions, executions per second and new
# inputs per target and in total; exits 1 if any target reports a finding (crash, sanitizer report,
# leak, timeout, out-of-memory), whose input lands in build-fuzz/fuzz/artifacts/.
#   bash scripts/fuzz-long.sh [SECONDS] [TARGET...]      e.g. bash scripts/fuzz-long.sh 60 gelu_backward
# No TARGET: the ABI targets (one per op and the runtime's, as fuzz/CMakeLists.txt registers them:
# abi_targets.txt in the build tree); TARGET `framework`: the parsers of user files
# (framework_targets.txt).
# ACLNN_FUZZ_BUILD_DIR overrides the build tree; ACLNN_FUZZ_MERGE=1 minimises each working corpus
# back into fuzz/corpus/<target> afterwards (to grow the committed seeds).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
build=${ACLNN_FUZZ_BUILD_DIR:-build-fuzz}
if [[ ! -f $build/build.ninja ]]; then
  cmake --preset fuzz -B "$build" >/dev/null
fi
cmake --build "$build" -j 2 --target fuzzers >/dev/null
if ((${#targets[@]} == 0)); then
  mapfile -t targets <"$build/fuzz/abi_targets.txt"
elif [[ ${targets[*]} == framework ]]; then
  mapfile -t targets <"$build/fuzz/framework_targets.txt"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}

out=$build/fuzz
mkdir -p "$out/artifacts"
status=0 total=0
printf '%-24s %12s %10s %8s %s\n' target executions exec/s new result
for t in "${targets[@]}"; do
  work=$out/corpus-long/$t
  mkdir -p "$work"
  log=$out/long-$t.log
  rc=0
  "$out/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$t-" "$work" "fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  added=$(sed -n 's/^stat::new_units_added: *//p' "$log")
  result=ok
  if ((rc != 0)); then result="FINDING (exit $rc, see $log)"; status=1; fi
  printf '%-24s %12s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${added:-?}" "$result"
  total=$((total + ${execs:-0}))
  if [[ ${ACLNN_FUZZ_MERGE:-0} == 1 && $rc == 0 ]]; then
    "$out/fuzz_$t" -merge=1 "fuzz/corpus/$t" "$work" >>"$log" 2>&1
  fi
done
printf '%-24s %12s\n' total "$total"
exit $status
