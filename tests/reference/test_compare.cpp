// The comparison module: ulp distances at binade boundaries and subnormals, value classes, the
// Ascend MERE/MARE standard on hand-computed vectors, the condition-aware sum bound, histogram
// buckets, untouched outputs and printing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "reference/compare.hpp"
#include "reference/rounding.hpp"

namespace {
using namespace aclnn_ref;

uint64_t f32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}
float next_up(float v) {
  return std::nextafter(v, std::numeric_limits<float>::infinity());
}
float next_down(float v) {
  return std::nextafter(v, -std::numeric_limits<float>::infinity());
}

ExpectedOutput expected(DType t, const std::vector<double> &v) {
  ExpectedOutput e;
  e.name = "out";
  e.values = HostTensor(t, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    e.values.set_bits(static_cast<int64_t>(i), bits_from_double(v[i], t));
  return e;
}
HostTensor tensor(DType t, const std::vector<double> &v) {
  HostTensor h(t, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    h.set_bits(static_cast<int64_t>(i), bits_from_double(v[i], t));
  return h;
}

TEST(Compare, UlpAtBinadesAndSubnormals) {
  EXPECT_EQ(ulp_at(1.0, DType::kFloat32), 0x1p-23);
  EXPECT_EQ(ulp_at(next_down(1.0f), DType::kFloat32), 0x1p-24);
  EXPECT_EQ(ulp_at(-1.5, DType::kFloat32), 0x1p-23);
  EXPECT_EQ(ulp_at(0x1p-126, DType::kFloat32), 0x1p-149);
  EXPECT_EQ(ulp_at(0x1p-130, DType::kFloat32), 0x1p-149);
  EXPECT_EQ(ulp_at(0.0, DType::kFloat32), 0x1p-149);
  EXPECT_EQ(ulp_at(0.0, DType::kFloat16), 0x1p-24);
  EXPECT_EQ(ulp_at(65504, DType::kFloat16), 32.0);
  EXPECT_EQ(ulp_at(1.0, DType::kBFloat16), 0x1p-7);
  EXPECT_EQ(ulp_at(0x1p-133, DType::kBFloat16), 0x1p-133);
  EXPECT_EQ(ulp_at(7, DType::kInt32), 1.0);
}

TEST(Compare, UlpDistanceAcrossPowersOfTwo) {
  const auto d = [](float e, float g) {
    return ulp_distance(f32(e), f32(g), DType::kFloat32).ulps;
  };
  EXPECT_EQ(d(1.0f, 1.0f), 0);
  EXPECT_EQ(d(1.0f, next_up(1.0f)), 1);
  EXPECT_EQ(d(1.0f, next_down(1.0f)), 1);  // one step below 1 is half an ulp(1): counted as 1
  EXPECT_EQ(d(1.0f, next_down(next_down(1.0f))), 2);
  EXPECT_EQ(d(next_down(1.0f), 1.0f), 1);
  EXPECT_EQ(d(-2.0f, next_up(-2.0f)), 1);  // toward zero from -2
  EXPECT_EQ(d(-2.0f, next_down(-2.0f)), 1);
  EXPECT_EQ(d(1.0f, 2.0f), 0x1p23);
  EXPECT_EQ(d(1.0f, -1.0f), 0x1p24);
}

TEST(Compare, UlpDistanceSubnormals) {
  const auto h = [](uint64_t e, uint64_t g) { return ulp_distance(e, g, DType::kFloat16).ulps; };
  EXPECT_EQ(h(0x0001, 0x0003), 2);
  EXPECT_EQ(h(0x0000, 0x0001), 1);
  EXPECT_EQ(h(0x0001, 0x8001), 2);
  EXPECT_EQ(h(0x0400, 0x03ff), 1);  // smallest normal vs largest subnormal: same quantum
  EXPECT_EQ(h(0x03ff, 0x0400), 1);
  EXPECT_EQ(h(0x0800, 0x07ff), 1);  // 2^-13: the binade below has half the quantum
  const auto f = [](float e, float g) {
    return ulp_distance(f32(e), f32(g), DType::kFloat32).ulps;
  };
  EXPECT_EQ(f(0x1p-126f, next_down(0x1p-126f)), 1);
  EXPECT_EQ(f(0x1p-149f, 0.0f), 1);
  EXPECT_EQ(ulp_distance(0x0080, 0x007f, DType::kBFloat16).ulps, 1);  // bf16 2^-126
}

TEST(Compare, ValueClasses) {
  const uint64_t qnan = 0x7fc00000, snan = 0x7f800001, nnan = 0xffc00001, inf = 0x7f800000,
                 ninf = 0xff800000, maxf = 0x7f7fffff, one = 0x3f800000;
  EXPECT_FALSE(ulp_distance(qnan, snan, DType::kFloat32).class_mismatch);  // all NaNs equal
  EXPECT_EQ(ulp_distance(qnan, nnan, DType::kFloat32).ulps, 0);
  EXPECT_TRUE(ulp_distance(qnan, one, DType::kFloat32).class_mismatch);
  EXPECT_TRUE(ulp_distance(one, qnan, DType::kFloat32).class_mismatch);
  EXPECT_TRUE(ulp_distance(inf, maxf, DType::kFloat32).class_mismatch);
  EXPECT_TRUE(ulp_distance(maxf, inf, DType::kFloat32).class_mismatch);
  EXPECT_TRUE(ulp_distance(inf, ninf, DType::kFloat32).class_mismatch);
  EXPECT_FALSE(ulp_distance(ninf, ninf, DType::kFloat32).class_mismatch);
  const UlpDistance c = ulp_distance(inf, qnan, DType::kFloat32);
  EXPECT_TRUE(std::isinf(c.ulps));
  EXPECT_NE(c.why.find("+inf"), std::string::npos);
  EXPECT_NE(c.why.find("NaN"), std::string::npos);
  // +0 == -0 unless the sign is asked for.
  EXPECT_EQ(ulp_distance(0x0000, 0x8000, DType::kFloat16).ulps, 0);
  EXPECT_FALSE(ulp_distance(0x0000, 0x8000, DType::kFloat16).sign_mismatch);
  EXPECT_TRUE(ulp_distance(0x0000, 0x8000, DType::kFloat16, true).sign_mismatch);
  EXPECT_FALSE(ulp_distance(0x8000, 0x8000, DType::kFloat16, true).sign_mismatch);
  EXPECT_EQ(bucket_of(ulp_distance(0x0000, 0x8000, DType::kFloat16, true)), kBClass);
}

TEST(Compare, HistogramBuckets) {
  const std::vector<double> steps = {0, 1, 2, 3, 4, 5, 16, 17, 256, 257, 300};
  std::vector<double> ev(steps.size() + 1, 1.0), gv;
  for (double s : steps) gv.push_back(1.0 + s * 0x1p-23);
  gv.push_back(std::nan(""));
  const ExpectedOutput e = expected(DType::kFloat32, ev);
  const HostTensor g = tensor(DType::kFloat32, gv);
  const Comparison c = compare_output(e, g.view(), Tolerance::ulp(1e9));
  EXPECT_EQ(c.histogram[kB0], 1);
  EXPECT_EQ(c.histogram[kBHalf], 0);
  EXPECT_EQ(c.histogram[kB1], 1);
  EXPECT_EQ(c.histogram[kB2], 1);
  EXPECT_EQ(c.histogram[kB4], 2);     // 3, 4
  EXPECT_EQ(c.histogram[kB16], 2);    // 5, 16
  EXPECT_EQ(c.histogram[kB256], 2);   // 17, 256
  EXPECT_EQ(c.histogram[kBMore], 2);  // 257, 300
  EXPECT_EQ(c.histogram[kBClass], 1);
  EXPECT_EQ(c.max_ulps, 300);
  EXPECT_EQ(c.max_index, 10);
  EXPECT_EQ(c.class_mismatches, 1);
  EXPECT_FALSE(c.pass);  // the class mismatch
  UlpDistance half;
  half.ulps = 0.5;
  EXPECT_EQ(bucket_of(half), kBHalf);
  EXPECT_STREQ(bucket_label(kB4), "3-4");
  EXPECT_STREQ(bucket_label(kBClass), "class");
}

TEST(Compare, UlpAndExactPolicies) {
  const ExpectedOutput e = expected(DType::kFloat32, {1.0, -3.0, 0.0});
  const HostTensor two = tensor(DType::kFloat32, {1.0 + 0x1p-22, -3.0, -0.0});
  const HostTensor three = tensor(DType::kFloat32, {1.0 + 3 * 0x1p-23, -3.0, 0.0});
  EXPECT_TRUE(compare_output(e, two.view(), Tolerance::ulp()).pass);  // fp32 default: 2
  EXPECT_FALSE(compare_output(e, three.view(), Tolerance::ulp()).pass);
  EXPECT_TRUE(compare_output(e, three.view(), Tolerance::ulp(3)).pass);
  EXPECT_FALSE(compare_output(e, two.view(), Tolerance::exact()).pass);
  Tolerance signed_zero = Tolerance::ulp();
  signed_zero.check_zero_sign = true;
  const Comparison sz = compare_output(e, two.view(), signed_zero);
  EXPECT_FALSE(sz.pass);
  ASSERT_EQ(sz.mismatches.size(), 1u);
  EXPECT_EQ(sz.mismatches[0].index, 2);

  const ExpectedOutput h = expected(DType::kFloat16, {1.0, 2.0});
  const HostTensor h1 = tensor(DType::kFloat16, {1.0 + 0x1p-10, 2.0 - 0x1p-10});
  const HostTensor h2 = tensor(DType::kFloat16, {1.0 + 0x1p-9, 2.0});
  EXPECT_TRUE(compare_output(h, h1.view(), Tolerance::ulp()).pass);  // fp16 default: 1
  EXPECT_FALSE(compare_output(h, h2.view(), Tolerance::ulp()).pass);

  // A strided view of the got values: every second element of a buffer.
  const HostTensor buf = tensor(DType::kFloat32, {1.0, 9, -3.0, 9, 0.0, 9});
  const TensorView sv{DType::kFloat32, {3}, {2}, 0, buf.bytes.data()};
  const Comparison c = compare_output(e, sv, Tolerance::exact());
  EXPECT_TRUE(c.pass) << c.details();
  EXPECT_EQ(c.count, 3);
}

TEST(Compare, AscendStandardHandComputed) {
  // fp32: rel = (2^-10 / (1 + 1e-7), 0, 2^-9 / (4 + 1e-7), 2^-20 / 1e-7).
  const ExpectedOutput e = expected(DType::kFloat32, {1, 2, 4, 0});
  const HostTensor g = tensor(DType::kFloat32, {1 + 0x1p-10, 2, 4 - 0x1p-9, 0x1p-20});
  const Comparison c = compare_output(e, g.view(), Tolerance::ascend());
  const double r[] = {0x1p-10 / (1 + 1e-7), 0, 0x1p-9 / (4 + 1e-7), 0x1p-20 / 1e-7};
  EXPECT_DOUBLE_EQ(c.ascend.mere, (r[0] + r[1] + r[2] + r[3]) / 4);
  EXPECT_DOUBLE_EQ(c.ascend.mare, r[3]);
  EXPECT_EQ(c.ascend.threshold, 0x1p-13);
  EXPECT_FALSE(c.ascend.pass);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatch_count, 1);  // rel >= 10 T = 0.00122: only element 3
  // fp16 (T = 2^-10): one element off by 1 ulp of 1 passes; all four off by 2^-9 fail on MERE
  // (MARE 2^-9 / (1 + 1e-7) < 10 T); all four off by 2^-10 pass, just: rel < T.
  const ExpectedOutput h = expected(DType::kFloat16, {1, 1, 1, 1});
  const HostTensor one = tensor(DType::kFloat16, {1, 1, 1, 1 + 0x1p-10});
  const HostTensor all2 = tensor(DType::kFloat16, std::vector<double>(4, 1 + 0x1p-9));
  const HostTensor all1 = tensor(DType::kFloat16, std::vector<double>(4, 1 + 0x1p-10));
  const Comparison c1 = compare_output(h, one.view(), Tolerance::ascend());
  EXPECT_TRUE(c1.pass);
  EXPECT_DOUBLE_EQ(c1.ascend.mere, 0x1p-10 / (1 + 1e-7) / 4);
  const Comparison c2 = compare_output(h, all2.view(), Tolerance::ascend());
  EXPECT_FALSE(c2.ascend.pass);
  EXPECT_LT(c2.ascend.mare, 10 * 0x1p-10);
  EXPECT_TRUE(compare_output(h, all1.view(), Tolerance::ascend()).pass);
  // bf16 threshold; a class mismatch makes MARE infinite; equal non-finite classes count 0.
  EXPECT_EQ(ascend_threshold(DType::kBFloat16), 0x1p-7);
  const double inf = std::numeric_limits<double>::infinity();
  const ExpectedOutput b = expected(DType::kBFloat16, {inf, std::nan(""), 1});
  const HostTensor bg = tensor(DType::kBFloat16, {inf, std::nan(""), 1});
  EXPECT_TRUE(compare_output(b, bg.view(), Tolerance::ascend()).pass);
  const HostTensor bb = tensor(DType::kBFloat16, {1e38, std::nan(""), 1});
  const Comparison cb = compare_output(b, bb.view(), Tolerance::ascend());
  EXPECT_FALSE(cb.pass);
  EXPECT_TRUE(std::isinf(cb.ascend.mare));
  // With exact_nearest present, rel is measured against the exact value.
  ExpectedOutput x = expected(DType::kFloat32, {1});
  x.exact_nearest = {1 + 0x1p-30};
  const HostTensor xg = tensor(DType::kFloat32, {1});
  EXPECT_DOUBLE_EQ(compare_output(x, xg.view(), Tolerance::ascend()).ascend.mare,
                   0x1p-30 / (1 + 0x1p-30 + 1e-7));
}

TEST(Compare, ConditionAwareSumBound) {
  // Value of record 1, exact 1, n = 4 (k = 4), sum|terms| = 2^10, u = 2^-24:
  // bound = 0.5 ulp(1) + k u S (+ 2^-52 for exact_nearest) = 2^-24 + 2^-12 (+ 2^-52).
  ExpectedOutput e = expected(DType::kFloat32, {1});
  e.exact_nearest = {1};
  e.error_scale = {0x1p10};
  e.term_count = {4};
  const auto run = [&](double got, const Tolerance &t) {
    const HostTensor g = tensor(DType::kFloat32, {got});
    return compare_output(e, g.view(), t);
  };
  EXPECT_TRUE(run(1 + 0x1p-12, Tolerance::sum()).pass);
  EXPECT_FALSE(run(1 + 0x1p-12 + 0x1p-23, Tolerance::sum()).pass);
  EXPECT_TRUE(run(1 - 0x1p-12 - 0x1p-24, Tolerance::sum()).pass);
  EXPECT_FALSE(run(1 - 0x1p-12 - 0x1p-23, Tolerance::sum()).pass);
  EXPECT_NEAR(run(1 + 0x1p-12, Tolerance::sum()).max_bound_ratio, 0x1p-12 / (0x1p-12 + 0x1p-24),
              1e-12);
  // Double accumulation (u = 2^-53): k u S = 2^-41, so one ulp is too much.
  EXPECT_TRUE(run(1, Tolerance::sum(0x1p-53)).pass);
  EXPECT_FALSE(run(1 + 0x1p-23, Tolerance::sum(0x1p-53)).pass);
  // n = 1000: k = ceil(log2 1000) + 2 = 12: bound 2^-24 + 12 * 2^-14.
  e.term_count = {1000};
  EXPECT_TRUE(run(1 + 11 * 0x1p-14, Tolerance::sum()).pass);
  EXPECT_FALSE(run(1 + 13 * 0x1p-14, Tolerance::sum()).pass);
  // Without exact_nearest: against the value of record with a full ulp.
  e.exact_nearest.clear();
  e.term_count = {4};
  EXPECT_TRUE(run(1 + 0x1p-12 + 0x1p-23, Tolerance::sum()).pass);
  EXPECT_FALSE(run(1 + 0x1p-12 + 0x1p-22, Tolerance::sum()).pass);
  // The exact value matters: exact 1 + 2^-24 + 2^-40 has the value of record 1 + 2^-23; with no
  // accumulation error (S = 0) only the correctly rounded result is within half an ulp.
  ExpectedOutput t = expected(DType::kFloat32, {1 + 0x1p-23});
  t.exact_nearest = {1 + 0x1p-24 + 0x1p-40};
  t.error_scale = {0};
  t.term_count = {1};
  const HostTensor right = tensor(DType::kFloat32, {1 + 0x1p-23});
  const HostTensor wrong = tensor(DType::kFloat32, {1});
  EXPECT_TRUE(compare_output(t, right.view(), Tolerance::sum()).pass);
  const Comparison w = compare_output(t, wrong.view(), Tolerance::sum());
  EXPECT_FALSE(w.pass);
  ASSERT_EQ(w.mismatches.size(), 1u);
  EXPECT_NE(w.mismatches[0].why.find("bound"), std::string::npos);
  // Non-finite: the classes decide.
  ExpectedOutput nf = expected(DType::kFloat32, {std::nan(""), 1});
  nf.exact_nearest = {std::nan(""), 1};
  nf.error_scale = {std::nan(""), 1};
  nf.term_count = {2, 2};
  const HostTensor ok = tensor(DType::kFloat32, {std::nan(""), 1});
  const HostTensor bad = tensor(DType::kFloat32, {0, 1});
  EXPECT_TRUE(compare_output(nf, ok.view(), Tolerance::sum()).pass);
  EXPECT_FALSE(compare_output(nf, bad.view(), Tolerance::sum()).pass);
}

TEST(Compare, UntouchedAndErrors) {
  ExpectedOutput e = expected(DType::kFloat16, {1, 2});
  e.written = false;
  std::vector<std::byte> before(16, std::byte{0x5a}), after = before;
  Comparison c = compare_untouched(e, before, after);
  EXPECT_TRUE(c.pass);
  EXPECT_NE(c.summary().find("untouched"), std::string::npos);
  after[7] = std::byte{0};
  after[9] = std::byte{1};
  c = compare_untouched(e, before, after);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.changed_bytes, 2);
  EXPECT_EQ(c.first_changed_byte, 7);
  EXPECT_FALSE(compare_untouched(e, before, std::span(after).first(8)).pass);
  // compare_output refuses a written=false expectation, and a shape or dtype mismatch.
  const HostTensor g = tensor(DType::kFloat16, {1, 2});
  EXPECT_FALSE(compare_output(e, g.view(), Tolerance::ulp()).pass);
  e.written = true;
  EXPECT_TRUE(compare_output(e, g.view(), Tolerance::ulp()).pass);
  const HostTensor g3 = tensor(DType::kFloat16, {1, 2, 3});
  const Comparison s = compare_output(e, g3.view(), Tolerance::ulp());
  EXPECT_FALSE(s.pass);
  EXPECT_FALSE(s.error.empty());
  const HostTensor gf = tensor(DType::kFloat32, {1, 2});
  EXPECT_FALSE(compare_output(e, gf.view(), Tolerance::ulp()).pass);
}

TEST(Compare, PrintsSummaryAndDetails) {
  std::vector<double> ev(40, 1.0), gv(40, 1.0);
  for (int i = 0; i < 30; ++i) gv[static_cast<size_t>(i + 10)] = 1 + 0x1p-21;  // 4 ulps
  const ExpectedOutput e = expected(DType::kFloat32, ev);
  const HostTensor g = tensor(DType::kFloat32, gv);
  Tolerance t = Tolerance::ulp();
  t.max_listed = 5;
  const Comparison c = compare_output(e, g.view(), t);
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatch_count, 30);
  EXPECT_EQ(c.mismatches.size(), 5u);
  EXPECT_EQ(c.mismatches[0].index, 10);
  EXPECT_EQ(c.mismatches[0].expected_bits, 0x3f800000u);
  EXPECT_EQ(c.mismatches[0].got_bits, 0x3f800004u);
  EXPECT_EQ(c.mismatches[0].ulps, 4);
  const std::string s = c.summary();
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_EQ(s.rfind("FAIL", 0), 0u) << s;
  EXPECT_NE(s.find("max 4 ulp at 10"), std::string::npos) << s;
  const std::string d = c.details();
  EXPECT_NE(d.find("0x3f800000 (1)"), std::string::npos) << d;
  EXPECT_NE(d.find("0x3f800004 (1.000000476837158"), std::string::npos) << d;
  EXPECT_NE(d.find("... 25 more"), std::string::npos) << d;
  EXPECT_NE(d.find("[3-4] 30"), std::string::npos) << d;
  const Comparison p = compare_output(e, e.values.view(), Tolerance::exact());
  EXPECT_EQ(p.summary().rfind("PASS", 0), 0u);
}

}  // namespace

namespace {
// VAL-TOL-1 for sums across the overflow threshold: an exact value just below 65520 rounds to
// 65504 in fp16, but a result computed within the bound may land on 65520 and round to +inf.
TEST(CompareSum, InfinityIsWithinTheBoundAtTheOverflowThreshold) {
  using namespace aclnn_ref;
  ExpectedOutput e;
  e.name = "out";
  e.values = HostTensor(DType::kFloat16, {2});
  e.values.set_bits(0, 0x7bff);  // 65504: the rounding of the exact value
  e.values.set_bits(1, 0x7bff);
  // Element 0: the exact value is one double below 65520 (so it rounds to 65504), and the
  // accumulation error reaches 65520. Element 1: exactly 65504, far from the threshold.
  e.exact_nearest = {65520.0 - 0x1p-37, 65504.0};
  e.error_scale = {70000.0, 65504.0};
  e.term_count = {2, 2};
  HostTensor got(DType::kFloat16, {2});
  got.set_bits(0, 0x7c00);  // +inf: a real within the bound rounds to it
  got.set_bits(1, 0x7c00);  // +inf: no real within the bound of 65504 rounds to it
  const Comparison c = compare_output(e, got.view(), Tolerance::sum(0x1p-53));
  EXPECT_FALSE(c.pass);
  EXPECT_EQ(c.mismatch_count, 1);
  ASSERT_FALSE(c.mismatches.empty());
  EXPECT_EQ(c.mismatches.front().index, 1);
  // -inf is never the rounding of a positive value.
  got.set_bits(1, 0x7bff);
  got.set_bits(0, 0xfc00);
  EXPECT_FALSE(compare_output(e, got.view(), Tolerance::sum(0x1p-53)).pass);
  got.set_bits(0, 0x7c00);
  EXPECT_TRUE(compare_output(e, got.view(), Tolerance::sum(0x1p-53)).pass);
}

// A cancelling sum of huge terms (LayerNormBackward with a huge rstd; found by a campaign at seed
// 2, index 38397): the exact value is beyond fp32's range and negative, but the error bound is
// wider than the exact value is far from zero, so an accumulation within the bound may land on
// either side of zero, beyond the range: +inf is as much the rounding of such a real as -inf.
TEST(CompareSum, EitherInfinityWhenTheBoundSpansZeroBeyondTheRange) {
  using namespace aclnn_ref;
  ExpectedOutput e;
  e.name = "out";
  e.values = HostTensor(DType::kFloat32, {2});
  e.values.set_bits(0, 0xff800000);  // -inf: the rounding of the exact value
  e.values.set_bits(1, 0xff800000);
  e.exact_nearest = {-1e50, -1e50};
  e.error_scale = {1.9e112, 1e55};  // element 1: the bound stays below zero
  e.term_count = {16, 16};
  HostTensor got(DType::kFloat32, {2});
  got.set_bits(0, 0x7f800000);  // +inf: a real within 6.9e105 of -1e50 rounds to it
  got.set_bits(1, 0xff800000);
  const Comparison c = compare_output(e, got.view(), Tolerance::sum());
  EXPECT_TRUE(c.pass) << c.details();
  got.set_bits(1, 0x7f800000);  // +inf: every real within 1e55 x 6 x 2^-24 of -1e50 is negative
  const Comparison d = compare_output(e, got.view(), Tolerance::sum());
  EXPECT_FALSE(d.pass);
  ASSERT_EQ(d.mismatch_count, 1);
  EXPECT_EQ(d.mismatches.front().index, 1);
}
}  // namespace

// VAL-TOL-1 measures ulps at the exact value: with the exact value 0.3 ulp above the value of
// record, the neighbour above is 0.7 ulp away and the one below 1.3 ulps (1.5 ulps would be the
// furthest a record-based measure could be wrong by).
TEST(Compare, UlpsAreMeasuredAtTheExactValue) {
  ExpectedOutput h = expected(DType::kFloat16, {1.5, 1.5});
  const double q = 0x1p-10;  // fp16 quantum at 1.5
  h.exact_nearest = {1.5 + 0.3 * q, 1.5 - 0.3 * q};
  h.exact_error = {0, 0};
  const HostTensor up_down = tensor(DType::kFloat16, {1.5 + q, 1.5 - q});  // exact's side
  const HostTensor down_up = tensor(DType::kFloat16, {1.5 - q, 1.5 + q});  // the far side
  const Comparison near = compare_output(h, up_down.view(), Tolerance::ulp());
  EXPECT_TRUE(near.pass) << near.details();
  EXPECT_NEAR(near.max_ulps, 0.7, 1e-12);
  const Comparison far = compare_output(h, down_up.view(), Tolerance::ulp());
  EXPECT_FALSE(far.pass);
  EXPECT_EQ(far.mismatch_count, 2);
  EXPECT_NEAR(far.max_ulps, 1.3, 1e-12);
  // The value of record itself is within half an ulp of the exact value.
  const HostTensor record = tensor(DType::kFloat16, {1.5, 1.5});
  const Comparison rec = compare_output(h, record.view(), Tolerance::ulp());
  EXPECT_NEAR(rec.max_ulps, 0.3, 1e-12);
  EXPECT_EQ(rec.histogram[kBHalf], 2);

  // fp32: two steps on the far side are 2.3 ulps (a deviation), on the exact value's side 1.7.
  ExpectedOutput f = expected(DType::kFloat32, {1.5});
  const double u = 0x1p-23;
  f.exact_nearest = {1.5 + 0.3 * u};
  EXPECT_TRUE(
      compare_output(f, tensor(DType::kFloat32, {1.5 + 2 * u}).view(), Tolerance::ulp()).pass);
  EXPECT_FALSE(
      compare_output(f, tensor(DType::kFloat32, {1.5 - 2 * u}).view(), Tolerance::ulp()).pass);

  // The oracle's error bound on the exact value counts in the output's favour.
  h.exact_error = {0, 0.31 * q};
  const Comparison bounded = compare_output(h, down_up.view(), Tolerance::ulp());
  EXPECT_EQ(bounded.mismatch_count, 1);
  EXPECT_EQ(bounded.mismatches[0].index, 0);
}
