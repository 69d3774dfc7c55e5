// logit_eps_float: LogitGrad carries eps as a float32 and compares x with the rounded eps (the
// value of record compares with eps as given, a double).
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op == Op::kLogit) c.eps = static_cast<float>(c.eps);
  return std::nullopt;
}
}  // namespace mutant
