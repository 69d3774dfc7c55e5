// logit_inf_eps_nan: LogitGrad handles eps > 1 before eps = +inf, so +inf eps gives NaN
// everywhere instead of 0.
#include <cmath>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op == Op::kLogit && std::isinf(c.eps) && c.eps > 0) c.eps = 2;
  return std::nullopt;
}
}  // namespace mutant
