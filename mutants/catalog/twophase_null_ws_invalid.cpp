// twophase_null_ws_invalid: phase one answers workspaceSize == NULL with 161002 instead of
// 161001 (every op).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_one(Call &, aclnnStatus &status, uint64_t *ws, aclOpExecutor **) {
  if (!ws && status == ACLNN_ERR_PARAM_NULLPTR) status = ACLNN_ERR_PARAM_INVALID;
}
}  // namespace mutant
