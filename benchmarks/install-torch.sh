#!/usr/bin/env bash
# Installs PyTorch (Debian 12's python3-torch 1.13, about 170 packages) for the peer comparison of
# benchmarks/perf_report.py. Kept out of scripts/install-deps.sh on purpose: it is heavy and only
# the benchmark report needs it (the report skips PyTorch when it is absent).
set -euo pipefail
if python3 -c 'import torch' 2>/dev/null; then exit 0; fi
sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends python3-torch
