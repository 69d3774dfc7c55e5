#!/usr/bin/env bash
# The vendor kits on the command line: import-ttk turns the kit's ACLNN case files (the project's
# own, in the kit's format: tests/campaign/ttk/) into a corpus that replay and run execute and
# judge on any library; a file it cannot read is exit 2 naming the file and the line; --policy
# takes every kit standard, names the deciding one in the summary and refuses a standard that
# needs a reference device without --competitor; every report carries every standard.
set -u
cli=$1 broken=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
cases="$here/../campaign/ttk"
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expected-status description command...
  local want=$1 what=$2; shift 2
  "$@" > "$work/last.log" 2>&1
  local got=$?
  [ "$got" -eq "$want" ] || { cat "$work/last.log"; fail "$what: exit $got, expected $want"; }
}
says() {  # text description: the last command's output contains text
  grep -qF -- "$1" "$work/last.log" || { cat "$work/last.log"; fail "$2: output lacks '$1'"; }
}

# Import: 16 rows become corpus entries, two are skipped and listed.
expect 0 "import-ttk" "$cli" import-ttk "$cases/ttk_aclnn_gelu_backward.csv" \
  "$cases/ttk_aclnn_other_ops.csv" --out "$work/imp"
says "imported 16 cases" "import summary"
says "gelu_bwd_disabled: skipped: is_enabled is False" "a disabled row is listed"
[ "$(ls "$work/imp/corpus" | wc -l)" -eq 16 ] || fail "expected 16 corpus entries"

# Replay on the built-in library: every row conforms, the forbidden ones as the errors they expect.
expect 2 "replay of entries that name no SUT, without --sut" "$cli" replay "$work/imp/corpus" \
  --out "$work/rep0" --quiet
says "pass --sut" "a corpus without its SUT needs --sut"
expect 0 "replay on the built-in library" "$cli" replay "$work/imp/corpus" --sut builtin \
  --out "$work/rep" --quiet
says "16 cases" "every imported row ran"
grep -q '"id": "GELU-DTYPE-1"' "$work/rep/report.json" || fail "report.json lacks GELU-DTYPE-1"
# On the broken library the same corpus finds deviations.
expect 1 "replay on the broken library" "$cli" replay "$work/imp/corpus" --sut "$broken" \
  --out "$work/rep-broken" --quiet
says "FALSIFIED" "the broken library deviates on the imported rows"

# run --out DIR replays DIR/corpus first: the imported rows are the run's first cases, so the
# broken library's first counterexamples come from them.
cp -r "$work/imp" "$work/imp-run"
expect 1 "run over the imported corpus" "$cli" run --sut "$broken" --ops GeluBackward --cases 5 \
  --tier smoke --out "$work/imp-run" --quiet
grep -q '"origin": "corpus ttk-gelu_bwd' "$work/imp-run/report.json" || \
  fail "run did not replay the imported corpus first"

# Refusals: exit 2 with the file and the line.
expect 2 "a malformed cell" "$cli" import-ttk "$cases/bad_literal.csv" --out "$work/bad"
says "bad_literal.csv:3: broken_row: tensor_view_shapes" "the file and line of a bad cell"
expect 2 "an API aclnn-conform does not test" "$cli" import-ttk "$cases/bad_api.csv" --out "$work/bad"
says "bad_api.csv:2:" "the line of an unknown API"
expect 2 "a kernel-mode file" "$cli" import-ttk "$cases/bad_kernel_mode.csv" --out "$work/bad"
says "not an ACLNN-mode case file" "kernel-mode files are named as such"

# --policy: every kit standard, named in the summary; a wrong one lists them.
expect 2 "an unknown policy" "$cli" run --policy ttk-nope --cases 1 --out "$work/p0"
says "msprobe-benchmark" "the policies are listed"
expect 2 "cross_check without a reference device" "$cli" run --policy ttk-cross_check-L1 --cases 1 \
  --out "$work/p1" --quiet
says "--competitor" "the reason names --competitor"
# msprobe-ulp_compare decides: the built-in library passes it (cases it cannot judge without a
# reference device fall back to the ulp bound).
expect 0 "msprobe-ulp_compare decides" "$cli" run --ops GeluBackward --policy msprobe-ulp_compare \
  --cases 40 --tier smoke --allow-incomplete --no-corpus --out "$work/ulpc" --quiet
says "deciding standard msprobe-ulp_compare" "the summary names the deciding standard"
grep -q '"policy": "msprobe-ulp_compare"' "$work/ulpc/report.json" || fail "report.json policy"
grep -qF 'msprobe-ulp_compare (decides)' "$work/ulpc/report.md" || fail "report.md marks the deciding standard"
grep -q 'precision.fp32.ttk-mixed' "$work/ulpc/report.xml" || fail "JUnit lacks the kit standards"
# ttk-mixed decides: TTK's absolute cap on |err| (0.1 for fp16, whatever the magnitude) fails
# correctly rounded results of large magnitude, so the built-in library may deviate; any
# deviation names the standard and its measures.
"$cli" run --ops GeluBackward --policy ttk-mixed --cases 40 --tier smoke --allow-incomplete \
  --no-corpus --out "$work/mixed" --quiet > "$work/last.log" 2>&1
rc=$?
[ "$rc" -le 1 ] || { cat "$work/last.log"; fail "ttk-mixed run: exit $rc"; }
says "deciding standard ttk-mixed" "the summary names ttk-mixed"
if [ "$rc" -eq 1 ]; then
  grep -q 'ttk-mixed fail: matched_ratio' "$work/mixed/report.json" || \
    fail "a deviation under ttk-mixed does not say what the standard measured"
fi
# A kit policy decides in the workers, not only in the report's tallies: ttk-binary (bit-for-bit
# equality with the golden) fails the built-in library's GeluBackward, whose results are within
# the specification's ulp bound but not all correctly rounded, so the verdict turns to DEVIATIONS
# naming the standard; the same cases conform under the ulp bound.
expect 1 "ttk-binary decides in the workers" "$cli" run --ops GeluBackward --policy ttk-binary \
  --cases 60 --tier smoke --allow-incomplete --no-corpus --out "$work/binary" --quiet
grep -q 'ttk-binary fail' "$work/binary/report.json" || fail "a ttk-binary deviation does not name the standard"
expect 0 "the same cases under the ulp bound" "$cli" run --ops GeluBackward --policy ulp \
  --cases 60 --tier smoke --allow-incomplete --no-corpus --out "$work/binary-ulp" --quiet
expect 0 "msprobe-benchmark with a competitor" "$cli" run --ops GeluBackward \
  --policy msprobe-benchmark --competitor builtin --cases 20 --tier smoke --allow-incomplete \
  --no-corpus --out "$work/bench" --quiet
grep -q '"id": "msprobe-benchmark", "judged": [1-9]' "$work/bench/report.json" || \
  python3 - "$work/bench/report.json" <<'PY' || fail "msprobe-benchmark judged nothing with a competitor"
import json, sys
r = json.load(open(sys.argv[1]))
judged = sum(k["judged"] for a in r["accuracy"] if "precision" in a
             for k in a["precision"]["kits"] if k["id"] == "msprobe-benchmark")
sys.exit(0 if judged > 0 else 1)
PY
# Merging shards keeps the tallies.
expect 0 "merge" "$cli" merge "$work/ulpc" --out "$work/merged"
grep -q '"ttk-mixed"' "$work/merged/report.json" || fail "the merged report lost the kit tallies"

python3 "$here/../reports/validate_reports.py" "$work/rep" "$work/mixed" "$work/ulpc" "$work/bench" \
  "$work/merged" \
  > "$work/last.log" 2>&1 || { cat "$work/last.log"; fail "reports do not validate"; }
echo "import-ttk and kit policies: all checks passed"
