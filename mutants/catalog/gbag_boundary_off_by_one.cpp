// gbag_boundary_off_by_one: GroupedBiasAddGrad's group loop runs to end offset inclusive: each
// group also sums the first row of the next group.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || (c->op != Op::kGbag && c->op != Op::kGbagV2) || !c->in[1].present) return;
  GbagFaults f;
  f.boundary_inclusive = true;
  grouped_bias_add_grad(*c, f);
}
}  // namespace mutant
