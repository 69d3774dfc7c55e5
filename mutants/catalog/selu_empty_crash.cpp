// selu_empty_crash: SeluBackward divides the work by the element count and crashes on an empty
// tensor.
#include <csignal>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op == Op::kSelu && c.in[0].present && c.in[0].numel() == 0 && c.out[0].present)
    raise(SIGSEGV);
  return std::nullopt;
}
}  // namespace mutant
