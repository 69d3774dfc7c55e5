// ln_m1_no_xhat: LayerNormBackward's single-row path (M = 1) writes gradWeight = dy, forgetting the
// factor xhat.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm) return;

  LayerNormFaults f;
  f.m1_no_xhat = true;
  layer_norm_backward(*c, f);
}
}  // namespace mutant
