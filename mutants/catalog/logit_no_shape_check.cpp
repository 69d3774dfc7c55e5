// logit_no_shape_check: LogitGrad does not compare dy's and out's shapes with x's; a contiguous
// dy or out of another shape but the same element count is read and written in x's order.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kLogit || !c.in[0].present || !c.in[1].present || !c.out[0].present)
    return std::nullopt;
  const View &x = c.in[0];
  const auto as_x = [&](const View &v) -> aclTensor * {
    if (v.dims == x.dims || !v.contiguous() || v.numel() != x.numel()) return nullptr;
    return real_tensor(x.dims, contiguous_strides(x.dims), v.offset, v.dtype, v.storage_dims,
                       v.data);
  };
  if (x.numel() == 0 || x.dims.size() > 8) return std::nullopt;
  if (aclTensor *t = as_x(c.in[1])) c.in_args[1] = t;  // a small leak per call
  if (aclTensor *t = as_x(c.out[0])) c.out_args[0] = t;
  return std::nullopt;
}
}  // namespace mutant
