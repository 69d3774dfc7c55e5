// Whether a SUT takes the product of each call from ACLNN_CPU_SOC, as the built-in library (and
// libraries that wrap it) do. A library on a real device runs as that device's product whatever
// the variable says, so edge rows and generated cases written for another product would judge it
// by the wrong product's gates (false deviations on ABI-SOC-1 and the dtype clauses). Such cases
// run only on a SUT that emulates products; on any other, only calls for the campaign's product.
#pragma once

#include <nlohmann/json.hpp>
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

// Decided by behaviour: a call the oracle accepts under `product` and rejects under another
// product's gates must succeed with ACLNN_CPU_SOC naming `product` and fail with it naming the
// other. Run in a worker (the SUT is never called in the campaign's own process); its answer is
// {"code", "what"}: code bit 0 set if the call failed as `product`, bit 1 if it succeeded as the
// other product; or {"evidence"} when no call of the ops is gated by the product.
nlohmann::json run_emulation_probe(const Sut &sut, const std::vector<const OpDescriptor *> &ops,
                                   Product product);

// The campaign's reading of the worker's answer. No answer (the probe call crashed or hung:
// `death` says how) or any answer but code 0: the SUT does not emulate products.
EmulationProbe read_emulation_probe(const nlohmann::json *answer, const std::string &death,
                                    Product product);

}  // namespace aclnn_conform
