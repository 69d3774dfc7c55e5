// ln_recompute_stats: LayerNormBackward recomputes mean and rstd from the input (eps 1e-5) instead
// of using the given ones.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm) return;

  LayerNormFaults f;
  f.recompute_stats = true;
  layer_norm_backward(*c, f);
}
}  // namespace mutant
