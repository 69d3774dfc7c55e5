// logit_out_interleaved_rejected: LogitGrad decides that out does not overlap itself by the
// sufficient test alone (dims of size > 1 sorted by stride, each stride beyond the span of the
// smaller ones) and refuses (161002) every other view, also an interleaved one whose elements
// never meet.
#include <algorithm>
#include <utility>
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (c.op != Op::kLogit || !c.out[0].present || c.out[0].numel() <= 1) return std::nullopt;
  const View &o = c.out[0];
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims of size > 1
  for (size_t d = 0; d < o.dims.size(); ++d)
    if (o.dims[d] > 1) dims.emplace_back(o.strides[d], o.dims[d]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  for (auto [stride, size] : dims) {
    if (stride <= span) return ACLNN_ERR_PARAM_INVALID;
    span += (size - 1) * stride;
  }
  return std::nullopt;
}
}  // namespace mutant
