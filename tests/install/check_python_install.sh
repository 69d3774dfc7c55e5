#!/usr/bin/env bash
# The Python module from the build tree and from an install prefix: `cmake --install` into a
# scratch prefix, then import aclnn_conform with PYTHONPATH pointing there, compute a golden, and
# run a short campaign on a python: SUT through the installed worker and adapter.
# Usage: check_python_install.sh BUILD_DIR PYTHON SOURCE_DIR
set -euo pipefail
build=$1 python=$2 source=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

PYTHONPATH="$build/python" "$python" -c "import aclnn_conform, sys; \
assert aclnn_conform.__file__.startswith('$build'), aclnn_conform.__file__"

cmake --install "$build" --prefix "$scratch/prefix" > "$scratch/install.log"
pydir=$(grep -o "$scratch/prefix/[^ ]*/aclnn_conform/__init__.py" "$scratch/install.log" |
        head -1 | xargs dirname | xargs dirname)
[[ -n "$pydir" ]] || { echo "no aclnn_conform in the install"; exit 1; }
test -x "$scratch/prefix/libexec/aclnn-conform/aclnn-conform-worker"
test -f "$scratch/prefix/libexec/aclnn-conform/libaclnn_python_sut.so"

cd "$scratch"
PYTHONPATH="$pydir:$source/python/tests" "$python" - "$scratch" "$pydir" <<'PY'
import os, sys
import numpy as np
import aclnn_conform
from aclnn_conform import _paths
scratch, pydir = sys.argv[1], sys.argv[2]
assert aclnn_conform.__file__.startswith(pydir), aclnn_conform.__file__
assert _paths.worker().startswith(scratch), _paths.worker()
assert _paths.adapter().startswith(scratch), _paths.adapter()
g = aclnn_conform.golden.selu_backward(np.ones(3, np.float32), np.ones(3, np.float32))
assert g.dtype == np.float32
r = aclnn_conform.run(sut="python:numpy_ops", ops=["SeluBackward"], cases=200,
                      tier="smoke", jobs=1, out=os.path.join(scratch, "out"),
                      allow_incomplete=True)
assert r["verdict"] == "CONFORMANT", aclnn_conform.summary(r)
print("installed aclnn_conform:", aclnn_conform.__file__)
PY
