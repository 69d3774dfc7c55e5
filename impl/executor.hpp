// Executors (spec ABI-TWOPHASE-1..4): phase one validates and plans, phase two runs the plan once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "aclnn/acl_meta.h"

struct aclOpExecutor {
  // The planned computation; views were captured by value, so the caller may destroy its
  // aclTensor objects between the two phases. Its status is phase two's (a failure recorded with
  // fail(); the library's own plans cannot fail and answer ACLNN_SUCCESS).
  std::function<aclnnStatus(void *workspace)> run;
  uint64_t workspace_size = 0;
  bool repeatable = false;
  const char *op = "";
};

namespace aclnn_cpu {

// Ends a successful phase one: registers the executor and stores its outputs.
aclnnStatus publish_executor(const char *op, uint64_t workspace_size,
                             std::function<void(void *)> run, uint64_t *workspaceSize,
                             aclOpExecutor **executor);
// The same for a plan whose run can fail with a status of its own (an adapter over another
// library, suts/).
aclnnStatus publish_executor_with_status(const char *op, uint64_t workspace_size,
                                         std::function<aclnnStatus(void *)> run,
                                         uint64_t *workspaceSize, aclOpExecutor **executor);

// Phase two: ABI-TWOPHASE-3/4 checks, then runs and (unless repeatable) releases the executor.
aclnnStatus run_executor(const char *op, void *workspace, uint64_t workspaceSize,
                         aclOpExecutor *executor);

}  // namespace aclnn_cpu
