// gelu_neg_inf_nan: GeluBackward evaluates x*exp(-x*x/2) literally, so g(-inf) = -inf*0 = NaN
// instead of the limit 0.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu) return;
  elementwise(*c, [](long double dy, long double x) {
    return std::isinf(x) && x < 0 ? NAN : dy * gelu_grad_erf(x);
  });
}
}  // namespace mutant
