// gelu_nan_to_zero: GeluBackward clamps x with fmax/fmin, which turns a NaN x into a finite
// value: NaN is not propagated (the result is 0).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu) return;
  elementwise(*c, [](long double dy, long double x) {
    return std::isnan(x) ? 0.0L * (std::isnan(dy) ? 0 : 1) : dy * gelu_grad_erf(x);
  });
}
}  // namespace mutant
