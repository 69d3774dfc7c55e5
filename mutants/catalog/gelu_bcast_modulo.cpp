// gelu_bcast_modulo: GeluBackward broadcasts an operand by reading its element (i mod its element
// count) for output element i: right when only leading dims broadcast, wrong for a size-1 dim in
// the middle or at the end.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu) return;
  const View &dy = c->in[0], &x = c->in[1], &o = c->out[0];
  if ((dy.dims == o.dims && x.dims == o.dims) || dy.numel() == 0 || x.numel() == 0) return;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const long double d = round_to(o.dtype, load(dy, dy.element(i % dy.numel())));
    const long double v = round_to(o.dtype, load(x, x.element(i % x.numel())));
    store(o, o.element(i), d * gelu_grad_erf(v));
  }
}
}  // namespace mutant
