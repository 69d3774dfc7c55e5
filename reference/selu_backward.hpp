// Oracle of aclnnSeluBackward (spec: selu_backward.md): expected status and values of record.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "reference/dtype.hpp"
#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref {

// One call; nullptr = a NULL argument. `result` is the forward output y. Only gradInput's dtype,
// shape and strides matter.
struct SeluBackwardCall {
  const TensorView *grad_output = nullptr;
  const TensorView *result = nullptr;
  const TensorView *grad_input = nullptr;
  Product product = Product::kAtlasA2;
};

// "doc-literal", "le-zero", "select-lt", "via-fp16" (values); "mixed-dtype", "any-rank" (status).
std::vector<std::string_view> selu_backward_variants();

// Expected status: SELU-NULL-1, -DTYPE-1, -DTYPE-2, -SHAPE-1, -RANK-1 in that order.
Verdict selu_backward_check(const SeluBackwardCall &call, const VariantSet &variants = {});

// Values of record of a valid call: one output "gradInput", row-major over its shape. Each input
// is read exactly in its own dtype (mixed-dtype: the dtypes may differ).
std::vector<ExpectedOutput> selu_backward_values(const SeluBackwardCall &call,
                                                 const VariantSet &variants = {});

// One element: dy and y exact (any double), the result rounded once to `out` (fp16, bf16, fp32,
// fp64, int8, int32: RNE with saturation, SELU-INT-1).
uint64_t selu_backward_element(double dy, double y, DType out, const VariantSet &variants = {});

// The clauses that decide elements of gradInput's value of record (DecidingClauses::ids).
inline constexpr std::string_view kSeluDecidingClauses[] = {"SELU-VALUE-1", "SELU-NAN-1",
                                                            "SELU-ZERO-1", "SELU-INT-1"};

// The clause deciding each gradInput element, without computing any value, in the spec's order:
// SELU-NAN-1 where y is NaN, SELU-ZERO-1 where y = +-0, SELU-INT-1 for an integer gradInput, else
// SELU-VALUE-1 (also for an index outside result). Variants do not change the deciding clause.
// selu_backward_values() fills ExpectedOutput::decided_by with the same answer.
DecidingClauses selu_backward_clauses(const SeluBackwardCall &call);

namespace selu_detail {
uint64_t mpfr_fallbacks();
// The MPFR evaluation alone (no double fast pass), for cross-checking the fast pass.
uint64_t element_mpfr_only(double dy, double y, DType out, const VariantSet &variants = {});
}  // namespace selu_detail

}  // namespace aclnn_ref
