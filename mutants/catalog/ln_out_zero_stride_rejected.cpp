// ln_out_zero_stride_rejected: LayerNormBackward refuses (161002) a gradInputOut, gradWeightOut or
// gradBiasOut with a zero stride, also on a dim of size 1, whose stride is never used: its overlap
// check takes every zero stride for an expanded dim.
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (auto s = fault::refuse_zero_stride(c, Op::kLayerNorm, 0)) return s;
  if (auto s = fault::refuse_zero_stride(c, Op::kLayerNorm, 1)) return s;
  if (auto s = fault::refuse_zero_stride(c, Op::kLayerNorm, 2)) return s;
  return std::nullopt;
}
}  // namespace mutant
