// ln_weight_ignored_mixed: LayerNormBackward ignores a FLOAT weight when the input is fp16 or bf16
// (mixed precision path uses w = 1).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm) return;
  if (!c->in[4].present || c->in[4].dtype != ACL_FLOAT || c->in[1].dtype == ACL_FLOAT) return;
  LayerNormFaults f;
  f.ignore_weight = true;
  layer_norm_backward(*c, f);
}
}  // namespace mutant
