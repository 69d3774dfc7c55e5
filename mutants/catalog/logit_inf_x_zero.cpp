// logit_inf_x_zero: LogitGrad applies only the range rule to an infinite x, so +-inf x with
// eps >= 0 gives 0 instead of NaN.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit) return;
  const double eps = c->eps;
  elementwise(*c, [eps](long double x, long double dy) {
    if (std::isinf(x) && eps >= 0 && eps < 1) return 0.0L;
    return logit_grad(x, dy, eps);
  });
}
}  // namespace mutant
