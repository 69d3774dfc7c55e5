// SeluBackward properties on the built-in library (clauses: SELU-*; see
// properties/selu_backward.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "properties/budget.hpp"
#include "properties/generic.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "properties/transform.hpp"
#include "tests/support/property_support.hpp"

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;
const OpDescriptor &op() {
  return selu_backward_op();
}

// SELU-VALUE-1, SELU-ZERO-1, SELU-NAN-1, SELU-INT-1, SELU-EMPTY-1, ABI-RANK-1 (rank 8),
// ABI-TENSOR-2, on every product (BF16 only where the product has it).
ACLNN_PROP_COVERING(SeluBackwardProperty, ValidCallsMatchTheOracle, 300,
                    ({"SELU-VALUE-1", "SELU-ZERO-1", "SELU-NAN-1", "SELU-INT-1", "SELU-EMPTY-1",
                      "ABI-RANK-1", "ABI-SOC-1"}),
                    ()) {
  prop_valid_call_matches_oracle(
      builtin_sut(), op(),
      *rc::gen::element(Product::kAtlasA2, Product::kAtlasA3, Product::kAtlasTraining,
                        Product::kAtlasInference));
}

// SELU-NULL-1, SELU-DTYPE-1 (incl. BF16 on training/inference), SELU-DTYPE-2, SELU-SHAPE-1,
// SELU-RANK-1 (rank 0 and 9), in the spec's check order.
ACLNN_PROP_COVERING(SeluBackwardProperty, InvalidCallsAreRejectedInOrder, 300,
                    ({"SELU-NULL-1", "SELU-DTYPE-1", "SELU-DTYPE-2", "SELU-SHAPE-1",
                      "SELU-RANK-1"}),
                    ()) {
  prop_invalid_call_rejected(builtin_sut(), op(),
                             *rc::gen::element(Product::kAtlasA2, Product::kAtlasInference));
}

// SELU-EMPTY-1, ABI-EMPTY-1: an empty call succeeds with workspace 0 (the judge checks that nothing
// is written).
ACLNN_PROP(SeluBackwardProperty, EmptyCallsNeedNoWorkspace, 40, ()) {
  check_empty_call_needs_no_workspace(op(), "gradInput");
}

}  // namespace

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

// A valid float case whose dy has moderate finite values (y keeps every special value: the
// relations below hold for any y).
Case moderate_case() {
  Case c = test_support::valid_case(selu_backward_op(), Product::kAtlasA2);
  TensorArg &dy = *c.tensor("gradOutput");
  RC_PRE(aclnn_ref::is_floating(dy.dtype));
  // Normal magnitudes in [2^-4, 4] (or zero), so scaling by 2^k, |k| <= 3, stays exact in every
  // dtype: the relation is about dx, not about rounding the scaled dy (an fp16 subnormal dy
  // scaled by 2^-3 would be rounded, which is not a deviation).
  dy = moderate_values(dy);
  return c;
}

// Metamorphic (SELU-VALUE-1): scaling dy by 2^k scales dx by exactly 2^k where both results are
// normal (rounding commutes with a power-of-two scale away from overflow and underflow). Float
// dtypes only: for INT8/INT32 rounding to an integer does not commute with scaling.
ACLNN_PROP(SeluBackwardProperty, ScalingDyByAPowerOfTwoScalesDxExactly, 60, ()) {
  Case c = moderate_case();
  const int k = *rc::gen::inRange(-3, 4);
  Case scaled = c;
  *scaled.tensor("gradOutput") =
      map_values(*c.tensor("gradOutput"), [k](double v) { return std::ldexp(v, k); });
  const Outcome a = run_ok(op(), c), b = run_ok(op(), scaled);
  const TensorArg &out = *c.tensor("gradInput");
  const auto va = view_values(out, a.storage_after[2]), vb = view_values(out, b.storage_after[2]);
  for (size_t i = 0; i < va.size(); ++i) {
    if (!is_normal_in(va[i], out.dtype) || !is_normal_in(vb[i], out.dtype)) continue;
    RC_ASSERT(vb[i] == std::ldexp(va[i], k));
  }
}

// Metamorphic (SELU-VALUE-1, SELU-ZERO-1): dy = 0 gives dx = +-0 wherever the factor (λ, or
// y + λα) is finite, i.e. for every finite y, in every dtype (integers included).
ACLNN_PROP(SeluBackwardProperty, ZeroDyGivesZeroDx, 40, ()) {
  Case c = test_support::valid_case(selu_backward_op(), Product::kAtlasA2);
  *c.tensor("gradOutput") = map_values(*c.tensor("gradOutput"), [](double) { return 0.0; });
  const Outcome o = run_ok(op(), c);
  const auto dx = view_values(*c.tensor("gradInput"), o.storage_after[2]);
  const auto *y = c.view("result");
  for (size_t i = 0; i < dx.size(); ++i)
    if (std::isfinite(y->at(static_cast<int64_t>(i)))) RC_ASSERT(dx[i] == 0.0);
}

// Metamorphic (SELU-VALUE-1, SELU-ZERO-1): where y >= 0 (+0 and -0 included) dx = dy·λ does not
// depend on y: replacing every such y by +0 leaves every output element unchanged, sign of zero
// included (NaN outputs are compared as NaN: their payload may follow a NaN input's).
ACLNN_PROP(SeluBackwardProperty, NonNegativeYDoesNotMatter, 40, ()) {
  const Case c = test_support::valid_case(selu_backward_op(), Product::kAtlasA2);
  Case zeroed = c;
  *zeroed.tensor("result") =
      map_values(*c.tensor("result"), [](double y) { return y >= 0 ? 0.0 : y; });
  const Outcome a = run_ok(op(), c), b = run_ok(op(), zeroed);
  const TensorArg &out = *c.tensor("gradInput");
  const auto va = view_values(out, a.storage_after[2]), vb = view_values(out, b.storage_after[2]);
  for (size_t i = 0; i < va.size(); ++i) {
    RC_ASSERT(same_value(va[i], vb[i]));
    if (!std::isnan(va[i])) RC_ASSERT(std::signbit(va[i]) == std::signbit(vb[i]));
  }
}

// Metamorphic (SELU-VALUE-1): negating dy negates dx exactly (round-to-nearest-even is symmetric).
// Float dtypes only: INT8/INT32 saturate asymmetrically (-(-128) is not an INT8).
ACLNN_PROP(SeluBackwardProperty, NegatingDyNegatesDx, 40, ()) {
  const Case c = test_support::valid_case(selu_backward_op(), Product::kAtlasA2);
  RC_PRE(aclnn_ref::is_floating(c.tensor("gradOutput")->dtype));
  Case neg = c;
  *neg.tensor("gradOutput") = map_values(*c.tensor("gradOutput"), [](double v) { return -v; });
  const Outcome a = run_ok(op(), c), b = run_ok(op(), neg);
  const TensorArg &out = *c.tensor("gradInput");
  const auto va = view_values(out, a.storage_after[2]), vb = view_values(out, b.storage_after[2]);
  for (size_t i = 0; i < va.size(); ++i) RC_ASSERT(same_value(vb[i], -va[i]));
}

}  // namespace

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

// Meta-test: the valid-case generator reaches every value variant's difference. The built-in
// library follows the value of record; judged against each variant it must deviate on some
// generated case, attributed to a SELU-* clause, or the generator cannot tell that variant
// from the record.
TEST(SeluBackwardProperty, GeneratorDistinguishesEveryValueVariant) {
  const auto &op = selu_backward_op();
  for (const char *variant : {"doc-literal", "le-zero", "select-lt", "via-fp16"}) {
    JudgePolicy policy;
    policy.variants.add(variant);
    bool found = false;
    for (uint64_t seed = 1; seed <= 400 && !found; ++seed) {
      const Case c = op.gen_valid(Product::kAtlasA2)(rc::Random(seed * 7919), 100).value();
      if (!op.check(c, {}).ok() || !op.check(c, policy.variants).ok()) continue;
      const Outcome o = run_case(builtin_sut(), op, c);
      ASSERT_TRUE(judge(op, c, o).pass()) << c.describe();
      const Judgement j = judge(op, c, o, policy);
      if (j.pass()) continue;
      found = true;
      EXPECT_NE(j.failures().find("SELU-"), std::string::npos) << variant << "\n" << j.failures();
    }
    EXPECT_TRUE(found) << "no generated case distinguishes variant " << variant;
  }
}

}  // namespace
