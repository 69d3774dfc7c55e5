#!/usr/bin/env bash
# The aclnn-conform command line as a CI pipeline sees it: exit statuses (0 conformant,
# 1 deviations, 2 usage or set-up error), the report files, replay of the corpus and merging.
set -u
cli=$1 broken=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expected-status description command...
  local want=$1 what=$2; shift 2
  "$@" > "$work/last.log" 2>&1
  local got=$?
  [ "$got" -eq "$want" ] || { cat "$work/last.log"; fail "$what: exit $got, expected $want"; }
}

expect 0 "built-in library, 150 cases" "$cli" run --sut builtin --cases 150 --tier smoke --out "$work/ok" --quiet
for f in report.json report.md report.xml report.html; do
  [ -s "$work/ok/$f" ] || fail "missing $work/ok/$f"
done
grep -q '"conformant": true' "$work/ok/report.json" || fail "report.json does not say conformant"

expect 1 "broken library" "$cli" run --sut "$broken" --ops GeluBackward,SeluBackward --cases 120 \
  --tier smoke --out "$work/bad" --quiet
ls "$work/bad/corpus/"*.json > /dev/null 2>&1 || fail "no counterexample stored in the corpus"
ls "$work/bad/repros/"*.cpp > /dev/null 2>&1 || fail "no repro program written"
grep -q "tanh-approx" "$work/bad/report.md" || fail "the report does not name the tanh-approx variant"
expect 1 "replay of the broken library's corpus" "$cli" replay "$work/bad/corpus" --sut "$broken" \
  --out "$work/replay" --quiet
expect 0 "replay of the same corpus on the built-in library" "$cli" replay "$work/bad/corpus" \
  --out "$work/replay-ok" --quiet

expect 0 "shard 0/2" "$cli" run --cases 40 --shard 0/2 --tier smoke --out "$work/s0" --quiet
expect 0 "shard 1/2" "$cli" run --cases 40 --shard 1/2 --tier smoke --out "$work/s1" --quiet
expect 0 "merge" "$cli" merge "$work/s0" "$work/s1" --out "$work/merged"
grep -q '"shard": "0/2,1/2"' "$work/merged/report.json" || fail "merged report does not list both shards"
expect 2 "merge of a shard with itself" "$cli" merge "$work/s0" "$work/s0" --out "$work/m2"

expect 2 "unknown library" "$cli" run --sut /nonexistent.so --cases 1 --out "$work/x" --quiet
expect 2 "unknown op" "$cli" run --ops NoSuchOp --cases 1 --out "$work/x" --quiet
expect 2 "bad option" "$cli" run --no-such-option
expect 2 "bad budget" "$cli" run --budget 5parsecs --out "$work/x" --quiet
expect 0 "list clauses" "$cli" list clauses
grep -q "LOGIT-EPS-GT1-1" "$work/last.log" || fail "list clauses misses LOGIT-EPS-GT1-1"
echo "all CLI checks passed"
