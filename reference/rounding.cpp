#include "reference/rounding.hpp"  // first: it orders <cstdint> before <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "reference/exact.hpp"

namespace aclnn_ref {
namespace {

// RAII for an mpfr_t scratch value.
struct Mpfr {
  mpfr_t v;
  explicit Mpfr(mpfr_prec_t p) { mpfr_init2(v, p); }
  ~Mpfr() { mpfr_clear(v); }
  Mpfr(const Mpfr &) = delete;
  Mpfr &operator=(const Mpfr &) = delete;
};

int total_bits(DType t) {
  return static_cast<int>(dtype_size(t)) * 8;
}

uint64_t float_bits(mpfr_srcptr x, DType out) {
  const FloatFormat f = float_format(out);
  const int width = total_bits(out);
  const int mant_bits = f.precision - 1;
  const uint64_t sign = mpfr_signbit(x) ? uint64_t{1} << (width - 1) : 0;
  const uint64_t exp_all_ones = (uint64_t{1} << (width - 1 - mant_bits)) - 1;
  const uint64_t inf = sign | (exp_all_ones << mant_bits);
  if (mpfr_nan_p(x)) return (exp_all_ones << mant_bits) | (uint64_t{1} << (mant_bits - 1));
  if (mpfr_inf_p(x)) return inf;
  if (mpfr_zero_p(x)) return sign;
  // x = m * 2^E with m in [0.5, 1): the IEEE exponent is E - 1. The quantum of the result is
  // 2^q, q = max(e - (p - 1), emin - (p - 1)) (below emin: the fixed subnormal quantum).
  const long e = static_cast<long>(mpfr_get_exp(x)) - 1;
  const long q = std::max<long>(e - mant_bits, f.emin - mant_bits);
  // |x| / 2^q rounded to an integer, ties to even: at most 2^p, so p + 2 bits hold it exactly.
  Mpfr scaled(mpfr_get_prec(x));
  mpfr_mul_2si(scaled.v, x, -q, MPFR_RNDN);  // exact: only the exponent changes
  mpfr_abs(scaled.v, scaled.v, MPFR_RNDN);
  Mpfr n(f.precision + 2);
  mpfr_rint(n.v, scaled.v, MPFR_RNDN);
  uint64_t mant = mpfr_get_uj(n.v, MPFR_RNDN);
  long qq = q;
  if (mant == 0) return sign;                // underflow to zero
  if (mant == uint64_t{1} << f.precision) {  // rounding carried into the next binade
    mant >>= 1;
    ++qq;
  }
  if (mant < uint64_t{1} << mant_bits) return sign | mant;  // subnormal (exponent field 0)
  const long biased = qq + mant_bits + f.emax;              // exponent qq + p - 1, bias emax
  if (biased >= static_cast<long>(exp_all_ones)) return inf;
  return sign | (static_cast<uint64_t>(biased) << mant_bits) | (mant - (uint64_t{1} << mant_bits));
}

template <typename I>
uint64_t int_bits(mpfr_srcptr x) {
  if (mpfr_nan_p(x)) return 0;
  I v;
  if (mpfr_cmp_d(x, 0x1p63) >= 0) {
    v = std::numeric_limits<I>::max();
  } else if (mpfr_cmp_d(x, -0x1p63) <= 0) {
    v = std::numeric_limits<I>::min();
  } else {
    Mpfr n(66);
    mpfr_rint(n.v, x, MPFR_RNDN);  // |n| < 2^63 + 1: exact in 66 bits
    const intmax_t r = mpfr_get_sj(n.v, MPFR_RNDN);
    if constexpr (std::is_signed_v<I>) {
      v = static_cast<I>(
          std::clamp<intmax_t>(r, std::numeric_limits<I>::min(), std::numeric_limits<I>::max()));
    } else {
      v = r < 0 ? 0
                : static_cast<I>(std::min<uintmax_t>(static_cast<uintmax_t>(r),
                                                     std::numeric_limits<I>::max()));
    }
  }
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

thread_local RoundedFrom t_rounded_from;

// The nearest double of an MPFR value and the bound 2^-52 |value| on their distance (the
// subnormal range of double is far below every output dtype's quantum that matters here).
RoundedFrom nearest_double(mpfr_srcptr x) {
  const double v = mpfr_get_d(x, MPFR_RNDN);
  return {v, std::ldexp(std::fabs(v), -52)};
}

}  // namespace

RoundedFrom last_rounded_from() {
  return t_rounded_from;
}
void note_rounded_from(double value, double error) {
  t_rounded_from = {value, error};
}

uint64_t round_to_bits(mpfr_srcptr x, DType out) {
  t_rounded_from = nearest_double(x);
  switch (out) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat64:
      return float_bits(x, out);
    case DType::kComplex64:  // a real value: the real part, imaginary part zero
      return float_bits(x, DType::kFloat32);
    case DType::kComplex128:  // the real part (bits_bytes: the imaginary half is not carried)
      return float_bits(x, DType::kFloat64);
    case DType::kInt8:
      return int_bits<int8_t>(x);
    case DType::kInt16:
      return int_bits<int16_t>(x);
    case DType::kInt32:
      return int_bits<int32_t>(x);
    case DType::kInt64:
      return int_bits<int64_t>(x);
    case DType::kUInt8:
      return int_bits<uint8_t>(x);
    case DType::kUInt16:
      return int_bits<uint16_t>(x);
    case DType::kUInt32:
      return int_bits<uint32_t>(x);
    case DType::kUInt64:
      return int_bits<uint64_t>(x);
    case DType::kBool:
      return mpfr_zero_p(x) ? 0 : 1;
  }
  return 0;
}

std::optional<uint64_t> round_if_decided(mpfr_srcptr x, mpfr_srcptr err, DType out) {
  if (mpfr_zero_p(err) || !mpfr_number_p(x)) return round_to_bits(x, out);
  const mpfr_prec_t p = std::max(mpfr_get_prec(x), mpfr_get_prec(err)) + 2;
  Mpfr lo(p), hi(p);
  mpfr_sub(lo.v, x, err, MPFR_RNDD);  // outward rounding keeps [lo, hi] around the true interval
  mpfr_add(hi.v, x, err, MPFR_RNDU);
  const uint64_t a = round_to_bits(lo.v, out), b = round_to_bits(hi.v, out);
  if (a != b) return std::nullopt;
  RoundedFrom from = nearest_double(x);
  from.error += mpfr_get_d(err, MPFR_RNDU);
  t_rounded_from = from;
  return a;
}

uint64_t bits_from_double(double v, DType out) {
  // The float dtypes take exact::fast_round_double's single RNE rounding (the same bits, NaN
  // included: tests/reference checks it); the generators call this per element, and MPFR's
  // rounding made their tables take most of a worker's start.
  switch (out) {
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64:
      return exact::fast_round_double(v, out);
    default:
      break;
  }
  Mpfr m(53);
  mpfr_set_d(m.v, v, MPFR_RNDN);  // exact
  return round_to_bits(m.v, out);
}

}  // namespace aclnn_ref
