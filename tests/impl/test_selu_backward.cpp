// aclnnSeluBackward through the ABI: every error clause of selu_backward.md, two-phase rules,
// product gates, values of record (lambda included, y = +/-0 -> lambda, NaN y -> NaN), exact
// integer rounding (SELU-INT-1) checked against MPFR, views, in-place and determinism.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "impl/dtype.hpp"
#include "tests/support/abi_expect.hpp"
#include "tests/support/host_tensor.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/simd_targets.hpp"

namespace {

using aclnn_cpu::bf16_to_float;
using aclnn_cpu::double_to_bf16;
using aclnn_cpu::double_to_half;
using aclnn_cpu::half_to_float;
using aclnn_test::errmsg;
using aclnn_test::expect_failure;
using aclnn_test::ScopedEnv;

const char *kLambda = "1.0507009873554804934193349852946";
const char *kLambdaAlpha = "1.7580993408473768599402175208123";

using Tensor = aclnn_test::AclTensor;  // tests/support/host_tensor.hpp

aclnnStatus phase_one(const aclTensor *dy, const aclTensor *y, aclTensor *out) {
  uint64_t w = 0;
  aclOpExecutor *e = nullptr;
  return aclnnSeluBackwardGetWorkspaceSize(dy, y, out, &w, &e);
}

aclnnStatus run(const aclTensor *dy, const aclTensor *y, aclTensor *out) {
  uint64_t ws = 5;
  aclOpExecutor *ex = nullptr;
  const aclnnStatus st = aclnnSeluBackwardGetWorkspaceSize(dy, y, out, &ws, &ex);
  if (st != ACLNN_SUCCESS) return st;
  EXPECT_EQ(ws, 0u);
  return aclnnSeluBackward(nullptr, ws, ex, nullptr);
}

// ---- MPFR oracle: exact value dy*lambda or dy*(y + lambda*alpha) at 256 bits -----------------
struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, 256); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp &) = delete;
};

void mp_selu_grad(mpfr_t out, double dy, double y) {
  if (std::isnan(y) || std::isnan(dy)) return mpfr_set_nan(out);
  Mp f;
  if (y >= 0) {
    mpfr_set_str(f.v, kLambda, 10, MPFR_RNDN);
  } else {
    mpfr_set_str(f.v, kLambdaAlpha, 10, MPFR_RNDN);
    Mp yy;
    mpfr_set_d(yy.v, y, MPFR_RNDN);
    mpfr_add(f.v, f.v, yy.v, MPFR_RNDN);
  }
  mpfr_mul_d(out, f.v, dy, MPFR_RNDN);
}

// Nearest integer, ties to even, saturated (SELU-INT-1).
int64_t mp_round_sat(const mpfr_t v, int64_t lo, int64_t hi) {
  Mp r;
  mpfr_rint(r.v, v, MPFR_RNDN);  // RNDN: ties to even
  if (mpfr_cmp_si(r.v, lo) < 0) return lo;
  if (mpfr_cmp_si(r.v, hi) > 0) return hi;
  return mpfr_get_si(r.v, MPFR_RNDN);
}

double ulp_error(const mpfr_t exact, double got, int p, int emin, double max) {
  if (mpfr_nan_p(exact)) return std::isnan(got) ? 0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  if (mpfr_inf_p(exact))
    return std::isinf(got) && (got > 0) == (mpfr_sgn(exact) > 0) ? 0 : INFINITY;
  const double e = mpfr_get_d(exact, MPFR_RNDN);
  const double ulp = std::ldexp(1.0, (e == 0 ? emin : std::max(std::ilogb(e), emin)) - (p - 1));
  if (std::isinf(got)) {
    const double ulp_max = std::ldexp(1.0, std::ilogb(max) - (p - 1));
    if ((got > 0) == (e > 0) && std::fabs(e) >= max + ulp_max / 2) return 0;
    return std::fabs(std::copysign(max + ulp_max, got) - e) / ulp;
  }
  return std::fabs(got - e) / ulp;
}

// ---- error clauses --------------------------------------------------------------------------
struct ErrFixture {
  std::vector<float> a = std::vector<float>(12, 1.0f), b = std::vector<float>(12, -0.5f);
  std::vector<uint8_t> out = std::vector<uint8_t>(64, 0x5A);
  std::vector<uint8_t> canary = out;
};

TEST(SeluBackward, NullTensor_SELU_NULL_1) {
  ErrFixture f;
  Tensor dy({2, 3}, ACL_FLOAT, f.a.data(), 12), y({2, 3}, ACL_FLOAT, f.b.data(), 12),
      out({2, 3}, ACL_FLOAT, f.out.data(), 16);
  expect_failure(phase_one(nullptr, y, out), ACLNN_ERR_PARAM_NULLPTR, "gradOutput", nullptr,
                 f.canary, f.out);
  expect_failure(phase_one(dy, nullptr, out), ACLNN_ERR_PARAM_NULLPTR, "result", nullptr, f.canary,
                 f.out);
  expect_failure(phase_one(dy, y, nullptr), ACLNN_ERR_PARAM_NULLPTR, "gradInput", nullptr, f.canary,
                 f.out);
}

TEST(SeluBackward, TwoPhase_ABI_TWOPHASE_2_3_4) {
  std::vector<float> dy(4, 1.0f), y(4, 1.0f), out(4);
  Tensor a({4}, ACL_FLOAT, dy.data(), 4), b({4}, ACL_FLOAT, y.data(), 4),
      c({4}, ACL_FLOAT, out.data(), 4);
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  EXPECT_EQ(aclnnSeluBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, nullptr, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("workspaceSize"), std::string::npos);
  EXPECT_EQ(aclnnSeluBackwardGetWorkspaceSize(nullptr, nullptr, nullptr, &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("executor"), std::string::npos);
  EXPECT_EQ(aclnnSeluBackward(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  ASSERT_EQ(aclnnSeluBackwardGetWorkspaceSize(a, b, c, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnSeluBackward(nullptr, ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(out[0], static_cast<float>(1.0507009873554804934));
  EXPECT_EQ(aclnnSeluBackward(nullptr, ws, ex, nullptr), ACLNN_ERR_PARAM_INVALID);
  ASSERT_EQ(aclnnSeluBackwardGetWorkspaceSize(a, b, c, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclnnSeluBackward(nullptr, ws, ex, nullptr), ACLNN_SUCCESS);
  std::fill(dy.begin(), dy.end(), 2.0f);
  ASSERT_EQ(aclnnSeluBackward(nullptr, ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(out[3], static_cast<float>(2 * 1.0507009873554804934));
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
}

TEST(SeluBackward, Dtypes_SELU_DTYPE_1_2) {
  ErrFixture f;
  for (aclDataType bad : {ACL_UINT8, ACL_INT16, ACL_INT64, ACL_DOUBLE, ACL_BOOL}) {
    Tensor dy({2, 3}, bad, f.a.data(), 6), y({2, 3}, ACL_FLOAT, f.b.data(), 12),
        out({2, 3}, ACL_FLOAT, f.out.data(), 16), dyf({2, 3}, ACL_FLOAT, f.a.data(), 12),
        yb({2, 3}, bad, f.b.data(), 6), outb({2, 3}, bad, f.out.data(), 8);
    expect_failure(phase_one(dy, y, out), ACLNN_ERR_PARAM_INVALID, "gradOutput", "SELU-DTYPE-1",
                   f.canary, f.out);
    expect_failure(phase_one(dyf, yb, out), ACLNN_ERR_PARAM_INVALID, "result", "SELU-DTYPE-1",
                   f.canary, f.out);
    expect_failure(phase_one(dyf, y, outb), ACLNN_ERR_PARAM_INVALID, "gradInput", "SELU-DTYPE-1",
                   f.canary, f.out);
  }
  // SELU-DTYPE-2: supported but unequal dtypes.
  Tensor dy({2, 3}, ACL_FLOAT, f.a.data(), 12), y16({2, 3}, ACL_FLOAT16, f.b.data(), 12),
      out({2, 3}, ACL_FLOAT, f.out.data(), 16), y({2, 3}, ACL_FLOAT, f.b.data(), 12),
      out32i({2, 3}, ACL_INT32, f.out.data(), 16);
  expect_failure(phase_one(dy, y16, out), ACLNN_ERR_PARAM_INVALID, "result", "SELU-DTYPE-2",
                 f.canary, f.out);
  expect_failure(phase_one(dy, y, out32i), ACLNN_ERR_PARAM_INVALID, "gradInput", "SELU-DTYPE-2",
                 f.canary, f.out);
}

TEST(SeluBackward, Bf16OnlyOnA2A3_SELU_DTYPE_1_ABI_SOC_1) {
  std::vector<uint16_t> a(4, 0x3f80), b(4, 0x3f80), out(4, 0x1234);
  Tensor dy({4}, ACL_BF16, a.data(), 4), y({4}, ACL_BF16, b.data(), 4),
      o({4}, ACL_BF16, out.data(), 4);
  for (const char *soc : {"ascend910", "ascend310p"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    EXPECT_EQ(phase_one(dy, y, o), ACLNN_ERR_PARAM_INVALID) << soc;
    EXPECT_NE(errmsg().find("SELU-DTYPE-1"), std::string::npos) << errmsg();
    EXPECT_NE(errmsg().find("gradOutput"), std::string::npos) << errmsg();
    for (uint16_t v : out) EXPECT_EQ(v, 0x1234);
  }
  for (const char *soc : {"ascend910b", "ascend910_93"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    EXPECT_EQ(run(dy, y, o), ACLNN_SUCCESS) << soc;
    for (uint16_t v : out) EXPECT_EQ(v, double_to_bf16(1.0507009873554804934));
  }
}

TEST(SeluBackward, ShapesEqual_SELU_SHAPE_1) {
  ErrFixture f;
  Tensor dy({2, 3}, ACL_FLOAT, f.a.data(), 12), y13({1, 3}, ACL_FLOAT, f.b.data(), 12),
      y({2, 3}, ACL_FLOAT, f.b.data(), 12), out({2, 3}, ACL_FLOAT, f.out.data(), 16),
      out6({6}, ACL_FLOAT, f.out.data(), 16);
  // No broadcasting, even where NumPy would broadcast.
  expect_failure(phase_one(dy, y13, out), ACLNN_ERR_PARAM_INVALID, "result", "SELU-SHAPE-1",
                 f.canary, f.out);
  expect_failure(phase_one(dy, y, out6), ACLNN_ERR_PARAM_INVALID, "gradInput", "SELU-SHAPE-1",
                 f.canary, f.out);
}

TEST(SeluBackward, Rank1To8_SELU_RANK_1) {
  ErrFixture f;
  const std::vector<int64_t> r9(9, 1), r0, r8(8, 1);
  Tensor dy9(r9, ACL_FLOAT, f.a.data(), 12), y9(r9, ACL_FLOAT, f.b.data(), 12),
      o9(r9, ACL_FLOAT, f.out.data(), 16);
  expect_failure(phase_one(dy9, y9, o9), ACLNN_ERR_PARAM_INVALID, "gradOutput", "SELU-RANK-1",
                 f.canary, f.out);
  Tensor dy0(r0, ACL_FLOAT, f.a.data(), 12), y0(r0, ACL_FLOAT, f.b.data(), 12),
      o0(r0, ACL_FLOAT, f.out.data(), 16);
  expect_failure(phase_one(dy0, y0, o0), ACLNN_ERR_PARAM_INVALID, "gradOutput", "SELU-RANK-1",
                 f.canary, f.out);
  float a = 1, b = 1, o = 0;
  Tensor dy8(r8, ACL_FLOAT, &a, 1), y8(r8, ACL_FLOAT, &b, 1), o8(r8, ACL_FLOAT, &o, 1);
  EXPECT_EQ(run(dy8, y8, o8), ACLNN_SUCCESS);
  EXPECT_EQ(o, static_cast<float>(1.0507009873554804934));
}

TEST(SeluBackward, ProjectChecksNullDataAndOverlap_ABI_INPUT_1) {
  ErrFixture f;
  Tensor dy({2, 3}, ACL_FLOAT, f.a.data(), 12), y({2, 3}, ACL_FLOAT, f.b.data(), 12),
      dyn({2, 3}, ACL_FLOAT, nullptr, 12), outn({2, 3}, ACL_FLOAT, nullptr, 12),
      outz({2, 3}, ACL_FLOAT, f.out.data(), 16, {1, 0});
  expect_failure(phase_one(dyn, y, outn), ACLNN_ERR_PARAM_NULLPTR, "gradOutput", nullptr, f.canary,
                 f.out);
  expect_failure(phase_one(dy, y, outn), ACLNN_ERR_PARAM_NULLPTR, "gradInput", nullptr, f.canary,
                 f.out);
  expect_failure(phase_one(dy, y, outz), ACLNN_ERR_PARAM_INVALID, "gradInput", nullptr, f.canary,
                 f.out);
  Tensor shifted({2, 3}, ACL_FLOAT, f.a.data(), 12, {}, 1);  // overlaps gradOutput partially
  EXPECT_EQ(phase_one(dy, y, shifted), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(f.a, std::vector<float>(12, 1.0f));
}

TEST(SeluBackward, EmptyWritesNothing_SELU_EMPTY_1) {
  std::vector<int8_t> out(4, 7);
  Tensor dy({3, 0}, ACL_INT8, nullptr, 0), y({3, 0}, ACL_INT8, nullptr, 0),
      o({3, 0}, ACL_INT8, out.data(), 4);
  uint64_t ws = 9;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnSeluBackwardGetWorkspaceSize(dy, y, o, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  ASSERT_EQ(aclnnSeluBackward(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(out, std::vector<int8_t>(4, 7));
}

// SELU-VALUE-1 (lambda included), SELU-ZERO-1 (+/-0 -> lambda), SELU-NAN-1 (NaN y -> NaN).
TEST(SeluBackward, ValuesOfRecord_SELU_VALUE_1_ZERO_1_NAN_1) {
  const double lam = 1.0507009873554804934193349852946, la = 1.7580993408473768599402175208123;
  const float inf = INFINITY, nan = NAN;
  const std::vector<float> dy = {1, 1, 1, 1, 2, 1, inf, 1, -3, 1};
  const std::vector<float> y = {0.0f, -0.0f, 5, -1, -1.5f, nan, 2, -inf, inf, 1e-45f};
  std::vector<float> out(dy.size());
  const int64_t n = static_cast<int64_t>(dy.size());
  Tensor a({n}, ACL_FLOAT, const_cast<float *>(dy.data()), n),
      b({n}, ACL_FLOAT, const_cast<float *>(y.data()), n), c({n}, ACL_FLOAT, out.data(), n);
  ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
  EXPECT_EQ(out[0], static_cast<float>(lam));  // y = +0: lambda (not lambda*alpha)
  EXPECT_EQ(out[1], static_cast<float>(lam));  // y = -0 too
  EXPECT_EQ(out[2], static_cast<float>(lam));  // not 1 (variant doc-literal)
  EXPECT_EQ(out[3], static_cast<float>(la - 1));
  EXPECT_EQ(out[4], static_cast<float>(2 * (la - 1.5)));
  EXPECT_TRUE(std::isnan(out[5]));  // not dy*lambda (variant select-lt)
  EXPECT_EQ(out[6], inf);
  EXPECT_EQ(out[7], -inf);  // dy * (-inf + lambda*alpha)
  EXPECT_EQ(out[8], static_cast<float>(-3 * lam));
  EXPECT_EQ(out[9], static_cast<float>(lam));
}

// Float dtypes: exhaustive fp16 and bf16 y (every pattern) with several dy, fp32 random; MPFR.
template <typename F>
double run_16bit(aclDataType dt, F decode, double dyv, uint16_t (*encode)(double), int p, int emin,
                 double max) {
  const int64_t n = 65536;
  std::vector<uint16_t> y(n), dy(n, encode(dyv)), out(n);
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint16_t>(i);
  Tensor a({n}, dt, dy.data(), n), b({n}, dt, y.data(), n), c({n}, dt, out.data(), n);
  EXPECT_EQ(run(a, b, c), ACLNN_SUCCESS);
  Mp e;
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    mp_selu_grad(e.v, decode(dy[i]), decode(y[i]));
    worst = std::max(worst, ulp_error(e.v, decode(out[i]), p, emin, max));
  }
  return worst;
}

TEST(SeluBackwardAccuracy, Fp16Bf16Exhaustive_SELU_VALUE_1) {
  for (double dy : {1.0, -0.7998046875, 65504.0, 0x1p-24}) {
    const double w = run_16bit(ACL_FLOAT16, half_to_float, dy, double_to_half, 11, -14, 65504.0);
    EXPECT_LE(w, 1.0) << "fp16 dy=" << dy;
  }
  for (double dy : {1.0, -0.80078125, 0x1.fep127, 0x1p-133}) {
    const double w = run_16bit(ACL_BF16, bf16_to_float, dy, double_to_bf16, 8, -126, 0x1.fep127);
    EXPECT_LE(w, 1.0) << "bf16 dy=" << dy;
  }
}

// A bf16 y beyond 2^53 loses lambda*alpha in one double (y + lambda*alpha == y), and dy*y can
// be exactly the overflow threshold 0x1.ffp127 (a tie): the exact value dy*(y + lambda*alpha) is
// just below it in magnitude and must round to the largest finite bf16, not to -inf
// (VAL-EXACT-1, VAL-OVERFLOW-1). Found by the campaign's overflow-threshold cases.
TEST(SeluBackwardAccuracy, TieOfTheDoubleProductRoundsOnce_SELU_VALUE_1) {
  const std::vector<uint16_t> dy = {0x6460, 0xe460}, y = {0xda92, 0xda92};
  std::vector<uint16_t> out(2);
  Tensor a({2}, ACL_BF16, const_cast<uint16_t *>(dy.data()), 2),
      b({2}, ACL_BF16, const_cast<uint16_t *>(y.data()), 2), c({2}, ACL_BF16, out.data(), 2);
  ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
  Mp e;
  mp_selu_grad(e.v, bf16_to_float(dy[0]), bf16_to_float(y[0]));
  Mp max, threshold;  // the largest finite bf16 0x1.fep127, and 0x1.ffp127
  mpfr_set_ui_2exp(max.v, 255, 120, MPFR_RNDN);
  mpfr_set_ui_2exp(threshold.v, 511, 119, MPFR_RNDN);
  ASSERT_GT(mpfr_cmpabs(e.v, max.v), 0);
  ASSERT_LT(mpfr_cmpabs(e.v, threshold.v), 0) << "the case is not just below the threshold";
  EXPECT_EQ(out[0], 0xff7f);  // rounds to -max, not -inf
  EXPECT_EQ(out[1], 0x7f7f);
}

TEST(SeluBackwardAccuracy, Fp32Random_SELU_VALUE_1) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_real_distribution<float> neg(-1.7580993f, 0.0f);
  const int64_t n = 200000;
  std::vector<float> dy(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    dy[i] = std::bit_cast<float>(bits(rng));
    y[i] = i % 2 ? std::bit_cast<float>(bits(rng)) : neg(rng);  // half in the forward range
  }
  Tensor a({n}, ACL_FLOAT, dy.data(), n), b({n}, ACL_FLOAT, y.data(), n),
      c({n}, ACL_FLOAT, out.data(), n);
  ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
  Mp e;
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    mp_selu_grad(e.v, dy[i], y[i]);
    worst = std::max(worst, ulp_error(e.v, out[i], 24, -126, FLT_MAX));
  }
  EXPECT_LE(worst, 2.0);
  std::printf("[ accuracy ] selu fp32 random: max %.4f ulp\n", worst);
}

// Float outputs are the exact value correctly rounded (VAL-EXACT-1): the kernel's one-product fast
// path must agree with the exact double-double path everywhere, including products within a few
// double ulps of a rounding midpoint (the fast path hands those vectors to the exact path).
// True when got is the exact value rounded to nearest-even in the format (p bits, emin, max).
bool correctly_rounded(const mpfr_t exact, double got, int p, int emin, double max) {
  if (mpfr_nan_p(exact)) return std::isnan(got);
  if (std::isnan(got)) return false;
  const double ulp_max = std::ldexp(1.0, std::ilogb(max) - (p - 1));
  Mp threshold;  // max + ulp_max / 2: from there on (the tie included: max is odd) +/-inf
  mpfr_set_d(threshold.v, max, MPFR_RNDN);
  mpfr_add_d(threshold.v, threshold.v, ulp_max / 2, MPFR_RNDN);
  if (mpfr_cmpabs(exact, threshold.v) >= 0)
    return std::isinf(got) && (got > 0) == (mpfr_sgn(exact) > 0);
  if (std::isinf(got)) return false;
  if (mpfr_zero_p(exact)) return got == 0 && std::signbit(got) == (mpfr_signbit(exact) != 0);
  // Half an ulp of the exact value's binade (the subnormal quantum below emin).
  const int e = std::max(static_cast<int>(mpfr_get_exp(exact)) - 1, emin);
  Mp diff, half;
  mpfr_sub_d(diff.v, exact, got, MPFR_RNDN);  // exact at 256 bits
  mpfr_abs(diff.v, diff.v, MPFR_RNDN);
  mpfr_set_ui_2exp(half.v, 1, e - p, MPFR_RNDN);
  const int c = mpfr_cmp(diff.v, half.v);
  if (c < 0) return true;
  if (c > 0) return false;
  // A tie: the even neighbour (last of the p bits zero) wins.
  const double m = std::ldexp(std::fabs(got), p - 1 - e);  // an integer
  return std::fmod(m, 2.0) == 0;
}

TEST(SeluBackwardAccuracy, CorrectlyRoundedFp16Bf16Exhaustive_VAL_EXACT_1) {
  struct Fmt {
    aclDataType dt;
    double (*decode)(uint16_t);
    uint16_t (*encode)(double);
    int p, emin;
    double max;
    std::vector<double> dys;
  };
  const Fmt fmts[] = {{ACL_FLOAT16,
                       [](uint16_t h) { return static_cast<double>(half_to_float(h)); },
                       double_to_half,
                       11,
                       -14,
                       65504.0,
                       {1.0, -0.7998046875, 65504.0, 0x1p-24, 3.0, 0x1.554p-3}},
                      {ACL_BF16,
                       [](uint16_t h) { return static_cast<double>(bf16_to_float(h)); },
                       double_to_bf16,
                       8,
                       -126,
                       0x1.fep127,
                       {1.0, -0.80078125, 0x1.fep127, 0x1p-133, 3.0, 0x1.56p+100}}};
  for (const Fmt &f : fmts) {
    for (double dyv : f.dys) {
      const int64_t n = 65536;
      std::vector<uint16_t> y(n), dy(n, f.encode(dyv)), out(n);
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint16_t>(i);
      Tensor a({n}, f.dt, dy.data(), n), b({n}, f.dt, y.data(), n), c({n}, f.dt, out.data(), n);
      ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
      Mp e;
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        mp_selu_grad(e.v, f.decode(dy[i]), f.decode(y[i]));
        if (!correctly_rounded(e.v, f.decode(out[i]), f.p, f.emin, f.max) && wrong++ < 3)
          ADD_FAILURE() << "dtype " << f.dt << " dy=" << f.decode(dy[i]) << " y=" << f.decode(y[i])
                        << " got=" << f.decode(out[i]);
      }
      EXPECT_EQ(wrong, 0) << "dtype " << f.dt << " dy=" << dyv;
    }
  }
}

// fp16 pairs whose product in float (the fast path: f = (y + la_hi) + la_lo and dy * f in float)
// lies on the wrong side of an fp16 midpoint, every one with an fp16 subnormal result, where the
// float midpoint test does not apply (subnormals drop more than 13 bits) and the fast path must
// send the vector to the exact path: found by a search over positive dy below 2^-6 and all y.
// A fast path that took such lanes (a lower range threshold below 2^-14) rounds some of them
// wrongly.
TEST(SeluBackwardAccuracy, Fp16SubnormalResultsTheFloatProductMisrounds_VAL_EXACT_1) {
  const std::vector<std::pair<uint16_t, uint16_t>> pairs = {
      {0x01ee, 0x8023}, {0x01ee, 0x8024}, {0x022c, 0x8062}, {0x001f, 0x8247}, {0x009b, 0x8247},
      {0x0117, 0x8247}, {0x001f, 0x8248}, {0x009b, 0x8248}, {0x005d, 0x8249}, {0x007e, 0x8956},
      {0x0040, 0x8cb3}, {0x0082, 0x8eab}, {0x0028, 0xa546}, {0x0049, 0xad1f}};
  // Sixteen copies of each pair, so that every lane of a vector holds the pair on any target.
  std::vector<uint16_t> dy, y;
  for (const auto &[d, v] : pairs)
    for (int k = 0; k < 16; ++k) dy.push_back(d), y.push_back(v);
  const auto n = static_cast<int64_t>(dy.size());
  std::vector<uint16_t> out(dy.size());
  Tensor a({n}, ACL_FLOAT16, dy.data(), n), b({n}, ACL_FLOAT16, y.data(), n),
      c({n}, ACL_FLOAT16, out.data(), n);
  ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
  Mp e;
  for (size_t i = 0; i < dy.size(); ++i) {
    mp_selu_grad(e.v, half_to_float(dy[i]), half_to_float(y[i]));
    EXPECT_TRUE(correctly_rounded(e.v, half_to_float(out[i]), 11, -14, 65504.0))
        << "dy " << dy[i] << " y " << y[i] << " got " << half_to_float(out[i]);
  }
}

// For every dy in [1, 2) (mantissa m): the distance of dy * f (f = lambda for y >= 0, else
// y + lambda*alpha; the product as a double-double, rounded to double) from the nearest float
// rounding midpoint, in units of the double's last place (2^-29 float ulp): visit(m, dy, dist).
template <typename Visit>
void scan_midpoint_distances(float yv, Visit visit) {
  const double lam_hi = 0x1.0cfabd6a91132p+0, lam_lo = 0x1.6fc7d272f2695p-55;
  const double la_hi = 0x1.c212cc640f031p+0, la_lo = 0x1.05161b045a1f7p-56;
  double fh = lam_hi, fl = lam_lo;
  if (yv < 0) {
    fh = yv + la_hi;  // exact or not: the double-double below is rebuilt exactly
    fl = ((static_cast<double>(yv) - (fh - (fh - yv))) + (la_hi - (fh - yv))) + la_lo;
  }
  constexpr uint64_t kHalf = uint64_t{1} << 28;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    const float d = std::bit_cast<float>(0x3f800000u | m);
    const double ph = d * fh;
    const double p = ph + (std::fma(d, fh, -ph) + d * fl);
    const uint64_t rest = std::bit_cast<uint64_t>(p) & ((kHalf << 1) - 1);
    visit(m, d, rest > kHalf ? rest - kHalf : kHalf - rest);
  }
}

// FLOAT SeluBackward of (dy, y) through the ABI: the count of results that are not the exact
// value correctly rounded (the first three reported), or -1 if the call failed.
int64_t count_misrounded_fp32(const std::vector<float> &dy, const std::vector<float> &y) {
  const auto n = static_cast<int64_t>(dy.size());
  std::vector<float> dyc = dy, yc = y, out(n);
  Tensor a({n}, ACL_FLOAT, dyc.data(), n), b({n}, ACL_FLOAT, yc.data(), n),
      c({n}, ACL_FLOAT, out.data(), n);
  if (run(a, b, c) != ACLNN_SUCCESS) return -1;
  Mp e;
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    mp_selu_grad(e.v, dy[i], y[i]);
    if (!correctly_rounded(e.v, out[i], 24, -126, FLT_MAX) && wrong++ < 3)
      ADD_FAILURE() << std::hexfloat << "dy=" << dy[i] << " y=" << y[i] << " got=" << out[i];
  }
  return wrong;
}

TEST(SeluBackwardAccuracy, CorrectlyRoundedFp32RandomAndNearMidpoints_VAL_EXACT_1) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_real_distribution<float> neg(-1.7580993f, 0.0f);
  std::vector<float> dy, y;
  for (int i = 0; i < 100000; ++i) {
    dy.push_back(std::bit_cast<float>(bits(rng)));
    y.push_back(i % 2 ? std::bit_cast<float>(bits(rng)) : neg(rng));
  }
  // Near midpoints: every dy in [1, 2) against a few factors (lambda for y = 0.5, y + lambda*alpha
  // for negative y), kept when the double-double product dy * f lies within 64 double ulps of a
  // float midpoint (about 2 per 2^23 dy per factor).
  int64_t near = 0;
  for (float yv : {0.5f, -0.25f, -1.0f, -1.5f, -1.75f, -3.0f, -100.0f, -0.875f})
    scan_midpoint_distances(yv, [&](uint32_t, float d, uint64_t dist) {
      if (dist > 64) return;
      dy.push_back(d);
      y.push_back(yv);
      ++near;
    });
  ASSERT_GE(near, 4) << "the scan found too few near-midpoint products to test";
  const auto n = static_cast<int64_t>(dy.size());
  EXPECT_EQ(count_misrounded_fp32(dy, y), 0);
  std::printf("[ accuracy ] selu fp32: %lld random + %lld near-midpoint pairs correctly rounded\n",
              static_cast<long long>(n - near), static_cast<long long>(near));
}

// FLOAT's float-vector path (SeluGradF32) where its argument is tight, on every target: products
// near rounding midpoints (within 2^-11 ulp, inside and outside its 2^-12 test; some within
// 2^-5 ulp) for y with y + la_hi near +/-2^-5 and y a few floats from -la_hi (where y +
// lambda*alpha cancels: no window there, by its argument), for lambda and a plain y; y within 64
// floats of -lambda*alpha; |dy * f| near 2^-100 (its range bound), 2^-126 and FLT_MAX; each vector
// mixes such lanes with random ones. Every result correctly rounded.
class SeluFp32FloatPath : public aclnn_test::SimdTargetTest {};
TEST_P(SeluFp32FloatPath, CorrectlyRoundedAtItsMargins_VAL_EXACT_1) {
  const float la_hi = 0x1.c212ccp+0f;
  std::vector<float> ys = {0.5f, -1.0f};
  for (float edge : {0x1p-5f, -0x1p-5f})
    for (int k : {-2, -1, 0, 1, 2}) ys.push_back(std::nextafter(edge - la_hi, edge - la_hi + k));
  for (int k : {-16, -2, -1, 1, 3, 16})  // inside the window: y a few floats from -la_hi
    ys.push_back(std::bit_cast<float>(std::bit_cast<uint32_t>(-la_hi) + k));
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> bits;
  std::vector<float> dy, y;
  const auto add_random = [&] {
    dy.push_back(std::bit_cast<float>((bits(rng) & 0x3fffffffu) | 0x20000000u));
    y.push_back(std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng));
  };
  int64_t near = 0;
  for (float yv : ys)
    scan_midpoint_distances(yv, [&](uint32_t m, float d, uint64_t dist) {
      // Within 2^-11 ulp of a midpoint (every 4th), or within 2^-5 ulp (every 61st).
      if ((dist < (uint64_t{1} << 18) && (m & 3) == 0) ||
          (dist < (uint64_t{1} << 24) && m % 61 == 0)) {
        dy.push_back(d);
        y.push_back(yv);
        ++near;
        add_random();
      }
    });
  for (int k = -64; k <= 64; ++k) {
    dy.push_back(std::bit_cast<float>(bits(rng) & 0x7fffffffu) * 0x1p-100f + 1.0f);
    y.push_back(std::bit_cast<float>(std::bit_cast<uint32_t>(-la_hi) + k));
  }
  for (float target : {0x1p-100f, 0x1p-126f, FLT_MAX})
    for (int k = -24; k <= 24; ++k) {
      dy.push_back(std::nextafter(target / 1.0507009873554805f, k < 0 ? 0.0f : FLT_MAX) *
                   (1.0f + static_cast<float>(k) * 0x1p-20f));
      y.push_back(k % 3 ? 0.25f : -0.5f);
      add_random();
    }
  ASSERT_GE(near, 1000) << "the scan found too few near-midpoint products";
  EXPECT_EQ(count_misrounded_fp32(dy, y), 0)
      << "of " << dy.size() << " pairs, " << near << " near a midpoint";
}

// The float path (contiguous FLOAT output) against the exact double-double path (a strided
// output takes it for every element) on 2^22 pairs per target, in runs of 64 of one kind: random
// bits (specials included), y within 4096 and within 32 floats of -la_hi, products from tiny to
// huge. Both are correctly rounded, so the bytes must agree, NaN payloads aside where both inputs
// are NaN.
TEST_P(SeluFp32FloatPath, SameBytesAsTheExactPath_VAL_EXACT_1) {
  const int64_t n = int64_t{1} << 22;
  std::vector<float> dy(n), y(n), flat(n), strided(2 * n);
  std::mt19937_64 rng(7);
  const uint32_t neg_la = std::bit_cast<uint32_t>(-0x1.c212ccp+0f);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    const auto a = static_cast<uint32_t>(r), b = static_cast<uint32_t>(r >> 32);
    const auto near_la = [&](uint32_t span) {
      return std::bit_cast<float>(neg_la + b % span - span / 2);
    };
    switch (i / 64 % 5) {  // whole vectors of one kind: a special lane sends its vector away
      case 0:
        dy[i] = std::bit_cast<float>(a);
        y[i] = std::bit_cast<float>(b);
        break;
      case 1:
        dy[i] = std::bit_cast<float>((a & 0x807fffffu) | 0x3f800000u);
        y[i] = near_la(8192);
        break;
      case 2:
        dy[i] = std::bit_cast<float>(a);
        y[i] = near_la(64);
        break;
      case 3:  // |p| from about 2^-112 to 2^-96, across the range bound 2^-100
        dy[i] = std::bit_cast<float>((a & 0x807fffffu) | 0x07800000u | (a & 0x00800000u) << 3);
        y[i] = static_cast<float>(static_cast<int>(b % 2000) - 1000) / 300.0f;
        break;
      default:  // near FLT_MAX
        dy[i] = std::bit_cast<float>((a & 0x807fffffu) | 0x7e800000u);
        y[i] = static_cast<float>(static_cast<int>(b % 2000) - 1000) / 300.0f;
        break;
    }
  }
  Tensor a({n}, ACL_FLOAT, dy.data(), n), b({n}, ACL_FLOAT, y.data(), n),
      c({n}, ACL_FLOAT, flat.data(), n);
  ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
  Tensor cs({n}, ACL_FLOAT, strided.data(), 2 * n, {2});
  ASSERT_EQ(run(a, b, cs), ACLNN_SUCCESS);
  int64_t differ = 0;
  for (int64_t i = 0; i < n; ++i) {
    const bool both_nan = std::isnan(dy[i]) && std::isnan(y[i]);
    if (std::bit_cast<uint32_t>(flat[i]) != std::bit_cast<uint32_t>(strided[2 * i]) &&
        !(both_nan && std::isnan(flat[i]) && std::isnan(strided[2 * i])) && differ++ < 3)
      ADD_FAILURE() << std::hexfloat << "dy=" << dy[i] << " y=" << y[i] << " float path " << flat[i]
                    << ", exact path " << strided[2 * i];
  }
  EXPECT_EQ(differ, 0);
}
ACLNN_INSTANTIATE_SIMD_TARGETS(SeluFp32FloatPath);

// 16-bit outputs' lanes near a midpoint (SeluGradNearF32: the float-float product rounded to odd),
// on every target: for 48 dy of each format (random, and a few of record) and every y, the pairs
// whose product lies within 8 float ulps of a 16-bit midpoint in normal range, packed together so
// that whole vectors take that path (about a ninth of their lanes have the float-float's high part
// on the midpoint itself, where only the low part's sign decides). Every result correctly rounded
// against MPFR, and the same bytes as the exact path (a strided output takes it for every element).
class Selu16BitNearMidpoints : public aclnn_test::SimdTargetTest {};
TEST_P(Selu16BitNearMidpoints, CorrectlyRoundedInFloat_VAL_EXACT_1) {
  struct Fmt {
    aclDataType dt;
    double (*decode)(uint16_t);
    int drop, p, emin;
    double max;
  };
  const Fmt fmts[] = {
      {ACL_FLOAT16, [](uint16_t h) { return static_cast<double>(half_to_float(h)); }, 13, 11, -14,
       65504.0},
      {ACL_BF16, [](uint16_t h) { return static_cast<double>(bf16_to_float(h)); }, 16, 8, -126,
       0x1.fep127}};
  std::mt19937 rng(13);
  for (const Fmt &f : fmts) {
    std::vector<uint16_t> dys = {f.dt == ACL_FLOAT16 ? uint16_t{0x3c00} : uint16_t{0x3f80}};
    while (dys.size() < 48) {
      const auto h = static_cast<uint16_t>(rng());
      if (std::isfinite(f.decode(h)) && f.decode(h) != 0) dys.push_back(h);
    }
    std::vector<uint16_t> dy, y;
    for (uint16_t d : dys)
      for (uint32_t yi = 0; yi < 65536; ++yi) {
        const double yv = f.decode(static_cast<uint16_t>(yi));
        if (!std::isfinite(yv)) continue;
        // The product in double (within 2^-50 relative): its float bits below the 16-bit format.
        const double v = f.decode(d) * (yv >= 0 ? 1.0507009873554805 : yv + 1.7580993408473769);
        const float vf = static_cast<float>(v);
        if (!(std::fabs(vf) >= std::ldexp(1.0, f.emin) && std::fabs(vf) <= f.max)) continue;
        const uint32_t rest = std::bit_cast<uint32_t>(vf) & ((1u << f.drop) - 1);
        const uint32_t half = 1u << (f.drop - 1);
        if (rest + 8 < half || rest > half + 8) continue;
        dy.push_back(d);
        y.push_back(static_cast<uint16_t>(yi));
      }
    const auto n = static_cast<int64_t>(dy.size());
    ASSERT_GE(n, 2000) << "dtype " << f.dt << ": too few near-midpoint pairs";
    std::vector<uint16_t> flat(n), strided(2 * n);
    Tensor a({n}, f.dt, dy.data(), n), b({n}, f.dt, y.data(), n), c({n}, f.dt, flat.data(), n);
    ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
    Tensor cs({n}, f.dt, strided.data(), 2 * n, {2});
    ASSERT_EQ(run(a, b, cs), ACLNN_SUCCESS);
    Mp e;
    int64_t wrong = 0, differ = 0;
    for (int64_t i = 0; i < n; ++i) {
      mp_selu_grad(e.v, f.decode(dy[i]), f.decode(y[i]));
      if (!correctly_rounded(e.v, f.decode(flat[i]), f.p, f.emin, f.max) && wrong++ < 3)
        ADD_FAILURE() << "dtype " << f.dt << " dy=" << f.decode(dy[i]) << " y=" << f.decode(y[i])
                      << " got=" << f.decode(flat[i]);
      if (flat[i] != strided[2 * i]) ++differ;
    }
    EXPECT_EQ(wrong, 0) << "dtype " << f.dt << ", " << n << " pairs";
    EXPECT_EQ(differ, 0) << "dtype " << f.dt << ", " << n << " pairs";
  }
}
ACLNN_INSTANTIATE_SIMD_TARGETS(Selu16BitNearMidpoints);

// SELU-INT-1: INT8 exhaustive over all (dy, y) pairs; INT32 random plus near-tie dy (dy*lambda or
// dy*(y + lambda*alpha) within 2^-20 of a half-integer), all against MPFR rounding.
TEST(SeluBackwardAccuracy, Int8Exhaustive_SELU_INT_1) {
  const int64_t n = 65536;
  std::vector<int8_t> dy(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    dy[i] = static_cast<int8_t>(i & 0xff);
    y[i] = static_cast<int8_t>(i >> 8);
  }
  Tensor a({256, 256}, ACL_INT8, dy.data(), n), b({256, 256}, ACL_INT8, y.data(), n),
      c({256, 256}, ACL_INT8, out.data(), n);
  ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
  Mp e;
  for (int64_t i = 0; i < n; ++i) {
    mp_selu_grad(e.v, dy[i], y[i]);
    ASSERT_EQ(out[i], mp_round_sat(e.v, -128, 127)) << "dy=" << int(dy[i]) << " y=" << int(y[i]);
  }
}

std::vector<int32_t> near_tie_dys(const char *factor) {
  // Continued-fraction convergents p/q of 2*factor: q*factor is then close to p/2, a half-integer
  // when p is odd. Also multiples and neighbours of those q.
  Mp x, fl, fr;
  mpfr_set_str(x.v, factor, 10, MPFR_RNDN);
  mpfr_mul_2ui(x.v, x.v, 1, MPFR_RNDN);
  std::vector<int64_t> q = {0, 1};  // q_{-1}, q_0 with a0
  std::vector<int32_t> out;
  for (int k = 0; k < 40; ++k) {
    mpfr_floor(fl.v, x.v);
    const int64_t a = mpfr_get_si(fl.v, MPFR_RNDN);
    const int64_t qn = a * q.back() + q[q.size() - 2];
    if (k > 0) {
      if (qn > std::numeric_limits<int32_t>::max()) break;
      q.push_back(qn);
    }
    mpfr_sub(fr.v, x.v, fl.v, MPFR_RNDN);
    if (mpfr_zero_p(fr.v)) break;
    mpfr_ui_div(x.v, 1, fr.v, MPFR_RNDN);
  }
  for (int64_t v : q)
    for (int64_t m : {1, 3})
      for (int64_t d : {-1, 0, 1}) {
        const int64_t c = v * m + d;
        if (c > 0 && c <= std::numeric_limits<int32_t>::max()) {
          out.push_back(static_cast<int32_t>(c));
          out.push_back(static_cast<int32_t>(-c));
        }
      }
  return out;
}

TEST(SeluBackwardAccuracy, Int32RandomAndNearTies_SELU_INT_1) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int32_t> any(std::numeric_limits<int32_t>::min(),
                                             std::numeric_limits<int32_t>::max());
  std::vector<int32_t> dy, y;
  for (int32_t d : near_tie_dys(kLambda)) {
    dy.push_back(d);
    y.push_back(static_cast<int32_t>(any(rng) & 0x7fffffff));  // y >= 0 branch
  }
  for (int32_t yv : {-1, -2, -3}) {  // y < 0 branch: factor y + lambda*alpha
    Mp f;
    mpfr_set_str(f.v, kLambdaAlpha, 10, MPFR_RNDN);
    mpfr_add_si(f.v, f.v, yv, MPFR_RNDN);
    char buf[128];
    mpfr_snprintf(buf, sizeof buf, "%.60Rf", f.v);
    for (int32_t d : near_tie_dys(buf[0] == '-' ? buf + 1 : buf)) {
      dy.push_back(d);
      y.push_back(yv);
    }
  }
  const size_t ties = dy.size();
  for (int i = 0; i < 200000; ++i) {
    dy.push_back(any(rng));
    const int32_t r = any(rng);
    y.push_back(i % 3 == 0 ? r : i % 3 == 1 ? r % 4 : -std::abs(r % 1000));
  }
  const int64_t n = static_cast<int64_t>(dy.size());
  std::vector<int32_t> out(n);
  Tensor a({n}, ACL_INT32, dy.data(), n), b({n}, ACL_INT32, y.data(), n),
      c({n}, ACL_INT32, out.data(), n);
  ASSERT_EQ(run(a, b, c), ACLNN_SUCCESS);
  Mp e, fr;
  double closest = 1;
  for (int64_t i = 0; i < n; ++i) {
    mp_selu_grad(e.v, dy[i], y[i]);
    ASSERT_EQ(out[i], mp_round_sat(e.v, INT32_MIN, INT32_MAX)) << "dy=" << dy[i] << " y=" << y[i];
    if (static_cast<size_t>(i) < ties) {  // how close to a tie the near-tie set came
      mpfr_frac(fr.v, e.v, MPFR_RNDN);
      mpfr_abs(fr.v, fr.v, MPFR_RNDN);
      closest = std::min(closest, std::fabs(mpfr_get_d(fr.v, MPFR_RNDN) - 0.5));
    }
  }
  std::printf("[ accuracy ] int32: %zu near-tie cases, closest |frac - 1/2| = %g\n", ties, closest);
  EXPECT_LT(closest, 1e-6);  // the set really contains hard cases
}

TEST(SeluBackward, ViewsAndInPlace_ABI_TENSOR_2_ABI_INPUT_1) {
  // Transposed gradOutput with an offset, zero-stride result (expanded), strided gradInput.
  std::vector<float> dys(20), ys(4), outs(40, -5.0f);
  for (int i = 0; i < 20; ++i) dys[i] = 0.25f * i - 2;
  ys = {-1.0f, 0.0f, 2.0f, -0.5f};
  Tensor dy({3, 4}, ACL_FLOAT, dys.data(), 20, {1, 3}, 2);     // (i,j) at 2 + i + 3j
  Tensor y({3, 4}, ACL_FLOAT, ys.data(), 4, {0, 1});           // (i,j) -> ys[j]
  Tensor out({3, 4}, ACL_FLOAT, outs.data(), 40, {12, 3}, 1);  // (i,j) at 1 + 12i + 3j
  ASSERT_EQ(run(dy, y, out), ACLNN_SUCCESS);
  std::vector<bool> touched(40);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const double d = dys[2 + i + 3 * j], yv = ys[j];
      const double ref = d * (yv >= 0 ? 1.0507009873554804934 : yv + 1.7580993408473768599);
      EXPECT_EQ(outs[1 + 12 * i + 3 * j], static_cast<float>(ref));
      touched[1 + 12 * i + 3 * j] = true;
    }
  for (int p = 0; p < 40; ++p)
    if (!touched[p]) EXPECT_EQ(outs[p], -5.0f) << p;
  // In-place on gradOutput and on result (INT32).
  std::vector<int32_t> d = {10, -7, 100000, 3}, r = {-1, 0, 5, -2}, expect(4);
  Tensor td({4}, ACL_INT32, d.data(), 4), tr({4}, ACL_INT32, r.data(), 4),
      te({4}, ACL_INT32, expect.data(), 4);
  ASSERT_EQ(run(td, tr, te), ACLNN_SUCCESS);
  EXPECT_EQ(expect, (std::vector<int32_t>{8, -7, 105070, -1}));  // 7.58, -7.35, 105070.1, -0.73
  std::vector<int32_t> d2 = d, r2 = r;
  Tensor td2({4}, ACL_INT32, d2.data(), 4), tr2({4}, ACL_INT32, r2.data(), 4);
  ASSERT_EQ(run(td2, tr, td2), ACLNN_SUCCESS);
  EXPECT_EQ(d2, expect);
  ASSERT_EQ(run(td, tr2, tr2), ACLNN_SUCCESS);
  EXPECT_EQ(r2, expect);
}

TEST(SeluBackward, ThreadCountDeterminism_VAL_DET_1) {
  const int64_t n = 400003;
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0, 2);
  std::vector<uint16_t> dy(n), y(n), o1(n), o2(n);
  for (int64_t i = 0; i < n; ++i) {
    dy[i] = double_to_half(nd(rng));
    y[i] = double_to_half(nd(rng));
  }
  Tensor a({n}, ACL_FLOAT16, dy.data(), n), b({n}, ACL_FLOAT16, y.data(), n),
      c1({n}, ACL_FLOAT16, o1.data(), n), c2({n}, ACL_FLOAT16, o2.data(), n);
  {
    ScopedEnv env("ACLNN_CPU_NUM_THREADS", "1");
    ASSERT_EQ(run(a, b, c1), ACLNN_SUCCESS);
  }
  {
    ScopedEnv env("ACLNN_CPU_NUM_THREADS", "2");
    ASSERT_EQ(run(a, b, c2), ACLNN_SUCCESS);
  }
  EXPECT_EQ(o1, o2);
}

}  // namespace
