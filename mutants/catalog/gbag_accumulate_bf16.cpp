// gbag_accumulate_bf16: GroupedBiasAddGrad with bf16 gradY accumulates in bf16 (the vendor
// accumulates in FLOAT).
#include "mutants/shim.hpp"

namespace mutant {
void after_phase_two(Call *c, aclnnStatus &status, void *, uint64_t) {
  if (!c || status || (c->op != Op::kGbag && c->op != Op::kGbagV2)) return;
  if (c->in[0].dtype != ACL_BF16) return;
  GbagFaults f;
  f.accumulate_bf16 = true;
  grouped_bias_add_grad(*c, f);
}
}  // namespace mutant
