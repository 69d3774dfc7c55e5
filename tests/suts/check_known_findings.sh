#!/usr/bin/env bash
# A real SUT's known findings are still found: replays the kept corpus entries of
# tests/suts/<sut>/ (each a shrunk counterexample of docs/findings.md) against the library and
# asserts that every line of <sut>/expected.txt - "<case-id> <clause> <kind> [variant]" - is
# reported again: a deviation of that clause, of that kind (deviation or crash; "crash|deviation"
# where the outcome of a memory corruption varies from run to run), matching the variant when one
# is named.
# Usage: check_known_findings.sh <aclnn-conform> <sut library> <dir with expected.txt> <work dir>
set -euo pipefail
cli=$1 sut=$2 dir=$3 work=$4
rm -rf "$work" && mkdir -p "$work"

mapfile -t ids < <(grep -v '^\s*#' "$dir/expected.txt" | awk 'NF {print $1}' | sort -u)
((${#ids[@]})) || { echo "no expectations in $dir/expected.txt"; exit 1; }
files=()
for id in "${ids[@]}"; do
  [[ -f "$dir/$id.json" ]] || { echo "missing corpus entry $dir/$id.json"; exit 1; }
  files+=("$dir/$id.json")
done

# Exit 1 is the verdict DEVIATIONS, the only acceptable one: every entry deviates.
set +e
"$cli" replay "${files[@]}" --sut "$sut" --out "$work/replay" --jobs 1 --quiet --allow-incomplete \
  >"$work/replay.log" 2>&1
status=$?
set -e
if [[ $status -ne 1 ]]; then
  echo "replay exited $status, expected 1 (DEVIATIONS)"
  cat "$work/replay.log"
  exit 1
fi

python3 - "$work/replay/report.json" "$dir/expected.txt" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
found = report["deviations"]
missing = 0
for line in open(sys.argv[2]):
    line = line.split("#", 1)[0].split()
    if not line:
        continue
    case, clause, kind = line[:3]
    variant = line[3] if len(line) > 3 else None
    # The replay keeps the entry's case ID; a deviation is re-found if the same case deviates
    # from the same clause in the same way.
    kinds = kind.split("|")
    hits = [d for d in found if d["case_id"] == case and d["clause"] == clause and d["kind"] in kinds]
    if variant:
        hits = [d for d in hits if variant in d.get("variants", [])]
    status = "found" if hits else "NOT FOUND"
    print(f"{status}: {case} {clause} {kind}" + (f" variant {variant}" if variant else ""))
    missing += not hits
if missing:
    print(f"{missing} known finding(s) no longer found; reported deviations:")
    for d in found:
        print(f"  {d['case_id']} {d['clause']} {d['kind']} {d.get('variants', [])}: {d['detail'][:160]}")
    sys.exit(1)
PY
