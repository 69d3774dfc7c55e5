// Protocol probes: the ABI rules every op shares, checked on one valid case of an op through the
// SUT's table - two-phase calls (ABI-TWOPHASE-2/3/4), determinism (VAL-DET-1), tensor creation
// (ABI-TENSOR-1), formats (ABI-FORMAT-1) and the runtime (ABI-RUNTIME-1).
#pragma once

#include <vector>

#include "properties/case.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

std::vector<ClauseResult> protocol_probe(const Sut &sut, const OpDescriptor &op, const Case &valid);

}  // namespace aclnn_conform
