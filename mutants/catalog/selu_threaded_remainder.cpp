// selu_threaded_remainder: SeluBackward splits an output of more than 65536 elements into 8 equal
// chunks of n / 8 elements, one per thread, and leaves the n mod 8 elements after them unwritten.
#include "mutants/shim.hpp"

namespace mutant {
namespace {
UnwrittenTail tail(Op::kSelu, 65536, 8);
}  // namespace

std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  tail.save(c);
  return std::nullopt;
}

void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  tail.restore(c, status);
}
}  // namespace mutant
