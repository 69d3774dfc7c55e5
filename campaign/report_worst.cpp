// The worst-input table of the reports (campaign/climb.hpp): per op and output dtype, the worst
// element found, with its inputs, got and exact values and errors, as the worst-case tables of
// correctly rounded maths libraries give them; and the share of the run that climbing took.
#include <fmt/format.h>

#include "campaign/climb.hpp"
#include "campaign/markdown.hpp"
#include "campaign/report_html_page.hpp"
#include "campaign/result.hpp"
#include "properties/sweep.hpp"

namespace aclnn_conform {
namespace {

std::vector<WorstInput> rows(const CampaignResult &r) {
  std::vector<WorstInput> out;
  if (!r.worst_inputs.is_array()) return out;
  for (const auto &j : r.worst_inputs) out.push_back(worst_input_from_json(j));
  return out;
}

std::string inputs_text(const WorstInput &w) {
  if (w.inputs.empty()) return "(reads several elements: see the case)";
  std::string s;
  for (const auto &i : w.inputs)
    s += fmt::format("{}{} = {:.9g} ({} {:#x})", s.empty() ? "" : "; ", i.name, i.value, i.dtype,
                     i.bits);
  return s;
}

std::string usage_text(const CampaignResult &r) {
  const ClimbUsage u = climb_usage_from_json(r.climb);
  const std::string sweeps =
      u.sweeps
          ? fmt::format(
                " Value sweeps (one valid case in {} of the elementwise ops, {} "
                "element values each; one in {} of the others, their large call "
                "refilled) ran {} times, {} element values in all.",
                kElementwiseSweepOneIn, kSweepElements, kRowSweepOneIn, u.sweeps, u.sweep_elements)
          : std::string(" No value sweep ran (--no-sweep, or the smoke tier).");
  if (!u.enabled)
    return "Climbing was off (--no-climb): the table gives the worst element seen." + sweeps;
  return fmt::format(
             "Climbing (targeted search, one valid case in 32) ran {} tasks making {} SUT calls, "
             "next to {} cases in all; {} ended above their start; {} starts were kept.",
             u.tasks, u.calls, r.cases, u.improved, u.records) +
         sweeps;
}

}  // namespace

std::string worst_inputs_markdown(const CampaignResult &r) {
  const auto ws = rows(r);
  if (ws.empty() && r.climb.is_null()) return "";
  std::string s = "## Worst inputs\n\n";
  s += "Per op and output dtype, the element with the largest error against the exact value (in "
       "ulps of the output dtype; sums: in ulps of the sum of |terms|, the scale of their bound), "
       "with its inputs (those of the output's shape). " +
       usage_text(r) + "\n\n";
  if (ws.empty()) return s + "No output compared.\n\n";
  s += "| Op | Dtype | Ulps | Relative | Got | Exact | Inputs | Case |\n"
       "|---|---|---:|---:|---:|---:|---|---|\n";
  for (const auto &w : ws)
    s += fmt::format(
        "| {} | {} | {:.4g} | {:.3g} | {:.9g} | {:.17g} | {} | {}{} |\n", markdown::cell(w.op),
        markdown::cell(w.dtype), w.ulps, w.rel, w.got, w.exact, markdown::cell(inputs_text(w)),
        markdown::cell(w.output + "[" + std::to_string(w.element) + "] of " + w.origin),
        w.climbed ? " (climbed: the case is in report.json)" : "");
  return s + "\n";
}

std::string worst_inputs_html(const CampaignResult &r) {
  using html_detail::h;
  const auto ws = rows(r);
  if (ws.empty() && r.climb.is_null()) return "";
  std::string s =
      "<h2 id=\"worst\">Worst inputs</h2>\n<p>Per op and output dtype, the element "
      "with the largest error against the exact value (ulps of the output dtype; "
      "sums: of the sum of |terms|). " +
      h(usage_text(r)) + "</p>\n";
  if (ws.empty()) return s + "<p>No output compared.</p>\n";
  s += "<table>\n<tr><th>Op</th><th>Dtype</th><th>Ulps</th><th>Relative</th><th>Got</th>"
       "<th>Exact</th><th>Inputs</th><th>Case</th></tr>\n";
  for (const auto &w : ws)
    s += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{:.4g}</td><td>{:.3g}</td><td>{:.9g}</td><td>{:.17g}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        h(w.op), h(w.dtype), w.ulps, w.rel, w.got, w.exact, h(inputs_text(w)),
        h(w.output + "[" + std::to_string(w.element) + "] of " + w.origin +
          (w.climbed ? " (climbed: the case is in report.json)" : "")));
  return s + "</table>\n";
}

}  // namespace aclnn_conform
