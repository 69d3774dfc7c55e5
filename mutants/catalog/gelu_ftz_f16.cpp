// gelu_ftz_f16: GeluBackward in fp16 flushes subnormal results to zero (a flush-to-zero mode
// left on in the kernel).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu || c->out[0].dtype != ACL_FLOAT16) return;
  elementwise(
      *c, [](long double dy, long double x) { return dy * gelu_grad_erf(x); },
      Rounding::kFlushSubnormal);
}
}  // namespace mutant
