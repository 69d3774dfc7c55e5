// gbag_out_offset_ignored: GroupedBiasAddGrad writes out as if the view's offset were 0 (its
// elements land at element(i) - offset).
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
namespace {
fault::Misplaced misplaced(Op::kGbag, 0, fault::offset_ignored);
}  // namespace
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  misplaced.save(c);
  return std::nullopt;
}
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  misplaced.apply(c, status);
}
}  // namespace mutant
