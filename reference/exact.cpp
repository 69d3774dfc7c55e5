#include "reference/exact.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "reference/compare.hpp"

namespace aclnn_ref::exact {

namespace {

// RNE rounding of a finite or special double to a binary format of precision p (hidden bit
// included), normal exponents [emin, emax], storage width `width` bits. Mirrors round_to_bits:
// the quantum is 2^q with q = max(E - (p-1), emin - (p-1)); |v| / 2^q is an exact double (only
// the exponent changes, the result is >= 2^-(p-1) or an integer-scale value), nearbyint rounds it
// to an integer ties-to-even (the default FE_TONEAREST mode, which the oracle never changes).
uint64_t round_generic(double v, int p, int emin, int emax, int width) {
  const int mant_bits = p - 1;
  const uint64_t exp_all_ones = (uint64_t{1} << (width - 1 - mant_bits)) - 1;
  const uint64_t sign = std::signbit(v) ? uint64_t{1} << (width - 1) : 0;
  if (std::isnan(v)) return (exp_all_ones << mant_bits) | (uint64_t{1} << (mant_bits - 1));
  if (std::isinf(v)) return sign | (exp_all_ones << mant_bits);
  if (v == 0) return sign;
  const double a = std::fabs(v);
  int e2 = 0;
  std::frexp(a, &e2);  // a = f * 2^e2, f in [0.5, 1): IEEE exponent e2 - 1
  const int e = e2 - 1;
  int q = std::max(e - mant_bits, emin - mant_bits);
  // a * 2^-q: exact (a double scaled by a power of two whose result is >= 2^-mant_bits... ):
  // if q <= e - mant_bits the result is >= 2^mant_bits (normal); else a < 2^emin and the scaled
  // value a*2^(mant_bits-emin) keeps all of a's bits (a's lsb >= 2^-1074 > 2^q * 2^-53 needs no
  // care: scaling up never loses bits, scaling down stops at >= 2^mant_bits).
  const double s = std::ldexp(a, -q);
  uint64_t mant = static_cast<uint64_t>(std::nearbyint(s));
  if (mant == 0) return sign;
  if (mant == uint64_t{1} << p) {
    mant >>= 1;
    ++q;
  }
  if (mant < uint64_t{1} << mant_bits) return sign | mant;  // subnormal
  const long biased = static_cast<long>(q) + mant_bits + emax;
  if (biased >= static_cast<long>(exp_all_ones)) return sign | (exp_all_ones << mant_bits);
  return sign | (static_cast<uint64_t>(biased) << mant_bits) | (mant - (uint64_t{1} << mant_bits));
}

// Integer dtypes (as round_to_bits): RNE to an integer, then saturation; NaN gives 0. The double
// nearbyint is exact (an integer-valued double), and the clamp happens before the conversion.
template <typename I>
uint64_t round_int(double v) {
  if (std::isnan(v)) return 0;
  double r = std::nearbyint(v);
  r = std::clamp(r, static_cast<double>(std::numeric_limits<I>::min()),
                 static_cast<double>(std::numeric_limits<I>::max()));
  const I i = static_cast<I>(r);
  uint64_t b = 0;
  std::memcpy(&b, &i, sizeof i);
  return b;
}

}  // namespace

uint64_t fast_round_double(double v, DType out) {
  note_rounded_from(v, 0);  // v is the real being rounded (the default branch notes it again)
  switch (out) {
    case DType::kFloat32: {
      if (std::isnan(v)) return 0x7fc00000u;
      const float f = static_cast<float>(v);  // IEEE conversion: RNE, subnormals, overflow
      return std::bit_cast<uint32_t>(f);
    }
    case DType::kFloat64:
      if (std::isnan(v)) return 0x7ff8000000000000ull;
      return std::bit_cast<uint64_t>(v);
    case DType::kFloat16:
      return round_generic(v, 11, -14, 15, 16);
    case DType::kBFloat16:
      return round_generic(v, 8, -126, 127, 16);
    case DType::kInt8:
      return round_int<int8_t>(v);
    case DType::kInt16:
      return round_int<int16_t>(v);
    case DType::kInt32:
      return round_int<int32_t>(v);
    case DType::kUInt8:
      return round_int<uint8_t>(v);
    default: {
      Mp m(64, v);
      return round_to_bits(m.raw(), out);
    }
  }
}

double round_double_to(double v, DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kBFloat16: {
      const uint64_t b = fast_round_double(v, t);
      return decode(&b, t);  // little-endian host: the low bytes hold the element
    }
    default:
      return v;
  }
}

void init_exact(ExpectedOutput &eo) {
  const DType t = eo.values.dtype;
  if (!is_floating(t) || t == DType::kFloat64) return;  // integers are exact; fp64 is its own
  const auto n = static_cast<size_t>(eo.values.numel());
  eo.exact_nearest.assign(n, 0.0);
  eo.exact_error.assign(n, 0.0);
}

void keep_exact(ExpectedOutput &eo, int64_t i, uint64_t bits) {
  if (eo.exact_nearest.empty()) return;
  const DType t = eo.values.dtype;
  const double record = decode(&bits, t);
  RoundedFrom from = last_rounded_from();
  // The note must describe a real whose rounding is the value of record: within half an ulp
  // of it (plus the note's own error), of the same class and sign.
  const bool fits = std::isfinite(record) && std::isfinite(from.value) && from.error >= 0 &&
                    std::signbit(from.value) == std::signbit(record) &&
                    std::fabs(from.value - record) <= 0.5 * ulp_at(record, t) + from.error;
  if (!fits) from = {record, 0};
  const auto k = static_cast<size_t>(i);
  eo.exact_nearest[k] = from.value;
  eo.exact_error[k] = from.error;
}

double lower_end(double y, double err) {
  return std::nextafter(y - err, -std::numeric_limits<double>::infinity());
}
double upper_end(double y, double err) {
  return std::nextafter(y + err, std::numeric_limits<double>::infinity());
}

uint64_t round_ratio_exact(mpfr_srcptr num, mpfr_srcptr den, DType out) {
  // Round to odd at P >= p_out + 2 (p_out <= 64 for every dtype): RNE to p_out of the
  // round-to-odd value equals RNE of the exact quotient (Boldo-Melquiond), including ties and
  // gradual underflow, whose quantum is coarser still. Integer outputs: P = 160 keeps integer
  // rounding exact for |q| < 2^158; beyond, every integer dtype saturates anyway.
  constexpr mpfr_prec_t P = 160;
  Mp q(P);
  const int t = mpfr_div(q.raw(), num, den, MPFR_RNDZ);
  if (t != 0 && mpfr_regular_p(q.raw()) && mpfr_min_prec(q.raw()) < P) {
    // Truncated and even last bit: the odd neighbour is the one away from zero.
    if (mpfr_sgn(q.raw()) > 0)
      mpfr_nextabove(q.raw());
    else
      mpfr_nextbelow(q.raw());
  }
  return round_to_bits(q.raw(), out);
}

Broadcaster::Broadcaster(const std::vector<int64_t> &out_shape,
                         const std::vector<const TensorView *> &inputs)
    : shape_(out_shape), index_(out_shape.size(), 0) {
  const size_t r = shape_.size();
  for (const TensorView *in : inputs) {
    std::vector<int64_t> st(r, 0);
    const size_t ir = in->shape.size();
    for (size_t d = 0; d < ir; ++d) {
      const size_t od = r - ir + d;
      st[od] = in->shape[d] == 1 ? 0 : in->strides[d];
    }
    strides_.push_back(std::move(st));
    offs_.push_back(in->offset);
  }
}

void Broadcaster::next() {
  for (size_t d = shape_.size(); d-- > 0;) {
    if (++index_[d] < shape_[d]) {
      for (size_t k = 0; k < offs_.size(); ++k) offs_[k] += strides_[k][d];
      return;
    }
    for (size_t k = 0; k < offs_.size(); ++k) offs_[k] -= strides_[k][d] * (shape_[d] - 1);
    index_[d] = 0;
  }
}

double read_as(const TensorView &v, int64_t elem_offset, DType to) {
  const std::byte *p = v.data + elem_offset * static_cast<int64_t>(dtype_size(v.dtype));
  if (v.dtype == DType::kInt64 || v.dtype == DType::kUInt64) {
    // Beyond 2^53 a double is not exact: round the integer once, directly to `to`.
    Mp m(64);
    if (v.dtype == DType::kInt64) {
      int64_t i;
      std::memcpy(&i, p, sizeof i);
      mpfr_set_sj(m.raw(), i, MPFR_RNDN);
    } else {
      uint64_t u;
      std::memcpy(&u, p, sizeof u);
      mpfr_set_uj(m.raw(), u, MPFR_RNDN);
    }
    const uint64_t b = round_to_bits(m.raw(), to);
    return decode(&b, to);
  }
  const double d = decode(p, v.dtype);  // exact
  return v.dtype == to ? d : round_double_to(d, to);
}

std::optional<std::vector<int64_t>> broadcast_shapes(const std::vector<int64_t> &a,
                                                     const std::vector<int64_t> &b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else
      return std::nullopt;
  }
  return out;
}

std::string shape_str(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ",";
    r += std::to_string(s[i]);
  }
  return r + "]";
}

}  // namespace aclnn_ref::exact
