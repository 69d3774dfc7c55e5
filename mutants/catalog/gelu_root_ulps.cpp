// gelu_root_ulps: GeluBackward is 3 ulp off near the root of g (x in [-0.8, -0.7]), where the
// three terms cancel (all float dtypes).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu) return;
  const aclDataType t = c->out[0].dtype;
  elementwise(*c, [t](long double dy, long double x) {
    const long double v = dy * gelu_grad_erf(x);
    return x >= -0.8L && x <= -0.7L && std::isfinite(v) ? v + 3 * ulp_of(t, v) : v;
  });
}
}  // namespace mutant
