// The reports' accuracy rows (campaign/report_detail.hpp): numbers as text, the Ascend standard's
// and the ulp standard's outcome on a row, the rule that judged it, and the paragraph that
// explains the accuracy table.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "campaign/report_detail.hpp"
#include "reference/compare.hpp"
#include "reference/dtype.hpp"

namespace aclnn_conform::report_detail {

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  return fmt::format("{:.4g}", v);
}

// Ascend precision standard of an accuracy row: pass iff MERE < T and MARE < 10 T.
AscendRow ascend_row(const AccuracyStats &a) {
  AscendRow row;
  const auto t = aclnn_ref::dtype_from_name(a.dtype);
  if (!t || !aclnn_ref::is_floating(*t) || a.elements == 0) return row;
  row.known = true;
  row.threshold = aclnn_ref::ascend_threshold(*t);
  row.pass = a.mere() < row.threshold && a.mare < 10 * row.threshold;
  return row;
}

bool ascend_policy(const CampaignResult &r) {
  return r.policy == "ascend";
}

// The rule that judged an accuracy row's outputs (the policy's, and per output the rule the judge
// applied: sums are judged by the condition-aware bound, not by ulps).
std::string rule_name(const std::string &rule) {
  if (rule == "ulp") return "ulp bound (VAL-TOL-1 part 2)";
  if (rule == "sum") return "condition-aware sum bound";
  if (rule == "ascend") return "Ascend MERE/MARE (VAL-TOL-1 part 1)";
  if (rule == "exact") return "exact";
  return rule;
}
std::string judged_by(const CampaignResult &r, const AccuracyStats &a) {
  if (ascend_policy(r)) return rule_name("ascend");
  if (is_kit_policy(r.policy))
    return r.policy +
           " (vendor kit standard; value classes and integer outputs exact; outputs it "
           "cannot judge: " +
           rule_name("ulp") + ")";
  if (a.rules.empty()) return rule_name("ulp") + "; sum outputs: " + rule_name("sum");
  std::vector<std::string> names;
  for (const auto &rule : a.rules) names.push_back(rule_name(rule));
  return fmt::format("{}", fmt::join(names, "; "));
}
// Whether the ulp distance decides this row: under the ascend policy, or for sums alone, it is
// shown for information.
bool ulps_decide(const CampaignResult &r, const AccuracyStats &a) {
  if (ascend_policy(r) || is_kit_policy(r.policy)) return false;
  return a.rules.empty() ||
         std::any_of(a.rules.begin(), a.rules.end(), [](const auto &x) { return x == "ulp"; });
}

// The largest ulp distance, never a meaningless number: beyond the histogram's last bucket it
// says so, a class mismatch (e.g. NaN for a number) is named.
std::string max_ulps_text(const AccuracyStats &a) {
  if (a.elements == 0) return "-";
  if (!std::isfinite(a.max_ulps)) return "class mismatch";
  if (a.max_ulps > 256) return "> 256";
  return fmt::format("{:.4g}", a.max_ulps);
}

// The Ascend standard's cell: decisive under the ascend policy, information otherwise.
std::string ascend_text(const CampaignResult &r, const AccuracyStats &a) {
  const AscendRow row = ascend_row(a);
  if (!row.known) return "n/a";
  return ascend_policy(r)
             ? fmt::format("{} (T = {}; decides)", row.pass ? "PASS" : "FAIL", num(row.threshold))
             : fmt::format("{} (T = {}; information only, does not decide)",
                           row.pass ? "within" : "outside", num(row.threshold));
}

const char *const kAccuracyIntro =
    "Every compared output element against the oracle (ulps measured at the exact value, "
    "VAL-TOL-1). Each row names the rule that "
    "judged it; the verdict follows only that rule (the campaign's policy: ulp, ascend or a vendor "
    "kit's standard; under a kit standard the value class of every element - NaN, inf, finite - "
    "and every exact-value clause - status codes, untouched outputs, integer outputs - are judged "
    "as under ulp). Sums "
    "(LayerNormBackward's and GroupedBiasAddGrad's reductions) are judged by the condition-aware "
    "sum bound, so their ulp distances are information. The Ascend precision standard (MERE < T "
    "and MARE < 10 T) decides only under --policy ascend. \"Max ulps\" is the largest distance "
    "between values of the same class; \"> 256\" is beyond the histogram's last bucket and "
    "\"class mismatch\" means an element of another class (NaN, inf or zero where a number was "
    "due), counted in the \"class\" bucket.";

// The ulp standard on a row: elementwise outputs within the dtype's bound, sums within theirs.
UlpRow ulp_row(const CampaignResult &r, const AccuracyStats &a) {
  UlpRow u;
  u.mere = a.mere();
  u.mare = a.mare;
  if (a.elements == 0) return u;
  u.known = true;
  const auto t = aclnn_ref::dtype_from_name(a.dtype);
  const double bound = t ? aclnn_ref::Tolerance::ulp().ulp_bound(*t) : 2;
  const bool has_sum = std::count(a.rules.begin(), a.rules.end(), "sum") > 0;
  const bool has_ulp = a.rules.empty() || std::count(a.rules.begin(), a.rules.end(), "ulp") > 0;
  const int64_t klass = a.histogram[aclnn_ref::kBClass];
  if (has_sum && !ascend_policy(r)) {
    u.pass = a.max_bound_ratio <= 1 && klass == 0;
    u.measured =
        fmt::format("largest |err| / bound {}, {} class mismatches", num(a.max_bound_ratio), klass);
    if (has_ulp)
      u.measured += "; elementwise outputs share the row (max ulps " + max_ulps_text(a) + ")";
  } else {
    u.pass = a.max_ulps <= bound && klass == 0;
    u.measured = fmt::format("max {} ulps (bound {}), {} class mismatches", max_ulps_text(a),
                             num(bound), klass);
  }
  return u;
}

}  // namespace aclnn_conform::report_detail
