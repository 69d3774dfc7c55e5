// Protocol probes: the ABI rules every op shares, checked on one valid case of an op through the
// SUT's table - two-phase calls (ABI-TWOPHASE-2/3/4), determinism (VAL-DET-1), tensor creation
// (ABI-TENSOR-1), formats (ABI-FORMAT-1) and the runtime (ABI-RUNTIME-1). Nothing here forks:
// a device runtime does not survive fork() (docs/device.md).
#pragma once

#include <vector>

#include "properties/case.hpp"
#include "properties/judge.hpp"
#include "properties/op.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

std::vector<ClauseResult> protocol_probe(const Sut &sut, const OpDescriptor &op, const Case &valid);

// The teardown the call examples end with (ABI-RUNTIME-1): aclrtDestroyStream of the SUT's stream,
// aclrtResetDevice of its device, aclFinalize. The SUT cannot be used afterwards: a campaign's
// worker runs it last, then exits (a runtime need not start again in the same process).
std::vector<ClauseResult> teardown_probe(Sut &sut);

}  // namespace aclnn_conform
