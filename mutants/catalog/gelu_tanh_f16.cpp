// gelu_tanh_f16: GeluBackward in fp16 uses the tanh approximation of GELU instead of erf.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu || c->out[0].dtype != ACL_FLOAT16) return;
  elementwise(*c, [](long double dy, long double x) { return dy * gelu_grad_tanh(x); });
}
}  // namespace mutant
