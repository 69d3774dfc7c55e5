// gbag_type1_as_type0: GroupedBiasAddGradV2 drops groupIdxType on its way to the kernel: group
// sizes (type 1) are read as end offsets (type 0).
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op == Op::kGbagV2 && c.group_idx_type == 1) c.group_idx_type = 0;
  return std::nullopt;
}
}  // namespace mutant
