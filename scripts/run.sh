#!/usr/bin/env bash
# README command one: install dependencies, build, and run the main job. Until the campaign runner
# lands, the main job runs the vendor-style call example of every op against the CPU library.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build_dir=${ACLNN_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j "$(nproc)"
status=0
for example in "$build_dir"/examples/example_*; do
  echo "== ${example##*/}"
  "$example" || status=1
done
exit $status
