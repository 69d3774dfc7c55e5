#!/usr/bin/env bash
# A SUT library exports exactly the ABI of the built-in one: only acl* symbols
# (check_exports.sh) and the same set, so no entry point is missing for a campaign or a repro.
# Usage: check_same_exports.sh <reference library> <SUT library>
set -euo pipefail
here=$(dirname "$0")
"$here/../install/check_exports.sh" "$2"
defined() { nm -D --defined-only "$1" | awk '$2 ~ /^[TWDBVRi]$/ {print $3}' | sort -u; }
if ! diff <(defined "$1") <(defined "$2"); then
  echo "export sets differ (< only in $1, > only in $2)"
  exit 1
fi
echo "same $(defined "$2" | wc -l) exports as $(basename "$1")"
