// LogitGrad oracle: values against an independent plain-MPFR evaluation (1024-bit quotient,
// exact range comparisons in MPFR) rounded by MPFR's IEEE emulation, clause tables, variants,
// ties, statuses.
#include <gtest/gtest.h>

#include <cstdint>

#include "independent_rounding.hpp"
// clang-format off
#include <mpfr.h>
// clang-format on

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "reference/dtype.hpp"
#include "reference/exact.hpp"
#include "reference/host_tensor.hpp"
#include "reference/logit_grad.hpp"
#include "reference/spec.hpp"

namespace {
using aclnn_ref::DType;
using aclnn_ref::VariantSet;

using independent::ieee_round;
using independent::M;

// The value of record, restated from logit_grad.md independently of the oracle's code.
uint64_t plain(double dy, double x, double eps, DType t) {
  M r;
  const double nan = std::nan("");
  auto dbl = [&](double v) {
    mpfr_set_d(r.v, v, MPFR_RNDN);
    return ieee_round(r.v, t);
  };
  auto div0 = [&]() { return dbl(std::isnan(dy) || dy == 0 ? nan : std::copysign(INFINITY, dy)); };
  if (std::isnan(eps)) return dbl(nan);                 // EPS-NAN-1
  if (std::isinf(eps) && eps > 0) return dbl(0.0);      // EPS-INF-1
  if (eps > 1) return dbl(nan);                         // EPS-GT1-1
  if (eps == 1) return div0();                          // EPS-EQ1-1
  if (std::isnan(x) || std::isinf(x)) return dbl(nan);  // X-NONFINITE-1
  // range, compared exactly in MPFR
  M X, E, one_m;
  mpfr_set_d(X.v, x, MPFR_RNDN);
  mpfr_set_d(E.v, eps, MPFR_RNDN);
  mpfr_ui_sub(one_m.v, 1, E.v, MPFR_RNDN);  // exact at 1024 bits for |eps| <= 1, eps double
  bool inside;
  if (eps < 0)
    inside = mpfr_cmp_ui(X.v, 0) >= 0 && mpfr_cmp_ui(X.v, 1) <= 0;
  else
    inside = mpfr_cmp(X.v, E.v) >= 0 && mpfr_cmp(X.v, one_m.v) <= 0;
  if (std::isnan(dy)) return dbl(nan);  // DY-NONFINITE-1
  if (std::isinf(dy) && !inside) return dbl(nan);
  if (!inside) return dbl(eps < 0 ? nan : 0.0);  // VALUE-1
  if (x == 0 || x == 1) return div0();           // X01-1
  M D, den, om;
  mpfr_set_d(D.v, dy, MPFR_RNDN);
  mpfr_ui_sub(om.v, 1, X.v, MPFR_RNDN);
  mpfr_mul(den.v, X.v, om.v, MPFR_RNDN);
  mpfr_div(r.v, D.v, den.v, MPFR_RNDN);
  return ieee_round(r.v, t);
}

const double kDys[] = {1.0, -3.0, 0x1p-10, 1000.0};
const double kEps[] = {-1.0, 0.0, 1e-6, 0.25, 0.5};

void exhaustive(DType t, unsigned stride) {
  for (uint32_t b = 0; b < 65536; b += stride) {
    const uint16_t h = static_cast<uint16_t>(b);
    const double x = aclnn_ref::decode(&h, t);
    for (double eps : kEps)
      for (double dy : kDys)
        ASSERT_EQ(aclnn_ref::logit_grad_element(dy, x, eps, t), plain(dy, x, eps, t))
            << aclnn_ref::dtype_name(t) << " x=" << x << " dy=" << dy << " eps=" << eps;
    // as dy, with a few x
    for (double xx : {0.5, 0.25, 1e-3, 0.999})
      ASSERT_EQ(aclnn_ref::logit_grad_element(x, xx, -1.0, t), plain(x, xx, -1.0, t))
          << aclnn_ref::dtype_name(t) << " dy=" << x << " x=" << xx;
  }
}

TEST(LogitGrad, ExhaustiveFp16) {
  exhaustive(DType::kFloat16, 1);
}
TEST(LogitGrad, ExhaustiveBf16) {
  exhaustive(DType::kBFloat16, 1);
}

// fp32 near 0 and 1 (the largest quotients) and random; the fast pass agrees with the exact one.
TEST(LogitGrad, Fp32AgainstPlainAndFastPassAgreesWithExact) {
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 30000; ++i) {
    float x;
    const uint32_t b = bits(rng);
    switch (i % 3) {
      case 0:
        x = std::ldexp(1.0f + static_cast<float>(b % 1000) / 1000.f, -static_cast<int>(b % 149));
        break;
      case 1:
        x = 1.0f - std::ldexp(static_cast<float>(b % 4096) + 1, -24 - static_cast<int>(b % 3));
        break;
      default:
        x = static_cast<float>(b) / 4294967296.0f;
        break;
    }
    uint32_t db = bits(rng) & 0xbfffffffu;
    float dy;
    std::memcpy(&dy, &db, 4);
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      const double eps = i % 2 ? -1.0 : 1e-30;
      const uint64_t got = aclnn_ref::logit_grad_element(dy, x, eps, t);
      ASSERT_EQ(got, plain(dy, x, eps, t)) << x << " " << dy;
      ASSERT_EQ(got, aclnn_ref::logit_detail::element_exact_only(dy, x, eps, t)) << x << " " << dy;
    }
  }
}

// Ties are rounded exactly: dy / (x (1-x)) = 4 dy at x = 1/2, with dy an fp32 value that is an
// fp16 or bf16 midpoint.
TEST(LogitGrad, ExactTiesRoundToEven) {
  // 2049 * 4 = 8196: fp16 neighbours 8192 (even) and 8200
  EXPECT_EQ(aclnn_ref::logit_grad_element(2049.0, 0.5, -1.0, DType::kFloat16), 0x7000u);
  // 2051 * 4 = 8204: neighbours 8200 (odd mantissa) and 8208 (even)
  EXPECT_EQ(aclnn_ref::logit_grad_element(2051.0, 0.5, -1.0, DType::kFloat16), 0x7002u);
  // bf16: 257 * 4 = 1028, neighbours 1024 (even) and 1032
  EXPECT_EQ(aclnn_ref::logit_grad_element(257.0, 0.5, -1.0, DType::kBFloat16), 0x4480u);
  // subnormal fp16 tie: 2^-27 / (1/4) = 2^-25 = half the smallest subnormal -> +0
  EXPECT_EQ(aclnn_ref::logit_grad_element(0x1p-27, 0.5, -1.0, DType::kFloat16), 0x0000u);
  EXPECT_EQ(aclnn_ref::logit_grad_element(0x3p-27, 0.5, -1.0, DType::kFloat16), 0x0002u);
  // x = 1/4: x (1-x) = 3/16, dy = 3 * 2049 -> 16 * 2049 = 32784, a fp16 tie (32768 | 32800)
  EXPECT_EQ(aclnn_ref::logit_grad_element(3.0 * 2049, 0.25, -1.0, DType::kFloat16), 0x7800u);
  // and each checked against the plain evaluation
  for (double dy : {2049.0, 2051.0, 0x1p-27, 0x3p-27})
    EXPECT_EQ(aclnn_ref::logit_grad_element(dy, 0.5, -1.0, DType::kFloat16),
              plain(dy, 0.5, -1.0, DType::kFloat16));
}

// The oracle's quotient rounding (round to odd, then RNE) on quotients within 2^-200 of a
// midpoint, where a truncated or nearest 160-bit quotient would land exactly on the midpoint.
TEST(LogitGrad, QuotientRoundingNearMidpoints) {
  for (int den : {1, 3, 7}) {
    for (int s : {-1, 1}) {
      M num(400), d(64);
      mpfr_set_d(num.v, 1.0 + 0x1p-11, MPFR_RNDN);  // fp16 midpoint between 1 and 1 + 2^-10
      mpfr_mul_ui(num.v, num.v, den, MPFR_RNDN);
      M tiny(64);
      mpfr_set_si_2exp(tiny.v, s, -200, MPFR_RNDN);
      mpfr_add(num.v, num.v, tiny.v, MPFR_RNDN);  // exact at 400 bits
      mpfr_set_ui(d.v, den, MPFR_RNDN);
      const uint64_t got = aclnn_ref::exact::round_ratio_exact(num.v, d.v, DType::kFloat16);
      EXPECT_EQ(got, s > 0 ? 0x3c01u : 0x3c00u) << den << " " << s;
      M q(1024);
      mpfr_div(q.v, num.v, d.v, MPFR_RNDN);
      EXPECT_EQ(got, ieee_round(q.v, DType::kFloat16));
    }
  }
}

TEST(LogitGrad, ClauseTableAndVariants) {
  const double inf = INFINITY, nan = std::nan("");
  const DType F = DType::kFloat32;
  const uint32_t NaN = 0x7fc00000u, PInf = 0x7f800000u, NInf = 0xff800000u, Z = 0u;
  const auto e = [](double dy, double x, double eps, const VariantSet &v = {}) {
    return aclnn_ref::logit_grad_element(dy, x, eps, DType::kFloat32, v);
  };
  const VariantSet rr{"range-rule"}, kn{"kernel-nan-x"};
  // EPS-NAN-1, EPS-INF-1, EPS-GT1-1, EPS-EQ1-1
  EXPECT_EQ(e(1, 0.5, nan), NaN);
  EXPECT_EQ(e(1, 0.5, inf), Z);
  EXPECT_EQ(e(1, 0.5, 2.0), NaN);
  EXPECT_EQ(e(1, 0.5, 1.0000001), NaN);
  EXPECT_EQ(e(2, 0.5, 1.0), PInf);
  EXPECT_EQ(e(-2, 0.5, 1.0), NInf);
  EXPECT_EQ(e(0, 0.5, 1.0), NaN);
  EXPECT_EQ(e(nan, 0.5, 1.0), NaN);
  EXPECT_EQ(e(-2, nan, 1.0), NInf);  // EPS-EQ1-1 comes before X-NONFINITE-1
  // X-NONFINITE-1
  EXPECT_EQ(e(1, nan, 0.1), NaN);
  EXPECT_EQ(e(1, inf, 0.1), NaN);
  EXPECT_EQ(e(1, -inf, -1.0), NaN);
  // DY-NONFINITE-1
  EXPECT_EQ(e(nan, 0.5, -1.0), NaN);
  EXPECT_EQ(e(nan, 0.9, 0.25), NaN);  // outside, still NaN
  EXPECT_EQ(e(inf, 0.5, -1.0), PInf);
  EXPECT_EQ(e(-inf, 0.5, 0.25), NInf);
  EXPECT_EQ(e(inf, 0.9, 0.25), NaN);   // outside
  EXPECT_EQ(e(-inf, 2.0, -1.0), NaN);  // outside
  EXPECT_EQ(e(inf, 0.0, -1.0), PInf);  // inside, x = 0: inf / 0
  // VALUE-1 general rule, exact double comparison
  EXPECT_EQ(e(1, 1.5, -1.0), NaN);
  EXPECT_EQ(e(1, -0.5, -0.5), NaN);
  EXPECT_EQ(e(1, 0.9, 0.25), Z);
  EXPECT_EQ(e(1, 0.1, 0.25), Z);
  EXPECT_EQ(e(1, 0.25, 0.25), aclnn_ref::logit_grad_element(1, 0.25, -1.0, F));  // x = eps inside
  EXPECT_EQ(e(1, 0.75, 0.25), aclnn_ref::logit_grad_element(1, 0.75, -1.0, F));  // x = 1 - eps
  EXPECT_EQ(e(1, 0.5, 0.5), 0x40800000u);  // eps = 1/2: only x = 1/2 is inside: 4
  EXPECT_EQ(e(1, 0.6, 0.5), Z);
  // 1 - eps inexact in double: x = 1 - 2^-24 (fp32) with eps = 2^-24 + 2^-60: outside
  EXPECT_EQ(e(1, 1.0 - 0x1p-24, 0x1p-24 + 0x1p-60), Z);
  EXPECT_NE(e(1, 1.0 - 0x1p-24, 0x1p-24), Z);
  // X01-1 (eps <= 0): x = 0 or 1 gives dy / 0
  EXPECT_EQ(e(3, 0.0, -1.0), PInf);
  EXPECT_EQ(e(-3, 1.0, 0.0), NInf);
  EXPECT_EQ(e(0, 1.0, -1.0), NaN);
  EXPECT_EQ(e(-0.0, 0.0, 0.0), NaN);
  // value: dy / (x (1-x)) once rounded, signs
  EXPECT_EQ(e(-1, 0.5, -1.0), 0xc0800000u);
  EXPECT_EQ(e(-0.0, 0.5, -1.0), 0x80000000u);
  // range-rule: the general rule alone
  EXPECT_EQ(e(1, 0.5, 2.0, rr), Z);
  EXPECT_EQ(e(1, 0.5, 1.0, rr), Z);
  EXPECT_EQ(e(1, 0.5, 0.6, rr), Z);
  EXPECT_EQ(e(1, 0.5, inf, rr), Z);
  EXPECT_EQ(e(1, inf, 0.1, rr), Z);
  EXPECT_EQ(e(1, -inf, 0.0, rr), Z);
  EXPECT_EQ(e(1, inf, -1.0, rr), NaN);
  EXPECT_EQ(e(1, nan, 0.1, rr), NaN);  // NaN x is still NaN
  EXPECT_EQ(e(nan, 0.9, 0.25, rr), Z);
  EXPECT_EQ(e(nan, 2.0, -1.0, rr), NaN);
  EXPECT_EQ(e(inf, 0.9, 0.25, rr), Z);
  EXPECT_EQ(e(nan, 0.5, 0.25, rr), NaN);
  EXPECT_EQ(e(1, 0.5, nan, rr), NaN);  // EPS-NAN-1 is not part of range-rule
  // kernel-nan-x
  EXPECT_EQ(e(1, nan, 0.1, kn), Z);
  EXPECT_EQ(e(1, nan, 0.0, kn), Z);
  EXPECT_EQ(e(1, nan, -1.0, kn), NaN);
  EXPECT_EQ(e(1, 0.5, nan, kn), 0x40800000u);  // NaN eps as eps < 0
  EXPECT_EQ(e(1, 1.5, nan, kn), NaN);
  EXPECT_EQ(e(1, nan, nan, kn), NaN);
  EXPECT_EQ(aclnn_ref::logit_grad_variants().size(), 3u);
}

struct T {
  aclnn_ref::HostTensor h;
  aclnn_ref::TensorView v;
  T(DType d, std::vector<int64_t> s) : h(d, std::move(s)), v(h.view()) {}
};

TEST(LogitGrad, StatusClausesAndOrder) {
  using aclnn_ref::Product;
  namespace st = aclnn_ref::status;
  auto chk = [](const aclnn_ref::LogitGradCall &c, const VariantSet &vs = {}) {
    return aclnn_ref::logit_grad_check(c, vs);
  };
  T a(DType::kFloat32, {2, 3}), b(DType::kFloat32, {2, 3}), o(DType::kFloat32, {2, 3});
  T f16(DType::kFloat16, {2, 3}), i32(DType::kInt32, {2, 3}), s32(DType::kFloat32, {3, 2});
  T r9(DType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 1}), r0(DType::kFloat32, {});
  EXPECT_TRUE(chk({&a.v, &b.v, -1.0, &o.v}).ok());
  EXPECT_TRUE(chk({&a.v, &b.v, -1.0, &o.v, Product::kAtlasA3}).ok());
  EXPECT_EQ(chk({&a.v, &b.v, -1.0, &o.v, Product::kAtlasTraining}).clause, "ABI-SOC-1");
  EXPECT_EQ(chk({nullptr, &b.v, -1.0, &o.v, Product::kAtlasInference}).clause, "ABI-SOC-1");
  EXPECT_EQ(chk({&a.v, nullptr, -1.0, &o.v}).clause, "LOGIT-NULL-1");
  EXPECT_EQ(chk({&a.v, &b.v, -1.0, nullptr}).status, st::kNullptr);
  EXPECT_EQ(chk({&i32.v, &i32.v, -1.0, &i32.v}).clause, "LOGIT-DTYPE-1");
  EXPECT_EQ(chk({&a.v, &f16.v, -1.0, &o.v}).clause, "LOGIT-DTYPE-1");
  EXPECT_EQ(chk({&a.v, &b.v, -1.0, &s32.v}).clause, "LOGIT-SHAPE-1");
  EXPECT_TRUE(chk({&a.v, &b.v, -1.0, &s32.v}, {"no-shape-check"}).ok());
  EXPECT_EQ(chk({&r9.v, &r9.v, -1.0, &r9.v}).clause, "LOGIT-RANK-1");
  EXPECT_TRUE(chk({&r0.v, &r0.v, -1.0, &r0.v}).ok());
  // order
  EXPECT_EQ(chk({nullptr, &i32.v, -1.0, &o.v}).clause, "LOGIT-NULL-1");
  EXPECT_EQ(chk({&a.v, &f16.v, -1.0, &s32.v}).clause, "LOGIT-DTYPE-1");  // DTYPE-1 < SHAPE-1
  EXPECT_EQ(chk({&a.v, &r9.v, -1.0, &o.v}).clause, "LOGIT-SHAPE-1");     // SHAPE-1 < RANK-1
  EXPECT_EQ(chk({&r9.v, &r9.v, -1.0, &a.v}, {"no-shape-check"}).clause, "LOGIT-RANK-1");
}

TEST(LogitGrad, TensorValuesAndNoShapeCheck) {
  T x(DType::kFloat16, {2, 2}), dy(DType::kFloat16, {2, 2}), out(DType::kFloat16, {2, 2});
  const uint16_t xb[4] = {0x3800, 0x3400, 0x0000, 0x3c00};  // 0.5, 0.25, 0, 1
  const uint16_t db[4] = {0x3c00, 0x4200, 0x3c00, 0xbc00};  // 1, 3, 1, -1
  for (int i = 0; i < 4; ++i) {
    x.h.set_bits(i, xb[i]);
    dy.h.set_bits(i, db[i]);
  }
  const auto r = aclnn_ref::logit_grad_values({&x.v, &dy.v, -1.0, &out.v});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "out");
  EXPECT_EQ(r[0].values.at(0), 4.0);
  EXPECT_EQ(r[0].values.at(1), 16.0);
  EXPECT_EQ(r[0].values.at(2), INFINITY);
  EXPECT_EQ(r[0].values.at(3), -INFINITY);
  // no-shape-check: out [4] and dy [4, 1] with x [2, 2]: x's element count, row-major
  T out4(DType::kFloat16, {4}), dy41(DType::kFloat16, {4, 1});
  for (int i = 0; i < 4; ++i) dy41.h.set_bits(i, db[i]);
  const auto n = aclnn_ref::logit_grad_values({&x.v, &dy41.v, -1.0, &out4.v}, {"no-shape-check"});
  EXPECT_EQ(n[0].values.shape, (std::vector<int64_t>{4}));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(n[0].values.bits(i), r[0].values.bits(i));
  T e(DType::kFloat16, {0});
  EXPECT_EQ(aclnn_ref::logit_grad_values({&e.v, &e.v, -1.0, &e.v})[0].values.numel(), 0);
}

}  // namespace
