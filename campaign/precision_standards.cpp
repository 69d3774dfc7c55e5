// The precision standards on one accuracy row (campaign/precision.hpp): each standard's outcome
// (pass, fail, information, not exercised, not judged) from the row's tallies, with its thresholds
// and, with a competitor, the SUT/competitor ratios; the vendor kits' standards from their tallies.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "campaign/precision.hpp"
#include "campaign/result.hpp"
#include "reference/compare.hpp"

namespace aclnn_conform {

using aclnn_ref::DType;

std::string outcome_name(StandardResult::Outcome o) {
  switch (o) {
    case StandardResult::Outcome::kPass:
      return "pass";
    case StandardResult::Outcome::kFail:
      return "fail";
    case StandardResult::Outcome::kInfo:
      return "info";
    case StandardResult::Outcome::kNotExercised:
      return "not exercised";
    case StandardResult::Outcome::kNotJudged:
      return "not judged";
  }
  return "info";
}

namespace {
std::string g(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.3g}", v);
}
std::string share(int64_t k, int64_t n) {
  return n ? fmt::format("{} of {} ({:.3g})", k, n, static_cast<double>(k) / n)
           : std::string("0 of 0");
}
// SUT / competitor; both zero: 1 (the same); competitor zero alone: inf (any error fails).
double ratio(double sut, double comp) {
  if (comp == 0) return sut == 0 ? 1 : INFINITY;
  return sut / comp;
}
StandardResult make_result(std::string id, std::string name, std::string thresholds,
                           std::string measured) {
  StandardResult r;
  r.id = std::move(id);
  r.name = std::move(name);
  r.thresholds = std::move(thresholds);
  r.measured = std::move(measured);
  return r;
}
std::string pow2(double v) {
  return fmt::format("2^{}", static_cast<int>(std::lround(std::log2(v))));
}

// A vendor kit's standard on a row, from its tally: passes when every case it judged passed;
// "not judged" when it judged none of the row's cases but could not judge some.
StandardResult kit_standard(const PrecisionStats &p, const aclnn_ref::kits::StandardInfo &st,
                            const std::string &policy, DType t) {
  KitTally k;
  k.id = st.id;
  for (const auto &x : p.kits)
    if (x.id == st.id) k = x;
  using O = StandardResult::Outcome;
  std::string measured;
  if (k.judged > 0) {
    measured = fmt::format("{} of {} cases pass", k.passed, k.judged);
    if (k.warnings > 0) measured += fmt::format(" ({} failed with a WARNING)", k.warnings);
    measured += fmt::format("; worst: {} [{}]", k.worst_measured, k.worst_case);
  }
  if (k.not_judged > 0)
    measured += fmt::format("{}{} not judged: {}", measured.empty() ? "" : "; ", k.not_judged,
                            k.not_judged_reason);
  if (measured.empty()) measured = "no case";
  StandardResult r =
      make_result(st.id, st.kit + " " + st.name, aclnn_ref::kits::thresholds(st.id, t), measured);
  r.outcome = k.judged > 0       ? (k.failed() > 0 ? O::kFail : O::kPass)
              : k.not_judged > 0 ? O::kNotJudged
                                 : O::kNotExercised;
  r.decides = policy == st.id;
  r.needs = st.needs_reference ? ">= 1 case with a reference device (--competitor)" : ">= 1 case";
  r.enough = k.judged >= 1;
  r.kit = st.kit;
  r.source = st.source;
  return r;
}
}  // namespace

std::vector<StandardResult> precision_standards(const PrecisionStats &p, const UlpRow &ulp,
                                                const std::string &policy, int64_t min_cases) {
  using O = StandardResult::Outcome;
  std::vector<StandardResult> out;
  const auto t = aclnn_ref::dtype_from_name(p.dtype).value_or(DType::kFloat32);
  const ErrorTally &s = p.sut;

  StandardResult u =
      make_result("ulp", "ULP error (VAL-TOL-1 part 2)",
                  "elementwise <= 1 ulp fp16/bf16, <= 2 ulp fp32; sums: |err| <= 0.5 ulp + k u "
                  "sum|terms|",
                  ulp.measured);
  u.outcome = !ulp.known ? O::kNotExercised : ulp.pass ? O::kPass : O::kFail;
  u.decides = policy == "ulp" || policy.empty();
  u.needs = fmt::format(">= {} cases per clause (tier minimum)", std::max<int64_t>(min_cases, 1));
  u.enough = p.cases >= std::max<int64_t>(min_cases, 1);
  out.push_back(u);

  const double T = aclnn_ref::ascend_threshold(t);
  StandardResult a =
      make_result("ascend", "Ascend MERE/MARE (VAL-TOL-1 part 1)",
                  fmt::format("MERE < T and MARE < 10 T, T = {} ({})", pow2(T), g(T)),
                  fmt::format("MERE {}, MARE {}", g(ulp.mere), g(ulp.mare)));
  a.outcome = s.elements == 0                     ? O::kNotExercised
              : ulp.mere < T && ulp.mare < 10 * T ? O::kPass
                                                  : O::kFail;
  a.decides = policy == "ascend";
  a.needs = ">= 1 case";
  a.enough = p.cases >= 1;
  out.push_back(a);

  auto share_rule = [&](const char *id, const char *name, int64_t bad, double limit) {
    // Half an ulp relative is what one correct rounding may cost: 2^-p of the dtype's precision.
    const int precision = t == DType::kFloat16 ? 11 : t == DType::kBFloat16 ? 8 : 24;
    const double half_ulp = std::ldexp(1.0, -precision);
    StandardResult r = make_result(
        id, name,
        fmt::format("share of elements with |err| / |exact| > {} below {} "
                    "(elements with |exact| >= {}){}",
                    g(limit), g(limit), pow2(small_value_threshold(t)),
                    half_ulp > limit
                        ? fmt::format("; beyond {}: a correctly rounded result may be off by "
                                      "{} relative",
                                      p.dtype, pow2(half_ulp))
                        : ""),
        share(bad, s.normal));
    r.outcome = s.normal == 0 ? O::kNotExercised
                : static_cast<double>(bad) < limit * static_cast<double>(s.normal) ? O::kPass
                                                                                   : O::kFail;
    // A share below 1/N can only be told apart from zero with more than N elements.
    const auto need = static_cast<int64_t>(std::llround(1 / limit));
    r.needs = fmt::format(">= {} elements", need);
    r.enough = s.normal >= need;
    return r;
  };
  out.push_back(share_rule("double-thousandth", "Double thousandth", s.rel_over_1e3, 1e-3));
  out.push_back(share_rule("double-ten-thousandth", "Double ten-thousandth", s.rel_over_1e4, 1e-4));

  StandardResult rm =
      make_result("rmse", "RMSE", "no absolute limit; against a competitor: ratio <= 2",
                  fmt::format("{} over {} finite elements", g(s.rmse()), s.finite));
  rm.outcome = s.finite ? O::kInfo : O::kNotExercised;
  rm.needs = ">= 1 case";
  rm.enough = p.cases >= 1;
  out.push_back(rm);

  StandardResult sv =
      make_result("small-value", "Small values",
                  fmt::format("|exact| < {}: an error when |err| > {}; the exact values make "
                              "none, so none may occur (against a competitor: ratio <= 2)",
                              pow2(small_value_threshold(t)), pow2(small_value_atol(t))),
                  fmt::format("{} errors among {} small values", s.small_errors, s.small));
  sv.outcome = s.small == 0 ? O::kNotExercised : s.small_errors == 0 ? O::kPass : O::kFail;
  sv.needs = ">= 1 small value";
  sv.enough = s.small >= 1;
  out.push_back(sv);

  StandardResult nf =
      make_result("inf-nan", "inf/NaN consistency",
                  "every element in the exact value's class (NaN, +inf, -inf, finite)",
                  fmt::format("{} class mismatches in {} elements ({} non-finite exact)",
                              s.class_mismatches, s.elements, s.nonfinite_expected));
  nf.outcome = s.elements == 0 ? O::kNotExercised : s.class_mismatches == 0 ? O::kPass : O::kFail;
  nf.needs = ">= 1 non-finite exact value";
  nf.enough = s.nonfinite_expected >= 1;
  out.push_back(nf);

  if (!p.competitor.empty()) {
    const ErrorTally &x = p.paired_sut, &y = p.paired_competitor;
    auto ratio_rule = [&](const std::string &id, const std::string &name, double a_, double b_,
                          double limit) {
      const double r = ratio(a_, b_);
      StandardResult res = make_result(
          id, name,
          fmt::format("SUT / competitor <= {} on the same inputs and exact values", g(limit)),
          fmt::format("{} / {} = {} ({} paired cases, {} where the competitor "
                      "failed)",
                      g(a_), g(b_), g(r), p.paired_cases, p.competitor_failed_cases));
      res.outcome = x.finite == 0 ? O::kNotExercised : r <= limit ? O::kPass : O::kFail;
      res.needs = ">= 1 paired case";
      res.enough = p.paired_cases >= 1;
      return res;
    };
    out.push_back(ratio_rule("competitor-mere", "Competitor ratio: MERE", x.mere(), y.mere(), 2));
    out.push_back(
        ratio_rule("competitor-mare", "Competitor ratio: MARE", x.max_rel, y.max_rel, 10));
    out.push_back(ratio_rule("competitor-rmse", "Competitor ratio: RMSE", x.rmse(), y.rmse(), 2));
    out.push_back(ratio_rule("competitor-small", "Competitor ratio: small-value errors",
                             static_cast<double>(x.small_errors),
                             static_cast<double>(y.small_errors), 2));
  }
  for (const auto &st : aclnn_ref::kits::standards()) out.push_back(kit_standard(p, st, policy, t));
  return out;
}

}  // namespace aclnn_conform
