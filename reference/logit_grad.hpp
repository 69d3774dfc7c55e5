// Oracle of aclnnLogitGrad (spec: logit_grad.md): expected status and values of record.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "reference/dtype.hpp"
#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref {

// One call (note the ABI order: x first, then dy); nullptr = a NULL argument. Only out's dtype,
// shape and strides matter.
struct LogitGradCall {
  const TensorView *x = nullptr;
  const TensorView *dy = nullptr;
  double eps = -1.0;
  const TensorView *out = nullptr;
  Product product = Product::kAtlasA2;
};

// "range-rule", "kernel-nan-x" (values); "no-shape-check" (status).
std::vector<std::string_view> logit_grad_variants();

// Expected status: ABI-SOC-1 (A2/A3 only), then LOGIT-NULL-1, -DTYPE-1, -SHAPE-1, -RANK-1.
Verdict logit_grad_check(const LogitGradCall &call, const VariantSet &variants = {});

// Values of record of a valid call: one output "out", row-major over out's shape. Under
// no-shape-check the element count is x's for all three: element i reads x and dy at row-major
// index i of their own shapes; the output has shape [numel(x)] unless out has numel(x) elements
// (then out's shape). Elements where dy has no index i (dy smaller than x) are given NaN: the
// implementation's value there is undefined.
std::vector<ExpectedOutput> logit_grad_values(const LogitGradCall &call,
                                              const VariantSet &variants = {});

// One element: x, dy exact; eps as given; the result rounded once to `out` (fp16, bf16, fp32,
// fp64).
uint64_t logit_grad_element(double dy, double x, double eps, DType out,
                            const VariantSet &variants = {});

namespace logit_detail {
uint64_t mpfr_fallbacks();
// The exact evaluation alone (no double fast pass), for cross-checking the fast pass.
uint64_t element_exact_only(double dy, double x, double eps, DType out,
                            const VariantSet &variants = {});
}  // namespace logit_detail

}  // namespace aclnn_ref
