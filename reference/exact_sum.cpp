#include "reference/exact_sum.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace aclnn_ref::exact {
namespace {

// Exponent of the leading bit + 1 (mpfr_get_exp: x = m * 2^e, m in [0.5, 1)) and of the trailing
// bit of a non-zero finite x: x is an integer multiple of 2^lsb.
long msb(mpfr_srcptr x) {
  return static_cast<long>(mpfr_get_exp(x));
}
long lsb(mpfr_srcptr x) {
  return static_cast<long>(mpfr_get_exp(x)) - mpfr_min_prec(x);
}

bool regular(mpfr_srcptr x) {
  return mpfr_regular_p(x) != 0;
}  // finite and non-zero

int ceil_log2(uint64_t n) {
  int k = 0;
  while ((uint64_t{1} << k) < n && k < 63) ++k;
  return k;
}

}  // namespace

void require_exact(int ternary, const char *what) {
  if (ternary != 0)
    throw std::logic_error(std::string("aclnn_ref::exact: inexact MPFR result in ") + what);
}

mpfr_prec_t exact_bits(mpfr_srcptr x) {
  return regular(x) ? mpfr_min_prec(x) : 1;
}

Real make(mpfr_prec_t bits) {
  Real r;
  mpfr_set_prec(ptr(r), std::max<mpfr_prec_t>(bits, MPFR_PREC_MIN));
  mpfr_set_zero(ptr(r), 1);
  return r;
}

void set(Real &r, double v) {
  mpfr_set_prec(ptr(r), 53);
  require_exact(mpfr_set_d(ptr(r), v, MPFR_RNDN), "set");
}

void mul(Real &r, mpfr_srcptr a, mpfr_srcptr b) {
  mpfr_set_prec(ptr(r), std::max<mpfr_prec_t>(exact_bits(a) + exact_bits(b), 2));
  require_exact(mpfr_mul(ptr(r), a, b, MPFR_RNDN), "mul");
}

void mul_int(Real &r, mpfr_srcptr a, int64_t n) {
  mpfr_set_prec(ptr(r), exact_bits(a) + 64);
  require_exact(mpfr_mul_si(ptr(r), a, static_cast<long>(n), MPFR_RNDN), "mul_int");
}

void sub(Real &r, mpfr_srcptr a, mpfr_srcptr b) {
  mpfr_prec_t p = 2;
  if (regular(a) && regular(b)) {
    p = std::max(msb(a), msb(b)) + 1 - std::min(lsb(a), lsb(b));
  } else if (regular(a)) {
    p = exact_bits(a);
  } else if (regular(b)) {
    p = exact_bits(b);
  }
  mpfr_set_prec(ptr(r), std::max<mpfr_prec_t>(p, 2));
  require_exact(mpfr_sub(ptr(r), a, b, MPFR_RNDN), "sub");
}

mpfr_prec_t sum_precision(std::span<const mpfr_srcptr> terms) {
  long hi = std::numeric_limits<long>::min(), lo = std::numeric_limits<long>::max();
  uint64_t n = 0;
  for (mpfr_srcptr t : terms) {
    if (!regular(t)) continue;
    hi = std::max(hi, msb(t));
    lo = std::min(lo, lsb(t));
    ++n;
  }
  if (n == 0) return 2;
  // |sum| < n * 2^hi <= 2^(hi + ceil(log2 n)); every term is a multiple of 2^lo.
  return std::max<mpfr_prec_t>(hi - lo + ceil_log2(n) + 1, 2);
}

void sum(Real &r, std::span<const mpfr_srcptr> terms) {
  mpfr_set_prec(ptr(r), sum_precision(terms));
  // mpfr_sum takes a non-const array of pointers; it does not modify the terms.
  const int t =
      mpfr_sum(ptr(r), static_cast<const mpfr_ptr *>(static_cast<const void *>(terms.data())),
               terms.size(), MPFR_RNDN);
  require_exact(t, "sum");
}

Accumulator::Accumulator() : sum_(make(2)), abs_(make(53)), tmp_(make(53)) {}

void Accumulator::reset() {
  mpfr_set_prec(ptr(sum_), 2);
  mpfr_set_zero(ptr(sum_), 1);
  mpfr_set_zero(ptr(abs_), 1);
  n_ = 0;
}

void Accumulator::add(mpfr_srcptr t) {
  ++n_;
  mpfr_ptr s = ptr(sum_);
  if (n_ == 1) {
    // The first term: the sum is the term itself (keeps a lone -0 as -0).
    mpfr_set_prec(s, std::max<mpfr_prec_t>(exact_bits(t), 2));
    require_exact(mpfr_set(s, t, MPFR_RNDN), "accumulate");
  } else {
    if (regular(s) && regular(t)) {
      const mpfr_prec_t need = std::max(msb(s), msb(t)) + 1 - std::min(lsb(s), lsb(t));
      if (need > mpfr_get_prec(s)) mpfr_prec_round(s, need, MPFR_RNDN);  // exact: widening
    } else if (regular(t) && exact_bits(t) > mpfr_get_prec(s)) {
      mpfr_prec_round(s, exact_bits(t), MPFR_RNDN);  // s is a zero or non-finite: no bits lost
    }
    require_exact(mpfr_add(s, s, t, MPFR_RNDN), "accumulate");
  }
  // sum |t|, rounded upwards (an upper bound of the error scale).
  if (mpfr_signbit(t))
    mpfr_sub(ptr(abs_), ptr(abs_), t, MPFR_RNDU);
  else
    mpfr_add(ptr(abs_), ptr(abs_), t, MPFR_RNDU);
  if (mpfr_nan_p(t)) mpfr_set_nan(ptr(abs_));
}

void Accumulator::add(double t) {
  require_exact(mpfr_set_d(ptr(tmp_), t, MPFR_RNDN), "accumulate");
  add(ptr(tmp_));
}

double Accumulator::abs_sum_up() const {
  return mpfr_get_d(ptr(abs_), MPFR_RNDU);
}

// Round to odd, then to nearest-even. Let q = a / n and P = p_out + 2. RO_P(q) is q itself when q
// has at most P significant bits, else q truncated to P bits with its last bit forced to 1. For
// any binary grid G at least 4 times coarser than the P-bit grid around q (the output dtype's
// normal grid has p_out = P - 2 bits; its subnormal grid has a fixed quantum that is coarser
// still), RNE_G(RO_P(q)) = RNE_G(q) (Boldo and Melquiond's round-to-odd property): the P-bit
// grid contains every point and midpoint of G, so a q strictly between two of those lands
// strictly between them after RO (its last bit is 1, so it is none of them), and an exactly
// representable q is kept. MPFR's exponent range is far wider than any dtype's, so no overflow
// or underflow happens at P bits; round_to_bits then applies the dtype's own range (gradual
// underflow, overflow to inf). This avoids both Ziv loops and a special case for ties (which occur
// only when n's odd part divides a's significand, e.g. n a power of two).
uint64_t round_quotient(mpfr_srcptr a, int64_t n, DType out) {
  const mpfr_prec_t p = float_format(out).precision + 2;
  Real q = make(p);
  const int t = mpfr_div_si(ptr(q), a, static_cast<long>(n), MPFR_RNDZ);
  if (t != 0 && mpfr_regular_p(ptr(q)) && mpfr_min_prec(ptr(q)) < p) {
    if (mpfr_sgn(ptr(q)) > 0)
      mpfr_nextabove(ptr(q));
    else
      mpfr_nextbelow(ptr(q));
  }
  return round_to_bits(ptr(q), out);
}

double quotient_nearest_double(mpfr_srcptr a, int64_t n) {
  Real q = make(53);
  mpfr_div_si(ptr(q), a, static_cast<long>(n), MPFR_RNDN);
  return mpfr_get_d(ptr(q), MPFR_RNDN);
}

}  // namespace aclnn_ref::exact
