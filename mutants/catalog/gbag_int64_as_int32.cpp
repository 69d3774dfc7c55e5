// gbag_int64_as_int32: GroupedBiasAddGrad reads groupIdx as INT32 whatever its dtype: an INT64
// groupIdx is read as 4-byte elements (the low and high halves of its values), in phase one's
// checks and in the kernel alike.
#include "mutants/shim.hpp"

namespace mutant {
namespace {
Call as_int32(const Call &c) {
  Call k = c;
  if (k.in.size() > 1 && k.in[1].present && k.in[1].dtype == ACL_INT64) {
    k.in[1].dtype = ACL_INT32;
    // The storage holds twice as many 4-byte elements.
    for (auto &d : k.in[1].storage_dims) d *= 2;
  }
  return k;
}
bool affected(const Call &c) {
  return (c.op == Op::kGbag || c.op == Op::kGbagV2) && c.in.size() > 1 && c.in[1].present &&
         c.in[1].dtype == ACL_INT64 && c.in[1].numel() > 0;
}
}  // namespace

void after_phase_one(Call &c, aclnnStatus &status, uint64_t *, aclOpExecutor **ex) {
  if (status != ACLNN_SUCCESS || !affected(c) || !ex || !*ex) return;
  std::vector<int64_t> ends;
  if (group_ends(as_int32(c), ends)) return;
  // The halves do not make valid group ends: the call is refused (GBAG-IDX-1's check).
  release_executor(*ex);
  *ex = nullptr;
  status = ACLNN_ERR_PARAM_INVALID;
}

void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || !affected(*c)) return;
  grouped_bias_add_grad(as_int32(*c), {});
}
}  // namespace mutant
