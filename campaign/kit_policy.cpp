#include "campaign/kit_policy.hpp"

#include <stdexcept>

#include "reference/kit_standards.hpp"

namespace aclnn_conform {

std::string policy_name(const CampaignConfig &cfg) {
  switch (cfg.accuracy) {
    case JudgePolicy::Accuracy::kAscend:
      return "ascend";
    case JudgePolicy::Accuracy::kKit:
      return cfg.kit_standard;
    case JudgePolicy::Accuracy::kUlp:
      break;
  }
  return "ulp";
}

void set_policy(CampaignConfig &cfg, const std::string &policy) {
  cfg.kit_standard.clear();
  if (policy == "ulp") {
    cfg.accuracy = JudgePolicy::Accuracy::kUlp;
  } else if (policy == "ascend") {
    cfg.accuracy = JudgePolicy::Accuracy::kAscend;
  } else if (aclnn_ref::kits::find_standard(policy)) {
    cfg.accuracy = JudgePolicy::Accuracy::kKit;
    cfg.kit_standard = policy;
  } else {
    throw std::invalid_argument("--policy: no policy named '" + policy + "'");
  }
}

std::string policy_problem(const CampaignConfig &cfg) {
  if (cfg.accuracy != JudgePolicy::Accuracy::kKit) return "";
  const auto *st = aclnn_ref::kits::find_standard(cfg.kit_standard);
  if (!st) return "--policy: no kit standard named '" + cfg.kit_standard + "'";
  if (st->needs_reference && cfg.competitor.empty())
    return "--policy " + cfg.kit_standard +
           " compares the SUT with another device's result: give that library with --competitor "
           "(without one the standard judges nothing)";
  return "";
}

std::optional<Outcome> kit_reference_outcome(const CampaignConfig &cfg, const Sut *reference,
                                             const OpDescriptor &op, const Case &c,
                                             const Outcome &got) {
  if (cfg.accuracy != JudgePolicy::Accuracy::kKit || !reference) return std::nullopt;
  const auto *st = aclnn_ref::kits::find_standard(cfg.kit_standard);
  if (!st || !st->uses_reference) return std::nullopt;
  if (got.harness_error || got.status != 0 || !op.check(c, {}).ok()) return std::nullopt;
  return run_case(*reference, op, c);
}

}  // namespace aclnn_conform
