// executor_runs_twice: every executor is kept alive after it ran, so running it a second time
// succeeds (and recomputes) instead of giving 161002.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_one(Call &, aclnnStatus &status, uint64_t *, aclOpExecutor **ex) {
  static auto repeatable =
      real<decltype(&aclSetAclOpExecutorRepeatable)>("aclSetAclOpExecutorRepeatable");
  if (status == ACLNN_SUCCESS && ex && *ex) repeatable(*ex);
}
}  // namespace mutant
