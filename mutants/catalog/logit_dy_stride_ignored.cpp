// logit_dy_stride_ignored: LogitGrad reads dy as if it were contiguous, ignoring its strides
// (its offset is honoured).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit) return;
  Call k = *c;
  View &dy = k.in[1];
  if (dy.contiguous() || dy.offset + dy.numel() > dy.storage_numel()) return;
  dy.strides = contiguous_strides(dy.dims);
  const double eps = c->eps;
  elementwise(k, [eps](long double x, long double d) { return logit_grad(x, d, eps); });
}
}  // namespace mutant
