// Oracle of aclnnLayerNormBackward (spec: layer_norm_backward.md): the expected status of a call
// (with the clause that decides it) and the values of record of gradInputOut, gradWeightOut and
// gradBiasOut: each the op's formula evaluated exactly and rounded once (LN-VALUE-3).
#pragma once

#include <string_view>
#include <vector>

#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref {

struct LayerNormBackwardCall {
  // nullptr = NULL argument. Output views: only dtype/shape/strides matter.
  const TensorView *grad_out = nullptr;
  const TensorView *input = nullptr;
  const std::vector<int64_t> *normalized_shape = nullptr;
  const TensorView *mean = nullptr;
  const TensorView *rstd = nullptr;
  const TensorView *weight = nullptr;  // weightOptional
  const TensorView *bias = nullptr;    // biasOptional
  const std::vector<bool> *output_mask = nullptr;
  const TensorView *grad_input = nullptr;
  const TensorView *grad_weight = nullptr;
  const TensorView *grad_bias = nullptr;
  Product product = Product::kAtlasA2;
};

// Expected status. Order: LN-NULL-1, LN-MASK-1, LN-NULL-2, LN-DTYPE-1 (BF16 only on A2/A3),
// LN-DTYPE-2, LN-SHAPE-1, LN-SHAPE-2, LN-SHAPE-3, LN-SHAPE-4, LN-RANK-1.
// Readings of the spec, as the project's implementation has them: LN-DTYPE-2 and LN-SHAPE-4
// apply to outputs whose mask bit is true (an unrequested output is not looked at), LN-RANK-1 to
// every non-NULL tensor (a masked-off output included).
Verdict layer_norm_backward_check(const LayerNormBackwardCall &call,
                                  const VariantSet &variants = {});

// Three expected outputs: "gradInputOut", "gradWeightOut", "gradBiasOut", in that order.
// written=false for an output whose mask bit is false (LN-MASK-2) and for all three when the
// check fails. error_scale/term_count/exact_nearest per element (see docs/oracle-reductions.md).
// Variant `any-float-grads`: gradWeightOut/gradBiasOut may be fp16/bf16 (rounded once to it).
std::vector<ExpectedOutput> layer_norm_backward_values(const LayerNormBackwardCall &call,
                                                       const VariantSet &variants = {});

std::vector<std::string_view> layer_norm_backward_variants();  // {"any-float-grads"}

// The clauses that decide elements of the three outputs (DecidingClauses::ids).
inline constexpr std::string_view kLayerNormDecidingClauses[] = {"LN-VALUE-1", "LN-VALUE-2",
                                                                 "LN-SPECIAL-1", "LN-EMPTY-1"};

// The clause deciding each element of gradInputOut, gradWeightOut and gradBiasOut (in that
// order), without computing any value and whatever the mask: LN-SPECIAL-1 where a non-finite
// value takes part (gradInput: its row's dy, x, mean, rstd or weight; gradWeight: its column's
// dy, x, mean or rstd; gradBias: its column's dy), else LN-VALUE-1 (gradInput) or LN-VALUE-2;
// with M = 0, LN-EMPTY-1 for gradWeight and gradBias. Indices outside an output get its value
// clause (LN-EMPTY-1 for M = 0). gradOut, input, normalizedShape, mean and rstd must be present
// (else no element is decided); variants do not change the deciding clause.
// layer_norm_backward_values() fills ExpectedOutput::decided_by with the same answer.
std::vector<DecidingClauses> layer_norm_backward_clauses(const LayerNormBackwardCall &call);

}  // namespace aclnn_ref
