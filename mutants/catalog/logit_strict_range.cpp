// logit_strict_range: LogitGrad tests the range with `<` where the rule says `<=`: x exactly at
// eps or 1 - eps (or at 0 and 1 for eps < 0) is treated as outside the range.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit) return;
  const double eps = c->eps;
  // Logit's operands are x, dy and the output dtype is theirs.
  elementwise(*c, [eps](long double x, long double dy) {
    const long double v = logit_grad(x, dy, eps);
    if (!(eps < 1) || std::isnan(x) || std::isnan(dy)) return v;
    const long double lo = eps < 0 ? 0.0L : eps, hi = eps < 0 ? 1.0L : 1.0L - eps;
    if (x == lo || x == hi) return eps < 0 ? static_cast<long double>(NAN) : 0.0L;
    return v;
  });
}
}  // namespace mutant
