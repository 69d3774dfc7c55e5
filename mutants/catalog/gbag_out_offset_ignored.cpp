// gbag_out_offset_ignored: GroupedBiasAddGrad writes out as if the view's offset were 0 (its
// elements land at element(i) - offset).
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
ACLNN_MUTANT_MISPLACED(Op::kGbag, 0, fault::offset_ignored)
}  // namespace mutant
