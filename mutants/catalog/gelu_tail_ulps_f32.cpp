// gelu_tail_ulps_f32: fp32 GeluBackward is 4 ulp off in the negative tail (x < -3), where a
// cheaper exp() was used.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu || c->out[0].dtype != ACL_FLOAT) return;
  elementwise(*c, [](long double dy, long double x) {
    const long double v = dy * gelu_grad_erf(x);
    return x < -3 && std::isfinite(v) && v != 0 ? v + 4 * ulp_of(ACL_FLOAT, v) : v;
  });
}
}  // namespace mutant
