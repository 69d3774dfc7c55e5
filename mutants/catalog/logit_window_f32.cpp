// logit_window_f32: fp32 LogitGrad is 4 ulp off for x within 256 ulps of 0.3 and exact elsewhere:
// a fault in a narrow input window with no slope towards it (nothing for a climb to follow), as a
// branch of a piecewise kernel with one wrong coefficient would give.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit || c->out[0].dtype != ACL_FLOAT) return;
  const View &x = c->in[0], &o = c->out[0];
  for (int64_t i = 0; i < o.numel(); ++i) {
    const float xf = static_cast<float>(load(x, x.element(o.dims, i)));
    if (std::llabs(float_place(xf) - float_place(0.3f)) > 256) continue;
    const long double v = load(o, o.element(i));
    if (std::isfinite(v) && v != 0) store(o, o.element(i), v + 4 * ulp_of(ACL_FLOAT, v));
  }
}
}  // namespace mutant
