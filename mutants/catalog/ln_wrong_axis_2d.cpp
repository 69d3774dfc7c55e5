// ln_wrong_axis_2d: LayerNormBackward with a 2-D normalizedShape reduces gradInput's row sums over
// the first normalized axis only.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm) return;
  if (c->normalized_shape.size() != 2) return;
  LayerNormFaults f;
  f.wrong_axis = true;
  layer_norm_backward(*c, f);
}
}  // namespace mutant
