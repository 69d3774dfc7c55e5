// An independent evaluation for the oracle's self-tests: MPFR's own IEEE emulation (exponent
// range + mpfr_subnormalize) rounding a high-precision value to a dtype's bits - a different
// method from the oracle's round_to_bits, so the two check each other.
#pragma once

#include <cstdint>
// clang-format off
#include <mpfr.h>
// clang-format on

#include "reference/dtype.hpp"

namespace independent {

using aclnn_ref::DType;

struct M {
  mpfr_t v;
  explicit M(mpfr_prec_t p = 1024) { mpfr_init2(v, p); }
  ~M() { mpfr_clear(v); }
  M(const M &) = delete;
};

// Independent rounding: MPFR's IEEE emulation for floats,
// mpfr_rint (ties to even) and saturation for integers.
inline uint64_t ieee_round(mpfr_srcptr v, DType t) {
  if (t == DType::kInt8 || t == DType::kInt32) {
    if (mpfr_nan_p(v)) return 0;
    const double lo = t == DType::kInt8 ? -128.0 : -2147483648.0;
    const double hi = t == DType::kInt8 ? 127.0 : 2147483647.0;
    M r(mpfr_get_prec(v));
    mpfr_rint(r.v, v, MPFR_RNDN);
    double d = mpfr_cmp_d(r.v, hi) > 0   ? hi
               : mpfr_cmp_d(r.v, lo) < 0 ? lo
                                         : mpfr_get_d(r.v, MPFR_RNDN);
    if (t == DType::kInt8) return static_cast<uint8_t>(static_cast<int8_t>(d));
    return static_cast<uint32_t>(static_cast<int32_t>(d));
  }
  int p, emin, emax, width;
  switch (t) {
    case DType::kFloat16:
      p = 11, emin = -14, emax = 15, width = 16;
      break;
    case DType::kBFloat16:
      p = 8, emin = -126, emax = 127, width = 16;
      break;
    case DType::kFloat32:
      p = 24, emin = -126, emax = 127, width = 32;
      break;
    default:
      p = 53, emin = -1022, emax = 1023, width = 64;
      break;
  }
  const int mant = p - 1;
  const uint64_t expmask = (uint64_t{1} << (width - 1 - mant)) - 1;
  if (mpfr_nan_p(v)) return (expmask << mant) | (uint64_t{1} << (mant - 1));
  const uint64_t sign = mpfr_signbit(v) ? uint64_t{1} << (width - 1) : 0;
  M r(p);
  int i = mpfr_set(r.v, v, MPFR_RNDN);
  const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
  mpfr_set_emin(emin - p + 2);
  mpfr_set_emax(emax + 1);
  i = mpfr_check_range(r.v, i, MPFR_RNDN);
  mpfr_subnormalize(r.v, i, MPFR_RNDN);
  mpfr_set_emin(old_emin);
  mpfr_set_emax(old_emax);
  if (mpfr_inf_p(r.v)) return sign | (expmask << mant);
  if (mpfr_zero_p(r.v)) return sign;
  const long E = mpfr_get_exp(r.v) - 1;
  M s(p + 2);
  mpfr_abs(s.v, r.v, MPFR_RNDN);
  if (E < emin) {
    mpfr_mul_2si(s.v, s.v, mant - emin, MPFR_RNDN);
    return sign | mpfr_get_ui(s.v, MPFR_RNDN);
  }
  mpfr_mul_2si(s.v, s.v, mant - E, MPFR_RNDN);
  const uint64_t m = mpfr_get_ui(s.v, MPFR_RNDN) - (uint64_t{1} << mant);
  return sign | (static_cast<uint64_t>(E + emax) << mant) | m;
}

// An exact rational (e.g. a Boost mpq_rational's backend().data()) rounded the same way: first to
// odd at 117 bits (truncated, the last bit set when anything was dropped), which keeps every
// dtype's round to nearest even of the rational, then by ieee_round above.
inline uint64_t ieee_round(mpq_srcptr q, DType t) {
  M r(117);
  if (mpfr_set_q(r.v, q, MPFR_RNDZ) != 0) {
    // Odd: the integer significand's last bit set (one ulp away from zero when it was even).
    M half(117);  // the integer significand halved: an integer where it is even
    mpfr_mul_2si(half.v, r.v, 117 - 1 - mpfr_get_exp(r.v), MPFR_RNDN);  // exact
    if (mpfr_integer_p(half.v)) {
      if (mpfr_sgn(r.v) > 0)
        mpfr_nextabove(r.v);
      else
        mpfr_nextbelow(r.v);
    }
  }
  return ieee_round(r.v, t);
}

}  // namespace independent
