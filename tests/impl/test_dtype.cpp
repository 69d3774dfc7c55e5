// Dtype conversions of the CPU library: exhaustive over the 16-bit formats, both directions, and
// round-to-nearest-even from float and from double (one rounding, never through float).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "impl/dtype.hpp"

namespace {
using namespace aclnn_cpu;

// Independent decoding by the definition of the format (sign, biased exponent, fraction).
double decode_by_definition(uint16_t bits, int exp_bits) {
  const int frac_bits = 15 - exp_bits;
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int e = (bits >> frac_bits) & ((1 << exp_bits) - 1);
  const int f = bits & ((1 << frac_bits) - 1);
  const double s = (bits & 0x8000) ? -1 : 1;
  if (e == (1 << exp_bits) - 1) return f ? std::numeric_limits<double>::quiet_NaN() : s * INFINITY;
  if (e == 0) return s * std::ldexp(f, 1 - bias - frac_bits);
  return s * std::ldexp(1.0 + std::ldexp(f, -frac_bits), e - bias);
}

bool same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) ||
         (a == b && std::signbit(a) == std::signbit(b));
}

TEST(Fp16, DecodesAll65536Patterns) {
  for (uint32_t b = 0; b < 65536; ++b)
    ASSERT_TRUE(same(half_to_float(static_cast<uint16_t>(b)), decode_by_definition(b, 5))) << b;
}

TEST(Bf16, DecodesAll65536Patterns) {
  for (uint32_t b = 0; b < 65536; ++b)
    ASSERT_TRUE(same(bf16_to_float(static_cast<uint16_t>(b)), decode_by_definition(b, 8))) << b;
}

// Every finite value round-trips; every NaN stays NaN; and at each midpoint between neighbours
// (exact in float and double) ties go to the even neighbour, while a hair either side goes to the
// nearer one.
template <typename FromFloat, typename FromDouble>
void check_encoding(int exp_bits, uint16_t max_finite, FromFloat from_float, FromDouble from_double) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const auto h = static_cast<uint16_t>(b);
    const double v = decode_by_definition(h, exp_bits);
    if (std::isnan(v)) {
      ASSERT_TRUE(std::isnan(decode_by_definition(from_float(static_cast<float>(v)), exp_bits)));
      ASSERT_TRUE(std::isnan(decode_by_definition(from_double(v), exp_bits)));
      continue;
    }
    ASSERT_EQ(from_float(static_cast<float>(v)), h) << b;
    ASSERT_EQ(from_double(v), h) << b;
  }
  for (uint32_t b = 0; b < max_finite; ++b) {
    for (uint16_t sign : {uint16_t{0}, uint16_t{0x8000}}) {
      const uint16_t lo = static_cast<uint16_t>(b) | sign, hi = static_cast<uint16_t>(b + 1) | sign;
      const double mid = (decode_by_definition(lo, exp_bits) + decode_by_definition(hi, exp_bits)) / 2;
      const uint16_t even = (lo & 1) ? hi : lo;
      ASSERT_EQ(from_double(mid), even) << "tie at " << b;
      ASSERT_EQ(from_float(static_cast<float>(mid)), even) << "tie at " << b;
      // Just inside each neighbour: a relative nudge far below the float grid, which a rounding
      // through float would lose (double rounding); the direct double path must keep it.
      const double nudge = std::fabs(mid) * 0x1p-40;
      ASSERT_EQ(from_double(mid - std::copysign(nudge, mid)), lo) << "below tie at " << b;
      ASSERT_EQ(from_double(mid + std::copysign(nudge, mid)), hi) << "above tie at " << b;
    }
  }
}

TEST(Fp16, EncodesRoundTripsAndTiesToEven) {
  check_encoding(5, 0x7bff, float_to_half, double_to_half);
}

TEST(Bf16, EncodesRoundTripsAndTiesToEven) {
  check_encoding(8, 0x7f7f, float_to_bf16, double_to_bf16);
}

TEST(Fp16, OverflowAndUnderflowThresholds) {
  EXPECT_EQ(double_to_half(65504.0), 0x7bff);
  EXPECT_EQ(double_to_half(65519.999), 0x7bff);
  EXPECT_EQ(double_to_half(65520.0), 0x7c00);  // tie with max finite (odd): to even = inf
  EXPECT_EQ(double_to_half(-1e300), 0xfc00);
  EXPECT_EQ(double_to_half(0x1p-25), 0x0000);       // half the smallest subnormal: tie to 0
  EXPECT_EQ(double_to_half(0x1.0001p-25), 0x0001);  // just above: smallest subnormal
  EXPECT_EQ(double_to_half(-0x1p-26), 0x8000);
  EXPECT_EQ(double_to_half(0x1.ffcp-15), 0x0400);  // rounds up to the smallest normal
}

TEST(Bf16, OverflowAndUnderflowThresholds) {
  EXPECT_EQ(double_to_bf16(0x1.fep127), 0x7f7f);
  EXPECT_EQ(double_to_bf16(0x1.ffp127), 0x7f80);  // tie with max finite (odd): to even = inf
  EXPECT_EQ(double_to_bf16(0x1p-134), 0x0000);
  EXPECT_EQ(double_to_bf16(0x1.01p-134), 0x0001);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
}

// All 2^32 floats: the bit-trick float->bf16 agrees with the independent frexp/nearbyint path.
TEST(Bf16Slow, FloatToBf16AgreesWithDirectRoundingForAllFloats) {
  for (uint64_t u = 0; u < (uint64_t{1} << 32); ++u) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(u));
    const uint16_t a = float_to_bf16(f), b = double_to_bf16(f);
    if (std::isnan(f)) {
      ASSERT_TRUE((a & 0x7f80) == 0x7f80 && (a & 0x7f) && (b & 0x7f80) == 0x7f80 && (b & 0x7f)) << u;
    } else {
      ASSERT_EQ(a, b) << u;
    }
  }
}

// All 2^32 floats to fp16 against F16C-free arithmetic in double: float_to_half must equal the
// direct double rounding (the float is exact in double, so both are one rounding).
TEST(Fp16Slow, FloatToHalfIsCorrectlyRoundedForAllFloats) {
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 1) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(u));
    if (std::isnan(f)) continue;
    const uint16_t h = float_to_half(f);
    const double back = half_to_float(h);
    // No fp16 value is strictly nearer to f than the result.
    if (std::isinf(back)) {
      ASSERT_GE(std::fabs(static_cast<double>(f)), 65520.0) << u;
      continue;
    }
    const double err = std::fabs(back - f);
    const double up = half_to_float(static_cast<uint16_t>(h + 1)), down =
        (h & 0x7fff) ? half_to_float(static_cast<uint16_t>(h - 1)) : -back;
    ASSERT_LE(err, std::fabs(up - f)) << u;
    ASSERT_LE(err, std::fabs(down - f)) << u;
  }
}

TEST(Promotion, MatchesTheSpecTableWhereTheProseNamesIt) {
  // ABI-PROMOTE-1 and GELU-DTYPE-1's examples.
  EXPECT_EQ(promote_types(ACL_INT32, ACL_FLOAT), ACL_FLOAT);
  EXPECT_EQ(promote_types(ACL_DOUBLE, ACL_FLOAT), ACL_DOUBLE);
  EXPECT_EQ(promote_types(ACL_FLOAT16, ACL_BF16), ACL_FLOAT);
  EXPECT_EQ(promote_types(ACL_BF16, ACL_INT64), ACL_BF16);
  EXPECT_EQ(promote_types(ACL_INT8, ACL_UINT8), ACL_INT16);
  EXPECT_EQ(promote_types(ACL_BOOL, ACL_BOOL), ACL_BOOL);
  EXPECT_EQ(promote_types(ACL_UINT16, ACL_UINT16), ACL_UINT16);
  EXPECT_FALSE(promote_types(ACL_UINT16, ACL_INT32).has_value());
  EXPECT_FALSE(promote_types(ACL_UINT32, ACL_FLOAT).has_value());
  EXPECT_FALSE(promote_types(ACL_COMPLEX64, ACL_FLOAT).has_value());
}

TEST(Promotion, IsSymmetric) {
  const aclDataType all[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16, ACL_INT8, ACL_UINT8,
                             ACL_INT16, ACL_INT32, ACL_INT64, ACL_BOOL, ACL_UINT16, ACL_UINT32,
                             ACL_UINT64, ACL_COMPLEX64, ACL_COMPLEX128};
  for (auto a : all)
    for (auto b : all) EXPECT_EQ(promote_types(a, b), promote_types(b, a)) << a << " " << b;
}

TEST(IntegerStores, RoundHalfToEvenAndSaturate) {
  int8_t i8;
  store_from_double(&i8, ACL_INT8, 2.5);
  EXPECT_EQ(i8, 2);
  store_from_double(&i8, ACL_INT8, -3.5);
  EXPECT_EQ(i8, -4);
  store_from_double(&i8, ACL_INT8, 300.0);
  EXPECT_EQ(i8, 127);
  store_from_double(&i8, ACL_INT8, -1e30);
  EXPECT_EQ(i8, -128);
  int32_t i32;
  store_from_double(&i32, ACL_INT32, 4e9);
  EXPECT_EQ(i32, 2147483647);
  store_from_double(&i32, ACL_INT32, std::nan(""));
  EXPECT_EQ(i32, 0);
}

}  // namespace
