#!/bin/bash
# Runs the Indexed Job of shards, waits for it, then the merge Job; prints the merge's log.
# Kubernetes has no job dependencies, so the wait is here (Argo or Tekton users chain the two).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kubectl apply -f "$here/conformance-shards.yaml"
kubectl wait --for=condition=complete --timeout=6h job/aclnn-conform-shards
kubectl apply -f "$here/conformance-merge.yaml"
kubectl wait --for=condition=complete --timeout=30m job/aclnn-conform-merge || true
kubectl logs job/aclnn-conform-merge
