// logit_rank5_flat_x: LogitGrad's strided indexing handles up to rank 4; a rank-5-or-more x that
// is not contiguous is read as if it were (element offset + i for output element i).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || c->op != Op::kLogit) return;
  const View &x = c->in[0], &dy = c->in[1], &o = c->out[0];
  if (x.dims.size() < 5 || x.contiguous() || x.storage_numel() == 0) return;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const int64_t at = (x.offset + i) % x.storage_numel();  // stays inside the storage
    store(o, o.element(i),
          logit_grad(round_to(o.dtype, load(x, at)), round_to(o.dtype, load(dy, dy.element(i))),
                     c->eps));
  }
}
}  // namespace mutant
