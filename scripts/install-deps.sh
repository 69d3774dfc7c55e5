#!/usr/bin/env bash
# Installs every build, test and benchmark dependency of aclnn-conform from Debian 12 packages.
# Idempotent: packages already present are left alone; apt-get runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  libboost-dev libmpfr-dev libgmp-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libhwy-dev  # Highway: the SIMD layer of impl/ (SLEEF was measured and dropped: docs/performance.md)
  clang-format
  clang libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes (fuzz/, `cmake --preset fuzz`)
  python3 python3-numpy
  python3-dev pybind11-dev python3-pytest  # the Python module and its pytest suites (python/)
  libssl-dev libxml2-utils python3-jsonschema
  libdnnl-dev  # oneDNN 2.6 for the real SUT suts/onednn (~40 MB with libdnnl2)
  chromium  # the HTML report's browser test (tests/reports/check_browser.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
