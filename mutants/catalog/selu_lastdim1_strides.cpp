// selu_lastdim1_strides: SeluBackward squeezes a trailing dim of size 1 (rank >= 2) from
// gradOutput but drops the wrong stride: the remaining dims are indexed with the strides of the
// dims after them.
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kSelu) return;
  const View &dy = c->in[0];
  if (dy.dims.size() < 2 || dy.dims.back() != 1 || dy.numel() == 0) return;
  Call k = *c;
  View &v = k.in[0];
  v.dims.pop_back();
  v.strides.erase(v.strides.begin());
  v.dims.push_back(1);
  v.strides.push_back(1);
  // Stay inside the storage: the wrong strides may reach past it.
  int64_t reach = v.offset;
  for (size_t d = 0; d < v.dims.size(); ++d) reach += (v.dims[d] - 1) * v.strides[d];
  if (reach >= v.storage_numel()) return;
  elementwise(k, selu_grad);
}
}  // namespace mutant
