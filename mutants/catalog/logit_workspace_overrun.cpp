// logit_workspace_overrun: LogitGrad asks for a 256-byte workspace for its scratch, and the kernel
// writes 64 bytes past its end (its scratch is larger than the size it reported).
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
ACLNN_MUTANT_WORKSPACE_OVERRUN(Op::kLogit, 256, 64)
}  // namespace mutant
