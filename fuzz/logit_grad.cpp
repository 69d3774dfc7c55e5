// Fuzz target: aclnnLogitGrad's two phases on decoded tensors and eps values (see abi_harness.hpp).
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "fuzz/abi_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclnn_fuzz::Harness h(data, size);
  auto &fdp = h.fdp();
  h.choose_soc();
  std::vector<int64_t> shape(fdp.ConsumeIntegralInRange(0, 4));
  for (auto &d : shape) d = fdp.ConsumeIntegralInRange(0, 5);
  const aclDataType floats[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const aclDataType dt = floats[fdp.ConsumeIntegral<uint8_t>() % 3];
  const double eps = h.special_double();  // +-0, +-inf, NaN, subnormals, ...
  auto &x = h.tensor({shape, dt});
  auto &dy = h.tensor({shape, dt});
  auto &out = h.tensor({shape, dt});
  h.call(
      "aclnnLogitGrad",
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnLogitGradGetWorkspaceSize(x.tensor, dy.tensor, eps, out.tensor, ws, ex);
      },
      {&out}, aclnnLogitGrad, aclnnGeluBackward);
  return 0;
}
