// ln_grad_weight_offset_ignored: LayerNormBackward writes gradWeightOut as if the view's offset
// were 0 (its elements land at element(i) - offset).
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
namespace {
fault::Misplaced misplaced(Op::kLayerNorm, 1, fault::offset_ignored);
}  // namespace
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  misplaced.save(c);
  return std::nullopt;
}
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  misplaced.apply(c, status);
}
}  // namespace mutant
