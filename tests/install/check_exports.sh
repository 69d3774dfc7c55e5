#!/usr/bin/env bash
# libaclnn_cpu.so exports only the ABI: every defined dynamic symbol is an acl* C function.
set -euo pipefail
lib=$1
syms=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWDBVRi]$/ {print $3}')
[ -n "$syms" ] || { echo "no exported symbols in $lib"; exit 1; }
bad=$(grep -vE '^acl' <<<"$syms" || true)
if [ -n "$bad" ]; then echo "non-ABI symbols exported:"; echo "$bad"; exit 1; fi
for required in aclCreateTensor aclDestroyTensor aclGetRecentErrMsg aclrtMalloc aclrtMemcpy \
                aclSetAclOpExecutorRepeatable aclInit; do
  grep -qx "$required" <<<"$syms" || { echo "missing export: $required"; exit 1; }
done
echo "$(wc -l <<<"$syms") exported symbols, all acl*"
