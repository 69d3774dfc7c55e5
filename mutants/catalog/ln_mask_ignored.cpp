// ln_mask_ignored: LayerNormBackward computes all three outputs and writes every output tensor it
// was given, also those whose outputMask bit is false.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm) return;

  LayerNormFaults f;
  f.write_masked = true;
  layer_norm_backward(*c, f);
}
}  // namespace mutant
