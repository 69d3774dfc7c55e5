// selu_nan_positive_branch: SeluBackward selects on y < 0, so a NaN y takes the positive branch
// (dy*lambda) and the NaN is lost.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu) return;
  elementwise(*c, [](long double dy, long double y) {
    return std::isnan(y) ? dy * kSeluLambda : selu_grad(dy, y);
  });
}
}  // namespace mutant
