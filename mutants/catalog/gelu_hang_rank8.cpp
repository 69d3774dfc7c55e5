// gelu_hang_rank8: GeluBackward's index loop never ends for a rank-8 output (a dimension counter
// that wraps): the call hangs.
#include <unistd.h>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_two(Call *c, void *&, uint64_t &, aclOpExecutor *) {
  if (c && c->op == Op::kGelu && c->out[0].dims.size() == 8 && c->out[0].numel() > 0)
    for (;;) pause();
  return std::nullopt;
}
}  // namespace mutant
