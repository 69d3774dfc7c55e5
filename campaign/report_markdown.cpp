// report.md (campaign/report.hpp): summary, the verdict per clause, each deviation, accuracy per op
// x dtype, the vendor kits' standards, and an explicit list of everything skipped, expected to
// fail or not reached. Text is escaped the Markdown way (campaign/markdown.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "campaign/causes.hpp"
#include "campaign/climb.hpp"
#include "campaign/coverage.hpp"
#include "campaign/kit_tally.hpp"
#include "campaign/markdown.hpp"
#include "campaign/report_detail.hpp"
#include "campaign/schedule.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

namespace report_detail {

// A Markdown table cell (campaign/markdown.hpp: Markdown's own escaping, never HTML entities).
std::string md_cell(const std::string &s) {
  return markdown::cell(s);
}

// A fenced code block whose fence is longer than any run of backticks inside.
std::string md_code_block(const std::string &s) {
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string body = clean_utf8(s);
  if (body.empty() || body.back() != '\n') body += '\n';
  return fence + "text\n" + body + fence + "\n";
}

// Inline code span (backticks inside are replaced, the text stays one line).
std::string md_code(const std::string &s) {
  return markdown::code(s);
}

}  // namespace report_detail

using namespace report_detail;

std::string render_markdown(const CampaignResult &r) {
  std::string s = "# aclnn-conform conformance report\n\n";
  s += "| | |\n|---|---|\n";
  for (const auto &[k, v] : identity_rows(r)) s += "| " + md_cell(k) + " | " + md_cell(v) + " |\n";
  s += "| Verdict | **" + md_cell(verdict_text(r)) + "** |\n\n";
  const auto causes = group_causes(r);
  const auto counting =
      std::count_if(causes.begin(), causes.end(), [](const CauseGroup &c) { return c.counts; });
  s += fmt::format("{}; {} found. **{}** behind **{}** (see Causes).\n\n", counts_text(r),
                   plural(static_cast<int64_t>(r.deviations.size()), "deviation"),
                   plural(counting, "cause"), plural(count(r).deviates, "deviating clause"));
  s += coverage_markdown(r.coverage);  // edges reached, when the SUT is instrumented

  s += "## Causes\n\n";
  if (causes.empty()) s += "None: no counterexample was kept.\n\n";
  if (!causes.empty()) {
    s += "Counterexamples with the same failure signature (op, kind, status pair, message class, "
         "variant, kind of value error) are one cause, listed once with the clauses it touches; "
         "the numbers are those of the Deviations section.\n\n";
    s += "| Cause | Op | What | Clauses | Counterexamples | Counts |\n|---|---|---|---|---|---|\n";
    for (const auto &c : causes) {
      std::vector<std::string> devs;
      for (size_t i : c.deviations) devs.push_back(fmt::format("{}", i + 1));
      s +=
          fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.id, md_cell(c.op), md_cell(c.title),
                      md_cell(fmt::format("{}", fmt::join(c.clauses, ", "))), fmt::join(devs, ", "),
                      c.counts ? "yes" : "no (expected variant or tolerated)");
    }
    s += "\n";
  }

  s += "## Clauses\n\n";
  s += "| Clause | Op | Status | Reached | Min | Deviations | Variants matched | Text |\n";
  s += "|---|---|---|---:|---:|---:|---|---|\n";
  for (const auto &c : r.clauses) {
    std::string st = md_cell(status_label(c));
    if (c.status == ClauseStatus::kDeviates) st = "**" + st + "**";
    std::vector<std::string> vs;
    for (const auto &v : c.variants) vs.push_back(md_code(v));
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", md_cell(c.id), md_cell(c.op),
                     st, c.reached, c.min_cases, c.deviations, fmt::join(vs, ", "),
                     md_cell(excerpt(clause_text(c.id))));
  }
  s += "\n";

  s += "## Coverage\n\n";
  s += "A clause is judged only when enough cases reach it: at least " + min_cases_text(r) +
       " in the " + md_cell(r.tier) +
       " tier. Below that it is *under-tested* (*not reached* with none), and the verdict is "
       "INCOMPLETE (exit 3) unless `--allow-incomplete` is given.\n\n";
  bool short_of = false;
  for (const auto &c : r.clauses) {
    if (c.status != ClauseStatus::kNotReached && c.status != ClauseStatus::kUnderTested) continue;
    s += fmt::format("- {} ({}): {} - reached by {} of the {} cases it needs{}.\n", md_code(c.id),
                     md_cell(c.op),
                     c.status == ClauseStatus::kNotReached ? "NOT REACHED" : "UNDER-TESTED",
                     c.reached, std::max<int64_t>(c.min_cases, 1),
                     r.allow_incomplete ? " (allowed by --allow-incomplete)" : "");
    short_of = true;
  }
  if (!short_of) s += "Every selected clause was reached often enough.\n";
  s += "\n";

  s += "## Deviations\n\n";
  if (r.deviations.empty()) s += "None.\n\n";
  for (size_t i = 0; i < r.deviations.size(); ++i) {
    const Deviation &d = r.deviations[i];
    s += fmt::format("### {}. {} ({})\n\n", i + 1, md_cell(d.clause), md_cell(d.op));
    s += "- Kind: " + md_cell(d.kind.empty() ? "deviation" : d.kind) + "\n";
    if (!d.expected_variant.empty())
      s += "- Expected variant: conforms to variant " + md_code(d.expected_variant) +
           " (--expect-variant), so it does not count against the verdict\n";
    s += "- Variants: " + variants_text(d.variants) + "\n";
    s += "- Case: " + md_code(d.summary.empty() ? d.minimal.describe() : d.summary) + "\n";
    if (!d.call.empty()) s += "- Call in flight: " + md_code(d.call) + "\n";
    if (!expected_got(d).empty()) s += "- Status: " + md_cell(expected_got(d)) + "\n";
    if (!d.detail.empty()) s += "- Detail: " + md_cell(d.detail) + "\n";
    if (!d.origin.empty())
      s += fmt::format("- Origin: {} (shrunk in {} steps)\n", md_cell(d.origin), d.shrink_steps);
    if (d.found_at_case > 0 || d.found_at_seconds > 0)
      s += fmt::format("- Found after: {} cases, {:.1f} s\n", d.found_at_case, d.found_at_seconds);
    s += "- Repro: " +
         (d.repro_file.empty() ? std::string("(none written)") : md_code(d.repro_file)) + "\n";
    if (!d.corpus_file.empty()) s += "- Corpus entry: " + md_code(d.corpus_file) + "\n";
    if (!d.case_id.empty())
      s += "- Re-run: " + md_code("aclnn-conform replay OUT/corpus --case " + d.case_id) + "\n";
    s += "\nFailures:\n\n" + md_code_block(d.all_failures.empty() ? d.detail : d.all_failures) +
         "\n";
  }

  s += "## Accuracy\n\n";
  if (r.accuracy.empty()) {
    s += "No outputs compared.\n\n";
  } else {
    s += std::string(kAccuracyIntro) + "\n\n";
    s += "| Op | Dtype | Judged by | Elements | Max ulps |";
    for (int b = 0; b < aclnn_ref::kBucketCount; ++b)
      s += fmt::format(" {} |", md_cell(aclnn_ref::bucket_label(b)));
    s += " MERE | MARE | Ascend standard |\n|---|---|---|---:|---:|";
    for (int b = 0; b < aclnn_ref::kBucketCount; ++b) s += "---:|";
    s += "---:|---:|---|\n";
    for (const auto &a : r.accuracy) {
      s += fmt::format("| {} | {} | {} | {} | {}{} |", md_cell(a.op), md_cell(a.dtype),
                       md_cell(judged_by(r, a)), a.elements, max_ulps_text(a),
                       ulps_decide(r, a) ? "" : " (information)");
      for (int b = 0; b < aclnn_ref::kBucketCount; ++b) s += fmt::format(" {} |", a.histogram[b]);
      s += fmt::format(" {} | {} | {} |\n", num(a.mere()), num(a.mare), ascend_text(r, a));
    }
    s += "\n";
    // Every precision standard of this run, per op and dtype (the HTML report has the pictures).
    s += "### Precision standards\n\n";
    s += "Measured in this run on the same outputs; only the judge of record (--policy " +
         r.policy +
         ") decides the verdict. Errors are against the exact value (integers are exact).\n\n";
    s += "| Op | Dtype | Standard | Rule | Measured | Result | Asks for |\n"
         "|---|---|---|---|---|---|---|\n";
    for (const auto &a : r.accuracy)
      for (const auto &x :
           precision_standards(a.precision, ulp_row(r, a), r.policy, min_cases_of(r)))
        if (x.kit.empty())
          s += fmt::format(
              "| {} | {} | {}{} | {} | {} | {} | {}{} |\n", md_cell(a.op), md_cell(a.dtype),
              md_cell(x.name), x.decides ? " (judge of record)" : "", md_cell(x.thresholds),
              md_cell(x.measured),
              x.outcome == StandardResult::Outcome::kFail ? "**fail**" : outcome_name(x.outcome),
              md_cell(x.needs), x.enough ? "" : " (too few)");
    s += "\n";
    s += render_kit_standards_markdown(r);
  }

  s += worst_inputs_markdown(r);  // campaign/climb.hpp
  s += schedule_markdown(r);      // campaign/schedule.hpp
  s += "## Skipped, expected failures, expected variants and unreached clauses\n\n";
  s += "Nothing below is a conformance statement: each entry is a property that did not run, or "
       "whose failure was tolerated or explained by an expected variant, or a clause too few "
       "cases exercised.\n\n";
  bool any = false;
  for (const auto &e : r.skipped) {
    s += "- Skipped by request (" + item_kind(e) + "): " + md_code(e) +
         " - not checked in this campaign.\n";
    any = true;
  }
  for (const auto &e : r.xfails) {
    s += "- Expected failure (xfail, " + item_kind(e) + "): " + md_code(e) +
         " - failures are tolerated and do not count against the verdict.\n";
    any = true;
  }
  for (const auto &c : r.clauses) {
    if (c.status == ClauseStatus::kSkipped)
      s += "- Clause " + md_code(c.id) + " (" + md_cell(c.op) + "): " +
           (listed_in(r.not_applicable, c.id)
                ? "NOT APPLICABLE - " + md_cell(r.not_applicable_reason) + ": not judged.\n"
                : std::string("SKIPPED ") +
                      (listed_in(r.skipped, c.id) ? "by request" : "by selection (--clauses)") +
                      " - not checked.\n");
    else if (c.status == ClauseStatus::kExpectedFailure)
      s += fmt::format(
          "- Clause {} ({}): EXPECTED FAILURE (xfail) - {} deviation(s) in {} cases "
          "tolerated{}.\n",
          md_code(c.id), md_cell(c.op), c.deviations, c.reached,
          c.first_detail.empty() ? "" : "; first: " + md_cell(c.first_detail));
    else if (c.status == ClauseStatus::kConformsToVariant)
      s += fmt::format(
          "- Clause {} ({}): CONFORMS TO VARIANT {} - {} of {} cases follow the expected variant, "
          "not the behaviour of record.\n",
          md_code(c.id), md_cell(c.op),
          md_cell(fmt::format("{}", fmt::join(c.expected_variants_matched, ", "))), c.deviations,
          c.reached);
    else if (c.status == ClauseStatus::kNotReached)
      s += "- Clause " + md_code(c.id) + " (" + md_cell(c.op) +
           "): NOT REACHED - no case exercised it.\n";
    else if (c.status == ClauseStatus::kUnderTested)
      s += fmt::format("- Clause {} ({}): UNDER-TESTED - {} of {} cases.\n", md_code(c.id),
                       md_cell(c.op), c.reached, c.min_cases);
    else
      continue;
    any = true;
  }
  if (!any) s += "None: every clause was exercised and judged.\n";
  s += "\n## Warnings\n\n";
  if (r.warnings.empty()) s += "None.\n";
  for (const auto &w : r.warnings) s += "- " + md_cell(w) + "\n";
  return s;
}

}  // namespace aclnn_conform
