// logit_eps_half: LogitGrad in FLOAT16 and BFLOAT16 compares x with eps rounded to x's dtype and
// with 1 - eps computed in x's dtype (a kernel that keeps the range ends in the computation type):
// an x between eps and its rounding, or between 1 - eps and its rounding, falls on the wrong side.
#include <cmath>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit) return;
  const View &x = c->in[0], &dy = c->in[1], &o = c->out[0];
  if (o.dtype != ACL_FLOAT16 && o.dtype != ACL_BF16) return;
  const double eps = c->eps;
  if (!(eps >= 0 && eps < 1)) return;  // only the range rule compares
  const long double lo = round_to(o.dtype, eps), hi = round_to(o.dtype, 1.0L - lo);
  for (int64_t i = 0; i < o.numel(); ++i) {
    const long double xv = load(x, x.element(o.dims, i)), dv = load(dy, dy.element(o.dims, i));
    if (!std::isfinite(xv)) continue;
    const bool record = xv >= eps && xv <= 1.0L - static_cast<long double>(eps);
    const bool mine = xv >= lo && xv <= hi;
    if (record == mine) continue;
    // Inside: the formula (eps 0 keeps x in range); outside: what an x outside gives.
    store(o, o.element(i), mine ? logit_grad(xv, dv, 0.0) : logit_grad(xv, dv, 0.75));
  }
}
}  // namespace mutant
