// LayerNormBackward properties on the built-in library (clauses: LN-*; see
// properties/layer_norm_backward.cpp).
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
  return layer_norm_backward_op();
}

// LN-VALUE-1/2/3, LN-BIAS-1, LN-MASK-2, LN-EMPTY-1, LN-SPECIAL-1, ABI-TENSOR-2, ABI-SOC-1 (every
// product has the op; BF16 only on A2/A3).
ACLNN_PROP_COVERING(LayerNormBackwardProperty, ValidCallsMatchTheOracle, 500,
                    ({"LN-VALUE-1", "LN-VALUE-2", "LN-MASK-2", "LN-EMPTY-1", "LN-SPECIAL-1",
                      "LN-BIAS-1", "ABI-EMPTY-1", "ABI-SOC-1"}),
                    ()) {
  prop_valid_call_matches_oracle(
      builtin_sut(), op(),
      *rc::gen::element(Product::kAtlasA2, Product::kAtlasA3, Product::kAtlasTraining,
                        Product::kAtlasInference));
}

// LN-NULL-1, LN-MASK-1, LN-NULL-2, LN-DTYPE-1, LN-DTYPE-2, LN-SHAPE-1..4, LN-RANK-1, in order.
// (LN-RANK-1 is about 1 % of the invalid cases: 1000 cases reach it with near certainty.)
ACLNN_PROP_COVERING(LayerNormBackwardProperty, InvalidCallsAreRejectedInOrder, 1000,
                    ({"LN-NULL-1", "LN-MASK-1", "LN-NULL-2", "LN-DTYPE-1", "LN-DTYPE-2",
                      "LN-SHAPE-1", "LN-SHAPE-2", "LN-SHAPE-3", "LN-SHAPE-4", "LN-RANK-1"}),
                    ()) {
  prop_invalid_call_rejected(builtin_sut(), op(), Product::kAtlasA2);
}

}  // namespace

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

size_t index_of(const Case &c, const std::string &name) {
  size_t i = 0;
  while (c.tensors[i].first != name) ++i;
  return i;
}

const char *const kOutputs[] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};

// A valid case with moderate finite values (no specials) in every float input, for metamorphic
// relations: magnitudes in [2^-4, 4] (or zero), so scaling gradOut by 2^k, |k| <= 3, is exact in
// every dtype and no intermediate comes near overflow or underflow.
Case moderate_case() {
  Case c = test_support::valid_case(layer_norm_backward_op(), Product::kAtlasA2);
  // Something to compare: a requested output with elements.
  const auto &mask = std::get<std::vector<bool>>(*c.attr("outputMask"));
  bool any = false;
  for (size_t k = 0; k < 3; ++k) any |= mask[k] && c.tensor(kOutputs[k])->numel() > 0;
  RC_PRE(any);
  for (const char *name : {"gradOut", "input", "mean", "rstd", "weightOptional", "biasOptional"}) {
    TensorArg &t = *c.tensor(name);
    if (!t.present) continue;
    t = moderate_values(t);
  }
  return c;
}

// Metamorphic (LN-VALUE-1/2): every output is linear in gradOut, so scaling gradOut by 2^k scales
// each requested output by exactly 2^k. Restricted to inputs that scale exactly (moderate values,
// |k| <= 3) and to output elements that are normal in both runs and whose images under the
// scaling are normal too (rounding of a subnormal or an overflow does not commute with scaling).
ACLNN_PROP(LayerNormBackwardProperty, ScalingGradOutByAPowerOfTwoScalesOutputsExactly, 150, ()) {
  const Case c = moderate_case();
  const int k = *rc::gen::inRange(-3, 4);
  Case scaled = c;
  *scaled.tensor("gradOut") =
      map_values(*c.tensor("gradOut"), [k](double v) { return std::ldexp(v, k); });
  const Outcome a = run_ok(op(), c), b = run_ok(op(), scaled);
  const auto &mask = std::get<std::vector<bool>>(*c.attr("outputMask"));
  for (size_t o = 0; o < 3; ++o) {
    if (!mask[o]) continue;
    const size_t i = index_of(c, kOutputs[o]);
    const TensorArg &out = c.tensors[i].second;
    const auto va = view_values(out, a.storage_after[i]), vb = view_values(out, b.storage_after[i]);
    for (size_t e = 0; e < va.size(); ++e) {
      // Each value and its scaled image normal: 2^-13 - 2^-24 is a normal fp16 whose half is not
      // an fp16 value (it lies below the smallest normal, on a finer grid than fp16's subnormals).
      if (!is_normal_in(va[e], out.dtype) || !is_normal_in(vb[e], out.dtype) ||
          !is_normal_in(std::ldexp(va[e], k), out.dtype) ||
          !is_normal_in(std::ldexp(vb[e], -k), out.dtype))
        continue;
      RC_ASSERT(vb[e] == std::ldexp(va[e], k));
    }
  }
}

// Metamorphic: gradOut = 0 gives zero outputs wherever the other inputs are finite (all of them
// here): gradInput = rstd*(0 - 0 - xhat*0), gradWeight = sum 0*xhat, gradBias = sum 0.
ACLNN_PROP(LayerNormBackwardProperty, ZeroGradOutGivesZeroOutputs, 80, ()) {
  Case c = moderate_case();
  *c.tensor("gradOut") = map_values(*c.tensor("gradOut"), [](double) { return 0.0; });
  const Outcome o = run_ok(op(), c);
  const auto &mask = std::get<std::vector<bool>>(*c.attr("outputMask"));
  for (size_t k = 0; k < 3; ++k) {
    if (!mask[k]) continue;
    const size_t i = index_of(c, kOutputs[k]);
    for (double v : view_values(c.tensors[i].second, o.storage_after[i])) RC_ASSERT(v == 0.0);
  }
}

// Metamorphic (LN-BIAS-1): bias takes no part in the values - removing it, or replacing its
// values (NaN included), leaves every output bitwise the same.
ACLNN_PROP(LayerNormBackwardProperty, BiasChangesNothing, 80, ()) {
  const Case c = test_support::valid_case(layer_norm_backward_op(), Product::kAtlasA2);
  RC_PRE(c.tensor("biasOptional")->present);
  Case other = c;
  if (*rc::gen::arbitrary<bool>())
    *other.tensor("biasOptional") = TensorArg::null();
  else
    *other.tensor("biasOptional") =
        map_values(*c.tensor("biasOptional"), [](double v) { return v == v ? -v + 1 : 0.0; });
  RC_PRE(layer_norm_backward_op().check(other, {}).ok());
  const Outcome a = run_ok(op(), c), b = run_ok(op(), other);
  for (const char *name : kOutputs) {
    const size_t i = index_of(c, name);
    RC_ASSERT(a.storage_after[i] == b.storage_after[i]);
  }
}

}  // namespace
