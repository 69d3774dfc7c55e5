// logit_noncontig_out_contiguous: LogitGrad writes out contiguously from the view's offset,
// ignoring the strides of a non-contiguous view.
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
ACLNN_MUTANT_MISPLACED(Op::kLogit, 0, fault::strides_ignored)
}  // namespace mutant
