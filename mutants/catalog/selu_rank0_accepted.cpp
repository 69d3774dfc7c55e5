// selu_rank0_accepted: SeluBackward accepts rank-0 tensors (SELU-RANK-1 demands rank 1 to 8),
// running them as one-element rank-1 views.
#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kSelu) return std::nullopt;
  for (const auto &v : c.in)
    if (!v.present || !v.dims.empty()) return std::nullopt;
  if (!c.out[0].present || !c.out[0].dims.empty()) return std::nullopt;
  const auto one = [](const View &v) {
    std::vector<int64_t> storage = v.storage_dims;
    if (storage.empty()) storage = {v.offset + 1};
    return real_tensor({1}, {1}, v.offset, v.dtype, storage, v.data);
  };
  c.in_args = {one(c.in[0]), one(c.in[1])};
  c.out_args = {one(c.out[0])};
  return std::nullopt;  // forwarded with the rank-1 views (a small leak per call)
}
}  // namespace mutant
