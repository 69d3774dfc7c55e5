// Oracle of aclnnGroupedBiasAddGrad / aclnnGroupedBiasAddGradV2 (spec: grouped_bias_add_grad.md):
// the expected status of a call (with the clause that decides it) and the value of record of
// `out`: each element the exact sum of its group's gradY elements, rounded once (GBAG-VALUE-3).
#pragma once

#include <string_view>
#include <vector>

#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref {

struct GroupedBiasAddGradCall {
  const TensorView *grad_y = nullptr;     // nullptr = NULL argument
  const TensorView *group_idx = nullptr;  // groupIdxOptional; nullptr = absent
  const TensorView *out = nullptr;        // only dtype/shape/strides matter
  int64_t group_idx_type = 0;             // V2 only; V1 behaves as type 0
  bool v2 = false;
  Product product = Product::kAtlasA2;
};

// Expected status. Order: ABI-SOC-1 (op exists on A2/A3 only), GBAG-NULL-1, GBAG-DTYPE-1,
// GBAG-RANK-1, GBAG-GMAX-1, GBAG-SHAPE-1, GBAG-TYPE-1 (V2), GBAG-IDX-1.
// GBAG-IDX-1 is a caller precondition: the project's implementation reports a violation with
// 161002 (naming the first bad index) and so does this verdict, but the spec lets a system under
// test do anything there except crash or write outside `out`; a judge must treat a Verdict with
// clause "GBAG-IDX-1" as "no status expected" (check only memory safety).
Verdict grouped_bias_add_grad_check(const GroupedBiasAddGradCall &call,
                                    const VariantSet &variants = {});

// One expected output, "out". A call whose check fails gets written=false (nothing may be
// written). Empty groups give +0 (GBAG-EMPTY-1); variant `empty-untouched`: an empty gradY leaves
// out unwritten. error_scale = sum |terms| (rounded up), term_count = number of terms,
// exact_nearest = the exact sum rounded to a double.
std::vector<ExpectedOutput> grouped_bias_add_grad_values(const GroupedBiasAddGradCall &call,
                                                         const VariantSet &variants = {});

std::vector<std::string_view> grouped_bias_add_grad_variants();  // {"empty-untouched"}

// The clauses that decide elements of out (DecidingClauses::ids).
inline constexpr std::string_view kGbagDecidingClauses[] = {"GBAG-VALUE-1", "GBAG-VALUE-2",
                                                            "GBAG-EMPTY-1", "GBAG-SPECIAL-1"};

// The clause deciding each element out[g, col], without computing any value: GBAG-EMPTY-1 where
// group g sums no row, GBAG-SPECIAL-1 where a summed gradY value is not finite, else the value
// clause (GBAG-VALUE-1 with groupIdx, GBAG-VALUE-2 without; also for an index past the groups).
// Groups: groupIdx's end offsets (V2 type 1: prefix sums of the sizes), or gradY.dim0 groups of
// gradY.dim1 rows without groupIdx (rank 3). Variants do not change the deciding clause.
// grouped_bias_add_grad_values() fills ExpectedOutput::decided_by with the same answer.
DecidingClauses grouped_bias_add_grad_clauses(const GroupedBiasAddGradCall &call);

}  // namespace aclnn_ref
