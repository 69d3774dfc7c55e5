// aclnnLogitGrad through the ABI (spec logit_grad.md): every error clause, the two-phase rules,
// product gates, every value clause with exact expectations, and accuracy against an independent
// MPFR evaluation (exhaustive over fp16 and bf16 x, windows of consecutive fp32 values).
#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_logit_grad.h"
#include "impl/dtype.hpp"
#include "tests/support/abi_expect.hpp"
#include "tests/support/host_tensor.hpp"
#include "tests/support/scoped_env.hpp"

namespace {

using aclnn_cpu::double_to_bf16;
using aclnn_cpu::double_to_half;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Host tensors with canary storage: tests/support/host_tensor.hpp.
using HostTensor = aclnn_test::GuardedTensor;
using aclnn_test::all_canary;
using aclnn_test::errmsg;
using aclnn_test::make;
using aclnn_test::ScopedEnv;

aclnnStatus run(const aclTensor *x, const aclTensor *dy, double eps, const aclTensor *out,
                uint64_t *ws_out = nullptr) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const aclnnStatus s = aclnnLogitGradGetWorkspaceSize(x, dy, eps, out, &ws, &ex);
  if (ws_out) *ws_out = ws;
  if (s != ACLNN_SUCCESS) return s;
  std::vector<unsigned char> w(ws + 1);
  return aclnnLogitGrad(ws ? w.data() : nullptr, ws, ex, nullptr);
}

// Checks a failing phase one: code, canary, message naming `param`.
void expect_fail(aclnnStatus expected, const aclTensor *x, const aclTensor *dy, double eps,
                 const aclTensor *out, const HostTensor &out_storage, const std::string &param) {
  const aclnnStatus got = run(x, dy, eps, out);
  aclnn_test::expect_failure(got, expected, param, "", all_canary(out_storage));
}

// ---- the independent oracle (MPFR), following the spec's clause order -------------------------
struct Expect {
  bool is_value = false;  // false: `special` is the exact expected result (NaN, 0, +-inf)
  double special = 0;
};

// Classifies (x, dy, eps) by the clauses; if the formula applies with a finite nonzero
// denominator, is_value = true and q receives dy / (x (1 - x)) to 256 bits.
Expect oracle(double x, double dy, double eps, mpfr_t q) {
  Expect e;
  if (std::isnan(eps)) return {false, kNan};  // LOGIT-EPS-NAN-1
  if (eps == kInf) return {false, 0.0};       // LOGIT-EPS-INF-1
  if (eps > 1) return {false, kNan};          // LOGIT-EPS-GT1-1
  if (eps == 1) {                             // LOGIT-EPS-EQ1-1
    if (std::isnan(dy) || dy == 0) return {false, kNan};
    return {false, dy > 0 ? kInf : -kInf};
  }
  if (!std::isfinite(x)) return {false, kNan};  // LOGIT-X-NONFINITE-1
  bool inside;
  if (eps < 0) {
    inside = x >= 0 && x <= 1;
  } else {  // exact comparison of x with eps and 1 - eps
    mpfr_t hi;
    mpfr_init2(hi, 2200);
    mpfr_ui_sub(hi, 1, (mpfr_set_d(hi, eps, MPFR_RNDN), hi), MPFR_RNDN);  // exact at 2200 bits
    inside = x >= eps && mpfr_cmp_d(hi, x) >= 0;
    mpfr_clear(hi);
  }
  if (std::isnan(dy)) return {false, kNan};                               // LOGIT-DY-NONFINITE-1
  if (!inside) return {false, (eps < 0 || std::isinf(dy)) ? kNan : 0.0};  // DY-NONFINITE / VALUE-1
  if (x == 0 || x == 1) {                                                 // LOGIT-X01-1
    if (dy == 0) return {false, kNan};
    return {false, dy > 0 ? kInf : -kInf};
  }
  if (std::isinf(dy)) return {false, dy};  // inf / positive finite
  mpfr_t den;
  mpfr_init2(den, 256);
  mpfr_set_d(den, x, MPFR_RNDN);
  mpfr_ui_sub(den, 1, den, MPFR_RNDN);  // exact
  mpfr_mul_d(den, den, x, MPFR_RNDN);   // exact (<= 2 x 53 bits)
  mpfr_set_d(q, dy, MPFR_RNDN);
  mpfr_div(q, q, den, MPFR_RNDN);
  mpfr_clear(den);
  e.is_value = true;
  return e;
}

struct Format {
  int p;            // significand bits
  int emin;         // exponent of the smallest normal
  double overflow;  // exact values of this magnitude or more round to inf
};
Format format_of(aclDataType dt) {
  if (dt == ACL_FLOAT16) return {11, -14, 65520.0};
  if (dt == ACL_BF16) return {8, -126, 0x1.ffp127};
  return {24, -126, 0x1.ffffffp127};
}

// Error of got in ulps of the output format at the exact value q.
double ulp_error(const mpfr_t q, double got, aclDataType dt) {
  const Format f = format_of(dt);
  if (std::isnan(got)) return kInf;
  mpfr_t a;
  mpfr_init2(a, 256);
  mpfr_abs(a, q, MPFR_RNDN);
  const bool overflows = mpfr_cmp_d(a, f.overflow) >= 0;
  double err;
  if (overflows || std::isinf(got)) {
    err = (overflows && std::isinf(got) && (got > 0) == (mpfr_sgn(q) > 0)) ? 0.0 : kInf;
  } else {
    const long e = mpfr_zero_p(q) ? f.emin : std::max<long>(mpfr_get_exp(q) - 1, f.emin);
    mpfr_sub_d(a, q, got, MPFR_RNDN);
    mpfr_abs(a, a, MPFR_RNDN);
    mpfr_mul_2si(a, a, -(e - (f.p - 1)), MPFR_RNDN);
    err = mpfr_get_d(a, MPFR_RNDU);
  }
  mpfr_clear(a);
  return err;
}

bool same_special(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want;  // +0 == -0 (VAL-ZERO-1); infinities by sign
}

// Runs x/dy (same length, contiguous 1-D, rounded to dt as x and dy hold them) through the op
// into out (x, dy and out made here).
void run_values(aclDataType dt, const std::vector<double> &xs, const std::vector<double> &dys,
                double eps, HostTensor &x, HostTensor &dy, HostTensor &out) {
  const auto n = static_cast<int64_t>(xs.size());
  make(x, {n}, dt);
  make(dy, {n}, dt);
  make(out, {n}, dt);
  for (int64_t i = 0; i < n; ++i) {
    x.set(i, xs[i]);
    dy.set(i, dys[i]);
  }
  EXPECT_EQ(run(x.t, dy.t, eps, out.t), ACLNN_SUCCESS) << errmsg();
}

// run_values, then every element (as x and dy hold it) against the oracle; returns the maximum
// ulp error of the value cases.
double check_against_oracle(aclDataType dt, const std::vector<double> &xs,
                            const std::vector<double> &dys, double eps, int *failures) {
  const auto n = static_cast<int64_t>(xs.size());
  HostTensor x, dy, out;
  run_values(dt, xs, dys, eps, x, dy, out);
  mpfr_t q;
  mpfr_init2(q, 256);
  double max_err = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double xv = x.get(i), dv = dy.get(i), got = out.get(i);
    const Expect e = oracle(xv, dv, eps, q);
    if (!e.is_value) {
      if (!same_special(got, e.special) && (*failures)++ < 10)
        ADD_FAILURE() << "x=" << xv << " dy=" << dv << " eps=" << eps << ": got " << got
                      << ", want " << e.special;
      continue;
    }
    const double err = ulp_error(q, got, dt);
    max_err = std::max(max_err, err);
    const double bound = dt == ACL_FLOAT ? 2.0 : 1.0;  // VAL-TOL-1
    if (!(err <= bound) && (*failures)++ < 10)
      ADD_FAILURE() << "x=" << xv << " dy=" << dv << " eps=" << eps << ": got " << got << ", "
                    << err << " ulp from " << mpfr_get_d(q, MPFR_RNDN);
  }
  mpfr_clear(q);
  return max_err;
}

// ---- errors --------------------------------------------------------------------------------

struct Trio {
  HostTensor x, dy, out;
  explicit Trio(aclDataType dt = ACL_FLOAT, std::vector<int64_t> dims = {2, 3}) {
    make(x, dims, dt);
    make(dy, dims, dt);
    make(out, dims, dt);
    for (size_t i = 0; i < x.elems(); ++i) {
      x.set(i, 0.25);
      dy.set(i, 1.0);
    }
  }
};

TEST(LogitGrad, TwoPhase2NullOutputsAreCheckedFirst) {  // ABI-TWOPHASE-2
  Trio a;
  aclOpExecutor *ex = nullptr;
  uint64_t ws = 0;
  // Even with a NULL x, the NULL workspaceSize/executor is reported first.
  EXPECT_EQ(aclnnLogitGradGetWorkspaceSize(nullptr, a.dy.t, -1, a.out.t, nullptr, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("workspaceSize"), std::string::npos) << errmsg();
  EXPECT_EQ(aclnnLogitGradGetWorkspaceSize(a.x.t, a.dy.t, -1, a.out.t, &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("executor"), std::string::npos) << errmsg();
  EXPECT_TRUE(all_canary(a.out));
}

TEST(LogitGrad, TwoPhase3SecondCallChecks) {  // ABI-TWOPHASE-3
  Trio a;
  EXPECT_EQ(aclnnLogitGrad(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("executor"), std::string::npos);
  uint64_t ws = 1;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnLogitGradGetWorkspaceSize(a.x.t, a.dy.t, -1, a.out.t, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);  // elementwise: no workspace
  // workspaceSize > 0 with a NULL workspace.
  EXPECT_EQ(aclnnLogitGrad(nullptr, 64, ex, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(errmsg().find("workspace"), std::string::npos);
  EXPECT_TRUE(all_canary(a.out));
  // The executor is still usable after a rejected run.
  EXPECT_EQ(aclnnLogitGrad(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(a.out.get(0), static_cast<double>(1.0f / (0.25f * 0.75f)));
}

TEST(LogitGrad, TwoPhase4RunsOnceUnlessRepeatable) {  // ABI-TWOPHASE-4
  Trio a;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnLogitGradGetWorkspaceSize(a.x.t, a.dy.t, -1, a.out.t, &ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnLogitGrad(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnLogitGrad(nullptr, 0, ex, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_FALSE(errmsg().empty());

  Trio b;
  ASSERT_EQ(aclnnLogitGradGetWorkspaceSize(b.x.t, b.dy.t, -1, b.out.t, &ws, &ex), ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnLogitGrad(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  const double first = b.out.get(0);
  b.x.set(0, 0.5);  // the executor reads the data at run time
  EXPECT_EQ(aclnnLogitGrad(nullptr, 0, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(first, static_cast<double>(1.0f / (0.25f * 0.75f)));
  EXPECT_EQ(b.out.get(0), 4.0);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), ACLNN_SUCCESS);
}

TEST(LogitGrad, ProductGateTrainingAndInference) {  // ABI-SOC-1: A2/A3 only
  for (const char *soc : {"ascend910", "ascend310p"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    Trio a;
    expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, a.dy.t, -1, a.out.t, a.out, "not supported");
    EXPECT_NE(errmsg().find(std::string(soc)), std::string::npos) << errmsg();
  }
  for (const char *soc : {"ascend910b", "ascend910_93"}) {
    ScopedEnv env("ACLNN_CPU_SOC", soc);
    Trio a;
    EXPECT_EQ(run(a.x.t, a.dy.t, -1, a.out.t), ACLNN_SUCCESS) << soc;
  }
}

TEST(LogitGrad, Null1EachParameter) {  // LOGIT-NULL-1
  Trio a;
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, nullptr, a.dy.t, -1, a.out.t, a.out, "x");
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, a.x.t, nullptr, -1, a.out.t, a.out, "dy");
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, a.x.t, a.dy.t, -1, nullptr, a.out, "out");
  // Clause order: NULL before DTYPE.
  HostTensor bad;
  make(bad, {2, 3}, ACL_INT32);
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, bad.t, a.dy.t, -1, nullptr, a.out, "out");
}

TEST(LogitGrad, Dtype1) {  // LOGIT-DTYPE-1
  HostTensor i32, f64, f16, bf;
  make(i32, {2, 3}, ACL_INT32);
  make(f16, {2, 3}, ACL_FLOAT16);
  make(bf, {2, 3}, ACL_BF16);
  Trio a;
  expect_fail(ACLNN_ERR_PARAM_INVALID, i32.t, a.dy.t, -1, a.out.t, a.out, "x has dtype INT32");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, f16.t, -1, a.out.t, a.out, "dy has dtype FLOAT16");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, a.dy.t, -1, bf.t, a.out, "out has dtype BFLOAT16");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, a.dy.t, -1, i32.t, a.out, "out has dtype INT32");
  EXPECT_NE(errmsg().find("LOGIT-DTYPE-1"), std::string::npos);
  // DTYPE before SHAPE: dy with a wrong dtype and a wrong shape reports the dtype.
  HostTensor f16_other;
  make(f16_other, {3, 3}, ACL_FLOAT16);
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, f16_other.t, -1, a.out.t, a.out, "LOGIT-DTYPE-1");
}

TEST(LogitGrad, Shape1) {  // LOGIT-SHAPE-1 (the variant no-shape-check is not followed)
  Trio a;
  HostTensor dy2, out2, dy_b;
  make(dy2, {3, 2}, ACL_FLOAT);
  make(out2, {2, 3, 1}, ACL_FLOAT);
  make(dy_b, {1, 3}, ACL_FLOAT);  // broadcastable, still rejected
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, dy2.t, -1, a.out.t, a.out, "dy shape [3,2]");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, a.dy.t, -1, out2.t, out2, "out shape [2,3,1]");
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, dy_b.t, -1, a.out.t, a.out, "LOGIT-SHAPE-1");
}

TEST(LogitGrad, Rank1NineDimsRejectedEightAccepted) {  // LOGIT-RANK-1, ABI-RANK-1
  const std::vector<int64_t> d9(9, 1), d8 = {1, 2, 1, 2, 1, 2, 1, 2};
  Trio nine(ACL_FLOAT, d9);
  expect_fail(ACLNN_ERR_PARAM_INVALID, nine.x.t, nine.dy.t, -1, nine.out.t, nine.out,
              "x has rank 9");
  EXPECT_NE(errmsg().find("LOGIT-RANK-1"), std::string::npos);
  Trio eight(ACL_FLOAT, d8);
  ASSERT_EQ(run(eight.x.t, eight.dy.t, -1, eight.out.t), ACLNN_SUCCESS) << errmsg();
  for (int i = 0; i < 16; ++i) EXPECT_EQ(eight.out.get(i), static_cast<double>(1.0f / 0.1875f));
}

TEST(LogitGrad, Rank0Scalar) {  // ABI-RANK-1: rank 0
  Trio a(ACL_FLOAT16, {});
  ASSERT_EQ(run(a.x.t, a.dy.t, -1, a.out.t), ACLNN_SUCCESS) << errmsg();
  uint16_t got;
  std::memcpy(&got, a.out.storage.data(), 2);
  EXPECT_EQ(got, double_to_half(1.0 / 0.1875));  // 5.333.. rounded once to fp16
}

TEST(LogitGrad, ProjectChecksDataAndOutputOverlap) {  // check_data, ABI-INPUT-1
  Trio a;
  const int64_t dims[] = {2, 3}, st[] = {3, 1}, sd[] = {6};
  aclTensor *nodata = aclCreateTensor(dims, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sd, 1, nullptr);
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, nodata, a.dy.t, -1, a.out.t, a.out, "x has 6 elements");
  expect_fail(ACLNN_ERR_PARAM_NULLPTR, a.x.t, a.dy.t, -1, nodata, a.out, "out has 6 elements");
  aclDestroyTensor(nodata);
  // An output whose rows share elements (zero stride).
  HostTensor zero_out;
  make(zero_out, {2, 3}, ACL_FLOAT, {0, 1});
  expect_fail(ACLNN_ERR_PARAM_INVALID, a.x.t, a.dy.t, -1, zero_out.t, zero_out, "out");
  // An output that partially overlaps x (shifted by one element).
  const int64_t sd7[] = {7};
  aclTensor *shifted =
      aclCreateTensor(dims, 2, ACL_FLOAT, st, 1, ACL_FORMAT_ND, sd7, 1, a.x.storage.data());
  const std::vector<unsigned char> xcopy = a.x.storage;
  EXPECT_EQ(run(a.x.t, a.dy.t, -1, shifted), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(errmsg().find("out overlaps x"), std::string::npos) << errmsg();
  EXPECT_EQ(a.x.storage, xcopy);
  aclDestroyTensor(shifted);
}

TEST(LogitGrad, InPlaceOnXAndOnDy) {  // ABI-INPUT-1: out exactly x's or dy's view
  Trio a;
  a.x.set(1, 0.5);
  ASSERT_EQ(run(a.x.t, a.dy.t, -1, a.x.t), ACLNN_SUCCESS) << errmsg();
  EXPECT_EQ(a.x.get(0), static_cast<double>(1.0f / 0.1875f));
  EXPECT_EQ(a.x.get(1), 4.0);
  Trio b;
  b.dy.set(2, -2.0);
  ASSERT_EQ(run(b.x.t, b.dy.t, -1, b.dy.t), ACLNN_SUCCESS) << errmsg();
  EXPECT_EQ(b.dy.get(2), static_cast<double>(-2.0f / 0.1875f));
}

TEST(LogitGrad, Empty1SucceedsWritesNothing) {  // LOGIT-EMPTY-1, ABI-EMPTY-1
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    HostTensor x, dy, out;
    make(x, {0, 3}, dt);
    make(dy, {0, 3}, dt);
    make(out, {0, 3}, dt, {}, 0, 8);  // storage present, must stay untouched
    uint64_t ws = 99;
    EXPECT_EQ(run(x.t, dy.t, -1, out.t, &ws), ACLNN_SUCCESS) << errmsg();
    EXPECT_EQ(ws, 0u);
    EXPECT_TRUE(all_canary(out));
  }
  // Empty with NULL data is fine too.
  const int64_t dims[] = {4, 0}, st[] = {1, 1}, sd[] = {0};
  aclTensor *e = aclCreateTensor(dims, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sd, 1, nullptr);
  EXPECT_EQ(run(e, e, -1, e), ACLNN_SUCCESS) << errmsg();
  aclDestroyTensor(e);
}

// ---- value clauses, exact expectations ---------------------------------------------------------

struct Case {
  double x, dy, eps, want;
  const char *clause;
};

void check_cases(aclDataType dt, const std::vector<Case> &cases) {
  for (const Case &c : cases) {
    HostTensor x, dy, out;
    make(x, {1}, dt);
    make(dy, {1}, dt);
    make(out, {1}, dt);
    x.set(0, c.x);
    dy.set(0, c.dy);
    ASSERT_EQ(run(x.t, dy.t, c.eps, out.t), ACLNN_SUCCESS) << errmsg();
    const double got = out.get(0);
    EXPECT_TRUE(same_special(got, c.want))
        << c.clause << " dtype " << dt << ": x=" << c.x << " dy=" << c.dy << " eps=" << c.eps
        << " got " << got << " want " << c.want;
  }
}

const std::vector<Case> kClauseCases = {
    // LOGIT-EPS-NAN-1: every element NaN, even where x is in range or eps would zero it.
    {0.5, 1, kNan, kNan, "LOGIT-EPS-NAN-1"},
    {2.0, 1, kNan, kNan, "LOGIT-EPS-NAN-1"},
    {0.5, 0, kNan, kNan, "LOGIT-EPS-NAN-1"},
    // LOGIT-EPS-INF-1: every element 0, also for NaN x and NaN/inf dy.
    {0.5, 1, kInf, 0, "LOGIT-EPS-INF-1"},
    {kNan, 1, kInf, 0, "LOGIT-EPS-INF-1"},
    {0.5, kNan, kInf, 0, "LOGIT-EPS-INF-1"},
    {0.5, kInf, kInf, 0, "LOGIT-EPS-INF-1"},
    // LOGIT-EPS-GT1-1: every element NaN.
    {0.5, 1, 1.5, kNan, "LOGIT-EPS-GT1-1"},
    {-3, 1, 2, kNan, "LOGIT-EPS-GT1-1"},
    {0.5, 1, 1e300, kNan, "LOGIT-EPS-GT1-1"},
    // LOGIT-EPS-EQ1-1: dy / 0.
    {0.5, 2, 1, kInf, "LOGIT-EPS-EQ1-1"},
    {7, -2, 1, -kInf, "LOGIT-EPS-EQ1-1"},
    {kNan, 3, 1, kInf, "LOGIT-EPS-EQ1-1"},
    {0.5, 0, 1, kNan, "LOGIT-EPS-EQ1-1"},
    {0.5, kNan, 1, kNan, "LOGIT-EPS-EQ1-1"},
    {0.5, -kInf, 1, -kInf, "LOGIT-EPS-EQ1-1"},
    // LOGIT-X-NONFINITE-1: NaN, for eps < 0 and eps >= 0.
    {kNan, 1, -1, kNan, "LOGIT-X-NONFINITE-1"},
    {kNan, 1, 0.1, kNan, "LOGIT-X-NONFINITE-1"},
    {kInf, 1, 0.1, kNan, "LOGIT-X-NONFINITE-1"},
    {-kInf, 1, 0, kNan, "LOGIT-X-NONFINITE-1"},
    {kInf, 1, -1, kNan, "LOGIT-X-NONFINITE-1"},
    // LOGIT-DY-NONFINITE-1: NaN dy -> NaN; inf dy inside -> inf by IEEE, outside -> NaN.
    {0.5, kNan, -1, kNan, "LOGIT-DY-NONFINITE-1"},
    {0.5, kNan, 0.25, kNan, "LOGIT-DY-NONFINITE-1"},
    {0.9, kNan, 0.25, kNan, "LOGIT-DY-NONFINITE-1 (outside)"},
    {0.5, kInf, -1, kInf, "LOGIT-DY-NONFINITE-1"},
    {0.5, -kInf, 0.25, -kInf, "LOGIT-DY-NONFINITE-1"},
    {0.0, kInf, -1, kInf, "LOGIT-DY-NONFINITE-1 (x = 0)"},
    {1.0, -kInf, 0, -kInf, "LOGIT-DY-NONFINITE-1 (x = 1)"},
    {0.9, kInf, 0.25, kNan, "LOGIT-DY-NONFINITE-1 (outside, eps >= 0)"},
    {1.5, -kInf, -1, kNan, "LOGIT-DY-NONFINITE-1 (outside, eps < 0)"},
    // LOGIT-VALUE-1: eps < 0: outside [0, 1] NaN; eps >= 0: outside [eps, 1 - eps] 0.
    {1.5, 1, -1, kNan, "LOGIT-VALUE-1"},
    {-0.25, 1, -1, kNan, "LOGIT-VALUE-1"},
    {-0.25, 1, -kInf, kNan, "LOGIT-VALUE-1 (eps = -inf)"},
    {0.5, 1, -kInf, 4, "LOGIT-VALUE-1 (eps = -inf)"},
    {0.5, 3, -1, 12, "LOGIT-VALUE-1"},
    {0.25, 3, 0.25, 16, "LOGIT-VALUE-1 (x = eps inside)"},
    {0.75, 3, 0.25, 16, "LOGIT-VALUE-1 (x = 1 - eps inside)"},
    {0.125, 3, 0.25, 0, "LOGIT-VALUE-1 (x < eps)"},
    {0.875, 3, 0.25, 0, "LOGIT-VALUE-1 (x > 1 - eps)"},
    {1.5, 1, 0, 0, "LOGIT-VALUE-1 (eps = 0)"},
    {-0.5, 1, 0, 0, "LOGIT-VALUE-1 (eps = 0)"},
    {0.5, 1, 0.75, 0, "LOGIT-VALUE-1 (eps > 0.5: empty range)"},
    {0.5, 1, 0.5, 4, "LOGIT-VALUE-1 (eps = 0.5: x = 0.5 inside)"},
    {0.5, 0, -1, 0, "LOGIT-VALUE-1 (dy = 0)"},
    // LOGIT-X01-1: x = 0 or 1 inside the range: dy / 0.
    {0.0, 2, -1, kInf, "LOGIT-X01-1"},
    {1.0, 2, -1, kInf, "LOGIT-X01-1"},
    {0.0, -2, 0, -kInf, "LOGIT-X01-1"},
    {1.0, -2, 0, -kInf, "LOGIT-X01-1"},
    {-0.0, 2, -1, kInf, "LOGIT-X01-1 (x = -0)"},
    {0.0, 0, -1, kNan, "LOGIT-X01-1 (dy = 0)"},
    {1.0, -0.0, 0, kNan, "LOGIT-X01-1 (dy = -0)"},
    {0.0, 2, 0.1, 0, "LOGIT-X01-1 does not apply outside the range"},
};

TEST(LogitGrad, ValueClausesFp32) {
  check_cases(ACL_FLOAT, kClauseCases);
}
TEST(LogitGrad, ValueClausesFp16) {
  check_cases(ACL_FLOAT16, kClauseCases);
}
TEST(LogitGrad, ValueClausesBf16) {
  check_cases(ACL_BF16, kClauseCases);
}

TEST(LogitGrad, Value1EpsComparedExactlyAsDouble) {  // LOGIT-VALUE-1: exact eps comparison
  // eps = 0.1 (double) lies above 0.1f's neighbour below and below 0.1f? 0.1f > 0.1, so x = 0.1f
  // is inside [0.1, 0.9]; the float just below 0.1 is outside.
  const float f = 0.1f;
  ASSERT_GT(static_cast<double>(f), 0.1);
  const float below = std::nextafter(f, 0.0f);
  const float upper = 0.9f;  // 0.9f < 0.9 = 1 - 0.1 rounded... compare exactly
  std::vector<Case> cases = {
      {f, 1, 0.1, static_cast<double>(static_cast<float>(1.0 / (double(f) * (1 - double(f))))),
       "x = 0.1f >= eps"},
      {below, 1, 0.1, 0, "x just below eps"},
  };
  // 1 - 0.1 exactly is 0.9000000000000000055...; 0.9f = 0.89999997...: inside; the float above
  // 0.9f is 0.90000004 > 1 - eps: outside.
  const float above = std::nextafter(upper, 1.0f);
  cases.push_back(
      {upper, 1, 0.1,
       static_cast<double>(static_cast<float>(1.0 / (double(upper) * (1 - double(upper))))),
       "x = 0.9f <= 1 - eps"});
  cases.push_back({above, 1, 0.1, 0, "x above 1 - eps"});
  // A tiny eps: 1 - 2^-60 is not a double; x = 1 - 2^-24 (a float) is inside, x = 1 is not.
  cases.push_back({1.0, 1, 0x1p-60, 0, "x = 1 > 1 - 2^-60"});
  cases.push_back({0x1p-61, 1, 0x1p-60, 0, "x = 2^-61 < eps"});
  check_cases(ACL_FLOAT, cases);
}

TEST(LogitGrad, StridedZeroStrideAndOffsetViews) {  // ABI-TENSOR-2, ABI-INPUT-1
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    // x: a transposed [3, 4] view of a 4x3 storage, with offset 2.
    HostTensor x, dy, out;
    make(x, {3, 4}, dt, {1, 3}, 2, 14);
    // dy: rows expanded (zero stride on dim 0).
    make(dy, {3, 4}, dt, {0, 1}, 1, 5);
    // out: every other column of a [3, 9] storage, offset 1.
    make(out, {3, 4}, dt, {9, 2}, 1, 27);
    for (int i = 0; i < 14; ++i) x.set(i, (i + 0.5) / 16.0);
    for (int i = 0; i < 5; ++i) dy.set(i, i - 1.75);
    const std::vector<unsigned char> before = out.storage;
    ASSERT_EQ(run(x.t, dy.t, -1, out.t), ACLNN_SUCCESS) << errmsg();
    std::vector<bool> touched(out.storage.size() / aclnn_test::element_size(dt) + 1, false);
    mpfr_t q;
    mpfr_init2(q, 256);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        const double xv = x.get(2 + i + 3 * j), dv = dy.get(1 + j);
        const int oi = 1 + 9 * i + 2 * j;
        touched[oi] = true;
        const Expect e = oracle(xv, dv, -1, q);
        ASSERT_TRUE(e.is_value);
        EXPECT_LE(ulp_error(q, out.get(oi), dt), dt == ACL_FLOAT ? 2.0 : 1.0);
      }
    mpfr_clear(q);
    const size_t es = aclnn_test::element_size(dt);
    for (size_t b = 0; b < out.storage.size(); ++b) {
      if (b / es >= touched.size() || !touched[b / es]) {
        ASSERT_EQ(out.storage[b], before[b]) << "storage byte " << b << " around the view changed";
      }
    }
  }
}

TEST(LogitGrad, ThreadCountDoesNotChangeResults) {  // VAL-DET-1
  const int64_t n = 300001;
  std::vector<std::vector<unsigned char>> results;
  for (const char *threads : {"1", "2", "3"}) {
    ScopedEnv env("ACLNN_CPU_NUM_THREADS", threads);
    HostTensor x, dy, out;
    make(x, {n}, ACL_BF16);
    make(dy, {n}, ACL_BF16);
    make(out, {n}, ACL_BF16);
    for (int64_t i = 0; i < n; ++i) {
      x.set(i, std::fmod(i * 0.000123, 1.2) - 0.1);
      dy.set(i, std::sin(static_cast<double>(i)));
    }
    ASSERT_EQ(run(x.t, dy.t, 0.01, out.t), ACLNN_SUCCESS);
    results.push_back(out.storage);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

// ---- accuracy against MPFR (VAL-EXACT-1, VAL-TOL-1) ------------------------------------------

std::vector<double> all_16bit(aclDataType dt) {
  std::vector<double> v(65536);
  for (uint32_t b = 0; b < 65536; ++b)
    v[b] = dt == ACL_FLOAT16 ? aclnn_cpu::half_to_float(static_cast<uint16_t>(b))
                             : aclnn_cpu::bf16_to_float(static_cast<uint16_t>(b));
  return v;
}

void exhaustive_16bit(aclDataType dt) {
  const std::vector<double> xs = all_16bit(dt);
  int failures = 0;
  double max_err = 0;
  for (double dy : {1.0, -0.3, 1000.0, 0x1p-24, -65504.0}) {
    const std::vector<double> dys(xs.size(), dy);
    for (double eps : {-1.0, 0.0, 1e-3, 0.25, 0.4999}) {
      max_err = std::max(max_err, check_against_oracle(dt, xs, dys, eps, &failures));
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_LE(max_err, 1.0);  // VAL-TOL-1
  // Design bound: one rounding from a float within 3 * 2^-24 (relative) of the exact value, i.e.
  // at most 3 * 2^-13 ulp of fp16 (2^-16 of bf16) beyond the half ulp.
  EXPECT_LE(max_err, 0.5 + 3 * 0x1p-13);
  ::testing::Test::RecordProperty("max_ulp", std::to_string(max_err));
}

TEST(LogitGrad, AccuracyExhaustiveFp16) {
  exhaustive_16bit(ACL_FLOAT16);
}
TEST(LogitGrad, AccuracyExhaustiveBf16) {
  exhaustive_16bit(ACL_BF16);
}

// Windows of 2048 consecutive fp32 values centred on c.
std::vector<double> fp32_window(float c) {
  std::vector<double> v;
  float lo = c;
  for (int i = 0; i < 1024; ++i) lo = std::nextafter(lo, -INFINITY);
  for (int i = 0; i < 2048; ++i, lo = std::nextafter(lo, INFINITY)) v.push_back(lo);
  return v;
}

TEST(LogitGrad, AccuracyFp32WindowsNear0EpsAnd1) {
  int failures = 0;
  double max_err = 0;
  const double epsilons[] = {-1.0, 0.0, 1e-3, static_cast<double>(1e-3f), 0x1p-140};
  for (double eps : epsilons) {
    std::vector<float> centres = {0.0f, 1.0f, 0.5f, 0x1p-126f};
    if (eps > 0) {
      centres.push_back(static_cast<float>(eps));
      centres.push_back(static_cast<float>(1.0 - eps));
    }
    for (float c : centres) {
      const std::vector<double> xs = fp32_window(c);
      for (double dy : {1.0, -7.25, 3e38, 1e-40, 0x1p-149}) {
        const std::vector<double> dys(xs.size(), dy);
        max_err = std::max(max_err, check_against_oracle(ACL_FLOAT, xs, dys, eps, &failures));
      }
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_LE(max_err, 2.0);  // VAL-TOL-1
  EXPECT_LE(max_err, 1.5);  // the float path's bound (docs/kernels.md#logitgrad)
}

// FLOAT over its range: x spread over its binades in (0, 1) and near 1, and near 2^-40; dy over
// [2^-45, 2^45], at 2^-40 and 2^40 (one float either side) and +-0; each length also shifted so
// that the lanes meet other neighbours. Within the float path's 1.5 ulp; a zero dy gives a zero
// of its sign (the oracle's distance cannot see a zero's sign). The edges are those of a float path
// with a correction that was tried (docs/kernels.md#logitgrad): a kernel that sends some lanes
// elsewhere must keep both properties whatever the lane's neighbours.
TEST(LogitGrad, AccuracyFp32SpreadEdgesAndSignedZeros) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> xs, dys;
  const float dy_edges[] = {0x1p-40f, 0x1p40f};
  for (int i = 0; i < 60000; ++i) {
    const double xr = unit(rng);
    float x =
        i % 3 == 0 ? static_cast<float>(std::ldexp(1.0 + xr, -static_cast<int>(rng() % 45) - 1))
        : i % 3 == 1
            ? static_cast<float>(1.0 - std::ldexp(1.0 + xr, -static_cast<int>(rng() % 24) - 2))
            : static_cast<float>(xr);
    if (i % 97 == 0) x = std::nextafter(0x1p-40f, (rng() % 2) ? 1.0f : 0.0f);
    float dy = static_cast<float>(std::ldexp(1.0 + unit(rng), static_cast<int>(rng() % 91) - 45));
    if (i % 11 == 0) {
      dy = dy_edges[rng() % 2];
      const int step = static_cast<int>(rng() % 3) - 1;  // one float below, at, above the edge
      if (step != 0) dy = std::nextafter(dy, step < 0 ? 0.0f : INFINITY);
    }
    if (i % 13 == 0) dy = 0.0f;
    if (rng() % 2) dy = -dy;
    xs.push_back(x);
    dys.push_back(dy);
  }
  int failures = 0;
  double max_err = 0;
  for (const double eps : {-1.0, 0.0, 1e-6}) {
    max_err = std::max(max_err, check_against_oracle(ACL_FLOAT, xs, dys, eps, &failures));
    const std::vector<double> sx(xs.begin(), xs.end() - 5), sdy(dys.begin() + 5, dys.end());
    max_err = std::max(max_err, check_against_oracle(ACL_FLOAT, sx, sdy, eps, &failures));
  }
  EXPECT_EQ(failures, 0);
  EXPECT_LE(max_err, 1.5);
  ::testing::Test::RecordProperty("max_ulp", std::to_string(max_err));
  // dy = +-0 inside the range: a zero with dy's sign, as dy / (x (1 - x)) gives it (the oracle's
  // distance cannot see a zero's sign), whichever path the lane's neighbours take.
  const auto n = static_cast<int64_t>(xs.size());
  std::vector<double> zeros(xs.size());
  for (int64_t i = 0; i < n; ++i) zeros[i] = i % 2 ? 0.0 : -0.0;
  HostTensor x, dy, out;
  run_values(ACL_FLOAT, xs, zeros, -1.0, x, dy, out);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_TRUE(out.get(i) == 0.0 && std::signbit(out.get(i)) == (i % 2 == 0))
        << "x=" << xs[i] << " dy=" << (i % 2 ? "+0" : "-0") << " gave " << out.get(i);
}

// FLOAT quotients at float's overflow threshold (2^128 (1 - 2^-25)): dy near FLT_MAX x (1 - x),
// a few floats either side of it and of x, over x's range. There the float path's quotient, a
// rounding of a rounded x (1 - x), could land on the other side of the threshold than the exact
// value; its lanes with a quotient of 2^127 or more are evaluated in double
// (docs/kernels.md#logitgrad). An infinity where the exact value rounds to FLT_MAX (or the reverse)
// fails as an infinite error.
TEST(LogitGrad, AccuracyFp32AtTheOverflowThreshold) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> xs, dys;
  for (int i = 0; i < 20000; ++i) {
    float x = static_cast<float>(std::ldexp(1.0 + unit(rng), -static_cast<int>(rng() % 40) - 1));
    if (i % 2) x = 1.0f - x;
    float dy = static_cast<float>(static_cast<double>(FLT_MAX) * x * (1.0 - x));
    for (int k = static_cast<int>(rng() % 7) - 3; k != 0; k += k < 0 ? 1 : -1)
      dy = std::nextafter(dy, k < 0 ? 0.0f : INFINITY);
    for (int k = static_cast<int>(rng() % 5) - 2; k != 0; k += k < 0 ? 1 : -1)
      x = std::nextafter(x, k < 0 ? 0.0f : 1.0f);
    xs.push_back(x);
    dys.push_back(rng() % 2 ? -dy : dy);
  }
  int failures = 0;
  double max_err = 0;
  for (const double eps : {-1.0, 0.0})
    max_err = std::max(max_err, check_against_oracle(ACL_FLOAT, xs, dys, eps, &failures));
  EXPECT_EQ(failures, 0);
  EXPECT_LE(max_err, 1.5);
}

}  // namespace
