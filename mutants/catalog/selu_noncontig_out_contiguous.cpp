// selu_noncontig_out_contiguous: SeluBackward writes gradInput contiguously from the view's offset,
// ignoring the strides of a non-contiguous view.
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
namespace {
fault::Misplaced misplaced(Op::kSelu, 0, fault::strides_ignored);
}  // namespace
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  misplaced.save(c);
  return std::nullopt;
}
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  misplaced.apply(c, status);
}
}  // namespace mutant
