// gbag_3d_drop_last_row: GroupedBiasAddGrad without groupIdx (3-D gradY) loops c < C - 1 and
// leaves the last row of every group out of the sum.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || (c->op != Op::kGbag && c->op != Op::kGbagV2) || c->in[1].present) return;
  GbagFaults f;
  f.drop_last_row = true;
  grouped_bias_add_grad(*c, f);
}
}  // namespace mutant
