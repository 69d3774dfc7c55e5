// ln_write_past_grad_input: LayerNormBackward stores gradInput in whole vectors and writes one
// element past the end of a contiguous gradInput view (into the storage after it).
#include <cstring>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm || !c->out[0].present) return;
  const View &gi = c->out[0];
  const int64_t n = gi.numel();
  if (n == 0 || !gi.contiguous() || (!c->mask.empty() && !c->mask[0])) return;
  const int64_t last = gi.element(n - 1);
  if (last + 1 >= gi.storage_numel()) return;
  store(gi, last + 1, load(gi, last));
}
}  // namespace mutant
