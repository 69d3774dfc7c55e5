// Oracle of aclnnGeluBackward (spec: gelu_backward.md): expected status and values of record.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "reference/dtype.hpp"
#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref {

// One call, described plainly; nullptr = a NULL argument. Only gradInput's dtype, shape and
// strides matter.
struct GeluBackwardCall {
  const TensorView *grad_output = nullptr;
  const TensorView *self = nullptr;
  const TensorView *grad_input = nullptr;
  Product product = Product::kAtlasA2;
};

// "tanh-approx" (values), "cast-output" (status; values: the promoted-type result cast).
std::vector<std::string_view> gelu_backward_variants();

// Expected status by the spec's check order (GELU-NULL-1, -DTYPE-1, -DTYPE-2, -RANK-1, -BCAST-1,
// -BCAST-2) with the deciding clause; success has clause "".
Verdict gelu_backward_check(const GeluBackwardCall &call, const VariantSet &variants = {});

// Values of record of a valid call: one output "gradInput", row-major over its shape.
std::vector<ExpectedOutput> gelu_backward_values(const GeluBackwardCall &call,
                                                 const VariantSet &variants = {});

// One element: dy and x are already values of the computation type; the result dy*g(x) rounded
// once to `out` (fp16, bf16, fp32, fp64). Correctly rounded (Ziv), throws exact::ZivFailure if
// undecided at the precision cap.
uint64_t gelu_backward_element(double dy, double x, DType out, const VariantSet &variants = {});

// The clauses that decide elements of gradInput's value of record (DecidingClauses::ids).
inline constexpr std::string_view kGeluDecidingClauses[] = {"GELU-VALUE-1", "GELU-SPECIAL-1",
                                                            "GELU-SPECIAL-2"};
// x within this distance of g's root is GELU-SPECIAL-2's region (the terms of g cancel there).
inline constexpr double kGeluRootBand = 0x1p-6;

// The clause deciding each gradInput element, without computing any value: GELU-SPECIAL-1 where
// dy or x (in the computation type) is not finite, else GELU-SPECIAL-2 where x lies within
// kGeluRootBand of g's root, else GELU-VALUE-1 (also for an index outside gradInput). The
// operands must broadcast to gradInput's shape; variants do not change the deciding clause.
// gelu_backward_values() fills ExpectedOutput::decided_by with the same answer.
DecidingClauses gelu_backward_clauses(const GeluBackwardCall &call);

namespace gelu_detail {
// Number of elements this thread sent to the MPFR fallback so far (tests/benchmarks).
uint64_t mpfr_fallbacks();
// The MPFR evaluation alone (no double fast pass), for cross-checking the fast pass.
uint64_t element_mpfr_only(double dy, double x, DType out, bool tanh_approx);
}  // namespace gelu_detail

}  // namespace aclnn_ref
