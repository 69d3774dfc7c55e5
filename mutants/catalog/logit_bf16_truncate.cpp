// logit_bf16_truncate: LogitGrad in bf16 computes in float and converts to bf16 by dropping the
// low 16 bits (truncation) instead of rounding to nearest-even.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit || c->out[0].dtype != ACL_BF16) return;
  const double eps = c->eps;
  elementwise(
      *c, [eps](long double x, long double dy) { return logit_grad(x, dy, eps); },
      Rounding::kTruncateBf16);
}
}  // namespace mutant
