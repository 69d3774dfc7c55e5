// ln_window_f32: fp32 LayerNormBackward's gradInput is 0.1 % off where x lies within 256 ulps of
// 0.3, and exact elsewhere: a fault in a narrow window of one element's input value in an op that
// reads whole rows.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLayerNorm || c->out.empty() || !c->out[0].present) return;
  if (!c->mask.empty() && !c->mask[0]) return;  // gradInput not asked for: left as it was
  const View &x = c->in[1], &o = c->out[0];
  if (o.dtype != ACL_FLOAT) return;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const float xf = static_cast<float>(load(x, x.element(o.dims, i)));
    if (std::llabs(float_place(xf) - float_place(0.3f)) > 256) continue;
    const long double v = load(o, o.element(i));
    if (std::isfinite(v) && v != 0) store(o, o.element(i), v * 1.001L);
  }
}
}  // namespace mutant
