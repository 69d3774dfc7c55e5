// gelu_noncontig_out_contiguous: GeluBackward writes gradInput contiguously from the view's
// offset, ignoring the strides of a non-contiguous output.
#include <vector>

#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kGelu) return;
  const View &o = c->out[0];
  const int64_t n = o.numel();
  if (n == 0 || o.contiguous() || o.offset + n > o.storage_numel()) return;
  std::vector<long double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = load(o, o.element(i));
  for (int64_t i = 0; i < n; ++i) store(o, o.offset + i, v[i]);
}
}  // namespace mutant
