// Whether a SUT takes the product of each call from ACLNN_CPU_SOC, as the built-in library (and
// libraries that wrap it) do. A library on a real device runs as that device's product whatever
// the variable says, so edge rows and generated cases written for another product would judge it
// by the wrong product's gates (false deviations on ABI-SOC-1 and the dtype clauses). Such cases
// run only on a SUT that emulates products; on any other, only calls for the campaign's product.
#pragma once

#include <string>
#include <vector>

#include "campaign/campaign.hpp"
#include "properties/op.hpp"
#include "properties/sut.hpp"

namespace aclnn_conform {

struct EmulationProbe {
  bool emulates = false;
  std::string evidence;  // what was called and what came back, for the report
};

// Decided by behaviour, in a forked child (the SUT is not trusted in the campaign's process): a
// call the oracle accepts under `product` and rejects under another product's gates must succeed
// with ACLNN_CPU_SOC naming `product` and fail with it naming the other. No such call among the
// ops, a crash, a hang or any other answer: the SUT does not emulate products.
EmulationProbe probe_product_emulation(const Sut &sut, const std::vector<const OpDescriptor *> &ops,
                                       Product product, double timeout_seconds);

}  // namespace aclnn_conform
