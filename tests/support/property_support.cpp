#include "tests/support/property_support.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>

#include "properties/generic.hpp"
#include "properties/judge.hpp"
#include "properties/transform.hpp"

namespace aclnn_conform::test_support {

Outcome run_ok(const OpDescriptor &op, const Case &c) {
  const Outcome o = run_case(builtin_sut(), op, c);
  RC_ASSERT(o.status == 0);
  return o;
}

Case valid_case(const OpDescriptor &op, Product product) {
  Case c = *op.gen_valid(product);
  RC_PRE(op.check(c, {}).ok());
  return c;
}

TensorArg moderate_values(const TensorArg &t) {
  return map_values(t, [](double v) {
    if (!std::isfinite(v)) return 1.0;
    if (v == 0) return v;
    return std::copysign(std::clamp(std::fabs(v), 0x1p-4, 4.0), v);
  });
}

bool is_normal_in(double v, aclnn_ref::DType t) {
  return std::isfinite(v) && std::fabs(v) >= std::ldexp(1.0, aclnn_ref::float_format(t).emin);
}

bool same_value(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

void check_empty_call_needs_no_workspace(const OpDescriptor &op, const std::string &output) {
  const Case c = *op.gen_valid(Product::kAtlasA2);
  RC_PRE(op.check(c, {}).ok() && c.tensor(output)->numel() == 0);
  const Outcome o = run_case(builtin_sut(), op, c);
  RC_ASSERT(o.status == 0);
  RC_ASSERT(o.workspace_size == 0u);
  assert_judged(c, judge(op, c, o));
}

}  // namespace aclnn_conform::test_support
