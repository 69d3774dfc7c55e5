// gbag_no_gmax_check: GroupedBiasAddGrad does not enforce the limit of 2048 groups: a longer
// groupIdx is accepted and summed.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kGbag && c.op != Op::kGbagV2) return std::nullopt;
  const View &gy = c.in[0], &idx = c.in[1], &o = c.out[0];
  if (!gy.present || !idx.present || !o.present || idx.numel() <= 2048) return std::nullopt;
  const bool ok_dtype =
      (gy.dtype == ACL_FLOAT || gy.dtype == ACL_FLOAT16 || gy.dtype == ACL_BF16) &&
      o.dtype == gy.dtype && (idx.dtype == ACL_INT32 || idx.dtype == ACL_INT64);
  const bool ok_shape = gy.dims.size() == 2 && idx.dims.size() == 1 && o.dims.size() == 2 &&
                        o.dims[0] == idx.numel() && o.dims[1] == gy.dims[1];
  std::vector<int64_t> ends;
  if (!ok_dtype || !ok_shape || (c.group_idx_type != 0 && c.group_idx_type != 1) ||
      !group_ends(c, ends))
    return std::nullopt;  // the library refuses it for another reason
  c.token = true;
  return ACLNN_SUCCESS;
}
void after_phase_one(Call &c, aclnnStatus &status, uint64_t *ws, aclOpExecutor **ex) {
  if (!c.token || status != ACLNN_SUCCESS) return;
  if (!ws || !ex) {
    status = ACLNN_ERR_PARAM_NULLPTR;
    return;
  }
  *ws = 0;
  *ex = token_executor();
}
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (c && c->token && status == ACLNN_SUCCESS) grouped_bias_add_grad(*c, {});
}
}  // namespace mutant
