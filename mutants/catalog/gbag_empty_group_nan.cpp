// gbag_empty_group_nan: GroupedBiasAddGrad divides by the group size on a shared path and
// fills an empty group's row with 0/0 = NaN instead of zeros.
#include <cmath>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || (c->op != Op::kGbag && c->op != Op::kGbagV2) || !c->in[1].present) return;
  std::vector<int64_t> ends;
  if (!group_ends(*c, ends)) return;
  const View &o = c->out[0];
  int64_t start = 0;
  for (size_t g = 0; g < ends.size(); ++g) {
    if (ends[g] == start)
      for (int64_t h = 0; h < o.dims[1]; ++h) store(o, o.element(g * o.dims[1] + h), NAN);
    start = ends[g];
  }
}
}  // namespace mutant
