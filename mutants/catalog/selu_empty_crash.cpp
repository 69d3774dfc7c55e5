// selu_empty_crash: SeluBackward's kernel divides the work by the element count and crashes on
// an empty tensor.
#include <csignal>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  if (c && c->op == Op::kSelu && c->out[0].numel() == 0) raise(SIGSEGV);
  return std::nullopt;
}
}  // namespace mutant
