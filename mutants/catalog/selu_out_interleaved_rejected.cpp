// selu_out_interleaved_rejected: SeluBackward decides that gradInput does not overlap itself by the
// sufficient test alone (dims of size > 1 sorted by stride, each stride beyond the span of the
// smaller ones) and refuses (161002) an interleaved view whose elements never meet.
// (A fault class the catalog carries for every op it applies to: mutants/fault_classes.hpp.)
#include "mutants/fault_classes.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  if (auto s = fault::refuse_interleaved(c, Op::kSelu, 0)) return s;
  return std::nullopt;
}
}  // namespace mutant
