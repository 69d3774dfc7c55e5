// The vendor kits' standards (reference/kit_standards.hpp) over a campaign: the kits judge one
// case (one output tensor) at a time; a campaign reports, per op and output dtype and standard,
// how many cases each standard judged and passed, and its worst case. Everything here merges
// exactly (counts add, the worst is a maximum with a fixed tie-break), so shards, workers and the
// `merge` subcommand give the same tallies whatever their order, in memory bounded by the number
// of standards.
//
// A case's verdict on one op/dtype row: the standard's verdict on each of the case's outputs of
// that dtype combined - fail if any output fails, else not judged if any output was not judged,
// else pass; its score is the largest of the outputs'.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reference/kit_standards.hpp"

namespace aclnn_conform {

struct KitTally {
  std::string id;          // the standard, e.g. "ttk-mixed"
  int64_t judged = 0;      // cases the standard judged (pass or fail)
  int64_t passed = 0;      // of those, passed
  int64_t warnings = 0;    // of the failed ones, msprobe-precheck's WARNING (not ERROR)
  int64_t not_judged = 0;  // cases it could not judge (no reference device, no elements, ...)
  std::string not_judged_reason;  // the smallest reason text seen (deterministic under merging)
  // The worst judged case: a failing case before any passing one, then the largest score, then
  // the smallest case text.
  bool worst_failed = false;
  double worst_score = 0;
  std::string worst_case;      // the case's origin ("seed 0x...:valid:size 40", "corpus FILE")
  std::string worst_measured;  // the standard's measures on it
  bool has_worst() const { return judged > 0; }
  int64_t failed() const { return judged - passed; }
};

// Adds one case's outcome (already combined over its outputs of one dtype).
void add_case(KitTally &t, const aclnn_ref::kits::StandardOutcome &o,
              const std::string &case_origin);
void merge_tally(KitTally &into, const KitTally &from);
// Merges a list of tallies into another by id (the order of `into` is kept, new ids appended).
void merge_tallies(std::vector<KitTally> &into, const std::vector<KitTally> &from);

// Combines per-output outcomes of one standard into the case's outcome for a dtype row.
aclnn_ref::kits::StandardOutcome combine_outputs(
    const std::vector<std::pair<std::string, aclnn_ref::kits::StandardOutcome>> &outputs);

nlohmann::json to_json(const KitTally &t);
KitTally kit_tally_from_json(const nlohmann::json &j);

// The policy names `--policy` accepts: "ulp", "ascend", then every kit standard's id.
std::vector<std::string> policy_names();
bool is_kit_policy(const std::string &policy);

}  // namespace aclnn_conform
