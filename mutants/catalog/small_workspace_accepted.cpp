// small_workspace_accepted: phase two does not compare workspaceSize with what phase one asked
// for: a smaller workspace is accepted (and overrun).
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_two(Call *c, void *&w, uint64_t &n, aclOpExecutor *) {
  if (c && w && n < c->workspace_size) n = c->workspace_size;
  return std::nullopt;
}
}  // namespace mutant
