// Oracle of aclnnGeluBackward. See docs/oracle-elementwise.md for the design and error bounds.
//
// Notation: a = |x|, phi(a) = exp(-a^2/2)/sqrt(2 pi), h(a) = a phi(a) - erfc(a/sqrt2)/2.
// g(x) = 1/2 + erf(x/sqrt2)/2 + x phi(x) satisfies g(x) + g(-x) = 1, hence
//   g(x) = 1 + h(x)  for x >= 0,     g(x) = -h(|x|)  for x < 0.
// Both forms are free of the 1/2 + 1/2 erf cancellation at large |x|; the only cancellation left
// is inside h near its root a0 ~ 0.7517915 (the root of g at -a0), where the absolute error bound
// of h makes Ziv's test fail until the precision is high enough.
// For a >= 1: 0 < erfc(a/sqrt2)/2 < phi(a)/a <= a phi(a), so 0 < h(a) < a phi(a).
// The tanh-approx variant has the same structure with h_t(a) = F (B - 1), F = E/(1+E),
// E = exp(-2v), v = k a (1 + c a^2), B = 2 a k (1 + 3 c a^2)/(1 + E), k = sqrt(2/pi),
// c = 0.044715 (1 + tanh(u) = 2/(1+E) for u >= 0, 1 - tanh^2 = 4E/(1+E)^2).
#include "reference/gelu_backward.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "reference/exact.hpp"
#include "reference/promotion.hpp"
#include "reference/rounding.hpp"

namespace aclnn_ref {

namespace {

using exact::Mp;

constexpr double kU = 0x1p-53;  // unit roundoff of double
// Relative error bounds assumed for glibc's exp and erfc (double, round-to-nearest). The glibc
// manual's table of known maximum errors lists exp at <= 1 ulp and erfc at <= 5 ulp on x86_64
// (1 ulp <= 2^-52 relative); 2^-43 is a 100x (erfc) / 500x (exp) padding of those figures.
constexpr double kErrExp = 0x1p-43;
constexpr double kErrErfc = 0x1p-43;
constexpr double kInvSqrt2 = 0x1.6a09e667f3bcdp-1;    // RN(1/sqrt 2): rel err <= u
constexpr double kInvSqrt2Pi = 0x1.9884533d43651p-2;  // RN(1/sqrt(2 pi)): rel err <= u
// Beyond this |x| the fast pass uses the a*phi(a) bound of h instead of evaluating it.
constexpr double kTailA = 26.0;
// Beyond this |x| the MPFR pass also uses the bound (MPFR's exponent range holds exp(-a^2/2)).
constexpr double kMpfrTailA = 1.0e4;

thread_local uint64_t g_fallbacks = 0;

constexpr double kGeluRoot = -0.75179152410535422;  // the root of g (GELU-SPECIAL-2)
enum : uint8_t { kValue1, kSpecial1, kSpecial2 };   // indices into kGeluDecidingClauses

uint8_t deciding_clause(double dy, double x) {
  if (!std::isfinite(x) || !std::isfinite(dy)) return kSpecial1;
  if (std::fabs(x - kGeluRoot) < kGeluRootBand) return kSpecial2;
  return kValue1;
}

DecidingClauses no_clauses() {
  return {kGeluDecidingClauses, {}, kValue1};
}

uint64_t nan_bits(DType out) {
  return exact::fast_round_double(std::numeric_limits<double>::quiet_NaN(), out);
}
uint64_t zero_bits(bool negative, DType out) {
  return exact::fast_round_double(negative ? -0.0 : 0.0, out);
}

// log2 upper bound of a*phi(a) (record) or of |h_t(a)| (tanh) for a >= 1, in double with a +1
// pad that covers the rounding of this computation: log2(a phi(a)) = log2 a - a^2/(2 ln 2) -
// log2 sqrt(2 pi) < log2 a - 0.7213 a^2 (1/(2 ln2) = 0.72135 > 0.7213; log2 sqrt(2pi) > 0).
// tanh: |h_t| <= E B <= 2 a k (1 + 3 c a^2) E, with k < 0.8, 3c < 0.135, and
// v >= 0.7978 a (1 + 0.0447 a^2), log2 E = -2v/ln 2 <= -2.885 v.
double log2_tail_bound(double a, bool tanh_approx) {
  if (!tanh_approx) return std::log2(a) - 0.7213 * a * a + 1.0;
  const double v = 0.7978 * a * (1.0 + 0.0447 * a * a);
  return std::log2(1.6 * a * (1.0 + 0.135 * a * a)) - 2.885 * v + 1.0;
}

// Exponent e such that |y| < 2^e rounds to zero in `out`: half the smallest subnormal,
// 2^(emin - p), excluded (ties go to the even zero, so < 2^(emin-p) is needed... and enough).
int zero_exponent(DType out) {
  const FloatFormat f = float_format(out);
  return f.emin - f.precision;
}

// Tail |x| >= a_tail: h in (0, 2^B) with B = log2_tail_bound(a) < -60.
//  x > 0: y = dy (1 + h) lies strictly between dy and dy (1 + 2^-60). No rounding boundary of a
//   format with p <= 53 lies in that open interval (dy is a double; a boundary != dy differs from
//   it by at least 2^-54 ulp-scale, far more than |dy| 2^-60), so y rounds as dy (1 + 2^-100),
//   which is evaluated exactly in MPFR.
//  x < 0: y = -dy h, |y| < |dy| 2^B; if that is below the zero threshold the result is -sign(dy) 0.
std::optional<uint64_t> tail(double dy, double x, DType out, bool tanh_approx) {
  const double a = std::fabs(x);
  const double B = log2_tail_bound(a, tanh_approx);
  if (!(B < -60)) return std::nullopt;
  if (x > 0) {
    const double next =
        std::nextafter(dy, std::copysign(std::numeric_limits<double>::infinity(), dy));
    if (auto b = exact::fast_decide(std::fmin(dy, next), std::fmax(dy, next), out)) return b;
    Mp y(200, dy), t(200, dy);
    mpfr_mul_2si(t.raw(), t.raw(), -100, MPFR_RNDN);
    mpfr_add(y.raw(), y.raw(), t.raw(), MPFR_RNDN);  // exact: 200 bits hold both
    return round_to_bits(y.raw(), out);
  }
  const int dy_exp = std::ilogb(dy) + 1;  // |dy| < 2^dy_exp
  if (static_cast<double>(dy_exp) + B < zero_exponent(out))
    return zero_bits(!std::signbit(dy), out);
  return std::nullopt;
}

// ---- fast pass (record formula), double arithmetic with a proven bound ------------------------
std::optional<uint64_t> fast_record(double dy, double x, DType out) {
  const double a = std::fabs(x);
  // a*a is exact when a has <= 26 significant bits (all fp32/fp16/bf16 inputs); otherwise its
  // rounding (rel <= u) perturbs exp's argument by <= q u / 2 absolute, i.e. exp by that relative.
  const double q = a * a;
  const double rq = (static_cast<double>(static_cast<float>(a)) == a) ? 0.0 : 0.5 * q * kU * 1.01;
  const double e = std::exp(-0.5 * q);
  const double t1 = a * e * kInvSqrt2Pi;
  // t1: exp (kErrExp), argument (rq), constant (u), two products (2u).
  const double r1 = kErrExp + rq + 3.01 * kU;
  const double z = a * kInvSqrt2;  // z~ = z (1 + d), |d| <= 2u (1 + u)
  const double t2 = 0.5 * std::erfc(z);
  // erfc's own error, plus its argument error: |d ln erfc / dz| <= z' + sqrt(z'^2 + 2) <=
  // 2 z' + 1.5 (Mills-ratio bound erfc z > 2 e^{-z^2} / (sqrt(pi) (z + sqrt(z^2 + 2)))), with
  // |z~ - z| <= 2.01 u z.
  const double r2 = kErrErfc + z * (2.0 * z + 1.5) * 2.02 * kU;
  const double h = t1 - t2;
  const double err_h = r1 * t1 + r2 * t2 + kU * std::fabs(h);
  double g, err_g;
  if (x >= 0) {
    g = 1.0 + h;
    err_g = err_h + kU * std::fabs(g);
  } else {
    g = -h;
    err_g = err_h;
  }
  const double y = dy * g;
  // Second-order terms (products of relative errors < 2^-40) and the rounding of this bound's
  // own evaluation are covered by the 1/16 pad.
  const double err = (std::fabs(dy) * err_g + kU * std::fabs(y)) * 1.0625;
  return exact::fast_decide(exact::lower_end(y, err), exact::upper_end(y, err), out);
}

// ---- MPFR pass: h and its absolute error bound at precision p -----------------------------------
// All relative errors below are in units of eps = 2^-p (an RNDN operation contributes <= eps).
// err_h is an upper bound (computed with RNDU, padded by 1/16 for second-order terms).
void mpfr_h_record(double a, mpfr_prec_t p, Mp &h, Mp &err_h) {
  const double z_approx = a * kInvSqrt2;
  Mp A(64, a), s2(p), z(p), t2(p), sq(128), ee(p), c(p), t1(p);
  mpfr_sqrt_ui(s2.raw(), 2, MPFR_RNDN);
  mpfr_div(z.raw(), A.raw(), s2.raw(), MPFR_RNDN);  // |z~ - z| <= 2.01 eps z
  mpfr_erfc(t2.raw(), z.raw(), MPFR_RNDN);
  mpfr_div_2ui(t2.raw(), t2.raw(), 1, MPFR_RNDN);
  // r2 = 1 + 2.02 z (2z + 1.5)  (same derivative bound as the fast pass)
  const double r2 = 1.0 + 2.03 * z_approx * (2.0 * z_approx + 1.5);
  mpfr_sqr(sq.raw(), A.raw(), MPFR_RNDN);  // exact: 128 >= 2 * 53 bits
  mpfr_div_2ui(sq.raw(), sq.raw(), 1, MPFR_RNDN);
  mpfr_neg(sq.raw(), sq.raw(), MPFR_RNDN);
  mpfr_exp(ee.raw(), sq.raw(), MPFR_RNDN);  // rel 1
  mpfr_const_pi(c.raw(), MPFR_RNDN);        // rel 1
  mpfr_mul_2ui(c.raw(), c.raw(), 1, MPFR_RNDN);
  mpfr_sqrt(c.raw(), c.raw(), MPFR_RNDN);       // rel 1 + 1/2
  mpfr_ui_div(c.raw(), 1, c.raw(), MPFR_RNDN);  // rel 2.5 + 1
  mpfr_mul(t1.raw(), A.raw(), ee.raw(), MPFR_RNDN);
  mpfr_mul(t1.raw(), t1.raw(), c.raw(), MPFR_RNDN);  // rel 1 (exp) + 2.5 (c) + 2 = 5.5
  const double r1 = 6.0;
  mpfr_sub(h.raw(), t1.raw(), t2.raw(), MPFR_RNDN);
  // err_h = (r1 |t1| + r2 |t2| + |h|) eps * 1.0625
  Mp tmp(64);
  mpfr_abs(err_h.raw(), t1.raw(), MPFR_RNDU);
  mpfr_mul_d(err_h.raw(), err_h.raw(), r1, MPFR_RNDU);
  mpfr_abs(tmp.raw(), t2.raw(), MPFR_RNDU);
  mpfr_mul_d(tmp.raw(), tmp.raw(), r2, MPFR_RNDU);
  mpfr_add(err_h.raw(), err_h.raw(), tmp.raw(), MPFR_RNDU);
  mpfr_abs(tmp.raw(), h.raw(), MPFR_RNDU);
  mpfr_add(err_h.raw(), err_h.raw(), tmp.raw(), MPFR_RNDU);
  mpfr_mul_d(err_h.raw(), err_h.raw(), 1.0625, MPFR_RNDU);
  mpfr_mul_2si(err_h.raw(), err_h.raw(), -p, MPFR_RNDU);
}

void mpfr_h_tanh(double a, mpfr_prec_t p, Mp &h, Mp &err_h) {
  Mp A(64, a), k(p), c(p), sq(128), m(p), v(p), E(p), onepE(p), n(p), num(p), B(p), F(p);
  mpfr_const_pi(k.raw(), MPFR_RNDN);
  mpfr_ui_div(k.raw(), 2, k.raw(), MPFR_RNDN);
  mpfr_sqrt(k.raw(), k.raw(), MPFR_RNDN);            // r_k <= 2.01
  mpfr_set_str(c.raw(), "0.044715", 10, MPFR_RNDN);  // r_c <= 1
  mpfr_sqr(sq.raw(), A.raw(), MPFR_RNDN);            // exact
  mpfr_mul(m.raw(), c.raw(), sq.raw(), MPFR_RNDN);   // 2
  mpfr_add_ui(m.raw(), m.raw(), 1, MPFR_RNDN);       // positive sum: 3.01
  mpfr_mul(v.raw(), A.raw(), m.raw(), MPFR_RNDN);
  mpfr_mul(v.raw(), v.raw(), k.raw(), MPFR_RNDN);  // r_v <= 2.01 + 3.01 + 2 = 7.02
  const double vd = mpfr_get_d(v.raw(), MPFR_RNDU);
  mpfr_mul_2ui(E.raw(), v.raw(), 1, MPFR_RNDN);
  mpfr_neg(E.raw(), E.raw(), MPFR_RNDN);
  mpfr_exp(E.raw(), E.raw(), MPFR_RNDN);  // r_E <= 14.2 v * 1.01 + 1 (needs 14.2 v eps <= 0.01)
  const double rE = 14.4 * vd + 1.0;
  mpfr_add_ui(onepE.raw(), E.raw(), 1, MPFR_RNDN);     // r <= rE + 1
  mpfr_mul_ui(n.raw(), c.raw(), 3, MPFR_RNDN);         // 2
  mpfr_mul(n.raw(), n.raw(), sq.raw(), MPFR_RNDN);     // 3
  mpfr_add_ui(n.raw(), n.raw(), 1, MPFR_RNDN);         // 4.01
  mpfr_mul(num.raw(), A.raw(), k.raw(), MPFR_RNDN);    // 3.01
  mpfr_mul(num.raw(), num.raw(), n.raw(), MPFR_RNDN);  // 8.11
  mpfr_mul_2ui(num.raw(), num.raw(), 1, MPFR_RNDN);
  mpfr_div(B.raw(), num.raw(), onepE.raw(), MPFR_RNDN);  // r_B <= 8.2 + rE + 1 + 1
  const double rB = rE + 10.3;
  mpfr_div(F.raw(), E.raw(), onepE.raw(), MPFR_RNDN);  // r_F <= 2 rE + 2
  const double rF = 2.0 * rE + 2.1;
  Mp Bm1(p), tmp(64), eB(64);
  mpfr_sub_ui(Bm1.raw(), B.raw(), 1, MPFR_RNDN);
  mpfr_mul(h.raw(), F.raw(), Bm1.raw(), MPFR_RNDN);
  // err(B-1) = rB |B| + |B-1|;  err_h = |F| err(B-1) + rF |F (B-1)| + |h|   (times eps, pad)
  mpfr_abs(eB.raw(), B.raw(), MPFR_RNDU);
  mpfr_mul_d(eB.raw(), eB.raw(), rB, MPFR_RNDU);
  mpfr_abs(tmp.raw(), Bm1.raw(), MPFR_RNDU);
  mpfr_add(eB.raw(), eB.raw(), tmp.raw(), MPFR_RNDU);
  mpfr_abs(err_h.raw(), F.raw(), MPFR_RNDU);
  mpfr_mul(err_h.raw(), err_h.raw(), eB.raw(), MPFR_RNDU);
  mpfr_abs(tmp.raw(), h.raw(), MPFR_RNDU);
  mpfr_mul_d(tmp.raw(), tmp.raw(), rF + 1.0, MPFR_RNDU);
  mpfr_add(err_h.raw(), err_h.raw(), tmp.raw(), MPFR_RNDU);
  mpfr_mul_d(err_h.raw(), err_h.raw(), 1.1, MPFR_RNDU);
  mpfr_mul_2si(err_h.raw(), err_h.raw(), -p, MPFR_RNDU);
}

// y = dy (1 + h) (x >= 0) or -dy h (x < 0), and its bound, then Ziv's test.
std::optional<uint64_t> mpfr_step(double dy, double x, DType out, bool tanh_approx, mpfr_prec_t p) {
  const double a = std::fabs(x);
  Mp h(p), err_h(64);
  if (tanh_approx)
    mpfr_h_tanh(a, p, h, err_h);
  else
    mpfr_h_record(a, p, h, err_h);
  Mp D(64, dy), err(64), tmp(64);
  Mp y(p);
  if (x >= 0) {
    Mp P(p);
    mpfr_mul(P.raw(), D.raw(), h.raw(), MPFR_RNDN);
    // y = dy + P exactly: enough bits for both operands' spans.
    mpfr_prec_t need = p + 64;
    if (mpfr_regular_p(P.raw())) {
      const long span = static_cast<long>(mpfr_get_exp(D.raw())) - mpfr_get_exp(P.raw());
      need = std::max<mpfr_prec_t>(need, p + 64 + std::labs(span));
    }
    y.set_prec(need);
    if (mpfr_add(y.raw(), D.raw(), P.raw(), MPFR_RNDN) != 0)
      throw exact::ZivFailure("gelu: inexact exact sum");
    mpfr_abs(tmp.raw(), P.raw(), MPFR_RNDU);
    mpfr_mul_2si(tmp.raw(), tmp.raw(), -p, MPFR_RNDU);
  } else {
    mpfr_mul(y.raw(), D.raw(), h.raw(), MPFR_RNDN);
    mpfr_neg(y.raw(), y.raw(), MPFR_RNDN);
    mpfr_abs(tmp.raw(), y.raw(), MPFR_RNDU);
    mpfr_mul_2si(tmp.raw(), tmp.raw(), -p, MPFR_RNDU);
  }
  mpfr_abs(err.raw(), D.raw(), MPFR_RNDU);
  mpfr_mul(err.raw(), err.raw(), err_h.raw(), MPFR_RNDU);
  mpfr_add(err.raw(), err.raw(), tmp.raw(), MPFR_RNDU);
  mpfr_mul_d(err.raw(), err.raw(), 1.0625, MPFR_RNDU);
  return round_if_decided(y.raw(), err.raw(), out);
}

uint64_t mpfr_general(double dy, double x, DType out, bool tanh_approx) {
  const double a = std::fabs(x);
  if (a >= kTailA) {
    if (auto b = tail(dy, x, out, tanh_approx)) return *b;
  }
  if (a > kMpfrTailA)
    throw exact::ZivFailure("gelu: |x| beyond the MPFR range with a non-negligible product");
  // Start above the argument-error growth: z(2z+1.5) ~ a^2 (record), v ~ 0.036 a^3 (tanh).
  const double grow = tanh_approx ? std::log2(1.0 + 0.04 * a * a * a) : std::log2(1.0 + a * a);
  const mpfr_prec_t start = 96 + static_cast<mpfr_prec_t>(std::ceil(grow));
  return exact::ziv_loop(
      start, [&](mpfr_prec_t p) { return mpfr_step(dy, x, out, tanh_approx, p); },
      tanh_approx ? "gelu_backward tanh-approx" : "gelu_backward");
}

// Specials and exact cases (GELU-SPECIAL-1, VAL-IEEE-1); nullopt for the general case.
uint64_t element_impl(double dy, double x, DType out, bool tanh_approx, bool allow_fast);

uint64_t sign_of_g_negative(double x, bool tanh_approx) {
  // The sign bit of g(x), from a correctly rounded evaluation with dy = 1 (rounding keeps the
  // sign, and g(x) != 0 for every double x: the Ziv loop would fail loudly otherwise).
  return element_impl(1.0, x, DType::kFloat32, tanh_approx, true) >> 31;
}

uint64_t element_impl(double dy, double x, DType out, bool tanh_approx, bool allow_fast) {
  if (std::isnan(dy) || std::isnan(x)) return nan_bits(out);
  if (std::isinf(x)) {
    if (x > 0) return exact::fast_round_double(dy, out);  // g(+inf) = 1: dy rounded once
    if (std::isinf(dy)) return nan_bits(out);             // inf * g(-inf) = inf * 0
    return zero_bits(!std::signbit(dy), out);  // g -> 0 from below: dy * g -> -sign(dy) 0
  }
  if (x == 0) {  // g(0) = 1/2 exactly (both formulas)
    const double half = dy * 0.5;
    if (half * 2.0 == dy) return exact::fast_round_double(half, out);
    Mp y(64, dy);
    mpfr_div_2ui(y.raw(), y.raw(), 1, MPFR_RNDN);
    return round_to_bits(y.raw(), out);
  }
  if (dy == 0 || std::isinf(dy)) {
    const bool neg = (sign_of_g_negative(x, tanh_approx) != 0) != std::signbit(dy);
    return exact::fast_round_double(std::copysign(dy, neg ? -1.0 : 1.0), out);
  }
  const bool fast_out = out == DType::kFloat32 || out == DType::kFloat16 || out == DType::kBFloat16;
  const double ady = std::fabs(dy);
  if (allow_fast && fast_out && ady >= 0x1p-400 && ady <= 0x1p1000) {
    const double a = std::fabs(x);
    if (a >= kTailA) {
      if (auto b = tail(dy, x, out, tanh_approx)) return *b;
    } else if (!tanh_approx) {
      if (auto b = fast_record(dy, x, out)) return *b;
    }
  }
  ++g_fallbacks;
  return mpfr_general(dy, x, out, tanh_approx);
}

struct Checked {
  Verdict v;
  DType promoted = DType::kFloat32;
  std::vector<int64_t> shape;
};

Verdict fail(int32_t st, const char *clause, std::string reason) {
  return Verdict{st, clause, std::move(reason)};
}

Checked check_impl(const GeluBackwardCall &c, const VariantSet &vs) {
  Checked r;
  const char *names[3] = {"gradOutput", "self", "gradInput"};
  const TensorView *t[3] = {c.grad_output, c.self, c.grad_input};
  for (int i = 0; i < 3; ++i)
    if (!t[i]) {
      r.v = fail(status::kNullptr, "GELU-NULL-1", std::string(names[i]) + " is NULL");
      return r;
    }
  const bool bf16_ok = product_has_bf16(c.product);
  const auto allowed = [&](DType d) {
    return d == DType::kFloat32 || d == DType::kFloat16 || (d == DType::kBFloat16 && bf16_ok);
  };
  const auto p = promote_types(t[0]->dtype, t[1]->dtype);
  if (!p || !allowed(*p)) {
    r.v = fail(status::kInvalid, "GELU-DTYPE-1",
               std::string("promoted dtype of gradOutput ") + std::string(dtype_name(t[0]->dtype)) +
                   " and self " + std::string(dtype_name(t[1]->dtype)) + " is " +
                   (p ? std::string(dtype_name(*p)) : std::string("undefined")) +
                   ", not a supported float type");
    return r;
  }
  r.promoted = *p;
  const DType gi = t[2]->dtype;
  const bool gi_ok = vs.has("cast-output") ? allowed(gi) : gi == *p;
  if (!gi_ok) {
    r.v = fail(status::kInvalid, "GELU-DTYPE-2",
               "gradInput dtype " + std::string(dtype_name(gi)) + " != promoted dtype " +
                   std::string(dtype_name(*p)));
    return r;
  }
  for (int i = 0; i < 3; ++i)
    if (t[i]->rank() > 8) {
      r.v = fail(status::kInvalid, "GELU-RANK-1",
                 std::string(names[i]) + " rank " + std::to_string(t[i]->rank()) + " > 8");
      return r;
    }
  const auto b = exact::broadcast_shapes(t[0]->shape, t[1]->shape);
  if (!b) {
    r.v = fail(status::kInvalid, "GELU-BCAST-1",
               "gradOutput shape " + exact::shape_str(t[0]->shape) + " and self shape " +
                   exact::shape_str(t[1]->shape) + " do not broadcast");
    return r;
  }
  if (t[2]->shape != *b) {
    r.v = fail(status::kInvalid, "GELU-BCAST-2",
               "gradInput shape " + exact::shape_str(t[2]->shape) + " != broadcast shape " +
                   exact::shape_str(*b));
    return r;
  }
  // ABI-INPUT-1: the output view is one-to-one.
  if (const std::string why = self_overlap("gradInput", *t[2]); !why.empty()) {
    r.v = fail(status::kInvalid, "ABI-INPUT-1", why);
    return r;
  }
  r.shape = *b;
  return r;
}

}  // namespace

std::vector<std::string_view> gelu_backward_variants() {
  return {"tanh-approx", "cast-output"};
}

Verdict gelu_backward_check(const GeluBackwardCall &call, const VariantSet &variants) {
  return check_impl(call, variants).v;
}

uint64_t gelu_backward_element(double dy, double x, DType out, const VariantSet &variants) {
  return element_impl(dy, x, out, variants.has("tanh-approx"), true);
}

std::vector<ExpectedOutput> gelu_backward_values(const GeluBackwardCall &call,
                                                 const VariantSet &variants) {
  const Checked c = check_impl(call, variants);
  if (!c.v.ok()) throw std::invalid_argument("gelu_backward_values: invalid call: " + c.v.reason);
  const DType out = call.grad_input->dtype;
  const bool tanh_approx = variants.has("tanh-approx");
  ExpectedOutput eo;
  eo.name = "gradInput";
  eo.values = HostTensor(out, c.shape);
  const int64_t n = eo.values.numel();
  eo.decided_by = no_clauses();
  if (n == 0) return {eo};  // GELU-EMPTY-1
  exact::init_exact(eo);
  eo.decided_by.of_element.resize(static_cast<size_t>(n));
  exact::Broadcaster it(c.shape, {call.grad_output, call.self});
  for (int64_t i = 0; i < n; ++i, it.next()) {
    const double dy = exact::read_as(*call.grad_output, it.offset(0), c.promoted);
    const double x = exact::read_as(*call.self, it.offset(1), c.promoted);
    eo.decided_by.of_element[static_cast<size_t>(i)] = deciding_clause(dy, x);
    uint64_t bits;
    if (out == c.promoted) {
      bits = element_impl(dy, x, out, tanh_approx, true);
    } else {  // cast-output: the promoted-type result, cast (RNE) to gradInput's dtype
      const uint64_t pb = element_impl(dy, x, c.promoted, tanh_approx, true);
      bits = exact::fast_round_double(decode(&pb, c.promoted), out);
    }
    eo.values.set_bits(i, bits);
    exact::keep_exact(eo, i, bits);
  }
  return {eo};
}

DecidingClauses gelu_backward_clauses(const GeluBackwardCall &call) {
  DecidingClauses d = no_clauses();
  const TensorView *dy = call.grad_output, *x = call.self, *out = call.grad_input;
  if (!dy || !x || !out) return d;
  const auto promoted = promote_types(dy->dtype, x->dtype);
  const DType t_dy = promoted ? *promoted : dy->dtype, t_x = promoted ? *promoted : x->dtype;
  const int64_t n = out->numel();
  d.of_element.resize(static_cast<size_t>(n));
  exact::Broadcaster it(out->shape, {dy, x});
  for (int64_t i = 0; i < n; ++i, it.next())
    d.of_element[static_cast<size_t>(i)] = deciding_clause(exact::read_as(*dy, it.offset(0), t_dy),
                                                           exact::read_as(*x, it.offset(1), t_x));
  return d;
}

namespace gelu_detail {
uint64_t mpfr_fallbacks() {
  return g_fallbacks;
}
uint64_t element_mpfr_only(double dy, double x, DType out, bool tanh_approx) {
  return element_impl(dy, x, out, tanh_approx, false);
}
}  // namespace gelu_detail

}  // namespace aclnn_ref
