// ln_check_order_mask: LayerNormBackward checks the NULL outputs (LN-NULL-2) before the mask
// length (LN-MASK-1): a mask of the wrong length with a NULL output gives 161001, not 161002.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kLayerNorm || !c.mask_arg || c.mask.size() == 3) return std::nullopt;
  for (size_t i = 0; i < c.out.size(); ++i)
    if (!c.out[i].present && (i >= c.mask.size() || c.mask[i])) return ACLNN_ERR_PARAM_NULLPTR;
  return std::nullopt;
}
}  // namespace mutant
