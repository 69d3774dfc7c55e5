// selu_out_zero_stride_rejected: SeluBackward refuses (161002) a gradInput with a zero stride, also
// on a dim of size 1, whose stride is never used: its overlap check takes every zero stride for an
// expanded dim.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kSelu || !c.out[0].present || c.out[0].numel() == 0) return std::nullopt;
  for (int64_t s : c.out[0].strides)
    if (s == 0) return ACLNN_ERR_PARAM_INVALID;
  return std::nullopt;
}
}  // namespace mutant
