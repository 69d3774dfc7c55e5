// Exact scalar arithmetic: double-double sums and products, an int64 as a double that rounds like
// the integer, and the correctly rounded conversion of a double-double to an integer. Private to
// impl/.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "impl/dtype.hpp"

namespace aclnn_cpu {

#define ACLNN_EXACT_INLINE inline __attribute__((always_inline))

// ---- double-double --------------------------------------------------------------------------
// s + e == a + b exactly (Knuth's TwoSum; no precondition on magnitudes).
ACLNN_EXACT_INLINE void two_sum(double a, double b, double &s, double &e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
// p + e == a * b exactly (needs a correctly rounded fma; compiled to one instruction where the
// caller's target has FMA).
ACLNN_EXACT_INLINE void two_prod(double a, double b, double &p, double &e) {
  p = a * b;
  e = std::fma(a, b, -p);
}

// ---- exact loads ----------------------------------------------------------------------------
// An int64 as a double that rounds to any format of at most 50 significant bits exactly as the
// integer itself would (|v| < 2^53: exact; beyond: 52 leading bits plus a sticky bit).
ACLNN_EXACT_INLINE double int64_sticky(int64_t v) {
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
ACLNN_EXACT_INLINE I round_dd_to_int(double hi, double lo) {
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

}  // namespace aclnn_cpu
