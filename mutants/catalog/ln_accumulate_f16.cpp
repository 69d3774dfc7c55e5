// ln_accumulate_f16: LayerNormBackward with fp16 input accumulates the row sums in fp16.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm) return;
  if (c->in[1].dtype != ACL_FLOAT16) return;
  LayerNormFaults f;
  f.accumulate_half = true;
  layer_norm_backward(*c, f);
}
}  // namespace mutant
