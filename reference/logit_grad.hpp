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

// x inside LOGIT-VALUE-1's range, decided exactly: eps < 0: [0, 1]; eps >= 0: [eps, 1 - eps],
// where x <= 1 - eps is tested as x <= 0.5 or eps <= 1 - x (1 - x is exact for x in [0.5, 2] by
// Sterbenz; for x > 2 it is negative, and so is its rounding, and eps >= 0; for x <= 0.5 and
// eps <= x, eps <= 0.5 <= 1 - x holds).
inline bool logit_grad_inside_range(double x, double eps) {
  if (eps < 0) return x >= 0 && x <= 1;
  return eps <= x && (x <= 0.5 || eps <= 1.0 - x);
}

// The clauses that decide elements of out's value of record (DecidingClauses::ids).
inline constexpr std::string_view kLogitDecidingClauses[] = {
    "LOGIT-VALUE-1",   "LOGIT-EPS-NAN-1",     "LOGIT-EPS-INF-1",      "LOGIT-EPS-GT1-1",
    "LOGIT-EPS-EQ1-1", "LOGIT-X-NONFINITE-1", "LOGIT-DY-NONFINITE-1", "LOGIT-X01-1"};

// The clause deciding each out element, without computing any value, in the spec's order: an eps
// clause (NaN, +inf, > 1, = 1) decides every element (and an index outside out); then
// LOGIT-X-NONFINITE-1, LOGIT-DY-NONFINITE-1, LOGIT-X01-1 (x = 0 or 1 inside the range), else
// LOGIT-VALUE-1. Element i reads x and dy at row-major index i (LOGIT-VALUE-1 where either has
// none). The behaviour of record: variants do not change the deciding clause.
// logit_grad_values() fills ExpectedOutput::decided_by with the same answer.
DecidingClauses logit_grad_clauses(const LogitGradCall &call);

namespace logit_detail {
uint64_t mpfr_fallbacks();
// The exact evaluation alone (no double fast pass), for cross-checking the fast pass.
uint64_t element_exact_only(double dy, double x, double eps, DType out,
                            const VariantSet &variants = {});
}  // namespace logit_detail

}  // namespace aclnn_ref
