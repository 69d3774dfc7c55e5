#include "campaign/precision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "campaign/result.hpp"
#include "reference/compare.hpp"
#include "reference/host_tensor.hpp"

namespace aclnn_conform {

using aclnn_ref::DType;

double small_value_threshold(DType t) {
  switch (t) {
    case DType::kFloat16:
      return 0x1p-11;
    case DType::kBFloat16:
      return 0x1p-8;
    default:
      return 0x1p-14;
  }
}

double small_value_atol(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 ? 0x1p-16 : 0x1p-30;
}

void ErrorTally::add(double got, double exact, double record, DType t) {
  ++elements;
  if (!std::isfinite(record)) ++nonfinite_expected;
  if (aclnn_ref::value_class(got) != aclnn_ref::value_class(record)) ++class_mismatches;
  if (!std::isfinite(record) || !std::isfinite(exact) || !std::isfinite(got)) return;
  ++finite;
  const double err = std::fabs(got - exact), mag = std::fabs(exact);
  sum_sq_err += err * err;
  const double rel = err / (mag + 1e-7);
  sum_rel += rel;
  max_rel = std::max(max_rel, rel);
  if (mag < small_value_threshold(t)) {
    ++small;
    if (err > small_value_atol(t)) ++small_errors;
    return;
  }
  ++normal;
  if (err > 1e-3 * mag) ++rel_over_1e3;
  if (err > 1e-4 * mag) ++rel_over_1e4;
}

void ErrorTally::merge(const ErrorTally &o) {
  elements += o.elements;
  nonfinite_expected += o.nonfinite_expected;
  class_mismatches += o.class_mismatches;
  finite += o.finite;
  sum_sq_err += o.sum_sq_err;
  sum_rel += o.sum_rel;
  max_rel = std::max(max_rel, o.max_rel);
  normal += o.normal;
  rel_over_1e3 += o.rel_over_1e3;
  rel_over_1e4 += o.rel_over_1e4;
  small += o.small;
  small_errors += o.small_errors;
}

double ErrorTally::rmse() const {
  return finite ? std::sqrt(sum_sq_err / static_cast<double>(finite)) : 0;
}
double ErrorTally::mere() const {
  return finite ? sum_rel / static_cast<double>(finite) : 0;
}

namespace {

// Keeps the kSamples smallest keys and the kWorst largest errors: the same subset whatever the
// order in which shards and workers deliver their samples.
void bound_samples(PrecisionStats &p) {
  auto by_key = [](const ErrorSample &a, const ErrorSample &b) { return a.key < b.key; };
  std::sort(p.samples.begin(), p.samples.end(), by_key);
  p.samples.erase(std::unique(p.samples.begin(), p.samples.end(),
                              [](const auto &a, const auto &b) { return a.key == b.key; }),
                  p.samples.end());
  if (p.samples.size() > PrecisionStats::kSamples) p.samples.resize(PrecisionStats::kSamples);
  auto by_error = [](const ErrorSample &a, const ErrorSample &b) {
    return a.ulps != b.ulps ? a.ulps > b.ulps : a.key < b.key;
  };
  std::sort(p.worst.begin(), p.worst.end(), by_error);
  p.worst.erase(std::unique(p.worst.begin(), p.worst.end(),
                            [](const auto &a, const auto &b) { return a.key == b.key; }),
                p.worst.end());
  if (p.worst.size() > PrecisionStats::kWorst) p.worst.resize(PrecisionStats::kWorst);
}

nlohmann::json tally_json(const ErrorTally &t) {
  nlohmann::json j = {{"elements", t.elements},
                      {"nonfinite_expected", t.nonfinite_expected},
                      {"class_mismatches", t.class_mismatches},
                      {"finite", t.finite},
                      {"sum_sq_err", t.sum_sq_err},
                      {"sum_rel", t.sum_rel},
                      {"max_rel", t.max_rel},
                      {"normal", t.normal},
                      {"rel_over_1e3", t.rel_over_1e3},
                      {"rel_over_1e4", t.rel_over_1e4},
                      {"small", t.small},
                      {"small_errors", t.small_errors}};
  // Sums of squares overflow to inf on wild outputs: report.json's non-finite encoding.
  j.erase("sum_sq_err");
  j.erase("sum_rel");
  j.erase("max_rel");
  put_number(j, "sum_sq_err", t.sum_sq_err);
  put_number(j, "sum_rel", t.sum_rel);
  put_number(j, "max_rel", t.max_rel);
  return j;
}

ErrorTally tally_from_json(const nlohmann::json &j) {
  ErrorTally t;
  t.elements = j.at("elements");
  t.nonfinite_expected = j.at("nonfinite_expected");
  t.class_mismatches = j.at("class_mismatches");
  t.finite = j.at("finite");
  t.sum_sq_err = get_number(j, "sum_sq_err");
  t.sum_rel = get_number(j, "sum_rel");
  t.max_rel = get_number(j, "max_rel");
  t.normal = j.at("normal");
  t.rel_over_1e3 = j.at("rel_over_1e3");
  t.rel_over_1e4 = j.at("rel_over_1e4");
  t.small = j.at("small");
  t.small_errors = j.at("small_errors");
  return t;
}

// Samples as [x, ulps, key] triples: compact, and key as a hex string (JSON numbers lose
// 64-bit integers in many readers).
nlohmann::json samples_json(const std::vector<ErrorSample> &v) {
  nlohmann::json a = nlohmann::json::array();
  // Four significant digits are plenty for a chart and keep report.json small.
  const auto short_number = [](double x) { return std::stod(fmt::format("{:.4g}", x)); };
  for (const auto &s : v)
    a.push_back({short_number(s.x), short_number(s.ulps), fmt::format("{:x}", s.key)});
  return a;
}
std::vector<ErrorSample> samples_from_json(const nlohmann::json &j) {
  std::vector<ErrorSample> v;
  for (const auto &e : j)
    v.push_back({e.at(0).get<double>(), e.at(1).get<double>(),
                 std::stoull(e.at(2).get<std::string>(), nullptr, 16)});
  return v;
}

nlohmann::json kits_json(const std::vector<KitTally> &v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto &t : v) a.push_back(to_json(t));
  return a;
}

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

const TensorArg *tensor(const Case &c, const std::string &name) {
  for (const auto &[n, t] : c.tensors)
    if (n == name && t.present) return &t;
  return nullptr;
}

}  // namespace

void PrecisionStats::merge(const PrecisionStats &o) {
  if (axis.empty()) axis = o.axis;
  if (competitor.empty()) competitor = o.competitor;
  cases += o.cases;
  sut.merge(o.sut);
  paired_cases += o.paired_cases;
  competitor_failed_cases += o.competitor_failed_cases;
  paired_sut.merge(o.paired_sut);
  paired_competitor.merge(o.paired_competitor);
  samples.insert(samples.end(), o.samples.begin(), o.samples.end());
  worst.insert(worst.end(), o.worst.begin(), o.worst.end());
  bound_samples(*this);
  merge_tallies(kits, o.kits);
}

nlohmann::json to_json(const PrecisionStats &p) {
  return {{"axis", p.axis},
          {"cases", p.cases},
          {"sut", tally_json(p.sut)},
          {"competitor", p.competitor},
          {"paired_cases", p.paired_cases},
          {"competitor_failed_cases", p.competitor_failed_cases},
          {"paired_sut", tally_json(p.paired_sut)},
          {"paired_competitor", tally_json(p.paired_competitor)},
          {"samples", samples_json(p.samples)},
          {"worst", samples_json(p.worst)},
          {"kits", kits_json(p.kits)}};
}

PrecisionStats precision_from_json(const nlohmann::json &j) {
  PrecisionStats p;
  p.axis = j.at("axis");
  p.cases = j.at("cases");
  p.sut = tally_from_json(j.at("sut"));
  p.competitor = j.at("competitor");
  p.paired_cases = j.at("paired_cases");
  p.competitor_failed_cases = j.at("competitor_failed_cases");
  p.paired_sut = tally_from_json(j.at("paired_sut"));
  p.paired_competitor = tally_from_json(j.at("paired_competitor"));
  p.samples = samples_from_json(j.at("samples"));
  p.worst = samples_from_json(j.at("worst"));
  if (j.contains("kits"))
    for (const auto &k : j.at("kits")) p.kits.push_back(kit_tally_from_json(k));
  return p;
}

std::vector<PrecisionStats> collect_precision(const OpDescriptor &op, const Case &c,
                                              const Outcome &got, const Outcome *competitor,
                                              const std::string &competitor_name, uint64_t seed_key,
                                              const std::string &origin) {
  std::map<DType, PrecisionStats> rows;
  // Per dtype row and kit standard: the outcome on each output of that dtype.
  using Outcomes = std::vector<std::pair<std::string, aclnn_ref::kits::StandardOutcome>>;
  std::map<DType, std::map<std::string, Outcomes>> kit_outcomes;
  if (got.harness_error || got.status != 0) return {};
  const bool paired = competitor && !competitor->harness_error && competitor->status == 0 &&
                      competitor->storage_after.size() == got.storage_after.size();
  const auto expected = op.values(c, {});
  constexpr size_t kPerCase = 32, kWorstPerCase = 4;
  for (size_t e = 0; e < expected.size(); ++e) {
    const auto &exp = expected[e];
    if (!exp.written || !aclnn_ref::is_floating(exp.values.dtype)) continue;
    size_t i = 0;
    while (i < c.tensors.size() && c.tensors[i].first != exp.name) ++i;
    if (i == c.tensors.size() || !c.tensors[i].second.present) continue;
    const TensorArg &t = c.tensors[i].second;
    const int64_t n = exp.values.numel();
    const aclnn_ref::TensorView view{t.dtype, t.shape, t.strides, t.offset,
                                     got.storage_after[i].data()};
    if (view.numel() != n || t.dtype != exp.values.dtype) continue;
    aclnn_ref::TensorView other = view;
    if (paired) other.data = competitor->storage_after[i].data();
    PrecisionStats &p = rows[t.dtype];
    p.op = op.name;
    p.dtype = aclnn_ref::dtype_name(t.dtype);
    p.competitor = competitor_name;
    const bool have_exact = static_cast<int64_t>(exp.exact_nearest.size()) == n;
    const bool sum = static_cast<int64_t>(exp.error_scale.size()) == n;
    // The input that x reads, for elementwise ops with an input of the output's shape.
    const TensorArg *xin = nullptr;
    if (!sum)
      if (!op.error_axis_input.empty()) {
        xin = tensor(c, op.error_axis_input);
        if (xin && (xin->shape != t.shape || xin->numel() != n)) xin = nullptr;
      }
    if (p.axis.empty())
      p.axis = sum ? "condition number" : xin ? "input " + op.error_axis_input : "";
    const auto xview = xin ? xin->view() : aclnn_ref::TensorView{};
    std::vector<ErrorSample> kept, worst;
    const uint64_t base = mix(seed_key ^ mix(e + 1));
    for (int64_t k = 0; k < n; ++k) {
      const double exact =
          have_exact ? exp.exact_nearest[static_cast<size_t>(k)] : exp.values.at(k);
      const double record = exp.values.at(k);
      const double g = view.at(k);
      p.sut.add(g, exact, record, t.dtype);
      if (paired) {
        p.paired_sut.add(g, exact, record, t.dtype);
        p.paired_competitor.add(other.at(k), exact, record, t.dtype);
      }
      if (!std::isfinite(record) || !std::isfinite(exact) || !std::isfinite(g)) continue;
      ErrorSample s;
      s.ulps = std::fabs(g - exact) / aclnn_ref::ulp_at(exact, t.dtype);
      s.key = mix(base ^ static_cast<uint64_t>(k));
      if (sum) {
        const double scale = exp.error_scale[static_cast<size_t>(k)];
        s.x = exact != 0 ? scale / std::fabs(exact) : INFINITY;
        if (!std::isfinite(s.x)) continue;  // an exact zero has no finite condition number
      } else if (xin) {
        s.x = xview.at(k);
      }
      if (!std::isfinite(s.x) || !std::isfinite(s.ulps)) continue;  // not on a chart
      kept.push_back(s);
      worst.push_back(s);
      // Bounded per case: the smallest keys and the largest errors only.
      if (kept.size() > 4 * kPerCase) {
        std::nth_element(kept.begin(), kept.begin() + kPerCase, kept.end(),
                         [](const auto &a, const auto &b) { return a.key < b.key; });
        kept.resize(kPerCase);
      }
      if (worst.size() > 4 * kWorstPerCase) {
        std::nth_element(worst.begin(), worst.begin() + kWorstPerCase, worst.end(),
                         [](const auto &a, const auto &b) { return a.ulps > b.ulps; });
        worst.resize(kWorstPerCase);
      }
    }
    p.samples.insert(p.samples.end(), kept.begin(), kept.end());
    p.worst.insert(p.worst.end(), worst.begin(), worst.end());
    // The vendor kits' standards on this output (reference/kit_standards.hpp), the competitor's
    // result as the reference device where one ran successfully.
    const auto values = aclnn_ref::kits::kit_values(exp, view, paired ? &other : nullptr);
    for (const auto &st : aclnn_ref::kits::standards()) {
      auto o = aclnn_ref::kits::evaluate(st.id, values.view());
      if (o.verdict == aclnn_ref::kits::Verdict::kNotJudged && competitor && !paired &&
          st.uses_reference)
        o.note = "the competitor did not return success on this case";
      kit_outcomes[t.dtype][st.id].emplace_back(exp.name, std::move(o));
    }
  }
  std::vector<PrecisionStats> out;
  for (auto &[t, p] : rows) {
    p.cases = 1;
    for (const auto &st : aclnn_ref::kits::standards()) {
      KitTally k;
      k.id = st.id;
      add_case(k, combine_outputs(kit_outcomes[t][st.id]), origin);
      p.kits.push_back(std::move(k));
    }
    if (competitor) {
      p.paired_cases = paired ? 1 : 0;
      p.competitor_failed_cases = paired ? 0 : 1;
    }
    // Trim to this case's share (the parent keeps the global smallest keys and largest errors).
    PrecisionStats bounded = p;
    bounded.samples.clear();
    bounded.worst.clear();
    std::sort(p.samples.begin(), p.samples.end(),
              [](const auto &a, const auto &b) { return a.key < b.key; });
    if (p.samples.size() > kPerCase) p.samples.resize(kPerCase);
    std::sort(p.worst.begin(), p.worst.end(),
              [](const auto &a, const auto &b) { return a.ulps > b.ulps; });
    if (p.worst.size() > kWorstPerCase) p.worst.resize(kWorstPerCase);
    bounded.samples = std::move(p.samples);
    bounded.worst = std::move(p.worst);
    out.push_back(std::move(bounded));
  }
  return out;
}

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
