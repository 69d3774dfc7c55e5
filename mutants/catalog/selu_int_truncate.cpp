// selu_int_truncate: SeluBackward in INT8 and INT32 converts the exact value toward zero
// instead of to nearest-even.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu) return;
  if (c->out[0].dtype != ACL_INT8 && c->out[0].dtype != ACL_INT32) return;
  elementwise(*c, selu_grad, Rounding::kTruncateInt);
}
}  // namespace mutant
