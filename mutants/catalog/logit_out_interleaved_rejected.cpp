// logit_out_interleaved_rejected: LogitGrad decides that out does not overlap itself by the
// sufficient test alone (dims of size > 1 sorted by stride, each stride beyond the span of the
// smaller ones) and refuses (161002) every other view, also an interleaved one whose elements
// never meet.
#include "mutants/fault_classes.hpp"

namespace mutant {
std::optional<aclnnStatus> before_phase_one(Call &c) {
  return fault::refuse_interleaved(c, Op::kLogit, 0);
}
}  // namespace mutant
