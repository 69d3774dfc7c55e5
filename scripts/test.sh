#!/usr/bin/env bash
# README command two: install dependencies, build, and run the default test suite with CTest.
# The default run excludes the `slow` label; ACLNN_TEST_LABEL_EXCLUDE="" runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build_dir=${ACLNN_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j "$(nproc)"
exclude=${ACLNN_TEST_LABEL_EXCLUDE-slow}
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" ${exclude:+-LE "$exclude"}
