// The precision standards' tallies (campaign/precision.hpp): error tallies per op and output dtype,
// bounded samples of per-element errors, their JSON and merging, and collect_precision, which
// measures a valid call's outputs (and a competitor's) against the exact values. The standards
// judged on them: precision_standards.cpp.
#include "campaign/precision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "campaign/result.hpp"
#include "properties/splitmix.hpp"
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

std::vector<PrecisionStats> collect_precision(
    const OpDescriptor &op, const Case &c, const Outcome &got, const Outcome *competitor,
    const std::string &competitor_name, uint64_t seed_key, const std::string &origin,
    const std::vector<aclnn_ref::ExpectedOutput> *record_values) {
  std::map<DType, PrecisionStats> rows;
  // Per dtype row and kit standard: the outcome on each output of that dtype.
  using Outcomes = std::vector<std::pair<std::string, aclnn_ref::kits::StandardOutcome>>;
  std::map<DType, std::map<std::string, Outcomes>> kit_outcomes;
  if (got.harness_error || got.status != 0) return {};
  const bool paired = competitor && !competitor->harness_error && competitor->status == 0 &&
                      competitor->storage_after.size() == got.storage_after.size();
  // The record's values: the judge's when it computed them (record_values), else evaluated here.
  std::vector<aclnn_ref::ExpectedOutput> evaluated;
  if (!record_values) evaluated = op.values(c, {});
  const auto &expected = record_values ? *record_values : evaluated;
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
    const uint64_t base = splitmix64(seed_key ^ splitmix64(e + 1));
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
      s.key = splitmix64(base ^ static_cast<uint64_t>(k));
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

}  // namespace aclnn_conform
