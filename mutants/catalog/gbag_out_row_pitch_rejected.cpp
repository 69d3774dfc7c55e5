// gbag_out_row_pitch_rejected: GroupedBiasAddGrad's one-group path (G = 1) takes out for a row
// vector and requires its row stride strides[0] >= H * strides[1], refusing (161002) a legal out
// whose dim of size 1 carries a small stride (never used: 0 included).
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if ((c.op != Op::kGbag && c.op != Op::kGbagV2) || !c.out[0].present) return std::nullopt;
  const View &o = c.out[0];
  if (o.dims.size() != 2 || o.dims[0] != 1 || o.dims[1] < 2) return std::nullopt;
  if (o.strides[0] < o.dims[1] * o.strides[1]) return ACLNN_ERR_PARAM_INVALID;
  return std::nullopt;
}
}  // namespace mutant
