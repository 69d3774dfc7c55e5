// SeluBackward oracle: values against an independent plain-MPFR evaluation at 1024 bits rounded
// by MPFR's IEEE emulation (floats) or mpfr_rint + saturation (integers), constants, specials,
// variants and statuses.
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
#include "reference/host_tensor.hpp"
#include "reference/selu_backward.hpp"
#include "reference/spec.hpp"

namespace {
using aclnn_ref::DType;
using aclnn_ref::VariantSet;

constexpr const char *kLambda = "1.0507009873554804934193349852946";
constexpr const char *kAlpha = "1.6732632423543772848170429916717";
constexpr const char *kLambdaAlpha = "1.7580993408473768599402175208123";

using independent::ieee_round;
using independent::M;

// Plain evaluation of the record formula at 1024 bits (IEEE specials by MPFR's own rules).
uint64_t plain(double dy, double y, DType t) {
  M D, Y, c, r;
  mpfr_set_d(D.v, dy, MPFR_RNDN);
  mpfr_set_d(Y.v, y, MPFR_RNDN);
  if (std::isnan(y)) {
    mpfr_set_nan(r.v);
  } else if (y >= 0) {  // +-0 included (SELU-ZERO-1)
    mpfr_set_str(c.v, kLambda, 10, MPFR_RNDN);
    mpfr_mul(r.v, D.v, c.v, MPFR_RNDN);
  } else {
    mpfr_set_str(c.v, kLambdaAlpha, 10, MPFR_RNDN);
    mpfr_add(c.v, c.v, Y.v, MPFR_RNDN);
    mpfr_mul(r.v, D.v, c.v, MPFR_RNDN);
  }
  return ieee_round(r.v, t);
}

const double kDys[] = {1.0, -3.0, 0x1p-10, 1000.0};

void exhaustive(DType t, unsigned stride) {
  for (uint32_t b = 0; b < 65536; b += stride) {
    const uint16_t h = static_cast<uint16_t>(b);
    const double y = aclnn_ref::decode(&h, t);
    for (double dy : kDys)
      ASSERT_EQ(aclnn_ref::selu_backward_element(dy, y, t), plain(dy, y, t))
          << aclnn_ref::dtype_name(t) << " y=" << y << " dy=" << dy;
    // and as dy, with a few y
    for (double yy : {0.5, -1.0, -1.7578125})
      ASSERT_EQ(aclnn_ref::selu_backward_element(y, yy, t), plain(y, yy, t))
          << aclnn_ref::dtype_name(t) << " dy=" << y << " y=" << yy;
  }
}

TEST(SeluBackward, ExhaustiveFp16) {
  exhaustive(DType::kFloat16, 1);
}
TEST(SeluBackward, ExhaustiveBf16) {
  exhaustive(DType::kBFloat16, 1);
}

// SELU-INT-1: every (dy, y) pair of int8, and int32 samples incl. saturation.
TEST(SeluBackward, Int8AllPairsAndInt32) {
  for (int dy = -128; dy < 128; ++dy)
    for (int y = -128; y < 128; ++y)
      ASSERT_EQ(aclnn_ref::selu_backward_element(dy, y, DType::kInt8), plain(dy, y, DType::kInt8))
          << dy << " " << y;
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int32_t> u;
  for (int i = 0; i < 20000; ++i) {
    const int32_t dy = i % 3 ? u(rng) : u(rng) >> 20, y = i % 5 ? u(rng) >> (i % 31) : -1;
    ASSERT_EQ(aclnn_ref::selu_backward_element(dy, y, DType::kInt32), plain(dy, y, DType::kInt32))
        << dy << " " << y;
  }
  EXPECT_EQ(aclnn_ref::selu_backward_element(2147483647.0, 1.0, DType::kInt32), 0x7fffffffu);
  EXPECT_EQ(aclnn_ref::selu_backward_element(-2147483648.0, 1.0, DType::kInt32), 0x80000000u);
  EXPECT_EQ(aclnn_ref::selu_backward_element(100.0, 5.0, DType::kInt8), 105u);  // 105.07 -> 105
  EXPECT_EQ(aclnn_ref::selu_backward_element(122.0, 5.0, DType::kInt8), 127u);  // 128.18 -> 127
  EXPECT_EQ(aclnn_ref::selu_backward_element(-128.0, 5.0, DType::kInt8), 0x80u);
}

TEST(SeluBackward, Fp32AgainstPlainAndFastPassAgreesWithMpfr) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 20000; ++i) {
    uint32_t b = bits(rng), c = bits(rng);
    float dy, y;
    std::memcpy(&dy, &b, 4);
    std::memcpy(&y, &c, 4);
    if (i % 2) y = -1.7580993f + std::ldexp(static_cast<float>(i % 200) - 100.f, -(i % 24));
    if (!std::isfinite(dy)) continue;
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      const uint64_t got = aclnn_ref::selu_backward_element(dy, y, t);
      ASSERT_EQ(got, plain(dy, y, t)) << dy << " " << y;
      ASSERT_EQ(got, aclnn_ref::selu_detail::element_mpfr_only(dy, y, t)) << dy << " " << y;
    }
  }
  // the fp32 neighbours of -lambda*alpha: the factor y + lambda*alpha changes sign between them
  const float a = -1.7580993f;
  for (float y : {std::nextafter(a, -2.f), a, std::nextafter(a, 0.f)})
    for (DType t : {DType::kFloat32, DType::kFloat16})
      EXPECT_EQ(aclnn_ref::selu_backward_element(1.0, y, t), plain(1.0, y, t));
}

// Published SELU constants (Klambauer et al. 2017): alpha_01 = -sqrt(2/pi) /
// (erfc(1/sqrt 2) exp(1/2) - 1), and the spec's lambda*alpha equals lambda times alpha to 30
// digits.
TEST(SeluBackward, Constants) {
  M a(256), t(256), c(256), spec(256);
  mpfr_set_ui(t.v, 2, MPFR_RNDN);
  mpfr_rec_sqrt(t.v, t.v, MPFR_RNDN);
  mpfr_erfc(a.v, t.v, MPFR_RNDN);
  mpfr_set_d(t.v, 0.5, MPFR_RNDN);
  mpfr_exp(t.v, t.v, MPFR_RNDN);
  mpfr_mul(a.v, a.v, t.v, MPFR_RNDN);
  mpfr_sub_ui(a.v, a.v, 1, MPFR_RNDN);
  mpfr_const_pi(c.v, MPFR_RNDN);
  mpfr_ui_div(c.v, 2, c.v, MPFR_RNDN);
  mpfr_sqrt(c.v, c.v, MPFR_RNDN);
  mpfr_div(a.v, c.v, a.v, MPFR_RNDN);
  mpfr_neg(a.v, a.v, MPFR_RNDN);
  mpfr_set_str(spec.v, kAlpha, 10, MPFR_RNDN);
  mpfr_sub(t.v, a.v, spec.v, MPFR_RNDN);
  EXPECT_LT(std::fabs(mpfr_get_d(t.v, MPFR_RNDN)), 1e-30);
  M l(256);
  mpfr_set_str(l.v, kLambda, 10, MPFR_RNDN);
  mpfr_mul(t.v, l.v, spec.v, MPFR_RNDN);
  mpfr_set_str(c.v, kLambdaAlpha, 10, MPFR_RNDN);
  mpfr_sub(t.v, t.v, c.v, MPFR_RNDN);
  EXPECT_LT(std::fabs(mpfr_get_d(t.v, MPFR_RNDN)), 1e-30);
  // the oracle's lambda in fp64: 1 * lambda rounded once
  M r(1024);
  mpfr_set_str(r.v, kLambda, 10, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::selu_backward_element(1.0, 1.0, DType::kFloat64),
            ieee_round(r.v, DType::kFloat64));
  mpfr_set_str(r.v, kLambdaAlpha, 10, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::selu_backward_element(1.0, -0.0, DType::kFloat64, {"le-zero"}),
            ieee_round(r.v, DType::kFloat64));
}

uint64_t f32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(SeluBackward, SpecialValuesAndVariants) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const DType F = DType::kFloat32;
  const auto e = [](double dy, double y, DType t, const VariantSet &v = {}) {
    return aclnn_ref::selu_backward_element(dy, y, t, v);
  };
  // SELU-ZERO-1: y = +-0 takes dy * lambda; le-zero takes dy * lambda * alpha
  EXPECT_EQ(e(1.0, 0.0, F), f32(1.050701f));
  EXPECT_EQ(e(1.0, -0.0, F), f32(1.050701f));
  EXPECT_EQ(e(1.0, 0.0, F, {"le-zero"}), f32(1.7580993f));
  EXPECT_EQ(e(1.0, -0.0, F, {"le-zero"}), f32(1.7580993f));
  // SELU-NAN-1 and select-lt
  EXPECT_EQ(e(2.0, nan, F), 0x7fc00000u);
  EXPECT_EQ(e(2.0, nan, F, {"select-lt"}), e(2.0, 1.0, F));
  EXPECT_EQ(e(nan, 1.0, F, {"select-lt"}), 0x7fc00000u);
  EXPECT_EQ(e(2.0, nan, DType::kInt32), 0u);  // NaN -> 0 in integers
  // IEEE specials
  EXPECT_EQ(e(inf, 1.0, F), f32(INFINITY));
  EXPECT_EQ(e(inf, -1.0, F), f32(INFINITY));   // -1 + 1.758 > 0
  EXPECT_EQ(e(inf, -2.0, F), f32(-INFINITY));  // -2 + 1.758 < 0
  EXPECT_EQ(e(1.0, -inf, F), f32(-INFINITY));
  EXPECT_EQ(e(0.0, -inf, F), 0x7fc00000u);
  EXPECT_EQ(e(1.0, inf, F), f32(1.050701f));
  EXPECT_EQ(e(-0.0, -2.0, F), f32(0.0f));
  EXPECT_EQ(e(-0.0, 2.0, F), f32(-0.0f));
  EXPECT_EQ(e(3.3e38, 1.0, F), f32(INFINITY));  // overflow
  EXPECT_EQ(e(3e38, 1.0, F), plain(3e38, 1.0, F));
  EXPECT_EQ(e(inf, 1.0, DType::kInt8), 0x7fu);
  // doc-literal: dy * 1 (y >= 0), dy * (y / lambda + alpha) (y < 0)
  EXPECT_EQ(e(3.0, 2.0, F, {"doc-literal"}), f32(3.0f));
  {
    M r, c, y;
    mpfr_set_d(y.v, -1.0, MPFR_RNDN);
    mpfr_set_str(c.v, kLambda, 10, MPFR_RNDN);
    mpfr_div(r.v, y.v, c.v, MPFR_RNDN);
    mpfr_set_str(c.v, kAlpha, 10, MPFR_RNDN);
    mpfr_add(r.v, r.v, c.v, MPFR_RNDN);
    EXPECT_EQ(e(1.0, -1.0, F, {"doc-literal"}), ieee_round(r.v, F));
    EXPECT_NE(e(1.0, -1.0, F, {"doc-literal"}), e(1.0, -1.0, F));
    EXPECT_EQ(e(1.0, 0.0, F, {"doc-literal", "le-zero"}), f32(1.6732632f));
  }
  // via-fp16: inputs through fp16 (2049 -> 2048, 70000 -> inf), then the formula
  EXPECT_EQ(e(2049.0, 1.0, DType::kInt32, {"via-fp16"}), plain(2048.0, 1.0, DType::kInt32));
  EXPECT_NE(e(2049.0, 1.0, DType::kInt32), e(2049.0, 1.0, DType::kInt32, {"via-fp16"}));
  EXPECT_EQ(e(70000.0, 1.0, DType::kInt32, {"via-fp16"}), 0x7fffffffu);
  EXPECT_EQ(e(70000.0, 1.0, DType::kInt32), plain(70000.0, 1.0, DType::kInt32));
  EXPECT_EQ(e(1.0, 70000.0, F, {"via-fp16"}), e(1.0, 1.0, F));  // y -> inf, still y >= 0
  EXPECT_EQ(e(3.0, -1.00048828125, F, {"via-fp16"}), plain(3.0, -1.0, F));  // y rounds to -1
  EXPECT_EQ(aclnn_ref::selu_backward_variants().size(), 6u);
}

struct T {
  aclnn_ref::HostTensor h;
  aclnn_ref::TensorView v;
  T(DType d, std::vector<int64_t> s) : h(d, std::move(s)), v(h.view()) {}
};

TEST(SeluBackward, StatusClausesAndOrder) {
  using aclnn_ref::Product;
  namespace st = aclnn_ref::status;
  auto chk = [](const aclnn_ref::SeluBackwardCall &c, const VariantSet &vs = {}) {
    return aclnn_ref::selu_backward_check(c, vs);
  };
  T a(DType::kFloat32, {2, 3}), b(DType::kFloat32, {2, 3}), o(DType::kFloat32, {2, 3});
  T i8(DType::kInt8, {2, 3}), i32(DType::kInt32, {2, 3}), u8(DType::kUInt8, {2, 3}),
      f64(DType::kFloat64, {2, 3}), bf(DType::kBFloat16, {2, 3}), f16(DType::kFloat16, {2, 3});
  EXPECT_TRUE(chk({&a.v, &b.v, &o.v}).ok());
  EXPECT_TRUE(chk({&i8.v, &i8.v, &i8.v}).ok());
  EXPECT_TRUE(chk({&i32.v, &i32.v, &i32.v}).ok());
  EXPECT_EQ(chk({&a.v, nullptr, &o.v}).clause, "SELU-NULL-1");
  EXPECT_EQ(chk({&a.v, nullptr, &o.v}).status, st::kNullptr);
  EXPECT_EQ(chk({&u8.v, &u8.v, &u8.v}).clause, "SELU-DTYPE-1");
  EXPECT_EQ(chk({&a.v, &b.v, &f64.v}).clause, "SELU-DTYPE-1");
  EXPECT_TRUE(chk({&bf.v, &bf.v, &bf.v}).ok());
  EXPECT_EQ(chk({&bf.v, &bf.v, &bf.v, Product::kAtlasInference}).clause, "SELU-DTYPE-1");
  EXPECT_EQ(chk({&a.v, &f16.v, &o.v}).clause, "SELU-DTYPE-2");
  EXPECT_TRUE(chk({&a.v, &f16.v, &o.v}, {"mixed-dtype"}).ok());
  T s23(DType::kFloat32, {3, 2}), r0(DType::kFloat32, {}),
      r9(DType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(chk({&a.v, &b.v, &s23.v}).clause, "SELU-SHAPE-1");
  EXPECT_EQ(chk({&r0.v, &r0.v, &r0.v}).clause, "SELU-RANK-1");
  EXPECT_EQ(chk({&r9.v, &r9.v, &r9.v}).clause, "SELU-RANK-1");
  EXPECT_TRUE(chk({&r0.v, &r0.v, &r0.v}, {"any-rank"}).ok());
  EXPECT_TRUE(chk({&r9.v, &r9.v, &r9.v}, {"any-rank"}).ok());
  // order
  EXPECT_EQ(chk({nullptr, &u8.v, &o.v}).clause, "SELU-NULL-1");
  EXPECT_EQ(chk({&a.v, &u8.v, &f16.v}).clause, "SELU-DTYPE-1");   // DTYPE-1 < DTYPE-2
  EXPECT_EQ(chk({&a.v, &f16.v, &s23.v}).clause, "SELU-DTYPE-2");  // DTYPE-2 < SHAPE-1
  EXPECT_EQ(chk({&r0.v, &b.v, &o.v}).clause, "SELU-SHAPE-1");     // SHAPE-1 < RANK-1
  EXPECT_EQ(chk({&a.v, &u8.v, &o.v}).reason.find("result"), 0u);
}

TEST(SeluBackward, TensorValuesMixedDtypeAndEmpty) {
  T dy(DType::kInt32, {2, 2}), y(DType::kFloat16, {2, 2}), out(DType::kFloat32, {2, 2});
  const int32_t d[4] = {1, -3, 7, 100};
  const uint16_t yb[4] = {0x3c00, 0xbc00, 0x0000, 0xfc00};  // 1, -1, 0, -inf
  for (int i = 0; i < 4; ++i) {
    dy.h.set_bits(i, static_cast<uint32_t>(d[i]));
    y.h.set_bits(i, yb[i]);
  }
  // transposed gradOutput view
  aclnn_ref::TensorView dyt{DType::kInt32, {2, 2}, {1, 2}, 0, dy.h.bytes.data()};
  const auto r = aclnn_ref::selu_backward_values({&dyt, &y.v, &out.v}, {"mixed-dtype"});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "gradInput");
  const double dys[4] = {1, 7, -3, 100};
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(r[0].values.bits(i), plain(dys[i], y.h.at(i), DType::kFloat32)) << i;
  T e(DType::kFloat32, {0, 4});
  EXPECT_EQ(aclnn_ref::selu_backward_values({&e.v, &e.v, &e.v})[0].values.numel(), 0);
}

}  // namespace
