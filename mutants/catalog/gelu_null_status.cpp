// gelu_null_status: GeluBackward answers a NULL tensor argument with 161002 (invalid) instead of
// 161001 (null pointer).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_one(Call &c, aclnnStatus &status, uint64_t *, aclOpExecutor **) {
  if (c.op == Op::kGelu && status == ACLNN_ERR_PARAM_NULLPTR &&
      (!c.in[0].present || !c.in[1].present || !c.out[0].present))
    status = ACLNN_ERR_PARAM_INVALID;
}
}  // namespace mutant
