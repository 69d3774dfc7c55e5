// logit_empty_crash: LogitGrad dereferences the first element of x even when x is empty.
#include <csignal>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  if (c && c->op == Op::kLogit && c->in[0].numel() == 0) raise(SIGSEGV);
  return std::nullopt;
}
}  // namespace mutant
