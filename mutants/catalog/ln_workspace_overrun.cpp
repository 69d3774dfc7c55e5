// ln_workspace_overrun: LayerNormBackward asks for half the workspace its kernel uses (its partial
// sums of gradWeight and gradBias counted per block of rows, then halved by a wrong element size),
// and the kernel writes past the end.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_one(Call &c, aclnnStatus &status, uint64_t *ws, aclOpExecutor **) {
  if (c.op == Op::kLayerNorm && status == ACLNN_SUCCESS && ws && *ws > 0) *ws /= 2;
}
std::optional<aclnnStatus> before_phase_two(Call *c, void *&w, uint64_t &n, aclOpExecutor *ex) {
  if (!c || c->op != Op::kLayerNorm || !w || n == 0) return std::nullopt;
  static auto run = real<decltype(&aclnnLayerNormBackward)>("aclnnLayerNormBackward");
  return run_past_workspace(*c, w, n, ex, run);
}
}  // namespace mutant
