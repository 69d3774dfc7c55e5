// selu_ftz_f32: SeluBackward in FLOAT flushes subnormal results to zero (a kernel built with a
// flush-to-zero mode, as -ffast-math sets it).
#include <cmath>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu || c->out[0].dtype != ACL_FLOAT) return;
  const View &o = c->out[0];
  for (int64_t i = 0; i < o.numel(); ++i) {
    const long double v = load(o, o.element(i));
    if (v != 0 && std::fabs(v) < 0x1p-126L) store(o, o.element(i), std::signbit(v) ? -0.0L : 0.0L);
  }
}
}  // namespace mutant
