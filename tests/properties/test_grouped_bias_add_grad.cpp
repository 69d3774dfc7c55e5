// GroupedBiasAddGrad (V1) and GroupedBiasAddGradV2 properties on the built-in library (clauses:
// GBAG-*; see properties/grouped_bias_add_grad.cpp). Each generic property draws V1 or V2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "properties/budget.hpp"
#include "properties/generic.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"
#include "properties/transform.hpp"
#include "tests/support/property_support.hpp"

namespace aclnn_conform {
// From properties/grouped_bias_add_grad.cpp.
std::vector<int64_t> gbag_index_values(const TensorArg &t);
void gbag_set_index_values(TensorArg &t, const std::vector<int64_t> &values);
}  // namespace aclnn_conform

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

const OpDescriptor &either() {
  return **rc::gen::element(&grouped_bias_add_grad_op(), &grouped_bias_add_grad_v2_op());
}
Product a2_or_a3() {
  return *rc::gen::element(Product::kAtlasA2, Product::kAtlasA3);
}

// One suite per descriptor (the clause catalogue names a descriptor's generic properties
// "<name>Property.*"): GroupedBiasAddGradProperty for V1, GroupedBiasAddGradV2Property for V2.

// GBAG-VALUE-1/2/3, GBAG-EMPTY-1, GBAG-SPECIAL-1, GBAG-GMAX-1 and GBAG-IDX-1 (acceptance side),
// ABI-TENSOR-2, ABI-EMPTY-1, ABI-SOC-1 (A2 and A3 have the op).
ACLNN_PROP_COVERING(GroupedBiasAddGradProperty, ValidCallsMatchTheOracle, 400,
                    ({"GBAG-VALUE-1", "GBAG-VALUE-2", "GBAG-EMPTY-1", "GBAG-SPECIAL-1",
                      "ABI-EMPTY-1"}),
                    ()) {
  prop_valid_call_matches_oracle(builtin_sut(), grouped_bias_add_grad_op(), a2_or_a3());
}
// The same for V2, with GBAG-TYPE-1's acceptance side (types 0 and 1).
ACLNN_PROP_COVERING(GroupedBiasAddGradV2Property, ValidCallsMatchTheOracle, 400,
                    ({"GBAG-VALUE-1", "GBAG-VALUE-2", "GBAG-EMPTY-1", "GBAG-SPECIAL-1",
                      "GBAG-TYPE-1", "ABI-EMPTY-1"}),
                    ()) {
  prop_valid_call_matches_oracle(builtin_sut(), grouped_bias_add_grad_v2_op(), a2_or_a3());
}

// GBAG-NULL-1, GBAG-DTYPE-1, GBAG-RANK-1, GBAG-GMAX-1, GBAG-SHAPE-1, GBAG-IDX-1 (memory safety
// only), ABI-SOC-1 (training/inference products lack the op), in order.
ACLNN_PROP_COVERING(GroupedBiasAddGradProperty, InvalidCallsAreRejectedInOrder, 400,
                    ({"GBAG-NULL-1", "GBAG-DTYPE-1", "GBAG-RANK-1", "GBAG-GMAX-1", "GBAG-SHAPE-1",
                      "GBAG-IDX-1", "ABI-SOC-1"}),
                    ()) {
  prop_invalid_call_rejected(builtin_sut(), grouped_bias_add_grad_op(), Product::kAtlasA2);
}
// The same for V2, with GBAG-TYPE-1 (after the shape checks, before GBAG-IDX-1).
ACLNN_PROP_COVERING(GroupedBiasAddGradV2Property, InvalidCallsAreRejectedInOrder, 400,
                    ({"GBAG-NULL-1", "GBAG-DTYPE-1", "GBAG-RANK-1", "GBAG-GMAX-1", "GBAG-SHAPE-1",
                      "GBAG-TYPE-1", "GBAG-IDX-1", "ABI-SOC-1"}),
                    ()) {
  prop_invalid_call_rejected(builtin_sut(), grouped_bias_add_grad_v2_op(), Product::kAtlasA2);
}

}  // namespace

namespace {
using namespace aclnn_conform;
using namespace aclnn_conform::test_support;

constexpr size_t kOut = 2;  // "out" is the third tensor

Case valid_case(const OpDescriptor &op) {
  Case c = test_support::valid_case(op, Product::kAtlasA2);
  RC_PRE(c.tensor("out")->numel() > 0);  // something to compare
  return c;
}

// V1 is V2 with groupIdxType = 0: the same call through both gives bitwise the same out.
ACLNN_PROP(GroupedBiasAddGradProperty, V1EqualsV2WithType0, 100, ()) {
  const Case v1 = valid_case(grouped_bias_add_grad_op());
  Case v2 = v1;
  v2.op = grouped_bias_add_grad_v2_op().name;
  v2.attrs = {{"groupIdxType", int64_t{0}}};
  RC_ASSERT(grouped_bias_add_grad_v2_op().check(v2, {}).ok());
  const Outcome a = run_ok(grouped_bias_add_grad_op(), v1),
                b = run_ok(grouped_bias_add_grad_v2_op(), v2);
  RC_ASSERT(a.storage_after[kOut] == b.storage_after[kOut]);
}

// GBAG-VALUE-1: type 1 with group sizes equals type 0 with their prefix sums (bitwise).
ACLNN_PROP(GroupedBiasAddGradProperty, SizesEqualTheirPrefixSums, 100, ()) {
  const OpDescriptor &op = grouped_bias_add_grad_v2_op();
  Case sizes = valid_case(op);
  RC_PRE(sizes.tensor("groupIdxOptional")->present);
  sizes.attrs = {{"groupIdxType", int64_t{1}}};
  Case ends = sizes;
  ends.attrs = {{"groupIdxType", int64_t{0}}};
  // The case was generated for one type; read its values as sizes (or derive them from ends).
  auto v = gbag_index_values(*sizes.tensor("groupIdxOptional"));
  if (!op.check(sizes, {}).ok()) {  // they were end offsets: turn them into sizes
    for (size_t i = v.size(); i-- > 1;) v[i] -= v[i - 1];
    gbag_set_index_values(*sizes.tensor("groupIdxOptional"), v);
  }
  int64_t acc = 0;
  for (auto &x : v) x = acc += x;
  gbag_set_index_values(*ends.tensor("groupIdxOptional"), v);
  RC_ASSERT(op.check(sizes, {}).ok());
  RC_ASSERT(op.check(ends, {}).ok());
  const Outcome a = run_ok(op, sizes), b = run_ok(op, ends);
  RC_ASSERT(a.storage_after[kOut] == b.storage_after[kOut]);
}

// A valid case whose gradY holds moderate values only (magnitudes in [2^-4, 4] or zero), so
// scaling by 2^k, |k| <= 3, is exact in every dtype.
Case moderate_case(const OpDescriptor &op) {
  Case c = valid_case(op);
  *c.tensor("gradY") = moderate_values(*c.tensor("gradY"));
  return c;
}

// Metamorphic (GBAG-VALUE-1/2): out is linear in gradY, so scaling gradY by 2^k scales out by
// exactly 2^k, for moderate inputs and where out is normal in both runs.
ACLNN_PROP(GroupedBiasAddGradProperty, ScalingGradYByAPowerOfTwoScalesOutExactly, 100, ()) {
  const OpDescriptor &op = either();
  const Case c = moderate_case(op);
  const int k = *rc::gen::inRange(-3, 4);
  Case scaled = c;
  *scaled.tensor("gradY") =
      map_values(*c.tensor("gradY"), [k](double v) { return std::ldexp(v, k); });
  const Outcome a = run_ok(op, c), b = run_ok(op, scaled);
  const TensorArg &out = *c.tensor("out");
  const auto va = view_values(out, a.storage_after[kOut]),
             vb = view_values(out, b.storage_after[kOut]);
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

// Metamorphic: gradY = 0 gives out = 0 everywhere (empty groups included, GBAG-EMPTY-1).
ACLNN_PROP(GroupedBiasAddGradProperty, ZeroGradYGivesZeroOut, 80, ()) {
  const OpDescriptor &op = either();
  Case c = valid_case(op);
  *c.tensor("gradY") = map_values(*c.tensor("gradY"), [](double) { return 0.0; });
  const Outcome o = run_ok(op, c);
  for (double v : view_values(*c.tensor("out"), o.storage_after[kOut])) RC_ASSERT(v == 0.0);
}

}  // namespace
