// ln_grad_input_noncontig_contiguous: LayerNormBackward writes gradInputOut contiguously from the
// view's offset, ignoring the strides of a non-contiguous view.
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
ACLNN_MUTANT_MISPLACED(Op::kLayerNorm, 0, fault::strides_ignored)
}  // namespace mutant
