// selu_in_place_rejected: SeluBackward refuses in-place use (gradInput exactly the view of
// gradOutput or result) with 161002, which ABI-INPUT-1 allows for elementwise ops.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kSelu || !c.out[0].present) return std::nullopt;
  const View &o = c.out[0];
  for (const View &v : c.in)
    if (v.present && v.data == o.data && v.offset == o.offset && v.dims == o.dims &&
        v.strides == o.strides && v.dtype == o.dtype && o.numel() > 0)
      return ACLNN_ERR_PARAM_INVALID;
  return std::nullopt;
}
}  // namespace mutant
