// Helpers shared by the report renderers (report_markdown.cpp, report_junit.cpp, report_html*.cpp),
// defined in report.cpp and report_accuracy.cpp. Internal to aclnn::campaign.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "campaign/report.hpp"
#include "campaign/result.hpp"

namespace aclnn_conform::report_detail {

std::string clean_utf8(const std::string &s);
std::string attr(const std::string &s);  // escaped for an attribute value
std::string status_css(ClauseStatus s);
using Counts = ClauseCounts;
inline Counts count(const CampaignResult &r) {
  return clause_counts(r);
}
std::string plural(int64_t n, const char *word);
std::string verdict_text(const CampaignResult &r);
std::string counts_text(const CampaignResult &r);
std::string status_label(const ClauseVerdict &c);
std::string min_cases_text(const CampaignResult &r);
// A seed as the reports print it.
std::string seed_text(uint64_t seed);
std::vector<std::pair<std::string, std::string>> identity_rows(const CampaignResult &r);
std::string variants_text(const std::vector<std::string> &v);
std::string excerpt(const std::string &text, size_t max = 90);
std::string clause_text(const std::string &id);
std::string num(double v);
struct AscendRow {
  double threshold = 0;
  bool known = false;
  bool pass = false;
};
AscendRow ascend_row(const AccuracyStats &a);
bool ascend_policy(const CampaignResult &r);
std::string judged_by(const CampaignResult &r, const AccuracyStats &a);
bool ulps_decide(const CampaignResult &r, const AccuracyStats &a);
std::string max_ulps_text(const AccuracyStats &a);
std::string ascend_text(const CampaignResult &r, const AccuracyStats &a);
extern const char *const kAccuracyIntro;
std::vector<std::string> suite_order(const CampaignResult &r);
std::vector<const Deviation *> deviations_of(const CampaignResult &r, const std::string &clause);
std::string expected_got(const Deviation &d);
constexpr int64_t kSmallCase = 64;
std::vector<std::pair<std::string, std::string>> small_case_values(const Case &c);
bool listed_in(const std::vector<std::string> &list, const std::string &id);
std::string item_kind(const std::string &entry);
// The ulp standard (VAL-TOL-1 part 2) on an accuracy row, for precision_standards().
UlpRow ulp_row(const CampaignResult &r, const AccuracyStats &a);
// The largest per-clause minimum of cases (the tier's).
int64_t min_cases_of(const CampaignResult &r);
void write_file(const std::filesystem::path &p, const std::string &text);
// report.md's section on the vendor kits' standards (campaign/report_standards.cpp).
std::string render_kit_standards_markdown(const CampaignResult &r);

}  // namespace aclnn_conform::report_detail
