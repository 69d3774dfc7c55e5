// Exact dyadic arithmetic for the reduction oracles (LayerNormBackward, GroupedBiasAddGrad).
//
// Every input element is a dyadic rational (it decodes exactly to a double). Sums and products of
// dyadics are dyadics, and MPFR computes them exactly when the destination precision covers the
// bits of the result: a*b needs min_prec(a) + min_prec(b) bits, a sum needs the span from the
// highest leading bit to the lowest trailing bit of its terms plus ceil(log2 n) carry bits. The
// helpers below size the precision that way and then *check* exactness with MPFR's ternary value
// (0 = exact): a non-zero ternary throws std::logic_error, so an inexact intermediate can never
// silently reach a value of record.
//
// Non-finite operands (NaN, +-inf) follow MPFR's special-value rules, which are IEEE 754's on the
// exact operation: inf - inf = NaN, 0 * inf = NaN, NaN is sticky, inf * finite = signed inf.
//
// Values are Boost.Multiprecision mpfr_float (MPFR backend, variable precision); the raw MPFR
// calls go through .backend().data() because Boost wraps neither ternary values nor mpfr_sum.
#pragma once

#include <boost/multiprecision/mpfr.hpp>
#include <cstdint>
#include <span>

#include "reference/dtype.hpp"
#include "reference/rounding.hpp"  // first: it orders <cstdint> before <mpfr.h>

namespace aclnn_ref::exact {

using Real = boost::multiprecision::mpfr_float;

inline mpfr_ptr ptr(Real &x) {
  return x.backend().data();
}
inline mpfr_srcptr ptr(const Real &x) {
  return x.backend().data();
}

// Throws std::logic_error naming `what` unless ternary == 0 (the MPFR operation was exact).
void require_exact(int ternary, const char *what);

// Bits that hold x exactly: mpfr_min_prec for a non-zero finite x, 1 for zero and non-finite.
mpfr_prec_t exact_bits(mpfr_srcptr x);

// A Real holding `bits` bits of precision, value +0.
Real make(mpfr_prec_t bits);

// r <- v, exactly (53 bits hold any double).
void set(Real &r, double v);
// r <- a * b, exactly (precision exact_bits(a) + exact_bits(b)).
void mul(Real &r, mpfr_srcptr a, mpfr_srcptr b);
// r <- a * n, exactly (n an integer, e.g. a row length).
void mul_int(Real &r, mpfr_srcptr a, int64_t n);
// r <- a - b, exactly (precision from the exponent span of a and b).
void sub(Real &r, mpfr_srcptr a, mpfr_srcptr b);
// r <- sum of terms, exactly, through mpfr_sum into a precision sized from the terms. An empty
// span gives +0. IEEE specials: any NaN or +inf with -inf gives NaN, else an inf dominates.
void sum(Real &r, std::span<const mpfr_srcptr> terms);

// Precision that holds the exact sum of the finite terms (at least 2).
mpfr_prec_t sum_precision(std::span<const mpfr_srcptr> terms);

// An exact running sum: add() grows the precision so that every addition is exact (checked), and
// keeps sum |terms| rounded upwards in 53 bits (the error scale of VAL-TOL-1) and the term count.
class Accumulator {
 public:
  Accumulator();
  void add(mpfr_srcptr t);
  void add(double t);
  // The exact sum (+0 before any term; NaN/inf by IEEE once a non-finite term came in).
  mpfr_srcptr value() const { return ptr(sum_); }
  // sum |terms|, rounded up to a double (NaN if a NaN term came in, +inf if an inf one did).
  double abs_sum_up() const;
  int64_t count() const { return n_; }
  void reset();

 private:
  Real sum_;
  Real abs_;  // 53 bits, rounded upwards
  Real tmp_;
  int64_t n_ = 0;
};

// The quotient a / n (n >= 1) rounded once, to nearest-even, to the float dtype `out`.
// Method: round to odd at p_out + 2 bits, then round_to_bits (see exact_sum.cpp for the proof).
uint64_t round_quotient(mpfr_srcptr a, int64_t n, DType out);

// The quotient a / n rounded to nearest double (for ExpectedOutput::exact_nearest).
double quotient_nearest_double(mpfr_srcptr a, int64_t n);

}  // namespace aclnn_ref::exact
