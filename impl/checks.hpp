// Checks every op shares. Each returns ACLNN_SUCCESS or records the error (naming the parameter
// and the rule) and returns its code; ACLNN_CHECK returns early on failure.
#pragma once

#include <initializer_list>
#include <utility>

#include "impl/soc.hpp"
#include "impl/status.hpp"
#include "impl/tensor.hpp"

#define ACLNN_CHECK(expr)                              \
  do {                                                 \
    const aclnnStatus aclnn_check_status_ = (expr);    \
    if (aclnn_check_status_ != ACLNN_SUCCESS) return aclnn_check_status_; \
  } while (0)

namespace aclnn_cpu {

// ABI-TWOPHASE-2 (before any op-specific check); also clears the previous error text.
aclnnStatus check_phase_one_outputs(const char *op, const uint64_t *workspaceSize,
                                    aclOpExecutor *const *executor);

// The selected product; an unknown ACLNN_CPU_SOC is a set-up error (361001).
aclnnStatus check_soc(const char *op, Soc &soc);

aclnnStatus check_not_null(const char *op, const char *name, const void *p);

// Rank within [lo, hi] (ABI-RANK-1 and the op's own narrowing).
aclnnStatus check_rank(const char *op, const char *name, const aclTensor &t, int lo, int hi);

// A non-empty view needs storage (161001); run after the op's own checks.
aclnnStatus check_data(const char *op, const char *name, const aclTensor &t);

// ABI-INPUT-1 for an output: no two indices on one element, no partial overlap with the inputs
// or the other outputs. allow_inplace accepts an output that is exactly an input's view.
aclnnStatus check_output(const char *op, const char *name, const aclTensor &out,
                         std::initializer_list<std::pair<const char *, const aclTensor *>> others,
                         bool allow_inplace);

}  // namespace aclnn_cpu
