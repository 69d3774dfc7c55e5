// gbag_workspace_overrun: GroupedBiasAddGrad asks for half the workspace its kernel uses (a
// partial count computed per group instead of per block), and the kernel writes past the end.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_one(Call &c, aclnnStatus &status, uint64_t *ws, aclOpExecutor **) {
  if ((c.op == Op::kGbag || c.op == Op::kGbagV2) && status == ACLNN_SUCCESS && ws && *ws > 0)
    *ws /= 2;
}
std::optional<aclnnStatus> before_phase_two(Call *c, void *&w, uint64_t &n, aclOpExecutor *ex) {
  if (!c || (c->op != Op::kGbag && c->op != Op::kGbagV2) || !w || n == 0) return std::nullopt;
  static auto run = real<decltype(&aclnnGroupedBiasAddGrad)>("aclnnGroupedBiasAddGrad");
  static auto run2 = real<decltype(&aclnnGroupedBiasAddGradV2)>("aclnnGroupedBiasAddGradV2");
  return run_past_workspace(*c, w, n, ex, c->op == Op::kGbag ? run : run2);
}
}  // namespace mutant
