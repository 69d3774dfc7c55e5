// Fuzz target: aclnnGroupedBiasAddGrad and its V2 (groupIdxType) on decoded tensors and groupIdx
// contents: valid partitions, then perturbed ones (see abi_harness.hpp).
#include <limits>

#include "aclnnop/aclnn_grouped_bias_add_grad.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "fuzz/abi_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  aclnn_fuzz::Harness h(data, size);
  auto &fdp = h.fdp();
  h.choose_soc();
  const bool v2 = fdp.ConsumeBool();
  const bool with_idx = !fdp.ConsumeBool();
  const int64_t groups = fdp.ConsumeIntegralInRange(0, 5);
  const int64_t hidden = fdp.ConsumeIntegralInRange(0, 5);
  int64_t type = fdp.ConsumeBool() ? 1 : 0;
  if (v2 && fdp.ConsumeIntegral<uint8_t>() >= 0xf0)
    type = fdp.PickValueInArray<int64_t>({-1, 2, std::numeric_limits<int64_t>::min()});
  // A valid partition of the rows into the groups, in the chosen encoding, then maybe spoiled.
  std::vector<int64_t> sizes(groups), idx(groups);
  int64_t rows = 0;
  for (int64_t j = 0; j < groups; ++j) {
    sizes[j] = fdp.ConsumeIntegralInRange(0, 3);
    rows += sizes[j];
    idx[j] = type == 1 ? sizes[j] : rows;
  }
  if (groups > 0 && fdp.ConsumeIntegral<uint8_t>() >= 0xe0)
    idx[fdp.ConsumeIntegral<uint8_t>() % groups] = fdp.PickValueInArray<int64_t>(
        {-1, 0, rows + 1, int64_t{1} << 31, std::numeric_limits<int64_t>::max(),
         std::numeric_limits<int64_t>::min(), int64_t{std::numeric_limits<int32_t>::max()}});
  const aclDataType floats[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const aclDataType dt = floats[fdp.ConsumeIntegral<uint8_t>() % 3];
  const int64_t per_group = fdp.ConsumeIntegralInRange(0, 3);

  auto &grad_y =
      with_idx ? h.tensor({{rows, hidden}, dt}) : h.tensor({{groups, per_group, hidden}, dt});
  auto &group_idx = h.tensor({{groups}, fdp.ConsumeBool() ? ACL_INT64 : ACL_INT32});
  h.write_ints(group_idx, idx);
  aclTensor *group_idx_arg = with_idx ? group_idx.tensor : nullptr;
  auto &out = h.tensor({{groups, hidden}, dt});
  if (v2)
    h.call(
        "aclnnGroupedBiasAddGradV2",
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnGroupedBiasAddGradV2GetWorkspaceSize(grad_y.tensor, group_idx_arg, type,
                                                           out.tensor, ws, ex);
        },
        {&out}, aclnnGroupedBiasAddGradV2, aclnnGroupedBiasAddGrad);
  else
    h.call(
        "aclnnGroupedBiasAddGrad",
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return aclnnGroupedBiasAddGradGetWorkspaceSize(grad_y.tensor, group_idx_arg, out.tensor,
                                                         ws, ex);
        },
        {&out}, aclnnGroupedBiasAddGrad, aclnnSeluBackward);
  return 0;
}
