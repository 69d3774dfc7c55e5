// ln_det_alternating: LayerNormBackward's column sums (gradWeight, gradBias) are accumulated in
// float in an order that changes from one call to the next (as with atomics): results are not
// bitwise reproducible.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm) return;
  static int calls = 0;
  if (++calls % 2) return;  // odd calls: the library's order; even calls: reversed, in float
  LayerNormFaults f;
  f.alternate_order = 1;
  layer_norm_backward(*c, f);
}
}  // namespace mutant
