#!/usr/bin/env bash
# `cmake --install`, then a separate project declares conformance tests with the installed
# aclnn_add_conformance_test(): its ctest passes for the package's library and fails for the
# broken one, with the reports where docs/scale.md says (<build>/aclnn-conformance/<test>/).
set -uo pipefail
build=$1 src=$2 broken=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" --component Unspecified >/dev/null ||
  fail "cmake --install"
[ -x "$work/prefix/bin/aclnn-conform" ] || fail "aclnn-conform is not installed"
cmake -S "$src" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DBROKEN_SUT="$broken" > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
# The tests run the installed CLI, not the build tree's.
grep -q "$work/prefix/bin/aclnn-conform" "$work/consumer/CTestTestfile.cmake" ||
  fail "the consumer's tests do not run the installed aclnn-conform"

ctest --test-dir "$work/consumer" -R '^builtin_conforms$' --output-on-failure > "$work/builtin.log" 2>&1 ||
  { cat "$work/builtin.log"; fail "the conformance test of the package's library failed"; }
report=$work/consumer/aclnn-conformance/builtin_conforms
grep -q '"conformant": true' "$report/report.json" || fail "builtin report.json is not conformant"
grep -q "\"sut\": \"$work/prefix/lib/libaclnn_cpu.so" "$report/report.json" ||
  fail "SUT builtin did not run the installed library"
grep -q "target_form.*--sut\" \"$work/prefix/lib/libaclnn_cpu.so" "$work/consumer/CTestTestfile.cmake" ||
  fail "SUT aclnn::cpu is not the installed library's file"

# Inside a Slurm array task, a conformance test still runs the whole seed space (--shard 0/1).
if SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 SLURM_ARRAY_TASK_COUNT=4 \
  ctest --test-dir "$work/consumer" -R '^broken_deviates$' > "$work/broken.log" 2>&1; then
  cat "$work/broken.log"; fail "the conformance test of the broken library passed"
fi
grep -q "broken_deviates .*Failed" "$work/broken.log" || { cat "$work/broken.log"; fail "no failure recorded"; }
report=$work/consumer/aclnn-conformance/broken_deviates
for f in report.xml report.html report.md report.json; do
  [ -s "$report/$f" ] || fail "missing $report/$f"
done
grep -q "<failure" "$report/report.xml" || fail "the JUnit report of the broken library has no failure"
grep -q '"conformant": false' "$report/report.json" || fail "broken report.json says conformant"
grep -q '"shard": "0/1"' "$report/report.json" || fail "the test took its shard from Slurm's variables"
# A declaration without SUT, or with both BUDGET and CASES, is a configure error that says so.
for bad in "no_sut:SUT is required" "budget_and_cases:give BUDGET or CASES, not both"; do
  if cmake -S "$src" -B "$work/bad-${bad%%:*}" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DBROKEN_SUT="$broken" -DBAD_DECLARATION="${bad%%:*}" > "$work/bad.log" 2>&1; then
    fail "a declaration ${bad%%:*} configured without error"
  fi
  grep -q "${bad#*:}" "$work/bad.log" || { cat "$work/bad.log"; fail "no message '${bad#*:}'"; }
done
echo "consumer conformance tests: builtin passes, broken fails with reports in $report"
