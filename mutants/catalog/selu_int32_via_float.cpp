// selu_int32_via_float: SeluBackward in INT32 computes in float: inputs beyond 2^24 lose their
// low bits and the product is rounded to float before it becomes an integer.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu || c->out[0].dtype != ACL_INT32) return;
  elementwise(*c, [](long double dy, long double y) {
    const float f =
        static_cast<float>(static_cast<float>(dy) *
                           (y >= 0 ? static_cast<float>(kSeluLambda)
                                   : static_cast<float>(y) + static_cast<float>(kSeluLambdaAlpha)));
    return static_cast<long double>(f);
  });
}
}  // namespace mutant
