// ln_workspace_overrun: LayerNormBackward asks for half the workspace its kernel uses (its partial
// sums of gradWeight and gradBias counted per block of rows, then halved by a wrong element size),
// and the kernel writes past the end.
#include <cstdlib>
#include <cstring>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_one(Call &c, aclnnStatus &status, uint64_t *ws, aclOpExecutor **) {
  if (c.op == Op::kLayerNorm && status == ACLNN_SUCCESS && ws && *ws > 0) *ws /= 2;
}
std::optional<aclnnStatus> before_phase_two(Call *c, void *&w, uint64_t &n, aclOpExecutor *ex) {
  if (!c || c->op != Op::kLayerNorm || !w || n == 0) return std::nullopt;
  // The real kernel needs twice what was asked: it runs in a private buffer of that size, and
  // the caller's workspace is written over that whole size, past its end.
  const uint64_t full = c->workspace_size * 2;
  if (n < c->workspace_size) return std::nullopt;  // the library refuses it
  void *mine = std::aligned_alloc(64, (full + 63) / 64 * 64);
  static auto run = real<decltype(&aclnnLayerNormBackward)>("aclnnLayerNormBackward");
  const aclnnStatus s = run(mine, full, ex, nullptr);
  if (s == ACLNN_SUCCESS) {
    ++c->runs;
    std::memcpy(w, mine, full);
  }
  std::free(mine);
  return s;
}
}  // namespace mutant
