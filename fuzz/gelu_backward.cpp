// Fuzz target: aclnnGeluBackward's two phases on decoded tensors (see abi_harness.hpp).
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "fuzz/abi_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclnn_fuzz::Harness h(data, size);
  auto &fdp = h.fdp();
  h.choose_soc();
  std::vector<int64_t> shape(fdp.ConsumeIntegralInRange(0, 4));
  for (auto &d : shape) d = fdp.ConsumeIntegralInRange(0, 5);
  const aclDataType floats[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const aclDataType dt = floats[fdp.ConsumeIntegral<uint8_t>() % 3];
  auto &grad_output = h.tensor({shape, dt});
  auto &self = h.tensor({shape, dt});
  auto &grad_input = h.tensor({shape, dt});
  h.call(
      "aclnnGeluBackward",
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnGeluBackwardGetWorkspaceSize(grad_output.tensor, self.tensor, grad_input.tensor,
                                                 ws, ex);
      },
      {&grad_input}, aclnnGeluBackward, aclnnSeluBackward);
  return 0;
}
