// GeluBackward properties on the built-in library (clauses: GELU-*; see
// properties/gelu_backward.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "properties/budget.hpp"
#include "properties/generic.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "properties/transform.hpp"
#include "tests/support/property_support.hpp"

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;
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

}  // namespace

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

// A valid float case with moderate finite values (no specials), for metamorphic relations.
Case moderate_case() {
  Case c = test_support::valid_case(gelu_backward_op(), Product::kAtlasA2);
  for (const char *name : {"gradOutput", "self"}) {
    TensorArg &t = *c.tensor(name);
    RC_PRE(aclnn_ref::is_floating(t.dtype));
    // Normal magnitudes in [2^-4, 4] (or zero), so scaling by 2^k, |k| <= 3, stays exact in
    // every dtype: the relation is about dx, not about rounding the scaled dy.
    t = moderate_values(t);
  }
  return c;
}

// Metamorphic: scaling dy by 2^k scales dx by exactly 2^k away from overflow and underflow.
ACLNN_PROP(GeluBackwardProperty, ScalingDyByAPowerOfTwoScalesDxExactly, 60, ()) {
  Case c = moderate_case();
  const int k = *rc::gen::inRange(-3, 4);
  Case scaled = c;
  *scaled.tensor("gradOutput") =
      map_values(*c.tensor("gradOutput"), [k](double v) { return std::ldexp(v, k); });
  const Outcome a = run_ok(op(), c), b = run_ok(op(), scaled);
  const TensorArg &out = *c.tensor("gradInput");
  const auto va = view_values(out, a.storage_after[2]), vb = view_values(out, b.storage_after[2]);
  for (size_t i = 0; i < va.size(); ++i) {
    // The value and its scaled image both normal (a normal whose half lies below the smallest
    // normal may not be representable: 2^-13 - 2^-24 in fp16).
    if (!is_normal_in(va[i], out.dtype) || !is_normal_in(vb[i], out.dtype) ||
        !is_normal_in(std::ldexp(va[i], k), out.dtype) ||
        !is_normal_in(std::ldexp(vb[i], -k), out.dtype))
      continue;
    RC_ASSERT(vb[i] == std::ldexp(va[i], k));
  }
}

// Metamorphic: dy = 0 gives dx = ±0 wherever g(x) is finite (every finite x).
ACLNN_PROP(GeluBackwardProperty, ZeroDyGivesZeroDx, 40, ()) {
  Case c = moderate_case();
  *c.tensor("gradOutput") = map_values(*c.tensor("gradOutput"), [](double) { return 0.0; });
  const Outcome o = run_ok(op(), c);
  for (double v : view_values(*c.tensor("gradInput"), o.storage_after[2])) RC_ASSERT(v == 0.0);
}

// Metamorphic (GELU-BCAST-1): broadcasting an operand equals materialising it.
ACLNN_PROP(GeluBackwardProperty, BroadcastingEqualsMaterialising, 60, ()) {
  const Case c = test_support::valid_case(gelu_backward_op(), Product::kAtlasA2);
  const auto &shape = c.tensor("gradInput")->shape;
  Case full = c;
  full.aliases.clear();  // materialised inputs: no longer the output's view (not in-place)
  *full.tensor("gradOutput") = materialise(*c.tensor("gradOutput"), shape);
  *full.tensor("self") = materialise(*c.tensor("self"), shape);
  const Outcome a = run_ok(op(), c), b = run_ok(op(), full);
  RC_ASSERT(a.storage_after[2] == b.storage_after[2]);
}

}  // namespace
