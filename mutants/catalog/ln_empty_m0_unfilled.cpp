// ln_empty_m0_unfilled: LayerNormBackward returns early when there are no rows (M = 0), leaving
// gradWeight and gradBias unwritten instead of zero-filled.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *ex) {
  if (!c || c->op != Op::kLayerNorm || c->runs > 0) return std::nullopt;
  int64_t n = 1;
  for (auto d : c->normalized_shape) n *= d;
  if (c->in[1].numel() != 0 || n == 0) return std::nullopt;
  release_executor(ex);
  ++c->runs;
  return ACLNN_SUCCESS;
}
}  // namespace mutant
