// Case helpers the property tests of every op share (tests/properties/). They use RC_ASSERT and
// RC_PRE, so call them inside a property.
#pragma once

#include <string>

#include "properties/case.hpp"
#include "properties/op.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform::test_support {

// Runs the case on the built-in library and asserts it succeeded.
Outcome run_ok(const OpDescriptor &op, const Case &c);
// A generated case the oracle accepts, for `product`.
Case valid_case(const OpDescriptor &op, Product product);
// The tensor with every value made moderate: non-finite values become 1, non-zero magnitudes are
// clamped to [2^-4, 4]. Scaling such a value by 2^k, |k| <= 3, is exact in every dtype, so a
// metamorphic relation is about the op, not about rounding its scaled input.
TensorArg moderate_values(const TensorArg &t);
// v is finite and not subnormal in t (rounding commutes with a power-of-two scale there).
bool is_normal_in(double v, aclnn_ref::DType t);
// Equal, or both NaN.
bool same_value(double a, double b);

// An empty call (`output` has no elements) succeeds with workspace 0, and the judge finds nothing
// written: ABI-EMPTY-1 where the op's own empty clause says the same.
void check_empty_call_needs_no_workspace(const OpDescriptor &op, const std::string &output);

}  // namespace aclnn_conform::test_support
