// selu_f16_double_round: SeluBackward in fp16 computes in float and rounds the float result to
// fp16: the result is rounded twice (VAL-EXACT-1 demands once).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu || c->out[0].dtype != ACL_FLOAT16) return;
  elementwise(*c, selu_grad, Rounding::kTwiceViaFloat);
}
}  // namespace mutant
