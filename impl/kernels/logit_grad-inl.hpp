// LogitGrad's kernel (Highway; included by impl/logit_grad.cpp once per target): the general
// rule with the per-element specific clauses (LOGIT-X-NONFINITE-1, LOGIT-DY-NONFINITE-1,
// LOGIT-VALUE-1, LOGIT-X01-1).
//
// Contract:
// - dtypes: x and dy of FLOAT, FLOAT16 or BFLOAT16 (exact in float); results rounded once to the
//   output kind, or stored as doubles for a strided output.
// - accuracy: x * (1 - x) and the quotient in double (relative error below 2^-51 in all) for
//   FLOAT, in float for 16-bit dtypes (below 3 * 2^-24), rounded once: FLOAT within 2 ulp, 16-bit
//   within 0.51 ulp (VAL-TOL-1). eps is compared with x exactly (the range [lo, hi] holds the same
//   values in float and double); docs/kernels.md#logitgrad.
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

// The general rule with the per-element specific clauses (LOGIT-X-NONFINITE-1,
// LOGIT-DY-NONFINITE-1, LOGIT-VALUE-1, LOGIT-X01-1): x in [lo, hi] gives dy / (x (1 - x)), outside
// NaN if eps < 0 or x or dy is not finite, else 0. `narrow` (FLOAT16/BFLOAT16 computation): in
// float vectors, twice the lanes; x (1 - x) and the quotient are within 3 * 2^-24 relative (1 - x
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
    const auto f = [&](auto d, auto vx, auto vdy) ACLNN_SIMD_LAMBDA {
      using T = hn::TFromD<decltype(d)>;
      constexpr bool kF32 = sizeof(T) == 4;
      const auto zero = hn::Zero(d);
      // + 0.0 turns the -0 of x = -0 into +0, so x = 0 or 1 gives dy / +0 (LOGIT-X01-1).
      const auto den = hn::Add(hn::Mul(vx, hn::Sub(hn::Set(d, T{1}), vx)), zero);
      const auto q = hn::Div(vdy, den);  // inf dy inside the range: an infinity by IEEE
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
    if (narrow)
      simd::HWY_NAMESPACE::BinaryF32To(in_kind, out_kind, x, dy, out, n, stream, f);
    else
      simd::HWY_NAMESPACE::BinaryTo(in_kind, out_kind, x, dy, out, n, stream, f);
  };
  if (neg_eps)
    run(std::true_type());
  else
    run(std::false_type());
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
