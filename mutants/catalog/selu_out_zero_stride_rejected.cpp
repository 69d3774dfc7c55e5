// selu_out_zero_stride_rejected: SeluBackward refuses (161002) a gradInput with a zero stride, also
// on a dim of size 1, whose stride is never used: its overlap check takes every zero stride for an
// expanded dim.
#include "mutants/fault_classes.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  return fault::refuse_zero_stride(c, Op::kSelu, 0);
}
}  // namespace mutant
