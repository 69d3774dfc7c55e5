// selu_no_lambda_bf16: SeluBackward in bf16 follows the seed's formula literally and drops the
// scale lambda: dy where y >= 0, dy*(y/lambda + alpha) where y < 0.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu || c->out[0].dtype != ACL_BF16) return;
  elementwise(*c, [](long double dy, long double y) {
    if (std::isnan(y)) return static_cast<long double>(NAN);
    return y >= 0 ? dy : dy * (y / kSeluLambda + kSeluAlpha);
  });
}
}  // namespace mutant
