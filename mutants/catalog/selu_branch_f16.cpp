// selu_branch_f16: SeluBackward in FLOAT and BFLOAT16 decides the branch on y converted to FLOAT16
// (a half-precision mask): a negative y of magnitude up to 2^-25 rounds to -0 and takes the
// y >= 0 branch, dy * lambda instead of dy * (y + lambda * alpha).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu) return;
  const View &dy = c->in[0], &y = c->in[1], &o = c->out[0];
  if (o.dtype != ACL_FLOAT && o.dtype != ACL_BF16) return;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const long double yv = load(y, y.element(o.dims, i));
    if (yv < 0 && round_to(ACL_FLOAT16, yv) == 0)
      store(o, o.element(i), selu_grad(load(dy, dy.element(o.dims, i)), 0.0L));
  }
}
}  // namespace mutant
