// Fuzz target: aclnnLayerNormBackward's two phases on decoded tensors, normalizedShape and
// outputMask (see abi_harness.hpp).
#include <memory>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "fuzz/abi_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclnn_fuzz::Harness h(data, size);
  auto &fdp = h.fdp();
  h.choose_soc();
  std::vector<int64_t> lead(fdp.ConsumeIntegralInRange(0, 2)),
      norm(fdp.ConsumeIntegralInRange(1, 2));
  for (auto &d : lead) d = fdp.ConsumeIntegralInRange(0, 4);
  for (auto &d : norm) d = fdp.ConsumeIntegralInRange(0, 5);
  std::vector<int64_t> shape = lead, stat = lead;
  shape.insert(shape.end(), norm.begin(), norm.end());
  stat.insert(stat.end(), norm.size(), 1);
  const aclDataType floats[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const aclDataType dt = floats[fdp.ConsumeIntegral<uint8_t>() % 3];
  const aclDataType wdt = fdp.ConsumeBool() ? dt : ACL_FLOAT;

  const std::vector<int64_t> ns = h.shape_like(norm);
  const uint8_t ns_mode = fdp.ConsumeIntegral<uint8_t>();
  aclIntArray *normalized_shape =
      ns_mode == 0xff ? nullptr : aclCreateIntArray(ns.empty() ? nullptr : ns.data(), ns.size());
  size_t mask_len = 3;
  if (fdp.ConsumeIntegral<uint8_t>() >= 0xf0) mask_len = fdp.ConsumeIntegralInRange<size_t>(0, 6);
  std::unique_ptr<bool[]> mask_values(new bool[6]);
  for (size_t i = 0; i < 6; ++i) mask_values[i] = !fdp.ConsumeBool();  // all true when out of bytes
  const uint8_t mask_mode = fdp.ConsumeIntegral<uint8_t>();
  aclBoolArray *mask =
      mask_mode == 0xff ? nullptr : aclCreateBoolArray(mask_values.get(), mask_len);

  auto &grad_out = h.tensor({shape, dt});
  auto &input = h.tensor({shape, dt});
  auto &mean = h.tensor({stat, ACL_FLOAT});
  auto &rstd = h.tensor({stat, ACL_FLOAT});
  auto &weight = h.tensor({norm, wdt});
  auto &bias = h.tensor({norm, wdt});
  auto &grad_input = h.tensor({shape, dt});
  auto &grad_weight = h.tensor({norm, ACL_FLOAT});
  auto &grad_bias = h.tensor({norm, ACL_FLOAT});
  h.call(
      "aclnnLayerNormBackward",
      [&](uint64_t *ws, aclOpExecutor **ex) {
        return aclnnLayerNormBackwardGetWorkspaceSize(
            grad_out.tensor, input.tensor, normalized_shape, mean.tensor, rstd.tensor,
            weight.tensor, bias.tensor, mask, grad_input.tensor, grad_weight.tensor,
            grad_bias.tensor, ws, ex);
      },
      {&grad_input, &grad_weight, &grad_bias}, aclnnLayerNormBackward, aclnnLogitGrad);
  if (normalized_shape) aclDestroyIntArray(normalized_shape);
  if (mask) aclDestroyBoolArray(mask);
  return 0;
}
