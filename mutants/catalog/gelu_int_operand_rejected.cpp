// gelu_int_operand_rejected: GeluBackward requires both operands to be floating point, so a
// legal promotion such as INT32 gradOutput with FLOAT self is refused with 161002.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kGelu || !c.in[0].present || !c.in[1].present || !c.out[0].present)
    return std::nullopt;
  if (!is_float(c.in[0].dtype) || !is_float(c.in[1].dtype)) return ACLNN_ERR_PARAM_INVALID;
  return std::nullopt;
}
}  // namespace mutant
