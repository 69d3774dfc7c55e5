// gelu_workspace_overrun: GeluBackward asks for a 256-byte workspace for its scratch, and the
// kernel writes 64 bytes past its end (its scratch is larger than the size it reported).
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
void after_phase_one(Call &c, aclnnStatus &status, uint64_t *ws, aclOpExecutor **) {
  fault::ask_workspace(c, Op::kGelu, status, ws, 256);
}
void after_phase_two(Call *c, aclnnStatus &status, void *w, uint64_t n) {
  fault::write_past_workspace(c, Op::kGelu, status, w, n, 64);
}
}  // namespace mutant
