#!/usr/bin/env bash
# `cpack -G DEB` builds one Debian package (library, headers, CLI, CMake package, and where the
# build has it the Python module with the python: adapter); dpkg installs it into a scratch root
# (--root, --force-depends: its dependencies are the system's), and the installed CLI, library,
# CMake package and Python module are used from there.
set -uo pipefail
build=$1 consumer_src=$2 work=$3
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
# The build made the Python module (python/), so the package must hold it.
with_python=false
compgen -G "$build/python/aclnn_conform/_core*.so" > /dev/null && with_python=true
rm -rf "$work" && mkdir -p "$work"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" > cpack.log 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$work"/aclnn-conform_*.deb 2> /dev/null | head -1)
[ -n "$deb" ] || fail "no .deb written"
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/aclnn-conform ./usr/lib/libaclnn_cpu.so.0 ./usr/include/aclnn/acl_meta.h \
  ./usr/lib/cmake/aclnn_conform/aclnn_conformConfig.cmake \
  ./usr/lib/cmake/aclnn_conform/AclnnConformance.cmake; do
  grep -q " $f" <<< "$contents" || fail "$f is not in the package"
done
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libmpfr libhwy libstdc++; do
  grep -q "$lib" <<< "$depends" || fail "Depends ($depends) lacks $lib"
done
if $with_python; then
  # The module, its extension and the adapter with the worker it runs in.
  pydir_rel=$(grep -o ' \./usr/lib/python3[^ ]*/dist-packages/aclnn_conform/__init__\.py$' \
    <<< "$contents" | head -1 | sed 's|^ \./||; s|/aclnn_conform/__init__\.py$||')
  [ -n "$pydir_rel" ] || fail "the package holds no aclnn_conform/__init__.py under usr/lib/python3"
  for f in '_core\.cpython-[^ /]*\.so' _sut_bridge.py _paths.py golden.py campaign.py sut.py \
    bf16.py; do
    grep -Eq " \./$pydir_rel/aclnn_conform/$f\$" <<< "$contents" ||
      fail "$pydir_rel/aclnn_conform/$f is not in the package"
  done
  for f in ./usr/libexec/aclnn-conform/libaclnn_python_sut.so \
    ./usr/libexec/aclnn-conform/aclnn-conform-worker; do
    grep -q " $f\$" <<< "$contents" || fail "$f is not in the package"
  done
  # The module imports NumPy and is built for one Python: both are Depends.
  for dep in python3 python3-numpy; do
    grep -Eq "(^|, )$dep( |,|\$)" <<< "$depends" || fail "Depends ($depends) lacks $dep"
  done
fi

root=$work/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" && touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --force-script-chrootless -i "$deb" \
  > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --root -i"; }
status=$(dpkg --root="$root" -s aclnn-conform)
grep -q "Status: install ok installed" <<< "$status" ||
  fail "dpkg does not list the package as installed in the scratch root"

cli=$root/usr/bin/aclnn-conform
"$cli" list ops > "$work/ops.txt" 2>&1 || fail "the installed CLI does not run"
grep -q GeluBackward "$work/ops.txt" || fail "the installed CLI lists no GeluBackward"
"$cli" run --sut "$root/usr/lib/libaclnn_cpu.so.0" --cases 200 --tier smoke --jobs 2 --quiet \
  --out "$work/campaign" > "$work/campaign.log" 2>&1 ||
  { cat "$work/campaign.log"; fail "a campaign of the installed library"; }
grep -q '"conformant": true' "$work/campaign/report.json" || fail "the installed library deviates"

# The C consumer of tests/install/consumer, against the package's CMake config.
cmake -S "$consumer_src" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$root/usr" \
  > "$work/consumer.log" 2>&1 && cmake --build "$work/consumer" >> "$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log"; fail "the consumer project does not build against the package"; }
LD_LIBRARY_PATH="$root/usr/lib" "$work/consumer/consumer" > "$work/consumer.out" 2>&1 ||
  { cat "$work/consumer.out"; fail "the consumer does not run"; }
# (ldd's output is captured first: `ldd | grep -q` fails at random under pipefail, by SIGPIPE.)
linked=$(ldd "$work/consumer/consumer")
grep -q "$root/usr/lib/libaclnn_cpu.so" <<< "$linked" ||
  fail "the consumer did not link the package's library: $linked"
# The Python module from the scratch root, with Debian's interpreter (the package's dist-packages
# is its): import, one golden, and a short campaign of a python: SUT (python/tests/numpy_ops.py),
# run by the package's worker and adapter; nothing of the build tree on the path.
if $with_python; then
  cd "$work" || fail "cd $work"
  env -u ACLNN_CONFORM_WORKER -u ACLNN_PYTHON_SUT_ADAPTER -u ACLNN_CONFORM_CLI PYTHONNOUSERSITE=1 \
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/$pydir_rel:$source_dir/python/tests" \
    /usr/bin/python3 - "$root" "$work/py-campaign" > "$work/python.log" 2>&1 <<'PY' ||
import sys
import numpy as np
import aclnn_conform as ac
from aclnn_conform import _paths
root, out = sys.argv[1], sys.argv[2]
for what, path in (("module", ac.__file__), ("extension", ac._core.__file__),
                   ("worker", _paths.worker()), ("adapter", _paths.adapter())):
    assert path.startswith(root + "/"), "the %s is not the package's: %s" % (what, path)
# A golden: LogitGrad at x = 0.5, 0.25 with dy = 1, 3 is 4 and 16 exactly (LOGIT-VALUE-1).
g = ac.golden.logit_grad(np.array([0.5, 0.25], np.float32), np.array([1, 3], np.float32))
assert g.dtype == np.float32 and g.tolist() == [4.0, 16.0], g
r = ac.run(sut="python:numpy_ops", ops=["GeluBackward", "LogitGrad"], cases=300,
           tier="smoke", jobs=1, out=out, use_corpus=False)
assert r["verdict"] == "CONFORMANT", ac.summary(r)
assert r["sut_identity"]["path"].startswith(root + "/"), r["sut_identity"]
print("aclnn_conform from", ac.__file__, "-", r["verdict"], r["cases"], "cases")
PY
    { cat "$work/python.log"; fail "the package's Python module (import, golden, python: SUT)"; }
  cat "$work/python.log"
fi
echo "$(basename "$deb"): $(wc -l <<< "$contents") entries, Depends: $depends; used from $root"
