// GeluBackward oracle: values against an independent plain-MPFR evaluation at 1024 bits rounded
// by MPFR's own IEEE emulation (mpfr_subnormalize), published constants, specials, variants and
// statuses.
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
#include <string>
#include <vector>

#include "reference/dtype.hpp"
#include "reference/gelu_backward.hpp"
#include "reference/host_tensor.hpp"
#include "reference/spec.hpp"

namespace {
using aclnn_ref::DType;
using aclnn_ref::VariantSet;

using independent::ieee_round;
using independent::M;

// Plain-MPFR g(x) at 1024 bits with the widest exponent range: g = erfc(-x/sqrt2)/2 +
// x exp(-x^2/2)/sqrt(2 pi) (erfc form of 1/2 + erf/2, so large negative x keeps its digits).
void g_plain(mpfr_ptr g, double x) {
  const mpfr_exp_t old = mpfr_get_emin();
  mpfr_set_emin(mpfr_get_emin_min());
  M X, t, c;
  mpfr_set_d(X.v, x, MPFR_RNDN);
  mpfr_sqrt_ui(t.v, 2, MPFR_RNDN);
  mpfr_div(t.v, X.v, t.v, MPFR_RNDN);
  mpfr_neg(t.v, t.v, MPFR_RNDN);
  mpfr_erfc(g, t.v, MPFR_RNDN);
  mpfr_div_2ui(g, g, 1, MPFR_RNDN);
  mpfr_sqr(t.v, X.v, MPFR_RNDN);
  mpfr_div_2ui(t.v, t.v, 1, MPFR_RNDN);
  mpfr_neg(t.v, t.v, MPFR_RNDN);
  mpfr_exp(t.v, t.v, MPFR_RNDN);
  mpfr_mul(t.v, t.v, X.v, MPFR_RNDN);
  mpfr_const_pi(c.v, MPFR_RNDN);
  mpfr_mul_2ui(c.v, c.v, 1, MPFR_RNDN);
  mpfr_sqrt(c.v, c.v, MPFR_RNDN);
  mpfr_div(t.v, t.v, c.v, MPFR_RNDN);
  mpfr_add(g, g, t.v, MPFR_RNDN);
  mpfr_set_emin(old);
}

uint64_t expected_plain(double dy, mpfr_srcptr g, DType t) {
  M y;
  const mpfr_exp_t old = mpfr_get_emin();
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_mul_d(y.v, g, dy, MPFR_RNDN);
  mpfr_set_emin(old);
  return ieee_round(y.v, t);
}

const double kDys[] = {1.0, -3.0, 0x1p-10, 1000.0};

// All (or every `stride`-th) 16-bit patterns of fp16/bf16 as x, for each dy of kDys.
void exhaustive(DType t, unsigned stride) {
  M g;
  for (uint32_t b = 0; b < 65536; b += stride) {
    const uint16_t h = static_cast<uint16_t>(b);
    const double x = aclnn_ref::decode(&h, t);
    if (std::isnan(x) || std::isinf(x)) continue;  // specials: GeluBackward.Special
    if (std::fabs(x) <= 1e5) g_plain(g.v, x);
    for (double dy : kDys) {
      const uint64_t got = aclnn_ref::gelu_backward_element(dy, x, t);
      uint64_t want;
      if (std::fabs(x) <= 1e5) {
        want = expected_plain(dy, g.v, t);
      } else {
        // |h| < a phi(a) < 2^-(7e9): x > 0 gives dy exactly (dy is a value of t), x < 0 gives
        // -sign(dy) 0 (g < 0 there).
        M d(64);
        mpfr_set_d(d.v, x > 0 ? dy : -std::copysign(0.0, dy), MPFR_RNDN);
        want = ieee_round(d.v, t);
      }
      ASSERT_EQ(got, want) << aclnn_ref::dtype_name(t) << " x=" << x << " (0x" << std::hex << b
                           << std::dec << ") dy=" << dy;
    }
  }
}

TEST(GeluBackward, ExhaustiveFp16Sampled) {
  exhaustive(DType::kFloat16, 61);
}
TEST(GeluBackward, ExhaustiveBf16Sampled) {
  exhaustive(DType::kBFloat16, 61);
}
TEST(GeluBackwardSlow, ExhaustiveFp16) {
  exhaustive(DType::kFloat16, 1);
}
TEST(GeluBackwardSlow, ExhaustiveBf16) {
  exhaustive(DType::kBFloat16, 1);
}

// fp32 x: every fp32 in a window around the root of g (the hardest inputs) and random ones.
TEST(GeluBackward, Fp32AgainstPlainMpfr) {
  M g;
  float x0 = -0.75179152f;
  uint32_t b0;
  std::memcpy(&b0, &x0, 4);
  std::vector<float> xs;
  for (int k = -300; k <= 300; ++k) {
    const uint32_t b = b0 + k;
    float f;
    std::memcpy(&f, &b, 4);
    xs.push_back(f);
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-12.f, 12.f);
  for (int i = 0; i < 1500; ++i) xs.push_back(u(rng));
  for (float xf : xs) {
    g_plain(g.v, xf);
    for (double dy : {1.0, -3.0, 0x1p-140, 3.0e38}) {
      for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
        ASSERT_EQ(aclnn_ref::gelu_backward_element(dy, xf, t), expected_plain(dy, g.v, t))
            << "x=" << xf << " dy=" << dy << " " << aclnn_ref::dtype_name(t);
      }
    }
  }
}

// The double fast pass never disagrees with the MPFR-only evaluation.
TEST(GeluBackward, FastPassAgreesWithMpfrPath) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 8000; ++i) {
    uint32_t b = bits(rng);
    if (i % 2)
      b = (b & 0x80ffffffu) | (0x3f000000u + ((b >> 24) & 0x3) * 0x01000000u);  // |x| in [0.5, 64)
    float x, dyf;
    std::memcpy(&x, &b, 4);
    const uint32_t db = bits(rng) & 0xbfffffffu;  // |dy| < 2
    std::memcpy(&dyf, &db, 4);
    if (!std::isfinite(x) || !std::isfinite(dyf)) continue;
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16})
      ASSERT_EQ(aclnn_ref::gelu_backward_element(dyf, x, t),
                aclnn_ref::gelu_detail::element_mpfr_only(dyf, x, t, false))
          << x << " " << dyf;
  }
}

// The fast pass assumes |rel err| <= 2^-43 for glibc's exp and erfc (double) on its domain
// (exp arguments in [-338, 0], erfc arguments in [0, 18.39]). Checked here on samples against
// MPFR with a 16x margin (the documented maxima are ~2^-50).
TEST(GeluBackward, GlibcErrorAssumptionHolds) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> uz(0.0, 18.39), ue(-338.0, 0.0);
  M ref(128), got(128), d(128);
  double worst_erfc = 0, worst_exp = 0;
  for (int i = 0; i < 4000; ++i) {
    const double z = i < 2000 ? uz(rng) : std::ldexp(uz(rng), -(i % 40));
    mpfr_set_d(ref.v, z, MPFR_RNDN);
    mpfr_erfc(ref.v, ref.v, MPFR_RNDN);
    mpfr_set_d(got.v, std::erfc(z), MPFR_RNDN);
    mpfr_sub(d.v, got.v, ref.v, MPFR_RNDN);
    mpfr_div(d.v, d.v, ref.v, MPFR_RNDN);
    worst_erfc = std::max(worst_erfc, std::fabs(mpfr_get_d(d.v, MPFR_RNDN)));
    const double e = ue(rng);
    mpfr_set_d(ref.v, e, MPFR_RNDN);
    mpfr_exp(ref.v, ref.v, MPFR_RNDN);
    mpfr_set_d(got.v, std::exp(e), MPFR_RNDN);
    mpfr_sub(d.v, got.v, ref.v, MPFR_RNDN);
    mpfr_div(d.v, d.v, ref.v, MPFR_RNDN);
    worst_exp = std::max(worst_exp, std::fabs(mpfr_get_d(d.v, MPFR_RNDN)));
  }
  EXPECT_LT(worst_erfc, 0x1p-47) << worst_erfc;
  EXPECT_LT(worst_exp, 0x1p-47) << worst_exp;
}

// Published erf values (Abramowitz & Stegun 7.1; OEIS A099286 for erf(1)) and g(+-sqrt 2):
// g'(x) = phi(x) (2 - x^2) vanishes at sqrt 2, so g(RN(sqrt 2)) = g(sqrt 2) + O(1e-32) =
// 1/2 + erf(1)/2 + e^-1/sqrt(pi), rounded once to fp64 (the value is checked to be 1e-25 away
// from every fp64 rounding boundary).
TEST(GeluBackward, PublishedErfAndKnownG) {
  struct {
    double x;
    const char *erf;
  } pub[] = {
      {1.0, "0.842700792949714869341220635082609259296066997966302908459937897"},
      {0.5, "0.520499877813046537682746653891964528736451575757963700058805725"},
      {2.0, "0.995322265018952734162069256367252928610891797040060076738352326"},
  };
  for (const auto &e : pub) {
    M mine(256), ref(256), d(256);
    mpfr_set_d(mine.v, e.x, MPFR_RNDN);
    mpfr_erf(mine.v, mine.v, MPFR_RNDN);
    mpfr_set_str(ref.v, e.erf, 10, MPFR_RNDN);
    mpfr_sub(d.v, mine.v, ref.v, MPFR_RNDN);
    EXPECT_LT(std::fabs(mpfr_get_d(d.v, MPFR_RNDN)), 1e-60) << e.x;
  }
  M g(256), t(256);
  mpfr_set_str(g.v, pub[0].erf, 10, MPFR_RNDN);
  mpfr_div_2ui(g.v, g.v, 1, MPFR_RNDN);
  mpfr_add_d(g.v, g.v, 0.5, MPFR_RNDN);
  mpfr_const_pi(t.v, MPFR_RNDN);
  mpfr_sqrt(t.v, t.v, MPFR_RNDN);
  M e1(256);
  mpfr_set_si(e1.v, -1, MPFR_RNDN);
  mpfr_exp(e1.v, e1.v, MPFR_RNDN);
  mpfr_div(e1.v, e1.v, t.v, MPFR_RNDN);
  mpfr_add(g.v, g.v, e1.v, MPFR_RNDN);  // g(sqrt 2) = 1.0405...
  const double gd = mpfr_get_d(g.v, MPFR_RNDN);
  // distance to the nearest fp64 midpoint
  M mid(256);
  mpfr_set_d(mid.v, gd, MPFR_RNDN);
  mpfr_add_d(mid.v, mid.v, std::nextafter(gd, 2.0), MPFR_RNDN);
  mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);
  mpfr_sub(mid.v, mid.v, g.v, MPFR_RNDN);
  ASSERT_GT(std::fabs(mpfr_get_d(mid.v, MPFR_RNDN)), 1e-25);
  const double s2 = std::sqrt(2.0);
  uint64_t want;
  std::memcpy(&want, &gd, 8);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0, s2, DType::kFloat64), want);
  // g(-x) = 1 - g(x)
  mpfr_ui_sub(g.v, 1, g.v, MPFR_RNDN);
  const double gm = mpfr_get_d(g.v, MPFR_RNDN);
  std::memcpy(&want, &gm, 8);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0, -s2, DType::kFloat64), want);
  // fp32 of the same value
  float gf = static_cast<float>(gd);
  uint32_t wf;
  std::memcpy(&wf, &gf, 4);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0, s2, DType::kFloat32), wf);
}

// GELU-SPECIAL-2: the root of g, by bisection in plain MPFR; the oracle's sign flips there.
TEST(GeluBackward, RootOfGByBisection) {
  M lo(256), hi(256), mid(256), g(1024);
  mpfr_set_d(lo.v, -1.0, MPFR_RNDN);
  mpfr_set_d(hi.v, -0.5, MPFR_RNDN);
  for (int i = 0; i < 200; ++i) {
    mpfr_add(mid.v, lo.v, hi.v, MPFR_RNDN);
    mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);
    g_plain(g.v, 0);  // keep the helper's constants warm (no effect)
    // g at a 256-bit point: evaluate the formula directly
    M X(1024), t(1024), c(1024), gg(1024);
    mpfr_set(X.v, mid.v, MPFR_RNDN);
    mpfr_sqrt_ui(t.v, 2, MPFR_RNDN);
    mpfr_div(t.v, X.v, t.v, MPFR_RNDN);
    mpfr_erf(gg.v, t.v, MPFR_RNDN);
    mpfr_add_ui(gg.v, gg.v, 1, MPFR_RNDN);
    mpfr_div_2ui(gg.v, gg.v, 1, MPFR_RNDN);
    mpfr_sqr(t.v, X.v, MPFR_RNDN);
    mpfr_div_2ui(t.v, t.v, 1, MPFR_RNDN);
    mpfr_neg(t.v, t.v, MPFR_RNDN);
    mpfr_exp(t.v, t.v, MPFR_RNDN);
    mpfr_mul(t.v, t.v, X.v, MPFR_RNDN);
    mpfr_const_pi(c.v, MPFR_RNDN);
    mpfr_mul_2ui(c.v, c.v, 1, MPFR_RNDN);
    mpfr_sqrt(c.v, c.v, MPFR_RNDN);
    mpfr_div(t.v, t.v, c.v, MPFR_RNDN);
    mpfr_add(gg.v, gg.v, t.v, MPFR_RNDN);
    if (mpfr_sgn(gg.v) < 0)
      mpfr_set(lo.v, mid.v, MPFR_RNDN);
    else
      mpfr_set(hi.v, mid.v, MPFR_RNDN);
  }
  char buf[64];
  mpfr_snprintf(buf, sizeof buf, "%.30Rf", lo.v);
  // Published leading digits of the GELU derivative's root (GELU's minimum at x ~ -0.75179).
  EXPECT_EQ(std::string(buf).substr(0, 12), "-0.751791524") << buf;
  const double below = mpfr_get_d(lo.v, MPFR_RNDD), above = mpfr_get_d(hi.v, MPFR_RNDU);
  ASSERT_EQ(std::nextafter(below, 0.0), above);  // the root lies between adjacent doubles
  for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    EXPECT_NE(
        aclnn_ref::gelu_backward_element(1.0, below, t) & (t == DType::kFloat64   ? 1ull << 63
                                                           : t == DType::kFloat32 ? 1ull << 31
                                                                                  : 1ull << 15),
        0u);
    EXPECT_EQ(
        aclnn_ref::gelu_backward_element(1.0, above, t) & (t == DType::kFloat64   ? 1ull << 63
                                                           : t == DType::kFloat32 ? 1ull << 31
                                                                                  : 1ull << 15),
        0u);
  }
  // Values right at the root in fp64: |g| ~ 0.43 * 1e-16, correctly rounded, not zero.
  M gb(1024);
  g_plain(gb.v, below);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0, below, DType::kFloat64),
            ieee_round(gb.v, DType::kFloat64));
  g_plain(gb.v, above);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0, above, DType::kFloat64),
            ieee_round(gb.v, DType::kFloat64));
}

uint64_t f32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(GeluBackward, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const DType F = DType::kFloat32;
  // GELU-SPECIAL-1
  EXPECT_EQ(aclnn_ref::gelu_backward_element(2.5, inf, F), f32(2.5f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(-inf, inf, F), f32(-INFINITY));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(2.5, -inf, F), f32(-0.0f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(-2.5, -inf, F), f32(0.0f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(inf, -inf, F), 0x7fc00000u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(-inf, -inf, F), 0x7fc00000u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(nan, 1.0, F), 0x7fc00000u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0, nan, F), 0x7fc00000u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(0.0, nan, F), 0x7fc00000u);
  // inf dy with finite x: inf times the sign of g
  EXPECT_EQ(aclnn_ref::gelu_backward_element(inf, 0.3, F), f32(INFINITY));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(inf, -2.0, F), f32(-INFINITY));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(inf, -100.0, F), f32(-INFINITY));
  // dy = 0: signed zero by the sign of g (g < 0 below the root)
  EXPECT_EQ(aclnn_ref::gelu_backward_element(0.0, -2.0, F), f32(-0.0f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(-0.0, -2.0, F), f32(0.0f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(0.0, -0.5, F), f32(0.0f));
  // x = 0: g = 1/2 exactly, a tie in fp16 subnormals goes to even
  EXPECT_EQ(aclnn_ref::gelu_backward_element(0x1p-24, 0.0, DType::kFloat16), 0x0000u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(0x3p-24, 0.0, DType::kFloat16), 0x0002u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(-0x3p-24, -0.0, DType::kFloat16), 0x8002u);
  // GELU-SPECIAL-2: large negative x underflows to -0 (times sign of dy)
  EXPECT_EQ(aclnn_ref::gelu_backward_element(3e38, -20.0, F), f32(-0.0f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(-1.0, -1e30, F), f32(0.0f));
  // ... but not when dy is huge and x moderate: 3e38 * g(-12) is a normal fp32
  EXPECT_NE(aclnn_ref::gelu_backward_element(3e38, -12.0, F) & 0x7fffffffu, 0u);
  // large positive x: g -> 1 from above
  EXPECT_EQ(aclnn_ref::gelu_backward_element(3.0, 1e30, F), f32(3.0f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(3.0, 30.0, F), f32(3.0f));
  // overflow: dy = max fp32, g(2) = 1.0852... -> inf
  EXPECT_EQ(aclnn_ref::gelu_backward_element(3.4028234663852886e38, 2.0, F), f32(INFINITY));
  // dy a midpoint of fp16 with g slightly above 1 (x = 30): rounds up (not to even)
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0 + 0x1p-11, 30.0, DType::kFloat16), 0x3c01u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0 + 0x1p-11, 1e10, DType::kFloat16), 0x3c01u);
  EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0 + 0x1p-11, inf, DType::kFloat16), 0x3c00u);
}

// Plain-MPFR tanh formula, naive, at 1024 bits (|x| <= 8 keeps 1 + tanh(u) well conditioned).
void g_tanh_plain(mpfr_ptr g, double x) {
  M X, k, c, u, t, s, x2;
  mpfr_set_d(X.v, x, MPFR_RNDN);
  mpfr_const_pi(k.v, MPFR_RNDN);
  mpfr_ui_div(k.v, 2, k.v, MPFR_RNDN);
  mpfr_sqrt(k.v, k.v, MPFR_RNDN);
  mpfr_set_str(c.v, "0.044715", 10, MPFR_RNDN);
  mpfr_sqr(x2.v, X.v, MPFR_RNDN);
  mpfr_mul(u.v, x2.v, X.v, MPFR_RNDN);
  mpfr_mul(u.v, u.v, c.v, MPFR_RNDN);
  mpfr_add(u.v, u.v, X.v, MPFR_RNDN);
  mpfr_mul(u.v, u.v, k.v, MPFR_RNDN);
  mpfr_tanh(t.v, u.v, MPFR_RNDN);
  mpfr_add_ui(g, t.v, 1, MPFR_RNDN);
  mpfr_div_2ui(g, g, 1, MPFR_RNDN);
  mpfr_sqr(s.v, t.v, MPFR_RNDN);
  mpfr_ui_sub(s.v, 1, s.v, MPFR_RNDN);
  mpfr_mul(s.v, s.v, X.v, MPFR_RNDN);
  mpfr_mul(s.v, s.v, k.v, MPFR_RNDN);
  mpfr_mul(x2.v, x2.v, c.v, MPFR_RNDN);
  mpfr_mul_ui(x2.v, x2.v, 3, MPFR_RNDN);
  mpfr_add_ui(x2.v, x2.v, 1, MPFR_RNDN);
  mpfr_mul(s.v, s.v, x2.v, MPFR_RNDN);
  mpfr_div_2ui(s.v, s.v, 1, MPFR_RNDN);
  mpfr_add(g, g, s.v, MPFR_RNDN);
}

TEST(GeluBackward, TanhApproxVariant) {
  const VariantSet tanh{"tanh-approx"};
  M g, gr;
  int differs = 0;
  for (DType t : {DType::kFloat16, DType::kBFloat16}) {
    for (uint32_t b = 0; b < 65536; b += 7) {
      const uint16_t h = static_cast<uint16_t>(b);
      const double x = aclnn_ref::decode(&h, t);
      if (!(std::fabs(x) <= 8)) continue;
      g_tanh_plain(g.v, x);
      g_plain(gr.v, x);
      for (double dy : {1.0, -3.0}) {
        const uint64_t got = aclnn_ref::gelu_backward_element(dy, x, t, tanh);
        ASSERT_EQ(got, expected_plain(dy, g.v, t)) << x;
        differs += got != expected_plain(dy, gr.v, t);
      }
    }
  }
  EXPECT_GT(differs, 100);  // the variant is distinguishable from the record on these inputs
  // fp32 near its own root and far out
  for (double x : {-0.7517f, -0.7525f, -3.0f, 5.5f, 0.1f})
    for (DType t : {DType::kFloat32, DType::kFloat16}) {
      g_tanh_plain(g.v, x);
      EXPECT_EQ(aclnn_ref::gelu_backward_element(1.0, x, t, tanh), expected_plain(1.0, g.v, t));
    }
  // specials: same limits as the record
  EXPECT_EQ(aclnn_ref::gelu_backward_element(2.5, INFINITY, DType::kFloat32, tanh), f32(2.5f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(2.5, -1e30, DType::kFloat32, tanh), f32(-0.0f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(2.5, 1e30, DType::kFloat32, tanh), f32(2.5f));
  EXPECT_EQ(aclnn_ref::gelu_backward_element(2.5, 0.0, DType::kFloat32, tanh), f32(1.25f));
}

// ---- statuses and tensor-level values ---------------------------------------------------------

struct T {
  aclnn_ref::HostTensor h;
  aclnn_ref::TensorView v;
  T(DType d, std::vector<int64_t> s) : h(d, std::move(s)), v(h.view()) {}
};

TEST(GeluBackward, StatusClausesAndOrder) {
  using aclnn_ref::GeluBackwardCall;
  using aclnn_ref::Product;
  namespace st = aclnn_ref::status;
  T f32a(DType::kFloat32, {2, 3}), f32b(DType::kFloat32, {2, 3}), f32o(DType::kFloat32, {2, 3});
  auto chk = [](const GeluBackwardCall &c, const VariantSet &vs = {}) {
    return aclnn_ref::gelu_backward_check(c, vs);
  };
  EXPECT_TRUE(chk({&f32a.v, &f32b.v, &f32o.v}).ok());
  EXPECT_EQ(chk({nullptr, &f32b.v, &f32o.v}).clause, "GELU-NULL-1");
  EXPECT_EQ(chk({&f32a.v, &f32b.v, nullptr}).status, st::kNullptr);
  // DTYPE-1: double promotes to double; int32+int32 is int32; bf16 on training products
  T f64(DType::kFloat64, {2, 3}), i32(DType::kInt32, {2, 3}), bf(DType::kBFloat16, {2, 3}),
      f16(DType::kFloat16, {2, 3}), u16(DType::kUInt16, {2, 3});
  EXPECT_EQ(chk({&f64.v, &f32b.v, &f32o.v}).clause, "GELU-DTYPE-1");
  EXPECT_EQ(chk({&i32.v, &i32.v, &f32o.v}).clause, "GELU-DTYPE-1");
  EXPECT_EQ(chk({&u16.v, &f32b.v, &f32o.v}).clause, "GELU-DTYPE-1");
  EXPECT_TRUE(chk({&i32.v, &f32b.v, &f32o.v}).ok());  // INT32 dy, FLOAT self: legal
  EXPECT_TRUE(chk({&bf.v, &bf.v, &bf.v}).ok());
  EXPECT_EQ(chk({&bf.v, &bf.v, &bf.v, Product::kAtlasTraining}).clause, "GELU-DTYPE-1");
  EXPECT_TRUE(chk({&bf.v, &f16.v, &f32o.v, Product::kAtlasInference}).ok());  // -> f32
  // DTYPE-2 and the cast-output variant
  EXPECT_EQ(chk({&f32a.v, &f32b.v, &f16.v}).clause, "GELU-DTYPE-2");
  EXPECT_TRUE(chk({&f32a.v, &f32b.v, &f16.v}, {"cast-output"}).ok());
  EXPECT_EQ(chk({&f32a.v, &f32b.v, &f64.v}, {"cast-output"}).clause, "GELU-DTYPE-2");
  EXPECT_EQ(chk({&f32a.v, &f32b.v, &bf.v, Product::kAtlasTraining}, {"cast-output"}).clause,
            "GELU-DTYPE-2");
  // RANK-1 (9 dims), BCAST-1, BCAST-2
  T r9(DType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 1}), r0(DType::kFloat32, {});
  EXPECT_EQ(chk({&r9.v, &f32b.v, &f32o.v}).clause, "GELU-RANK-1");
  EXPECT_TRUE(chk({&r0.v, &r0.v, &r0.v}).ok());
  T s3(DType::kFloat32, {3}), s4(DType::kFloat32, {4}), s43(DType::kFloat32, {4, 3}),
      s41(DType::kFloat32, {4, 1});
  EXPECT_EQ(chk({&s4.v, &f32b.v, &f32o.v}).clause, "GELU-BCAST-1");
  EXPECT_EQ(chk({&s3.v, &s41.v, &f32o.v}).clause, "GELU-BCAST-2");
  EXPECT_TRUE(chk({&s3.v, &s41.v, &s43.v}).ok());
  // Order: two failures at once, the earlier clause wins.
  EXPECT_EQ(chk({nullptr, &f64.v, &f32o.v}).clause, "GELU-NULL-1");
  EXPECT_EQ(chk({&f64.v, &f32b.v, &f16.v}).clause, "GELU-DTYPE-1");  // DTYPE-1 < DTYPE-2
  EXPECT_EQ(chk({&r9.v, &f32b.v, &f16.v}).clause, "GELU-DTYPE-2");   // DTYPE-2 < RANK-1
  EXPECT_EQ(chk({&r9.v, &s4.v, &f32o.v}).clause, "GELU-RANK-1");     // RANK-1 < BCAST-1
  EXPECT_EQ(chk({&s4.v, &f32b.v, &s43.v}).clause, "GELU-BCAST-1");   // BCAST-1 < BCAST-2
  EXPECT_EQ(chk({&f32a.v, &f32b.v, &r9.v}).clause, "GELU-RANK-1");
  EXPECT_EQ(aclnn_ref::gelu_backward_variants().size(), 2u);
}

TEST(GeluBackward, ValuesPromotionBroadcastAndViews) {
  // INT32 gradOutput with FP16 self: dy converted to fp16 first (2049 -> 2048, 70000 -> inf).
  T dy(DType::kInt32, {3, 1}), x(DType::kFloat16, {2}), out(DType::kFloat16, {3, 2});
  const int32_t dys[3] = {2049, 70000, -5};
  for (int i = 0; i < 3; ++i) dy.h.set_bits(i, static_cast<uint32_t>(dys[i]));
  x.h.set_bits(0, 0x0000);  // x = 0: g = 1/2
  x.h.set_bits(1, 0x7c00);  // x = +inf: g = 1
  const auto r = aclnn_ref::gelu_backward_values({&dy.v, &x.v, &out.v});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "gradInput");
  EXPECT_EQ(r[0].values.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r[0].values.at(0), 1024.0);  // fp16(2049) = 2048, / 2
  EXPECT_EQ(r[0].values.at(1), 2048.0);
  EXPECT_TRUE(std::isinf(r[0].values.at(2)));
  EXPECT_TRUE(std::isinf(r[0].values.at(3)));
  EXPECT_EQ(r[0].values.at(4), -2.5);
  EXPECT_EQ(r[0].values.at(5), -5.0);
  // A transposed (non-contiguous) self with a zero-stride gradOutput.
  T base(DType::kFloat32, {2, 3}), g1(DType::kFloat32, {1});
  for (int i = 0; i < 6; ++i) {
    float f = 0.25f * static_cast<float>(i) - 0.5f;
    uint32_t b;
    std::memcpy(&b, &f, 4);
    base.h.set_bits(i, b);
  }
  float one = 1.0f;
  uint32_t ob;
  std::memcpy(&ob, &one, 4);
  g1.h.set_bits(0, ob);
  aclnn_ref::TensorView tr{DType::kFloat32, {3, 2}, {1, 3}, 0, base.h.bytes.data()};
  aclnn_ref::TensorView z{DType::kFloat32, {3, 2}, {0, 0}, 0, g1.h.bytes.data()};
  T o(DType::kFloat32, {3, 2});
  const auto v = aclnn_ref::gelu_backward_values({&z, &tr, &o.v});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(v[0].values.bits(i * 2 + j),
                aclnn_ref::gelu_backward_element(1.0, base.h.at(j * 3 + i), DType::kFloat32));
  // cast-output: the fp32 result cast to fp16 (two roundings, as the vendor code does).
  T c16(DType::kFloat16, {3, 2});
  const auto vc = aclnn_ref::gelu_backward_values({&z, &tr, &c16.v}, {"cast-output"});
  for (int k = 0; k < 6; ++k) {
    const uint64_t b32 = v[0].values.bits(k);
    float f;
    const uint32_t b32u = static_cast<uint32_t>(b32);
    std::memcpy(&f, &b32u, 4);
    M m(64);
    mpfr_set_flt(m.v, f, MPFR_RNDN);
    EXPECT_EQ(vc[0].values.bits(k), ieee_round(m.v, DType::kFloat16));
  }
  // GELU-EMPTY-1
  T e(DType::kFloat32, {0, 3}), s3(DType::kFloat32, {3});
  const auto ve = aclnn_ref::gelu_backward_values({&e.v, &s3.v, &e.v});
  ASSERT_EQ(ve.size(), 1u);
  EXPECT_EQ(ve[0].values.numel(), 0);
}

// VAL-TOL-1 judges at the exact value: beside each value of record the oracle keeps the exact
// value's nearest double and a bound on their distance. Both checked against the plain 1024-bit
// evaluation, around the root (where the fast pass hands over to MPFR) and at random inputs.
TEST(GeluBackward, ExactValueBesideTheValueOfRecord) {
  std::vector<float> xs;
  float x0 = -0.75179152f;
  uint32_t b0;
  std::memcpy(&b0, &x0, 4);
  for (int k = -40; k <= 40; ++k) {
    const uint32_t b = b0 + k;
    float f;
    std::memcpy(&f, &b, 4);
    xs.push_back(f);
  }
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(-9.f, 9.f);
  for (int i = 0; i < 200; ++i) xs.push_back(u(rng));
  xs.push_back(0.0f);
  xs.push_back(std::numeric_limits<float>::infinity());
  const int64_t n = static_cast<int64_t>(xs.size());
  {
    T dy(DType::kFloat32, {n}), x(DType::kFloat32, {n}), o(DType::kFloat32, {n});
    for (int64_t i = 0; i < n; ++i) {
      float d = (i % 2) ? -3.0f : 1.0f;
      uint32_t bd, bx;
      std::memcpy(&bd, &d, 4);
      std::memcpy(&bx, &xs[static_cast<size_t>(i)], 4);
      dy.h.set_bits(i, bd);
      x.h.set_bits(i, bx);
    }
    const auto v = aclnn_ref::gelu_backward_values({&dy.v, &x.v, &o.v});
    ASSERT_EQ(v[0].exact_nearest.size(), static_cast<size_t>(n));
    ASSERT_EQ(v[0].exact_error.size(), static_cast<size_t>(n));
    M g, y;
    for (int64_t i = 0; i < n; ++i) {
      const double xi = xs[static_cast<size_t>(i)];
      const double dyi = (i % 2) ? -3.0 : 1.0;
      const double near = v[0].exact_nearest[static_cast<size_t>(i)];
      const double err = v[0].exact_error[static_cast<size_t>(i)];
      if (std::isinf(xi)) {
        EXPECT_EQ(near, dyi);
        continue;
      }
      g_plain(g.v, xi);
      mpfr_mul_d(y.v, g.v, dyi, MPFR_RNDN);
      const double plain = mpfr_get_d(y.v, MPFR_RNDN);
      EXPECT_LE(std::fabs(near - plain), err + std::ldexp(std::fabs(plain), -52))
          << "x=" << xi << " dy=" << dyi;
      // The bound favours the output by at most 2^-8 fp32 ulp: far below what the judge decides.
      EXPECT_LE(err, std::ldexp(std::fabs(plain), -32)) << "x=" << xi;
    }
  }
}

}  // namespace
