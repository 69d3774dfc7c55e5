// Shared exact-evaluation helpers of the oracle (elementwise ops and others may use them; only the
// elementwise oracle's owner edits this file).
//
// - Mp: a Boost.Multiprecision mpfr_float with a fixed precision in bits, and raw access to its
//   mpfr_t for the MPFR calls Boost does not wrap (directed rounding, ternary values).
// - fast_round_double: the single RNE rounding of an exact double to fp16/bf16/fp32/fp64 without
//   MPFR (same bits as round_to_bits on that double), for fast Ziv tests.
// - fast_decide: Ziv's test on a double interval [lo, hi].
// - round_ratio_exact: one correct rounding of an exact quotient num/den (ties handled exactly).
// - ziv_loop: precision-doubling driver that fails loudly at a cap.
// - Broadcaster: row-major iteration over a broadcast shape with input offsets.
#pragma once

// <cstdint> before <mpfr.h>, as in rounding.hpp.
#include <cstdint>
// clang-format off
#include <mpfr.h>
// clang-format on
#include <boost/multiprecision/mpfr.hpp>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/dtype.hpp"
#include "reference/host_tensor.hpp"
#include "reference/rounding.hpp"
#include "reference/spec.hpp"

namespace aclnn_ref::exact {

using boost::multiprecision::mpfr_float;

// An MPFR number of an exact bit precision, owned by Boost's mpfr_float (RAII). Arithmetic is
// done with mpfr_* calls on raw() so that every rounding is explicit and counted in the error
// bounds (Boost's operator expressions pick the result precision themselves).
class Mp {
 public:
  explicit Mp(mpfr_prec_t bits) { mpfr_set_prec(v_.backend().data(), bits); }
  Mp(mpfr_prec_t bits, double d) : Mp(bits) { mpfr_set_d(raw(), d, MPFR_RNDN); }
  mpfr_ptr raw() { return v_.backend().data(); }
  mpfr_srcptr raw() const { return v_.backend().data(); }
  mpfr_float &boost() { return v_; }
  const mpfr_float &boost() const { return v_; }
  void set_prec(mpfr_prec_t bits) { mpfr_set_prec(raw(), bits); }

 private:
  mpfr_float v_;
};

// Largest working precision of any Ziv loop before it gives up loudly.
constexpr mpfr_prec_t kMaxPrecision = mpfr_prec_t{1} << 14;

// Thrown when a Ziv loop reaches kMaxPrecision (an exact case the code does not know about).
struct ZivFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs step(prec) for prec = start, 2*start, ... until it returns bits; throws ZivFailure with
// `what` at kMaxPrecision. step evaluates an approximation and its rigorous error bound at prec
// and returns round_if_decided(...).
template <typename Step>
uint64_t ziv_loop(mpfr_prec_t start, Step &&step, const char *what) {
  for (mpfr_prec_t p = start; p <= kMaxPrecision; p *= 2) {
    if (std::optional<uint64_t> b = step(p)) return *b;
  }
  throw ZivFailure(std::string("aclnn_ref: Ziv loop undecided at the precision cap: ") + what);
}

// Bits of the element of `out` nearest to the double v, ties to even: floats with gradual
// underflow and overflow to inf, NaN as the canonical quiet NaN of round_to_bits; integers
// saturated, NaN -> 0. Identical to round_to_bits on an MPFR copy of v, but without MPFR for
// fp16, bf16, fp32, fp64, int8, int16, int32, uint8.
uint64_t fast_round_double(double v, DType out);

// The double value of the element nearest to v in `t` (float dtypes: RNE; integer dtypes: v
// itself if exact, which the callers guarantee). Used for conversions to a computation type.
double round_double_to(double v, DType t);

// Ziv's test on doubles: lo <= exact <= hi. Rounding is monotone, so equal roundings of the ends
// decide every point between them. Returns the bits, or nullopt.
inline std::optional<uint64_t> fast_decide(double lo, double hi, DType out) {
  const uint64_t a = fast_round_double(lo, out);
  if (a != fast_round_double(hi, out)) return std::nullopt;
  const double mid = lo / 2 + hi / 2;  // halves first: no overflow
  note_rounded_from(mid,
                    std::nextafter(hi / 2 - lo / 2, INFINITY) + std::ldexp(std::fabs(mid), -52));
  return a;
}

// For an elementwise output of a float dtype: sizes exact_nearest/exact_error to its elements.
void init_exact(ExpectedOutput &eo);
// Keeps element i's exact value (the last rounding's RoundedFrom) beside its value of record
// `bits`. A note that does not fit the bits (a path that made them without rounding) is
// replaced by the value of record itself with error 0, the judge's former reading.
void keep_exact(ExpectedOutput &eo, int64_t i, uint64_t bits);

// Outward-rounded interval ends of y +- err: nextafter of the nearest rounding is on the safe side.
double lower_end(double y, double err);
double upper_end(double y, double err);

// Bits of the correct rounding (RNE, to `out`, any dtype round_to_bits knows) of num/den, both
// exact MPFR values. Uses a round-to-odd quotient at 2*max(prec)+64 bits (>= p_out + 2 bits), so
// the final RNE rounding by round_to_bits is the single rounding of the exact quotient, ties
// included. den = 0 and specials follow IEEE (via mpfr_div).
uint64_t round_ratio_exact(mpfr_srcptr num, mpfr_srcptr den, DType out);

// Bits of the correct rounding of an exact MPFR value that round_to_bits takes directly.
inline uint64_t round_exact(mpfr_srcptr x, DType out) {
  return round_to_bits(x, out);
}

// Row-major iteration over an output shape with one or more inputs broadcast to it (NumPy rules,
// ABI-BCAST-1; the caller has checked the shapes). offset(k) is the element offset of input k.
class Broadcaster {
 public:
  Broadcaster(const std::vector<int64_t> &out_shape, const std::vector<const TensorView *> &inputs);
  int64_t offset(size_t k) const { return offs_[k]; }
  void next();  // advances to the next row-major index

 private:
  std::vector<int64_t> shape_;
  std::vector<int64_t> index_;
  std::vector<std::vector<int64_t>> strides_;  // per input, aligned to shape_, 0 where broadcast
  std::vector<int64_t> offs_;
};

// The exact value of the element at an element offset of a view's storage, converted to the
// computation dtype `to` with one RNE rounding (exact for every dtype, int64/uint64 included).
double read_as(const TensorView &v, int64_t elem_offset, DType to);

// NumPy broadcast of two shapes (ABI-BCAST-1), or nullopt.
std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t> &a,
                                                     const std::vector<int64_t> &b);

std::string shape_str(const std::vector<int64_t> &s);

}  // namespace aclnn_ref::exact
