// The vendor kits' standards in report.md (campaign/report.cpp calls it): side by side per op and
// dtype, the deciding one marked, then the rule, the measures and the worst case of every standard
// that failed or decides, and where each rule is written.
#include <fmt/format.h>

#include "campaign/kit_tally.hpp"
#include "campaign/markdown.hpp"
#include "campaign/report_detail.hpp"
#include "reference/kit_standards.hpp"

namespace aclnn_conform::report_detail {

namespace {
std::string kit_cell(const StandardResult &x) {
  std::string text;
  const auto slash = x.measured.find(" cases pass");
  // "12 of 12 cases pass; ..." -> "12/12"
  std::string counts;
  if (slash != std::string::npos) {
    const std::string head = x.measured.substr(0, slash);
    const auto of = head.find(" of ");
    if (of != std::string::npos) counts = head.substr(0, of) + "/" + head.substr(of + 4);
  }
  switch (x.outcome) {
    case StandardResult::Outcome::kPass:
      text = "pass " + counts;
      break;
    case StandardResult::Outcome::kFail:
      text = "**fail** " + counts;
      break;
    case StandardResult::Outcome::kNotJudged:
      text = "not judged";
      break;
    default:
      text = "-";
  }
  return x.decides ? text + " (decides)" : text;
}
}  // namespace

std::string render_kit_standards_markdown(const CampaignResult &r) {
  using markdown::cell;
  std::string s = "### Vendor kits' standards\n\n";
  s += "The standards of ops-test-kit (TTK) and msprobe by the kits' own names, each judged on "
       "every case with outputs of the row's dtype (the kits judge one case, one output tensor, at "
       "a time; a case passes when each of its outputs of that dtype passes). A cell gives the "
       "cases passed of the cases judged. \"not judged\": the standard compares with another "
       "device and the run had none for those cases (`--competitor`), or the dtype is outside "
       "the standard. Rules, thresholds and sources: docs/standards.md.";
  if (is_kit_policy(r.policy))
    s += " Deciding standard: **" + cell(r.policy) +
         "**. Whatever the policy, the value class of every element (NaN, +inf, -inf, finite), "
         "status codes, untouched outputs and integer outputs are judged exactly, as under "
         "`--policy ulp`; outputs the deciding standard cannot judge are judged by the ulp bound.";
  s += "\n\n";
  const int64_t min_cases = min_cases_of(r);
  std::vector<std::string> ids;
  for (const auto &st : aclnn_ref::kits::standards()) ids.push_back(st.id);
  s += "| Op | Dtype |";
  for (const auto &id : ids) s += " " + cell(id) + (r.policy == id ? " (decides)" : "") + " |";
  s += "\n|---|---|";
  for (size_t k = 0; k < ids.size(); ++k) s += "---|";
  s += "\n";
  std::vector<std::pair<const AccuracyStats *, StandardResult>> details;
  for (const auto &a : r.accuracy) {
    if (a.precision.cases == 0) continue;
    s += "| " + cell(a.op) + " | " + cell(a.dtype) + " |";
    for (const auto &x : precision_standards(a.precision, ulp_row(r, a), r.policy, min_cases)) {
      if (x.kit.empty()) continue;
      s += " " + kit_cell(x) + " |";
      if (x.outcome == StandardResult::Outcome::kFail || x.decides) details.emplace_back(&a, x);
    }
    s += "\n";
  }
  s += "\n";
  if (!details.empty()) {
    s += "Each failing standard and the deciding one, with its worst case:\n\n"
         "| Op | Dtype | Standard | Rule (this dtype) | Result | Measured |\n"
         "|---|---|---|---|---|---|\n";
    for (const auto &[a, x] : details)
      s += fmt::format(
          "| {} | {} | {}{} | {} | {} | {} |\n", cell(a->op), cell(a->dtype), cell(x.id),
          x.decides ? " (decides)" : "", cell(x.thresholds),
          x.outcome == StandardResult::Outcome::kFail ? "**fail**" : outcome_name(x.outcome),
          cell(x.measured));
    s += "\n";
  }
  s += "| Standard | Kit | The kit's name | Source |\n|---|---|---|---|\n";
  for (const auto &st : aclnn_ref::kits::standards())
    s += fmt::format("| {} | {} | {} | {} |\n", cell(st.id), cell(st.kit), cell(st.name),
                     cell(st.source));
  s += "\n";
  return s;
}

}  // namespace aclnn_conform::report_detail
