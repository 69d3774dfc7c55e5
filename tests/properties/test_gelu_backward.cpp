// GeluBackward properties on the built-in library (clauses: GELU-*; see
// properties/gelu_backward.cpp).
#include <gtest/gtest.h>

#include "properties/budget.hpp"
#include "properties/generic.hpp"
#include "properties/op.hpp"

namespace {
using namespace aclnn_conform;
const OpDescriptor &op() {
  return gelu_backward_op();
}

// GELU-VALUE-1, GELU-SPECIAL-1/2, GELU-EMPTY-1, ABI-PROMOTE-1, ABI-BCAST-1, ABI-TENSOR-2.
ACLNN_PROP_COVERING(GeluBackwardProperty, ValidCallsMatchTheOracle, 150,
                    ({"GELU-VALUE-1", "GELU-SPECIAL-1", "GELU-SPECIAL-2", "GELU-EMPTY-1",
                      "ABI-PROMOTE-1", "ABI-BCAST-1"}),
                    ()) {
  prop_valid_call_matches_oracle(builtin_sut(), op(),
                                 *rc::gen::element(Product::kAtlasA2, Product::kAtlasTraining));
}

// GELU-NULL-1, GELU-DTYPE-1, GELU-DTYPE-2, GELU-RANK-1, GELU-BCAST-1, GELU-BCAST-2.
ACLNN_PROP_COVERING(GeluBackwardProperty, InvalidCallsAreRejectedInOrder, 300,
                    ({"GELU-NULL-1", "GELU-DTYPE-1", "GELU-DTYPE-2", "GELU-RANK-1", "GELU-BCAST-1",
                      "GELU-BCAST-2"}),
                    ()) {
  prop_invalid_call_rejected(builtin_sut(), op(), Product::kAtlasA2);
}

// VAL-DET-1.
ACLNN_PROP(GeluBackwardProperty, Deterministic, 40, ()) {
  prop_deterministic(builtin_sut(), op(), Product::kAtlasA2);
}

// ABI-TWOPHASE-3, ABI-TWOPHASE-4.
ACLNN_PROP(GeluBackwardProperty, ExecutorRunsOnce, 40, ()) {
  prop_executor_runs_once(builtin_sut(), op(), Product::kAtlasA2);
}

}  // namespace
