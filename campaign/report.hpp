// The campaign's human- and machine-readable reports, rendered from a CampaignResult:
//  - report.md: summary, the verdict per clause, each deviation, accuracy per op x dtype, and an
//    explicit list of everything skipped, expected to fail or not reached;
//  - report.xml: JUnit XML, one <testsuite> per op (and "common"), one <testcase> per clause;
//  - report.html: one self-contained page (inline CSS and SVG, no scripts, no external resources).
// report.json is the lead's to_json(CampaignResult). docs/report-format.md describes them all.
#pragma once

#include <cstdint>
#include <string>

#include "campaign/result.hpp"

namespace aclnn_conform {

// How many clauses have each status: what every report and the CLI's summary count.
struct ClauseCounts {
  int64_t conforms = 0, deviates = 0, not_reached = 0, skipped = 0, xfail = 0, under_tested = 0,
          variant = 0;
  int64_t incomplete() const { return not_reached + under_tested; }
};
ClauseCounts clause_counts(const CampaignResult &r);

std::string render_markdown(const CampaignResult &r);
std::string render_junit(const CampaignResult &r);
std::string render_html(const CampaignResult &r);

// Writes report.md, report.xml and report.html into out_dir (created if missing). Throws
// std::runtime_error if a file cannot be written.
void write_reports(const CampaignResult &r, const std::string &out_dir);

// Escaping helpers (exposed for tests). Both replace invalid UTF-8 with U+FFFD and drop the
// control characters XML 1.0 forbids; xml_escape also escapes quotes for attribute values.
std::string xml_escape(const std::string &s);
std::string html_escape(const std::string &s);

}  // namespace aclnn_conform
