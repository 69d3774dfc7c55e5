// The precision standards (campaign/precision.*) and the grouping by cause (campaign/causes.*):
// tallies on hand-picked elements, deterministic bounded samples, each standard's pass and fail,
// cause signatures, and a real campaign with a competitor whose tallies reach report.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "campaign/campaign.hpp"
#include "campaign/causes.hpp"
#include "campaign/precision.hpp"
#include "campaign/report.hpp"
#include "campaign/result.hpp"

namespace {
using namespace aclnn_conform;
using aclnn_ref::DType;
namespace fs = std::filesystem;

const StandardResult &standard(const std::vector<StandardResult> &v, const std::string &id) {
  const auto it = std::find_if(v.begin(), v.end(), [&](const auto &s) { return s.id == id; });
  if (it == v.end()) throw std::runtime_error("no standard " + id);
  return *it;
}

TEST(ErrorTally, CountsEachStandardsQuantity) {
  ErrorTally t;
  t.add(1.0, 1.0, DType::kFloat32);                    // exact
  t.add(1.0005, 1.0, DType::kFloat32);                 // rel 5e-4: over 1e-4, not over 1e-3
  t.add(1.01, 1.0, DType::kFloat32);                   // rel 1e-2: over both
  t.add(0x1p-20 + 0x1p-29, 0x1p-20, DType::kFloat32);  // small value, |err| 2^-29 > 2^-30
  t.add(0x1p-20, 0x1p-20, DType::kFloat32);            // small value, exact
  t.add(NAN, NAN, DType::kFloat32);                    // same class
  t.add(0.0, INFINITY, DType::kFloat32);               // class mismatch
  EXPECT_EQ(t.elements, 7);
  EXPECT_EQ(t.nonfinite_expected, 2);
  EXPECT_EQ(t.class_mismatches, 1);
  EXPECT_EQ(t.finite, 5);
  EXPECT_EQ(t.normal, 3);
  EXPECT_EQ(t.rel_over_1e3, 1);
  EXPECT_EQ(t.rel_over_1e4, 2);
  EXPECT_EQ(t.small, 2);
  EXPECT_EQ(t.small_errors, 1);
  EXPECT_NEAR(t.rmse(), std::sqrt((0.0005 * 0.0005 + 0.01 * 0.01 + 0x1p-58) / 5), 1e-12);
  EXPECT_NEAR(t.max_rel, 0.01 / (1 + 1e-7), 1e-9);
  // The fp16 thresholds are others: 2^-20 is small, and an error of 2^-29 is below 2^-16.
  ErrorTally h;
  h.add(0x1p-20 + 0x1p-29, 0x1p-20, DType::kFloat16);
  EXPECT_EQ(h.small, 1);
  EXPECT_EQ(h.small_errors, 0);
  EXPECT_EQ(small_value_threshold(DType::kBFloat16), 0x1p-8);
  EXPECT_EQ(small_value_threshold(DType::kFloat16), 0x1p-11);
  EXPECT_EQ(small_value_threshold(DType::kFloat32), 0x1p-14);
  // An exact value beyond fp16's range is due as inf (the value of record): inf is no mismatch,
  // and the element stays out of the error sums.
  ErrorTally o;
  o.add(INFINITY, 70000.0, INFINITY, DType::kFloat16);
  o.add(65504.0, 70000.0, INFINITY, DType::kFloat16);
  EXPECT_EQ(o.class_mismatches, 1);
  EXPECT_EQ(o.nonfinite_expected, 2);
  EXPECT_EQ(o.finite, 0);
}

PrecisionStats part(uint64_t first_key, int n) {
  PrecisionStats p;
  p.op = "GeluBackward";
  p.dtype = "fp32";
  p.axis = "input self";
  p.cases = 1;
  for (int i = 0; i < n; ++i) {
    p.samples.push_back({static_cast<double>(i), static_cast<double>(i % 7), first_key + i * 3});
    p.worst.push_back({static_cast<double>(i), static_cast<double>(i % 7), first_key + i * 3});
  }
  p.sut.add(1.0, 1.0, DType::kFloat32);
  return p;
}

// Shards and workers deliver samples in any order; the kept subset is the same, and bounded.
TEST(PrecisionStats, MergeIsBoundedAndOrderIndependent) {
  PrecisionStats a, b;
  const std::vector<PrecisionStats> parts = {part(5, 300), part(1000, 300), part(2, 40)};
  for (const auto &p : parts) a.merge(p);
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) b.merge(*it);
  ASSERT_EQ(a.samples.size(), PrecisionStats::kSamples);
  ASSERT_EQ(a.worst.size(), PrecisionStats::kWorst);
  EXPECT_EQ(a.cases, 3);
  EXPECT_EQ(a.sut.elements, 3);
  for (size_t i = 0; i < a.samples.size(); ++i) EXPECT_EQ(a.samples[i].key, b.samples[i].key);
  for (size_t i = 0; i < a.worst.size(); ++i) EXPECT_EQ(a.worst[i].key, b.worst[i].key);
  // The smallest keys are kept, the largest errors are kept.
  EXPECT_EQ(a.samples.front().key, 2u);
  EXPECT_EQ(a.worst.front().ulps, 6);
  // Through report.json and back (keys as hex strings, values to four digits).
  const PrecisionStats c = precision_from_json(to_json(a));
  EXPECT_EQ(c.samples.size(), a.samples.size());
  EXPECT_EQ(c.samples.back().key, a.samples.back().key);
  EXPECT_EQ(c.cases, 3);
  EXPECT_EQ(c.axis, "input self");
}

TEST(PrecisionStandards, EachStandardPassesAndFailsOnItsOwnRule) {
  PrecisionStats p;
  p.op = "GeluBackward";
  p.dtype = "fp16";
  p.cases = 10;
  for (int i = 0; i < 2000; ++i) p.sut.add(1.0, 1.0, DType::kFloat16);
  UlpRow ulp{true, true, "max 0 ulps", 0, 0};
  auto st = precision_standards(p, ulp, "ulp", 5);
  EXPECT_EQ(standard(st, "ulp").outcome, StandardResult::Outcome::kPass);
  EXPECT_TRUE(standard(st, "ulp").decides);
  EXPECT_FALSE(standard(st, "ascend").decides);
  EXPECT_NE(standard(st, "ascend").thresholds.find("2^-10"), std::string::npos);
  EXPECT_EQ(standard(st, "double-thousandth").outcome, StandardResult::Outcome::kPass);
  EXPECT_TRUE(standard(st, "double-thousandth").enough);
  EXPECT_FALSE(standard(st, "double-ten-thousandth").enough);  // 2000 < 10000 elements
  // Half an fp16 ulp is 2^-11 relative, beyond 1e-4: the rule says so.
  EXPECT_NE(standard(st, "double-ten-thousandth").thresholds.find("2^-11"), std::string::npos);
  EXPECT_EQ(standard(st, "double-thousandth").thresholds.find("correctly rounded"),
            std::string::npos);
  EXPECT_EQ(standard(st, "small-value").outcome, StandardResult::Outcome::kNotExercised);
  EXPECT_EQ(standard(st, "inf-nan").outcome, StandardResult::Outcome::kPass);
  EXPECT_FALSE(standard(st, "inf-nan").enough);  // no non-finite exact value seen
  EXPECT_EQ(std::count_if(st.begin(), st.end(), [](const auto &s) { return s.decides; }), 1);

  // Three elements in 2000 off by more than 1e-3: above the 1e-3 share.
  for (int i = 0; i < 3; ++i) p.sut.add(1.01, 1.0, DType::kFloat16);
  ulp = {true, false, "max 20 ulps", 1e-5, 0.009};
  st = precision_standards(p, ulp, "ascend", 5);
  EXPECT_EQ(standard(st, "double-thousandth").outcome, StandardResult::Outcome::kFail);
  EXPECT_EQ(standard(st, "ulp").outcome, StandardResult::Outcome::kFail);
  EXPECT_FALSE(standard(st, "ulp").decides);
  EXPECT_TRUE(standard(st, "ascend").decides);
  // MARE 0.009 < 10 T = 10 * 2^-10 = 0.00977; 0.02 is not.
  EXPECT_EQ(standard(st, "ascend").outcome, StandardResult::Outcome::kPass);
  ulp.mare = 0.02;
  EXPECT_EQ(standard(precision_standards(p, ulp, "ascend", 5), "ascend").outcome,
            StandardResult::Outcome::kFail);

  // A competitor with no error at all: any SUT error is an infinite ratio.
  p.competitor = "builtin";
  p.paired_cases = 1;
  p.paired_sut.add(1.01, 1.0, DType::kFloat16);
  p.paired_competitor.add(1.0, 1.0, DType::kFloat16);
  st = precision_standards(p, ulp, "ulp", 5);
  EXPECT_EQ(standard(st, "competitor-mere").outcome, StandardResult::Outcome::kFail);
  EXPECT_NE(standard(st, "competitor-mere").measured.find("inf"), std::string::npos);
  p.paired_competitor = p.paired_sut;
  st = precision_standards(p, ulp, "ulp", 5);
  EXPECT_EQ(standard(st, "competitor-rmse").outcome, StandardResult::Outcome::kPass);
}

Deviation deviation(const std::string &clause, int32_t expected, int32_t got,
                    const std::string &detail, const std::string &kind = "deviation") {
  Deviation d;
  d.op = "LayerNormBackward";
  d.clause = clause;
  d.kind = kind;
  d.expected_status = expected;
  d.got_status = got;
  d.detail = detail;
  d.expected_clause = expected ? clause : "";
  return d;
}

TEST(Causes, OneSignatureIsOneCauseAcrossClauses) {
  CampaignResult r;
  for (const char *id : {"LN-NULL-1", "LN-MASK-1", "LN-DTYPE-1", "LN-RANK-1"}) {
    ClauseVerdict v;
    v.id = id;
    v.op = "LayerNormBackward";
    v.reached = 10;
    v.deviations = 1;
    v.status = ClauseStatus::kDeviates;
    r.clauses.push_back(v);
  }
  const std::string half =
      "a valid call was rejected with 161002 (ACLNN_ERR_PARAM_INVALID) in phase 1: "
      "aclnnLayerNormBackward: \"LayerNormBackwardKernelImpl\" not implemented for 'Half'";
  r.deviations = {
      deviation("LN-NULL-1", 0, 161002, half), deviation("LN-MASK-1", 0, 161002, half),
      deviation("LN-DTYPE-1", 0, 161002, half),
      // Another dtype in the SUT's words: another cause.
      deviation("LN-NULL-1", 0, 161002,
                "a valid call was rejected with 161002 (ACLNN_ERR_PARAM_INVALID) in "
                "phase 1: aclnnLayerNormBackward: \"X\" not implemented for 'BFloat16'"),
      // A missing check: its clause is the cause.
      deviation("LN-RANK-1", 161002, 0, "expected 161002 (x rank 9 > 8), got 0"),
      // Crashes in one call are one cause whatever status was due.
      deviation("LN-DTYPE-1", 161002, 0, "the SUT crashed: signal 11", "crash"),
      deviation("LN-MASK-1", 0, 0, "the SUT crashed: signal 11", "crash")};
  r.deviations[5].call = r.deviations[6].call = "aclnnLayerNormBackwardGetWorkspaceSize";
  const auto causes = group_causes(r);
  ASSERT_EQ(causes.size(), 4u);
  EXPECT_EQ(causes[0].clauses, (std::vector<std::string>{"LN-NULL-1", "LN-MASK-1", "LN-DTYPE-1"}));
  EXPECT_EQ(causes[0].deviations, (std::vector<size_t>{0, 1, 2}));
  EXPECT_NE(causes[0].title.find("not implemented for 'Half'"), std::string::npos);
  EXPECT_EQ(causes[1].kind, "crash");
  EXPECT_EQ(causes[1].clauses.size(), 2u);
  EXPECT_EQ(causes[0].id, "cause-1");
  // report.json counts causes and deviating clauses apart, and so does the Markdown report.
  const auto j = to_json(r);
  EXPECT_EQ(j.at("cause_count"), 4);
  EXPECT_EQ(j.at("deviating_clause_count"), 4);
  EXPECT_EQ(j.at("causes").size(), 4u);
  EXPECT_EQ(j.at("causes")[0].at("deviations"), nlohmann::json({0, 1, 2}));
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("**4 causes** behind **4 deviating clauses**"), std::string::npos);
  EXPECT_NE(md.find("| cause-1 | LayerNormBackward |"), std::string::npos);
  // An expected variant that explains every counterexample of a cause: it does not count.
  r.deviations[4].expected_variant = "any-rank";
  const auto again = group_causes(r);
  EXPECT_FALSE(again.back().counts);
  EXPECT_EQ(to_json(r).at("cause_count"), 3);
}

// A real campaign with a competitor: the workers' tallies reach report.json and come back.
TEST(PrecisionCampaign, CompetitorTalliesAndSamplesReachTheReport) {
  std::ostringstream log;
  CampaignConfig cfg;
  cfg.cases = 40;
  cfg.jobs = 2;
  cfg.tier = Tier::kSmoke;
  cfg.seed = 11;
  cfg.ops = {"GeluBackward", "LayerNormBackward"};
  cfg.competitor = "builtin";
  cfg.use_corpus = false;
  cfg.out_dir =
      (fs::temp_directory_path() / ("aclnn-conform-test-precision-" + std::to_string(::getpid())))
          .string();
  fs::remove_all(cfg.out_dir);
  const CampaignResult r = run_campaign(cfg, log);
  EXPECT_EQ(r.competitor, "builtin");
  bool gelu = false, sums = false;
  for (const auto &a : r.accuracy) {
    const PrecisionStats &p = a.precision;
    if (p.cases == 0) continue;
    // The same library on the same inputs: every case paired, the same errors.
    EXPECT_EQ(p.paired_cases, p.cases) << a.op << " " << a.dtype;
    EXPECT_EQ(p.competitor_failed_cases, 0);
    EXPECT_EQ(p.paired_sut.sum_sq_err, p.paired_competitor.sum_sq_err);
    EXPECT_LE(p.samples.size(), PrecisionStats::kSamples);
    EXPECT_EQ(p.sut.elements, a.elements) << "the judge's outputs, element for element";
    if (a.op == "GeluBackward" && !p.samples.empty()) {
      gelu = true;
      EXPECT_EQ(p.axis, "input self");
    }
    if (a.op == "LayerNormBackward" && p.axis == "condition number" && !p.samples.empty()) {
      sums = true;
      for (const auto &s : p.samples) EXPECT_GE(s.x, 0.999) << "sum|terms| >= |sum|";
    }
  }
  EXPECT_TRUE(gelu);
  EXPECT_TRUE(sums);
  const CampaignResult back = result_from_json(to_json(r));
  ASSERT_EQ(back.accuracy.size(), r.accuracy.size());
  for (size_t i = 0; i < r.accuracy.size(); ++i) {
    EXPECT_EQ(back.accuracy[i].precision.cases, r.accuracy[i].precision.cases);
    EXPECT_EQ(back.accuracy[i].precision.samples.size(), r.accuracy[i].precision.samples.size());
  }
  // The HTML report has an error picture (a scatter: circles) and the standards' names.
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<circle"), std::string::npos);
  EXPECT_NE(html.find("Double ten-thousandth"), std::string::npos);
  EXPECT_NE(html.find("Competitor ratio: MERE"), std::string::npos);
  fs::remove_all(cfg.out_dir);
}

}  // namespace
