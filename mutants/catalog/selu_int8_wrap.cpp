// selu_int8_wrap: SeluBackward in INT8 converts the result with a plain cast, which wraps modulo
// 256 instead of saturating to -128..127.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu || c->out[0].dtype != ACL_INT8) return;
  elementwise(*c, selu_grad, Rounding::kWrapInt);
}
}  // namespace mutant
