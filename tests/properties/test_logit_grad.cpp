// LogitGrad properties on the built-in library (clauses: LOGIT-*; see properties/logit_grad.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "properties/budget.hpp"
#include "properties/generic.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "properties/transform.hpp"
#include "reference/logit_grad.hpp"
#include "tests/support/property_support.hpp"

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;
const OpDescriptor &op() {
  return logit_grad_op();
}

// Every value clause: the seven specific ones in the spec's order, the general rule and x = 0/1
// inside the range; LOGIT-EMPTY-1, ABI-RANK-1 (rank 0 and 8), on both products that have the op.
ACLNN_PROP_COVERING(LogitGradProperty, ValidCallsMatchTheOracle, 300,
                    ({"LOGIT-EPS-NAN-1", "LOGIT-EPS-INF-1", "LOGIT-EPS-GT1-1", "LOGIT-EPS-EQ1-1",
                      "LOGIT-X-NONFINITE-1", "LOGIT-DY-NONFINITE-1", "LOGIT-VALUE-1", "LOGIT-X01-1",
                      "LOGIT-EMPTY-1", "ABI-RANK-1"}),
                    ()) {
  prop_valid_call_matches_oracle(builtin_sut(), op(),
                                 *rc::gen::element(Product::kAtlasA2, Product::kAtlasA3));
}

// ABI-SOC-1 (the op on training/inference), LOGIT-NULL-1, LOGIT-DTYPE-1, LOGIT-SHAPE-1,
// LOGIT-RANK-1, in the oracle's check order (product gate first).
ACLNN_PROP_COVERING(LogitGradProperty, InvalidCallsAreRejectedInOrder, 300,
                    ({"ABI-SOC-1", "LOGIT-NULL-1", "LOGIT-DTYPE-1", "LOGIT-SHAPE-1",
                      "LOGIT-RANK-1"}),
                    ()) {
  prop_invalid_call_rejected(builtin_sut(), op(),
                             *rc::gen::weightedElement<Product>({{4, Product::kAtlasA2},
                                                                 {2, Product::kAtlasA3},
                                                                 {1, Product::kAtlasTraining},
                                                                 {1, Product::kAtlasInference}}));
}

// LOGIT-EMPTY-1, ABI-EMPTY-1: an empty call succeeds with workspace 0 (the judge checks that
// nothing is written).
ACLNN_PROP(LogitGradProperty, EmptyCallsNeedNoWorkspace, 40, ()) {
  check_empty_call_needs_no_workspace(op(), "out");
}

}  // namespace

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

double eps_of(const Case &c) {
  return std::get<double>(*c.attr("eps"));
}

void set_eps(Case &c, double eps) {
  for (auto &[name, a] : c.attrs)
    if (name == "eps") a = eps;
}

Case valid_case() {
  Case c = test_support::valid_case(logit_grad_op(),
                                    *rc::gen::element(Product::kAtlasA2, Product::kAtlasA3));
  return c;
}

// x inside LOGIT-VALUE-1's range: the oracle's one definition.
bool inside_range(double x, double eps) {
  return aclnn_ref::logit_grad_inside_range(x, eps);
}

// Where the spec's factor (what dy is multiplied by) is finite: 1/(x(1-x)) inside the range away
// from 0 and 1, 0 outside the range for eps >= 0 and for eps = +inf. NaN for eps NaN or > 1, x not
// finite, outside the range for eps < 0; dy/0 for eps = 1 and x = 0/1 inside the range.
bool factor_finite(double x, double eps) {
  if (std::isnan(eps)) return false;
  if (eps == std::numeric_limits<double>::infinity()) return true;
  if (eps >= 1) return false;
  if (!std::isfinite(x)) return false;
  if (!inside_range(x, eps)) return eps >= 0;
  return x != 0 && x != 1;
}

// A valid case whose dy has moderate finite values (x and eps keep every special value).
Case moderate_case() {
  Case c = valid_case();
  TensorArg &dy = *c.tensor("dy");
  // Normal magnitudes in [2^-4, 4] (or zero), so scaling by 2^k, |k| <= 3, stays exact in every
  // dtype: the relation is about out, not about rounding the scaled dy.
  dy = moderate_values(dy);
  return c;
}

// Metamorphic (LOGIT-VALUE-1): scaling dy by 2^k scales out by exactly 2^k where both results are
// normal (rounding commutes with a power-of-two scale away from overflow and underflow).
ACLNN_PROP(LogitGradProperty, ScalingDyByAPowerOfTwoScalesOutExactly, 60, ()) {
  Case c = moderate_case();
  const int k = *rc::gen::inRange(-3, 4);
  Case scaled = c;
  *scaled.tensor("dy") = map_values(*c.tensor("dy"), [k](double v) { return std::ldexp(v, k); });
  const Outcome a = run_ok(op(), c), b = run_ok(op(), scaled);
  const TensorArg &out = *c.tensor("out");
  const auto va = view_values(out, a.storage_after[2]), vb = view_values(out, b.storage_after[2]);
  for (size_t i = 0; i < va.size(); ++i) {
    if (!is_normal_in(va[i], out.dtype) || !is_normal_in(vb[i], out.dtype)) continue;
    RC_ASSERT(vb[i] == std::ldexp(va[i], k));
  }
}

// Metamorphic (LOGIT-VALUE-1, LOGIT-EPS-INF-1): dy = 0 gives out = +-0 wherever the factor is
// finite (see factor_finite).
ACLNN_PROP(LogitGradProperty, ZeroDyGivesZeroOut, 40, ()) {
  Case c = valid_case();
  *c.tensor("dy") = map_values(*c.tensor("dy"), [](double) { return 0.0; });
  const Outcome o = run_ok(op(), c);
  const auto out = view_values(*c.tensor("out"), o.storage_after[2]);
  const auto *x = c.view("x");
  const double eps = eps_of(c);
  for (size_t i = 0; i < out.size(); ++i)
    if (factor_finite(x->at(static_cast<int64_t>(i)), eps)) RC_ASSERT(out[i] == 0.0);
}

// Metamorphic (every value clause): negating dy negates out exactly - the rules depend on dy only
// through its sign (dy/0, an infinity by IEEE) or its magnitude, and rounding is symmetric.
ACLNN_PROP(LogitGradProperty, NegatingDyNegatesOut, 40, ()) {
  const Case c = valid_case();
  Case neg = c;
  *neg.tensor("dy") = map_values(*c.tensor("dy"), [](double v) { return -v; });
  const Outcome a = run_ok(op(), c), b = run_ok(op(), neg);
  const TensorArg &out = *c.tensor("out");
  const auto va = view_values(out, a.storage_after[2]), vb = view_values(out, b.storage_after[2]);
  for (size_t i = 0; i < va.size(); ++i) RC_ASSERT(same_value(vb[i], -va[i]));
}

// Metamorphic (LOGIT-VALUE-1): eps only selects the range; inside it the value does not depend
// on eps. For eps in [0, 1) every x inside [eps, 1 - eps] is inside [0, 1], and the call with
// eps = -1 gives the same element there.
ACLNN_PROP(LogitGradProperty, ValueInsideTheRangeDoesNotDependOnEps, 40, ()) {
  const Case c = valid_case();
  const double eps = eps_of(c);
  RC_PRE(eps >= 0 && eps < 1);
  Case wide = c;
  set_eps(wide, -1.0);
  const Outcome a = run_ok(op(), c), b = run_ok(op(), wide);
  const TensorArg &out = *c.tensor("out");
  const auto va = view_values(out, a.storage_after[2]), vb = view_values(out, b.storage_after[2]);
  const auto *x = c.view("x");
  for (size_t i = 0; i < va.size(); ++i) {
    const double xv = x->at(static_cast<int64_t>(i));
    if (std::isfinite(xv) && inside_range(xv, eps)) RC_ASSERT(same_value(va[i], vb[i]));
  }
}

}  // namespace

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

// Meta-test: the valid-case generator reaches every value variant's difference. The built-in
// library follows the value of record; judged against each variant it must deviate on some
// generated case, attributed to a LOGIT-* clause, or the generator cannot tell that variant
// from the record.
TEST(LogitGradProperty, GeneratorDistinguishesEveryValueVariant) {
  const auto &op = logit_grad_op();
  for (const char *variant : {"range-rule", "kernel-nan-x"}) {
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
      EXPECT_NE(j.failures().find("LOGIT-"), std::string::npos) << variant << "\n" << j.failures();
    }
    EXPECT_TRUE(found) << "no generated case distinguishes variant " << variant;
  }
}

}  // namespace
