// Scalar helpers shared by the elementwise backward ops (GeluBackward, SeluBackward): exact
// conversions into a computation dtype, double-double arithmetic, correctly rounded conversion of a
// double-double to an integer, and the GELU derivative g(x) in double with a cancellation-free
// evaluation near its root (spec GELU-VALUE-1, GELU-SPECIAL-1/2). Private to impl/.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "impl/dtype.hpp"

namespace aclnn_cpu::ew {

#define ACLNN_EW_INLINE inline __attribute__((always_inline))

// ---- double-double --------------------------------------------------------------------------
// s + e == a + b exactly (Knuth's TwoSum; no precondition on magnitudes).
ACLNN_EW_INLINE void two_sum(double a, double b, double &s, double &e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
// p + e == a * b exactly (needs a correctly rounded fma; compiled to one instruction where the
// caller's target has FMA).
ACLNN_EW_INLINE void two_prod(double a, double b, double &p, double &e) {
  p = a * b;
  e = std::fma(a, b, -p);
}

// ---- exact loads ----------------------------------------------------------------------------
// An int64 as a double that rounds to any format of at most 50 significant bits exactly as the
// integer itself would (|v| < 2^53: exact; beyond: 52 leading bits plus a sticky bit).
ACLNN_EW_INLINE double int64_sticky(int64_t v) {
  if (v > -(int64_t{1} << 53) && v < (int64_t{1} << 53)) return static_cast<double>(v);
  const bool neg = v < 0;
  const uint64_t u = neg ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const int shift = (64 - std::countl_zero(u)) - 52;
  uint64_t hi = u >> shift;
  if ((u & ((uint64_t{1} << shift) - 1)) != 0) hi |= 1;
  const double d = std::ldexp(static_cast<double>(hi), shift);
  return neg ? -d : d;
}

// ---- rounding a double-double to an integer -------------------------------------------------
// Nearest integer to hi + lo (ties to even), saturated to I's range; NaN gives 0. Requires
// |lo| <= ulp(hi) (a normalised double-double). Exact: the decision uses only exact operations and
// the sign of one correctly rounded sum.
template <typename I>
ACLNN_EW_INLINE I round_dd_to_int(double hi, double lo) {
  constexpr double kMin = static_cast<double>(std::numeric_limits<I>::min());
  constexpr double kMax = static_cast<double>(std::numeric_limits<I>::max());
  if (std::isnan(hi)) return 0;
  if (hi < kMin - 2.0) return std::numeric_limits<I>::min();
  if (hi > kMax + 2.0) return std::numeric_limits<I>::max();
  // |hi| < 2^32 here, so ulp(hi) <= 2^-20 and r is a multiple of ulp(hi): a = hi - r is exact.
  double r = std::nearbyint(hi);
  const double a = hi - r;  // in [-0.5, 0.5]
  // Sign of (a + lo) - 0.5 and of (a + lo) + 0.5: a -/+ 0.5 is exact (a is a multiple of
  // ulp(hi) >= 2^-52 and |a -/+ 0.5| <= 1); the rounded sum with lo has the exact sum's sign.
  const double up = (a - 0.5) + lo;
  const double down = (a + 0.5) + lo;
  if (up > 0) {
    r += 1;
  } else if (down < 0) {
    r -= 1;
  } else if (up == 0 || down == 0) {
    // Exact tie between r and its neighbour on that side: the even one wins.
    const double other = up == 0 ? r + 1 : r - 1;
    if (std::fmod(other, 2.0) == 0) r = other;
  }
  if (r < kMin) return std::numeric_limits<I>::min();
  if (r > kMax) return std::numeric_limits<I>::max();
  return static_cast<I>(r);
}

// ---- SELU constants (spec selu_backward.md), as double-double from the 32-digit decimals ------
// lambda = 1.0507009873554804934193349852946, lambda*alpha = 1.7580993408473768599402175208123.
constexpr double kSeluLambdaHi = 0x1.0cfabd6a91132p+0;
constexpr double kSeluLambdaLo = 0x1.6fc7d272f2695p-55;
constexpr double kSeluLambdaAlphaHi = 0x1.c212cc640f031p+0;
constexpr double kSeluLambdaAlphaLo = 0x1.05161b045a1f7p-56;

// ---- GELU derivative g(x) = Phi(x) + x*phi(x) -------------------------------------------------
constexpr double kInvSqrt2 = 0x1.6a09e667f3bcdp-1;    // 1/sqrt(2)
constexpr double kInvSqrt2Pi = 0x1.9884533d43651p-2;  // 1/sqrt(2*pi)
// The root x0 of g as a double-double (mpmath, 80 digits: -0.75179152469356445745790494677952).
constexpr double kGeluRootHi = -0x1.80ead197f00b4p-1;
constexpr double kGeluRootLo = 0x1.13e74c58cada8p-56;
// Within |x - x0| < kGeluRootRadius the three terms of g cancel; there g is evaluated from its
// Taylor series at x0: g(x0 + d) = sum_{k=1..12} c_k d^k, c_k = g^(k)(x0)/k! (g^(k) = phi*P_k with
// P_1 = 2 - x^2, P_{k+1} = P_k' - x P_k; computed with mpmath at 80 digits). At |d| = 1/32 the
// first omitted term is below 2^-70 of the sum; outside, the direct sum has a condition number
// below 40, so double evaluation keeps a relative error below 2^-45.
constexpr double kGeluRootRadius = 0x1p-5;
constexpr double kGeluTaylor[12] = {
    0x1.b9d98fa5a3215p-2,   0x1.8d9a941de3ac5p-2,  -0x1.2a2ef9bb865aep-6, -0x1.d2fa4c17c7e84p-4,
    -0x1.e4088244f901dp-7,  0x1.3e346def42057p-6,  0x1.297b9d6ffaacdp-8,  -0x1.258a6d85633afp-9,
    -0x1.8680f74e6b6bap-11, 0x1.86c863b66083cp-13, 0x1.69610924deba8p-14, -0x1.784acad4b941ep-17,
};

ACLNN_EW_INLINE double gelu_g_near_root(double x) {
  // x - hi is exact (Sterbenz: x within a factor 2 of hi); subtracting lo rounds once.
  const double d = (x - kGeluRootHi) - kGeluRootLo;
  double p = kGeluTaylor[11];
  for (int k = 10; k >= 0; --k) p = p * d + kGeluTaylor[k];
  return p * d;
}

// Fixes one lane after the bulk formula 0.5*erfc(-x/sqrt2) + x/sqrt(2pi)*exp(-x^2/2):
// near the root, the Taylor form; at +/-inf, the limits 1 and -0 (GELU-SPECIAL-1); a finite x whose
// g underflowed in double (x < about -38.5) keeps its sign as the smallest negative double, so
// that dy = +/-inf still gives -/+inf (IEEE on the exact value) and finite dy rounds to -0.
ACLNN_EW_INLINE double gelu_g_fixup(double x, double g) {
  if (std::fabs(x - kGeluRootHi) < kGeluRootRadius) return gelu_g_near_root(x);
  if (std::isinf(x)) return x > 0 ? 1.0 : -0.0;
  if (g == 0 && x == x) return -std::numeric_limits<double>::denorm_min();
  return g;
}

// Scalar reference path (libm); the SIMD paths in gelu_backward.cpp compute the same bulk formula.
inline double gelu_g(double x) {
  const double g = 0.5 * std::erfc(-x * kInvSqrt2) + x * kInvSqrt2Pi * std::exp(-0.5 * x * x);
  return gelu_g_fixup(x, g);
}

}  // namespace aclnn_cpu::ew
