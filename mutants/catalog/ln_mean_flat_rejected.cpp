// ln_mean_flat_rejected: LayerNormBackward accepts mean and rstd only in the keep-dims shape
// [A1..Ai, 1..1]; the legal flat shapes [A1..Ai] and [M] are refused with 161002.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kLayerNorm || !c.in[1].present || !c.in[2].present) return std::nullopt;
  if (c.normalized_shape.empty()) return std::nullopt;
  if (c.in[2].dims.size() != c.in[1].dims.size()) return ACLNN_ERR_PARAM_INVALID;
  return std::nullopt;
}
}  // namespace mutant
