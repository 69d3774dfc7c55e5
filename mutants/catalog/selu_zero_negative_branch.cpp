// selu_zero_negative_branch: SeluBackward selects the branch with y > 0, so y = +-0 takes the
// negative branch: dy*lambda*alpha instead of dy*lambda.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu) return;
  elementwise(*c, [](long double dy, long double y) {
    return y == 0 ? dy * kSeluLambdaAlpha : selu_grad(dy, y);
  });
}
}  // namespace mutant
