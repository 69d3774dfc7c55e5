#!/usr/bin/env bash
# README command one: install dependencies, build, and run the main job - a conformance campaign
# of the built-in CPU library (90 s by default; ACLNN_BUDGET overrides), with its report in
# campaign-out/ (ACLNN_OUT overrides). Exit status: 0 conformant, 1 deviations, 2 usage or set-up
# error, 3 incomplete (clauses not reached), 4 interrupted, 5 internal error (docs/report-format.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build_dir=${ACLNN_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j "$(nproc)" --target aclnn-conform
exec "$build_dir/cli/aclnn-conform" run --sut builtin --budget "${ACLNN_BUDGET:-90s}" \
  --out "${ACLNN_OUT:-campaign-out}"
