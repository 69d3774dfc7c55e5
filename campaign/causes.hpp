// Grouping by cause: counterexamples with the same failure signature (op, kind, status pair,
// message class, variant, kind of value error) are one cause, listed once with the clauses it
// touches, so one missing kernel does not read as eleven findings. Derived from a
// CampaignResult's kept counterexamples; report.json carries the groups (docs/report-format.md).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "campaign/result.hpp"

namespace aclnn_conform {

struct CauseGroup {
  std::string id;         // "cause-1", ... in report order (most clauses first)
  std::string signature;  // the fields below joined, what makes two counterexamples one cause
  std::string op;
  std::string kind;  // "deviation", "crash", "timeout"
  int32_t expected_status = 0, got_status = 0;
  std::string message_class;         // the SUT's message or the judge's finding, normalised
  std::string variant;               // the variants that explain it ("" for none)
  std::string value_error;           // kind of value error ("" when the status differs)
  std::string title;                 // one line for people
  std::vector<std::string> clauses;  // in spec order
  std::vector<size_t> deviations;    // indices into CampaignResult::deviations
  bool counts = true;  // false: every counterexample is explained by an expected variant
};

// The failure signature's parts of one counterexample.
CauseGroup cause_of(const Deviation &d);

// Groups r.deviations by signature; groups that count against the verdict first, then by the
// number of clauses they touch.
std::vector<CauseGroup> group_causes(const CampaignResult &r);

}  // namespace aclnn_conform
