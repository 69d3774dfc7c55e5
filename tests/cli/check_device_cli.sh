#!/usr/bin/env bash
# The command line against a device stack (the device emulation, tests/device/, with every
# behaviour on; docs/device.md): `--sut cann` finds the vendor's three libraries under
# ASCEND_HOME_PATH, `--devices 0-1 --jobs 4` spreads cases over both devices, the budget is a
# wall, SIGTERM stops the run with its reports, a device that cannot be started is an error
# naming it, replay loads the split library it recorded, and no process outlives the run.
set -u
cli=$1 cann=$2 broken=$3 work=$4
# Sanitized builds stretch the time bounds below (tests/CMakeLists.txt, ACLNN_TEST_TIME_SCALE).
scale=${ACLNN_TEST_TIME_SCALE:-1}
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
export ACLNN_DEVEMU=all ASCEND_HOME_PATH=$cann ACLNN_DEVEMU_FIRST_CALL_MS=50

# The processes a run of pid $1 left: its workers' environments carry ACLNN_CONFORM_RUN=<pid>-...
# (zombies excepted: ended, waiting for init).
left_by() {
  local n=0 p
  for p in /proc/[0-9]*; do
    tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -q "^ACLNN_CONFORM_RUN=$1-" || continue
    [ "$(awk '{print $3}' "$p/stat" 2>/dev/null)" = Z ] && continue
    n=$((n + 1))
  done
  echo "$n"
}
json() {  # file python-expression-of-r
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"
}

# A budgeted run over two devices: ends within budget + 5 s, every device did work, the report
# names the three files in load order and how long first calls took.
start=$(date +%s%3N)
"$cli" run --sut cann --devices 0-1 --jobs 4 --budget 15s --tier smoke --out "$work/two" --quiet \
  > "$work/two.log" 2>&1 &
pid=$!
wait "$pid"
got=$?
wall_ms=$(( $(date +%s%3N) - start ))
{ [ "$got" -eq 0 ] || [ "$got" -eq 3 ]; } || { cat "$work/two.log"; fail "two devices: exit $got"; }
[ "$wall_ms" -le $((15000 + 5000 * scale)) ] || fail "a 15 s budget took $wall_ms ms"
[ "$(json "$work/two/report.json" "len(r['deviations'])")" = 0 ] || fail "deviations on a conformant library"
[ "$(json "$work/two/report.json" "sorted(d['id'] for d in r['devices'] if d['cases'] > 0)")" = "[0, 1]" ] ||
  fail "cases did not reach both devices: $(json "$work/two/report.json" "r['devices']")"
[ "$(json "$work/two/report.json" "[f['soname'] for f in r['sut_files']]")" = \
  "['libascendcl.so', 'libnnopbase.so', 'libopapi.so']" ] || fail "the report does not name the three files"
grep -q "First calls" "$work/two/report.md" || fail "report.md does not say how long first calls took"
[ "$(left_by "$pid")" = 0 ] || fail "processes of the run outlived it"

# SIGTERM: exit 4 within 5 s with the reports of what ran, nothing left running.
"$cli" run --sut cann --devices 0-1 --jobs 4 --budget 60s --tier smoke --out "$work/int" --quiet \
  > "$work/int.log" 2>&1 &
pid=$!
sleep 4
start=$(date +%s%3N)
kill -TERM "$pid"
wait "$pid"
got=$?
stop_ms=$(( $(date +%s%3N) - start ))
[ "$got" -eq 4 ] || { cat "$work/int.log"; fail "SIGTERM: exit $got, expected 4"; }
[ "$stop_ms" -le $((5000 * scale)) ] || fail "SIGTERM: $stop_ms ms to stop"
grep -q '"verdict": "INTERRUPTED"' "$work/int/report.json" || fail "report.json is not INTERRUPTED"
[ "$(left_by "$pid")" = 0 ] || fail "processes of the interrupted run outlived it"

# A device the runtime does not have (the emulation has two): exit 2, naming it.
"$cli" run --sut cann --devices 0-2 --cases 5 --out "$work/three" --quiet > "$work/three.log" 2>&1
got=$?
[ "$got" -eq 2 ] || { cat "$work/three.log"; fail "a missing device: exit $got, expected 2"; }
grep -q "device 2: .*aclrtSetDevice(2) failed with 107001" "$work/three.log" ||
  { cat "$work/three.log"; fail "the error does not name device 2 and its status"; }

# The broken library behind the split runtime: its deviations are stored with the three files,
# replay without --sut loads them again and reproduces, and each repro links all three.
ACLNN_DEVEMU_INNER=$broken "$cli" run --sut cann --ops SeluBackward --cases 40 --tier smoke \
  --out "$work/broken" --quiet > "$work/broken.log" 2>&1
got=$?
[ "$got" -eq 1 ] || { cat "$work/broken.log"; fail "broken behind the emulation: exit $got, expected 1"; }
grep -q '"sut_files": ".*libascendcl.so:.*libnnopbase.so:.*libopapi.so"' "$work/broken/corpus/"*.json ||
  fail "the corpus does not record the three files"
grep -q "^// build: .*libascendcl.so .*libnnopbase.so .*libopapi.so " "$work/broken/repros/"*.cpp ||
  fail "a repro's build line does not link the three files"
ACLNN_DEVEMU_INNER=$broken "$cli" replay "$work/broken/corpus" --out "$work/replay" --quiet \
  > "$work/replay.log" 2>&1
got=$?
[ "$got" -eq 1 ] || { cat "$work/replay.log"; fail "replay: exit $got, expected 1"; }
grep -q "replaying against .*libascendcl.so:.*libnnopbase.so:.*libopapi.so" "$work/replay.log" ||
  { cat "$work/replay.log"; fail "replay did not load the recorded files"; }
# Every file is identified in the corpus and the repro (a split library is one build only if each
# of its files is the same), and replay on a copy whose runtime file differs says so.
python3 - "$work/broken/corpus" <<'PY' || fail "a corpus entry does not identify each of the three files"
import json, pathlib, sys
for f in pathlib.Path(sys.argv[1]).glob("*.json"):
    ids = json.load(open(f))["sut_file_identities"]
    names = [pathlib.Path(i["path"]).name for i in ids]
    assert names == ["libascendcl.so", "libnnopbase.so", "libopapi.so"], names
    assert all(len(i["sha256"]) == 64 and i["size"] > 0 for i in ids), ids
PY
grep -q "^// SUT file 1: .*libascendcl.so (sha256 [0-9a-f]\{64\})" "$work/broken/repros/"*.cpp ||
  fail "a repro does not give each file's hash"
other="$work/other-cann"
mkdir -p "$other/lib64" && cp "$cann/lib64/"*.so "$other/lib64/"
printf 'x' >> "$other/lib64/libascendcl.so"  # another build of the runtime file alone
ACLNN_DEVEMU_INNER=$broken ASCEND_HOME_PATH=$other "$cli" replay "$work/broken/corpus" --sut cann \
  --out "$work/replay-other" --quiet > "$work/replay-other.log" 2>&1
grep -q "warning: replaying against .*libascendcl.so.*not the SUT recorded in the corpus" \
  "$work/replay-other.log" ||
  { cat "$work/replay-other.log"; fail "replay on another build of libascendcl.so did not say so"; }
ACLNN_DEVEMU_INNER=$broken "$cli" replay "$work/broken/corpus" --sut cann --out "$work/replay-same" \
  --quiet > "$work/replay-same.log" 2>&1
if grep -q "not the SUT recorded" "$work/replay-same.log"; then
  cat "$work/replay-same.log"; fail "replay on the recorded files warned of another build"
fi
echo "device CLI checks passed"
