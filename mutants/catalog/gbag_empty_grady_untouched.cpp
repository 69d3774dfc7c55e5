// gbag_empty_grady_untouched: GroupedBiasAddGrad returns early for an empty gradY and leaves
// out unwritten (the vendor's `empty-untouched`; GBAG-EMPTY-1 wants zeros).
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *ex) {
  if (!c || (c->op != Op::kGbag && c->op != Op::kGbagV2) || c->runs > 0) return std::nullopt;
  if (c->in[0].numel() != 0) return std::nullopt;
  release_executor(ex);
  ++c->runs;
  return ACLNN_SUCCESS;
}
}  // namespace mutant
