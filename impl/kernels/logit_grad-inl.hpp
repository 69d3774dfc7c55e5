// LogitGrad's kernel (Highway; included by impl/logit_grad.cpp once per target): the general
// rule with the per-element specific clauses (LOGIT-X-NONFINITE-1, LOGIT-DY-NONFINITE-1,
// LOGIT-VALUE-1, LOGIT-X01-1).
//
// Contract:
// - dtypes: x and dy of FLOAT, FLOAT16 or BFLOAT16 (exact in float); results rounded once to the
//   output kind, or stored as doubles for a strided output.
// - accuracy: in float vectors. FLOAT: x * (1 - x) as one FMA and the quotient, within 1.5 ulp
//   (lanes with a quotient of 2^127 or more in double, rounded once); 16-bit dtypes: x * (1 - x)
//   and the quotient below 3 * 2^-24 relative, rounded once, within 0.51 ulp (VAL-TOL-1: 2 and
//   1 ulp). eps is compared with x exactly (the range [lo, hi] holds the same values in float and
//   double); docs/kernels.md#logitgrad.
// - determinism: the same IEEE operations on every target, hence the same bits (VAL-DET-1).
#if defined(ACLNN_IMPL_KERNELS_LOGIT_GRAD_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_KERNELS_LOGIT_GRAD_INL_HPP_
#undef ACLNN_IMPL_KERNELS_LOGIT_GRAD_INL_HPP_
#else
#define ACLNN_IMPL_KERNELS_LOGIT_GRAD_INL_HPP_
#endif

#include <hwy/highway.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "impl/simd-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f(dd, x, dy) for a vector of floats, evaluated on its halves widened to double and rounded once
// to float.
template <class DF, class F>
HWY_INLINE hn::Vec<DF> InDouble(DF df, hn::Vec<DF> vx, hn::Vec<DF> vdy, const F &f) {
  using simd::HWY_NAMESPACE::F32FromF64;
#if HWY_TARGET == HWY_SCALAR
  (void)df;
  const hn::Rebind<double, DF> dd;
  return F32FromF64(dd, f(dd, hn::PromoteTo(dd, vx), hn::PromoteTo(dd, vdy)));
#else
  const hn::Repartition<double, DF> dd;
  const hn::Half<DF> dh;
  const auto lo = F32FromF64(dd, f(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, vx)),
                                   hn::PromoteTo(dd, hn::LowerHalf(dh, vdy))));
  const auto hi = F32FromF64(dd, f(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, vx)),
                                   hn::PromoteTo(dd, hn::UpperHalf(dh, vdy))));
  return hn::Combine(df, hi, lo);
#endif
}

// The general rule with the per-element specific clauses (LOGIT-X-NONFINITE-1,
// LOGIT-DY-NONFINITE-1, LOGIT-VALUE-1, LOGIT-X01-1): x in [lo, hi] gives dy / (x (1 - x)), outside
// NaN if eps < 0 or x or dy is not finite, else 0. Float vectors for every dtype. `narrow`
// (FLOAT16/BFLOAT16 computation): x (1 - x) and the quotient are within 3 * 2^-24 relative (1 - x
// is exact for x >= 1/2, and x (1 - x) rounds to x exactly where 1 - x rounds to 1 in float), so
// the one rounding to 16 bits stays within 0.51 ulp; [lo, hi] becomes the float range holding the
// same floats (rounded inwards), so the comparison stays exact.
void LogitGradGeneral(int in_kind, int out_kind, int narrow, const void *x, const void *dy,
                      void *out, size_t n, double lo, double hi, bool neg_eps, int stream) {
  float lo_f = static_cast<float>(lo), hi_f = static_cast<float>(hi);
  if (static_cast<double>(lo_f) < lo) lo_f = std::nextafter(lo_f, HUGE_VALF);
  if (static_cast<double>(hi_f) > hi) hi_f = std::nextafter(hi_f, -HUGE_VALF);
  // neg: eps < 0 (a compile-time constant, so the vector loop has no branch on it).
  const auto run = [&](auto neg) ACLNN_SIMD_LAMBDA {
    // The lanes' choice between the quotient q = dy / den (den = x (1 - x) + 0) and NaN or 0.
    const auto select = [&](auto d, auto vx, auto vdy, auto den, auto q) ACLNN_SIMD_LAMBDA {
      using T = hn::TFromD<decltype(d)>;
      constexpr bool kF32 = sizeof(T) == 4;
      const auto zero = hn::Zero(d);
      const auto nan = hn::Set(d, std::numeric_limits<T>::quiet_NaN());
      if constexpr (decltype(neg)::value) {
        // [lo, hi] = [0, 1]: there den >= +0, and outside den < 0 or NaN: for finite x < 0,
        // x (1 - x) is x times a value >= 1, for finite x > 1 at least |1 - x| >= ulp(1) in
        // magnitude, so neither rounds to zero; -inf for infinite x. One comparison instead of
        // two and their conjunction.
        return hn::IfThenElse(hn::Ge(den, zero), q, nan);
      } else {
        // False for NaN and infinite x.
        const auto inside = hn::And(hn::Ge(vx, hn::Set(d, kF32 ? lo_f : static_cast<T>(lo))),
                                    hn::Le(vx, hn::Set(d, kF32 ? hi_f : static_cast<T>(hi))));
        const auto max = hn::Set(d, std::numeric_limits<T>::max());
        const auto finite = hn::And(hn::Le(hn::Abs(vdy), max), hn::Le(hn::Abs(vx), max));
        return hn::IfThenElse(inside, q, hn::IfThenElseZero(hn::Not(finite), nan));
      }
    };
    const auto f = [&](auto d, auto vx, auto vdy) ACLNN_SIMD_LAMBDA {
      using T = hn::TFromD<decltype(d)>;
      // + 0.0 turns the -0 of x = -0 into +0, so x = 0 or 1 gives dy / +0 (LOGIT-X01-1).
      const auto den = hn::Add(hn::Mul(vx, hn::Sub(hn::Set(d, T{1}), vx)), hn::Zero(d));
      return select(d, vx, vdy, den, hn::Div(vdy, den));  // inf dy inside: an infinity by IEEE
    };
    if (narrow)
      return simd::HWY_NAMESPACE::BinaryF32To(in_kind, out_kind, x, dy, out, n, stream, f);
    // FLOAT: x (1 - x) as x - x * x in one FMA (one rounding, relative error below u = 2^-24
    // where it is normal; where it is subnormal x is, and x - x^2 rounds to x with relative error
    // below x) and one rounded division: within 1.5 ulp of the exact quotient (VAL-TOL-1's bound
    // is 2; docs/kernels.md#logitgrad). -x * x + x is +0 at x = 0 and 1 and -0 at x = -0 (the
    // + 0.0 below), negative for x < 0 and x > 1 (-inf or NaN for infinite x), as x (1 - x) is, so
    // the lane selection is f's. The lanes of |q| >= 2^127, where the quotient's error could cross
    // the overflow threshold (and infinite dy or den = 0), are evaluated in double as before: the
    // same decisions, one rounding to float.
    simd::HWY_NAMESPACE::BinaryF32To(
        in_kind, out_kind, x, dy, out, n, stream,
        [&](auto df, auto vx, auto vdy) ACLNN_SIMD_LAMBDA {
          const auto den = hn::Add(simd::HWY_NAMESPACE::Fma(df, hn::Neg(vx), vx, vx), hn::Zero(df));
          const auto q = hn::Div(vdy, den);
          const auto big = hn::Ge(hn::Abs(q), hn::Set(df, 0x1p127f));
          const auto r = select(df, vx, vdy, den, q);
          // Lane by lane, so that a lane's bits do not depend on its neighbours (VAL-DET-1).
          if (HWY_UNLIKELY(!hn::AllFalse(df, big)))
            return hn::IfThenElse(big, InDouble(df, vx, vdy, f), r);
          return r;
        });
  };
  if (neg_eps)
    run(std::true_type());
  else
    run(std::false_type());
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
