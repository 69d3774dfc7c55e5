// A vendor kit's standard as the campaign's deciding policy (--policy ttk-mixed, ...): the pieces
// the engine needs besides the judge (properties/judge.hpp, JudgePolicy::Accuracy::kKit).
#pragma once

#include <optional>
#include <string>

#include "campaign/campaign.hpp"
#include "properties/runner.hpp"

namespace aclnn_conform {

// The policy's name in reports: "ulp", "ascend" or the kit standard's id.
std::string policy_name(const CampaignConfig &cfg);

// Sets cfg.accuracy and cfg.kit_standard from a policy name (kit_tally.hpp's policy_names()).
// Throws std::invalid_argument for an unknown name.
void set_policy(CampaignConfig &cfg, const std::string &policy);

// A kit standard that compares with another device needs --competitor; "" if the configuration
// can decide, else the reason (a usage error).
std::string policy_problem(const CampaignConfig &cfg);

// Under a kit policy that compares with another device: the reference library's outcome on the
// case the SUT returned success for (the judge's JudgePolicy::reference); nullopt otherwise.
std::optional<Outcome> kit_reference_outcome(const CampaignConfig &cfg, const Sut *reference,
                                             const OpDescriptor &op, const Case &c,
                                             const Outcome &got);

}  // namespace aclnn_conform
