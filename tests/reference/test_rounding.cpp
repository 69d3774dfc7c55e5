// The oracle's single-rounding routine against exhaustive fp16/bf16 boundaries.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "reference/dtype.hpp"
#include "reference/rounding.hpp"

namespace {
using aclnn_ref::DType;

struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, 200); }
  ~Mp() { mpfr_clear(v); }
};

// For every finite non-negative 16-bit value b and its successor: b itself, the exact midpoint
// (ties to even), and the midpoint nudged by 2^-150 relative either way round as IEEE says.
void check_format(DType t, uint16_t max_finite) {
  Mp x, mid, d;
  for (uint32_t b = 0; b < max_finite; ++b) {
    const uint16_t lo = static_cast<uint16_t>(b), hi = static_cast<uint16_t>(b + 1);
    const double vlo = aclnn_ref::decode(&lo, t), vhi = aclnn_ref::decode(&hi, t);
    mpfr_set_d(x.v, vlo, MPFR_RNDN);
    ASSERT_EQ(aclnn_ref::round_to_bits(x.v, t), lo) << b;
    mpfr_set_d(mid.v, vlo, MPFR_RNDN);
    mpfr_add_d(mid.v, mid.v, vhi, MPFR_RNDN);
    mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);  // exact at 200 bits
    const uint16_t even = (lo & 1) ? hi : lo;
    ASSERT_EQ(aclnn_ref::round_to_bits(mid.v, t), even) << "tie at " << b;
    mpfr_mul_2si(d.v, mid.v, -150, MPFR_RNDN);
    mpfr_sub(x.v, mid.v, d.v, MPFR_RNDN);
    ASSERT_EQ(aclnn_ref::round_to_bits(x.v, t), lo) << "below tie at " << b;
    mpfr_add(x.v, mid.v, d.v, MPFR_RNDN);
    ASSERT_EQ(aclnn_ref::round_to_bits(x.v, t), hi) << "above tie at " << b;
    mpfr_neg(x.v, x.v, MPFR_RNDN);
    ASSERT_EQ(aclnn_ref::round_to_bits(x.v, t), hi | 0x8000u) << "negative at " << b;
  }
}

TEST(Rounding, Fp16AllValuesAndMidpoints) {
  check_format(DType::kFloat16, 0x7bff);
}
TEST(Rounding, Bf16AllValuesAndMidpoints) {
  check_format(DType::kBFloat16, 0x7f7f);
}

TEST(Rounding, OverflowAndUnderflowThresholds) {
  Mp x;
  // fp16: 65520 (max + half ulp) is a tie that rounds to even, i.e. to +inf.
  mpfr_set_d(x.v, 65520.0, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::round_to_bits(x.v, DType::kFloat16), 0x7c00u);
  mpfr_set_d(x.v, 65519.99, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::round_to_bits(x.v, DType::kFloat16), 0x7bffu);
  // Half the smallest subnormal (2^-25) is a tie to even: +0; a hair above gives 2^-24.
  mpfr_set_d(x.v, 0x1p-25, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::round_to_bits(x.v, DType::kFloat16), 0x0000u);
  mpfr_set_d(x.v, 0x1.0000001p-25, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::round_to_bits(x.v, DType::kFloat16), 0x0001u);
  mpfr_set_d(x.v, -0x1p-30, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::round_to_bits(x.v, DType::kFloat16), 0x8000u);
  // fp32: the largest finite value and the first value that overflows.
  mpfr_set_d(x.v, 0x1.fffffeffffp127, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::round_to_bits(x.v, DType::kFloat32), 0x7f7fffffu);
  mpfr_set_d(x.v, 0x1.ffffffp127, MPFR_RNDN);
  EXPECT_EQ(aclnn_ref::round_to_bits(x.v, DType::kFloat32), 0x7f800000u);
}

// bits_from_double takes the fast conversion for the float dtypes (the generators call it per
// element): it must give round_to_bits' bits for every double, ties, specials and NaN included.
TEST(Rounding, BitsFromDoubleIsTheOneRoundingOfTheDouble) {
  Mp x;
  std::mt19937_64 rng(20261127);
  int64_t checked = 0;
  const auto check = [&](double v, DType t) {
    mpfr_set_d(x.v, v, MPFR_RNDN);
    const uint64_t want = aclnn_ref::round_to_bits(x.v, t);
    ASSERT_EQ(aclnn_ref::bits_from_double(v, t), want)
        << std::hexfloat << v << " dtype " << aclnn_ref::dtype_name(t);
    ++checked;
  };
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64}) {
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double v : {0.0, -0.0, inf, -inf, nan, -nan, 65520.0, 65519.99, 0x1p-25, 0x1.0000001p-25,
                     0x1.fffffeffffp127, 0x1.ffffffp127, 0x1p-150, 0x1p-1074})
      check(v, t);
    for (int i = 0; i < 200000; ++i) {
      const uint64_t bits = rng();
      double v;
      std::memcpy(&v, &bits, sizeof v);
      check(v, t);  // any double: NaN payloads, subnormals, huge values
      // Values on and between the 16- and 32-bit grids: exact midpoints are ties.
      const double grid =
          std::ldexp(static_cast<double>((rng() >> 40) | 1), static_cast<int>(rng() % 300) - 173);
      check(grid, t);
      check(-grid, t);
    }
  }
  EXPECT_EQ(checked, 4 * (14 + 3 * 200000));
}

TEST(Rounding, IntegersRoundHalfToEvenAndSaturate) {
  Mp x;
  const auto r8 = [&](double v) {
    mpfr_set_d(x.v, v, MPFR_RNDN);
    return static_cast<int8_t>(aclnn_ref::round_to_bits(x.v, DType::kInt8));
  };
  EXPECT_EQ(r8(2.5), 2);
  EXPECT_EQ(r8(3.5), 4);
  EXPECT_EQ(r8(-2.5), -2);
  EXPECT_EQ(r8(126.6), 127);
  EXPECT_EQ(r8(1e9), 127);
  EXPECT_EQ(r8(-128.4), -128);
  EXPECT_EQ(r8(-1e300), -128);
  mpfr_set_d(x.v, 2147483647.5, MPFR_RNDN);
  EXPECT_EQ(static_cast<int32_t>(aclnn_ref::round_to_bits(x.v, DType::kInt32)), 2147483647);
}

TEST(Rounding, ZivTestRefusesAnUndecidedInterval) {
  Mp x, err;
  mpfr_set_d(x.v, 1.0 + 0x1p-11, MPFR_RNDN);  // the fp16 midpoint between 1 and 1 + 2^-10
  mpfr_set_d(err.v, 0x1p-40, MPFR_RNDN);
  EXPECT_FALSE(aclnn_ref::round_if_decided(x.v, err.v, DType::kFloat16).has_value());
  mpfr_set_d(x.v, 1.0 + 0x1p-12, MPFR_RNDN);
  auto r = aclnn_ref::round_if_decided(x.v, err.v, DType::kFloat16);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 0x3c00u);
}

}  // namespace
