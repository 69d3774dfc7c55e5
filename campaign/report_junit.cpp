// report.xml (campaign/report.hpp): JUnit XML, one <testsuite> per op (and "common"), one
// <testcase> per clause.
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "campaign/report_detail.hpp"

namespace aclnn_conform {

using namespace report_detail;

// Follows junit-10.xsd (tests/schemas/), which Jenkins' xUnit and GitLab read: run properties
// at testsuite level only, a clause's counts in its <system-out>, real times (a clause's time
// is that of the cases that reached it; cases reach several clauses, so a suite's time is its
// slowest clause's, not a sum).
std::string render_junit(const CampaignResult &r) {
  const Counts total = count(r);
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format(
      "<testsuites name=\"aclnn-conform\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
      "time=\"{:.3f}\">\n",
      r.clauses.size(), total.deviates, std::max(0.0, r.seconds));
  for (const auto &op : suite_order(r)) {
    int64_t tests = 0, failures = 0, skipped = 0, reached = 0, deviations = 0;
    double seconds = 0;
    for (const auto &c : r.clauses) {
      if (c.op != op) continue;
      ++tests;
      reached += c.reached;
      deviations += c.deviations;
      seconds = std::max(seconds, c.seconds);
      if (c.status == ClauseStatus::kDeviates)
        ++failures;
      else if (c.status != ClauseStatus::kConforms && c.status != ClauseStatus::kConformsToVariant)
        ++skipped;
    }
    s += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
        "time=\"{:.3f}\">\n",
        attr(op), tests, failures, skipped, seconds);
    s += "    <properties>\n";
    std::vector<std::pair<std::string, std::string>> props = {
        {"sut", r.sut},
        {"sut.path", r.sut_identity.path},
        {"sut.soname", r.sut_identity.soname},
        {"sut.size", std::to_string(r.sut_identity.size)},
        {"sut.sha256", r.sut_identity.sha256},
        {"product", r.product},
        {"tier", r.tier},
        {"policy", r.policy},
        {"seed", seed_text(r.seed)},
        {"shard", r.shard},
        {"version", r.tool_version},
        {"cases", std::to_string(r.cases)},
        {"reached", std::to_string(reached)},
        {"deviations", std::to_string(deviations)},
        {"verdict", verdict_text(r)}};
    if (!r.expected_variants.empty())
      props.emplace_back("expected_variants",
                         fmt::format("{}", fmt::join(r.expected_variants, ",")));
    // Every precision standard on each of this op's dtypes, the vendor kits' included.
    for (const auto &a : r.accuracy) {
      if (a.op != op) continue;
      for (const auto &x :
           precision_standards(a.precision, ulp_row(r, a), r.policy, min_cases_of(r)))
        props.emplace_back("precision." + a.dtype + "." + x.id,
                           fmt::format("{}{}: {}", outcome_name(x.outcome),
                                       x.decides ? " (decides)" : "", x.measured));
    }
    for (const auto &[k, v] : props)
      s += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", attr(k), attr(v));
    s += "    </properties>\n";
    for (const auto &c : r.clauses) {
      if (c.op != op) continue;
      s += fmt::format("    <testcase classname=\"aclnn.{}\" name=\"{}\" time=\"{:.3f}\">\n",
                       attr(c.op), attr(c.id), std::max(0.0, c.seconds));
      switch (c.status) {
        case ClauseStatus::kDeviates: {
          const auto devs = deviations_of(r, c.id);
          std::string type = "deviation", body;
          if (!devs.empty() && !devs.front()->kind.empty()) type = devs.front()->kind;
          body = fmt::format("{} of {} cases deviate; {}.\n", c.deviations, c.reached,
                             variants_text(c.variants));
          for (const Deviation *d : devs) {
            body += "\ncase: " + (d->summary.empty() ? d->minimal.describe() : d->summary) + "\n";
            if (!d->call.empty()) body += "call: " + d->call + "\n";
            if (!expected_got(*d).empty()) body += expected_got(*d) + "\n";
            if (!d->repro_file.empty()) body += "repro: " + d->repro_file + "\n";
            if (!d->case_id.empty())
              body += "re-run: aclnn-conform replay --case " + d->case_id + "\n";
            body += d->all_failures.empty() ? d->detail + "\n" : d->all_failures + "\n";
          }
          std::string message = c.first_detail;
          if (message.empty() && !devs.empty()) message = devs.front()->detail;
          if (message.empty()) message = "deviates";
          s += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                           attr(message), attr(type), html_escape(body));
          break;
        }
        case ClauseStatus::kNotReached:
          s += fmt::format(
              "      <skipped message=\"{}\"/>\n",
              attr(fmt::format("not reached: 0 of {} cases{}", std::max<int64_t>(c.min_cases, 1),
                               r.interrupted ? " (run interrupted)" : "")));
          break;
        case ClauseStatus::kUnderTested:
          s +=
              fmt::format("      <skipped message=\"{}\"/>\n",
                          attr(fmt::format("under-tested: {} of {} cases{}", c.reached, c.min_cases,
                                           r.interrupted ? " (run interrupted)" : "")));
          break;
        case ClauseStatus::kSkipped:
          s += fmt::format("      <skipped message=\"{}\"/>\n",
                           listed_in(r.not_applicable, c.id) ? attr(r.not_applicable_reason)
                           : listed_in(r.skipped, c.id)      ? "skipped by request"
                                                             : "not selected (--clauses)");
          break;
        case ClauseStatus::kExpectedFailure:
          s += "      <skipped message=\"expected failure (xfail)\"/>\n";
          break;
        case ClauseStatus::kConformsToVariant:
        case ClauseStatus::kConforms:
          break;
      }
      s += fmt::format("      <system-out>{}</system-out>\n",
                       html_escape(fmt::format(
                           "{}: reached by {} cases (minimum {}), {} deviate{}", status_label(c),
                           c.reached, c.min_cases, c.deviations,
                           c.variants.empty() ? std::string() : "; " + variants_text(c.variants))));
      s += "    </testcase>\n";
    }
    s += "  </testsuite>\n";
  }
  s += "</testsuites>\n";
  return s;
}

}  // namespace aclnn_conform
