// logit_threaded_tail64: LogitGrad's threaded path (more than 65536 elements) gives every chunk a
// whole number of 64-element vectors and never writes the last n mod 64 elements.
#include "mutants/shim.hpp"

namespace mutant {
namespace {
UnwrittenTail tail(Op::kLogit, 65536, 64);
}  // namespace

std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  tail.save(c);
  return std::nullopt;
}

void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  tail.restore(c, status);
}
}  // namespace mutant
