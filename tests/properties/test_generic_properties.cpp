// The generic properties, instantiated over the op registry: every op in registry() gets them with
// no test code of its own. Their enforcer names in the clause catalogue's mapping are
// "AllOps/GenericProperty.<property>/<op>" (properties/clauses.cpp).
#include <gtest/gtest.h>

#include "properties/budget.hpp"
#include "properties/generic.hpp"
#include "properties/op.hpp"

namespace {
using namespace aclnn_conform;

class GenericProperty : public ::testing::TestWithParam<const OpDescriptor *> {};

// VAL-DET-1 (and the reductions' thread-count independence: LN-VALUE-3, GBAG-VALUE-3). The budget
// is the largest any op had when these were written per op.
TEST_P(GenericProperty, Deterministic) {
  const OpDescriptor &op = *GetParam();
  check_with_budget([&op] { prop_deterministic(builtin_sut(), op, Product::kAtlasA2); }, 80, {});
}

// ABI-TWOPHASE-3, ABI-TWOPHASE-4.
TEST_P(GenericProperty, ExecutorRunsOnce) {
  const OpDescriptor &op = *GetParam();
  check_with_budget([&op] { prop_executor_runs_once(builtin_sut(), op, Product::kAtlasA2); }, 50,
                    {});
}

INSTANTIATE_TEST_SUITE_P(AllOps, GenericProperty, ::testing::ValuesIn(registry()),
                         [](const auto &info) { return info.param->name; });

}  // namespace
