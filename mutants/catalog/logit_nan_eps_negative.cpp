// logit_nan_eps_negative: LogitGrad's `eps < 0` test is written `!(eps >= 0)`, so a NaN eps
// behaves as a negative one instead of giving NaN everywhere.
#include <cmath>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op == Op::kLogit && std::isnan(c.eps)) c.eps = -1;
  return std::nullopt;
}
}  // namespace mutant
