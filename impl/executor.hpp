// Executors (spec ABI-TWOPHASE-1..4): phase one validates and plans, phase two runs the plan once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "aclnn/acl_meta.h"

struct aclOpExecutor {
  // The planned computation; views were captured by value, so the caller may destroy its
  // aclTensor objects between the two phases.
  std::function<void(void *workspace)> run;
  uint64_t workspace_size = 0;
  bool repeatable = false;
  const char *op = "";
};

namespace aclnn_cpu {

// Ends a successful phase one: registers the executor and stores its outputs.
aclnnStatus publish_executor(const char *op, uint64_t workspace_size,
                             std::function<void(void *)> run, uint64_t *workspaceSize,
                             aclOpExecutor **executor);

// Phase two: ABI-TWOPHASE-3/4 checks, then runs and (unless repeatable) releases the executor.
aclnnStatus run_executor(const char *op, void *workspace, uint64_t workspaceSize,
                         aclOpExecutor *executor);

}  // namespace aclnn_cpu
