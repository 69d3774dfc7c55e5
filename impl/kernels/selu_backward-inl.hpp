// SeluBackward's kernels (Highway; included by impl/selu_backward.cpp once per target):
// dy * lambda where y >= 0 (including +/-0, SELU-ZERO-1) and dy * (y + lambda*alpha) where y < 0;
// NaN y gives NaN (SELU-NAN-1).
//
// Contract:
// - dtypes: FLOAT, FLOAT16, BFLOAT16 in vectors (inputs exact in float; results rounded once to
//   the output kind, or stored as doubles rounded to odd for a strided output); INT8 and INT32 in
//   scalar code (selu_grad_int: rounded to nearest even and saturated, SELU-INT-1).
// - accuracy: the exact value correctly rounded (VAL-EXACT-1). A contiguous FLOAT output: float
//   vectors with exact residuals (SeluGradF32). Otherwise one product dy * f in double (FLOAT) or
//   in float (contiguous fp16/bf16 outputs) whose error bound is far below the output's rounding; a
//   vector with a lane whose product lies near a midpoint of the output format (or outside its
//   normal range, zero, inf, NaN) is recomputed exactly: for fp16/bf16 outputs first as a
//   float-float rounded to odd in one float (SeluGradNearF32), where that cannot decide and for
//   FLOAT as a double-double rounded to odd in one double; then once to the output dtype. The
//   bounds: docs/kernels.md#selubackward.
// - determinism: the same IEEE operations on every target, and the fast and exact paths give the
//   same bits, so every target gives the same bits (VAL-DET-1).

// ---- target-independent part (the constants and the integer kernel) --------------------------
#ifndef ACLNN_IMPL_KERNELS_SELU_BACKWARD_SCALAR_
#define ACLNN_IMPL_KERNELS_SELU_BACKWARD_SCALAR_
#include <cstdint>

#include "impl/exact_arith.hpp"

namespace aclnn_cpu::selu {

// lambda = 1.0507009873554804934193349852946, lambda*alpha = 1.7580993408473768599402175208123
// (spec selu_backward.md), as double-double from the 32-digit decimals.
constexpr double kLambdaHi = 0x1.0cfabd6a91132p+0;
constexpr double kLambdaLo = 0x1.6fc7d272f2695p-55;
constexpr double kLambdaAlphaHi = 0x1.c212cc640f031p+0;
constexpr double kLambdaAlphaLo = 0x1.05161b045a1f7p-56;

// INT8/INT32 (SELU-INT-1): the exact value is needed to round to nearest even, so the factor is a
// double-double, the product is formed exactly with an FMA, and round_dd_to_int rounds and
// saturates (scalar; integers are not a fast path). Internal linkage: the compiler inlines it into
// the element loop, as where it was first written.
namespace {
struct TI8 {
  using S = int8_t;
};
struct TI32 {
  using S = int32_t;
};

// Integers: y and dy exact, no NaN/inf. Factor f = fh + fl (double-double).
template <typename T>
typename T::S selu_grad_int(typename T::S dy_s, typename T::S y_s) {
  const double dy = static_cast<double>(dy_s), y = static_cast<double>(y_s);
  double fh, fl;
  if (y >= 0) {
    fh = selu::kLambdaHi;
    fl = selu::kLambdaLo;
  } else {
    double e;
    two_sum(y, selu::kLambdaAlphaHi, fh, e);
    fl = e + selu::kLambdaAlphaLo;
  }
  double p, pe;
  two_prod(dy, fh, p, pe);
  return round_dd_to_int<typename T::S>(p, pe + dy * fl);
}

}  // namespace
}  // namespace aclnn_cpu::selu
#endif  // ACLNN_IMPL_KERNELS_SELU_BACKWARD_SCALAR_

// ---- per-target part ---------------------------------------------------------------------------
#if defined(ACLNN_IMPL_KERNELS_SELU_BACKWARD_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_KERNELS_SELU_BACKWARD_INL_HPP_
#undef ACLNN_IMPL_KERNELS_SELU_BACKWARD_INL_HPP_
#else
#define ACLNN_IMPL_KERNELS_SELU_BACKWARD_INL_HPP_
#endif

#include <hwy/highway.h>

#include <bit>
#include <cstdint>

#include "impl/simd-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using simd::HWY_NAMESPACE::AsSigned;
using simd::HWY_NAMESPACE::OffsetAsSigned;
using simd::HWY_NAMESPACE::OutsideRange;

// hi + lo rounded to odd, for the lanes where lo != 0: hi truncated toward zero (one unit less in
// magnitude where lo's sign is opposite), its last bit set. The one rounding to a narrower format
// that follows is then the exact value's, also where hi alone is a tie. Float and double vectors.
template <class D>
HWY_INLINE hn::Vec<D> RoundedToOdd(D d, hn::Vec<D> hi, hn::Vec<D> lo) {
  const hn::RebindToSigned<D> di;
  const auto hb = hn::BitCast(di, hi);
  const auto opposite = hn::Lt(hn::Xor(hb, hn::BitCast(di, lo)), hn::Zero(di));
  const auto one = hn::Set(di, 1);
  return hn::BitCast(d, hn::Or(hn::IfThenElse(opposite, hn::Sub(hb, one), hb), one));
}

// dy * (y >= 0 ? lambda : (y + la_hi) + la_lo) as a double rounded to odd: its one rounding to
// fp16/bf16/float that follows is the correct rounding of the exact value.
template <class DD>
HWY_INLINE hn::Vec<DD> SeluGradExact(DD dd, hn::Vec<DD> vdy, hn::Vec<DD> vy) {
  const auto zero = hn::Zero(dd);
  // The factor as a double-double (fh, fl): lambda, or y + lambda*alpha by two-sum (for a
  // bf16 y beyond 2^53, y + lambda*alpha in one double is y itself).
  const auto la = hn::Set(dd, selu::kLambdaAlphaHi);
  const auto s = hn::Add(vy, la);
  const auto bb = hn::Sub(s, vy);
  const auto e = hn::Add(hn::Sub(vy, hn::Sub(s, bb)), hn::Sub(la, bb));
  // y >= 0 is false for NaN; the NaN then propagates through y + lambda*alpha.
  const auto pos = hn::Ge(vy, zero);
  const auto fh = hn::IfThenElse(pos, hn::Set(dd, selu::kLambdaHi), s);
  const auto fl = hn::IfThenElse(pos, hn::Set(dd, selu::kLambdaLo),
                                 hn::Add(e, hn::Set(dd, selu::kLambdaAlphaLo)));
  // hi + lo = dy * (fh + fl) to about 2^-100 relative: Dekker's exact product (no FMA, so every
  // target gives the same bits) plus dy * fl.
  const auto split = [&](auto a, auto &ah, auto &al) {
    const auto c = hn::Mul(hn::Set(dd, 134217729.0), a);
    ah = hn::Sub(c, hn::Sub(c, a));
    al = hn::Sub(a, ah);
  };
  const auto hi = hn::Mul(vdy, fh);
  auto ah = zero, al = zero, bh = zero, bl = zero;
  split(vdy, ah, al);
  split(fh, bh, bl);
  const auto err =
      hn::Add(hn::Add(hn::Add(hn::Sub(hn::Mul(ah, bh), hi), hn::Mul(ah, bl)), hn::Mul(al, bh)),
              hn::Mul(al, bl));
  const auto lo = hn::Add(err, hn::Mul(vdy, fl));
  // Normalised (|lo2| <= ulp(hi2) / 2, Fast2Sum): where y + lambda*alpha cancels (y near
  // -lambda*alpha, fh exact and small), dy * fl can be many ulps of hi; rounding hi to odd against
  // that lo was not the exact value's rounding (e.g. dy = 0x1.e587fep0, y = -1.75 rounded down).
  const auto finite = hn::IsFinite(hi);  // lo is finite where hi is (finite dy and y)
  const auto hi2 = hn::Add(hi, lo);
  const auto lo2 = hn::Sub(lo, hn::Sub(hi2, hi));
  // Rounded to odd (truncate hi2 + lo2 toward zero, set the last bit when inexact): the one
  // rounding to fp16/bf16/float that follows is then the correct rounding of the exact value
  // (VAL-EXACT-1), also where hi2 alone is a tie, e.g. at the overflow threshold.
  const auto inexact = hn::And(hn::Ne(lo2, zero), finite);
  // lo == 0 (dy = +/-0 included): hi itself, with its sign; inf/NaN: hi, payload kept.
  const auto exact = hn::IfThenElse(hn::And(finite, hn::Ne(lo, zero)), hi2, hi);
  return hn::IfThenElse(inexact, RoundedToOdd(dd, hi2, lo2), exact);
}

// True in the lanes whose rounding of p to an output with kDrop fewer significand bits needs the
// exact path: p's discarded bits are within kMargin units of a midpoint, or |p| is outside the
// output's normal range [min_normal, max_finite] (checked as one unsigned comparison of the bits
// without the sign, so NaN, inf and zero fall outside; AVX-512 float vectors: one operation, see
// below). For double and float vectors alike.
template <int kDrop, int kMargin, class D>
HWY_INLINE hn::Mask<D> NearMidpoint(D d, hn::Vec<D> p) {
  using U = hwy::MakeUnsigned<hn::TFromD<D>>;
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  constexpr U kHalf = U{1} << (kDrop - 1);
  const auto rest = hn::And(hn::BitCast(du, p), hn::Set(du, static_cast<U>((U{1} << kDrop) - 1)));
  return hn::RebindMask(d, hn::Lt(OffsetAsSigned(du, rest, static_cast<U>(kHalf - kMargin)),
                                  hn::Set(di, AsSigned(static_cast<U>(2 * kMargin + 1)))));
}
template <int kDrop, int kMargin, class D>
HWY_INLINE hn::Mask<D> NeedsExactRounding(D d, hn::Vec<D> p, hn::TFromD<D> min_normal,
                                          hn::TFromD<D> max_finite) {
  const auto near_mid = NearMidpoint<kDrop, kMargin>(d, p);
  if constexpr (sizeof(hn::TFromD<D>) == 4) {
    // Float vectors (16-bit outputs): the low end only, in one comparison where the portable range
    // test takes three integer operations; the 16-bit loop is bound by its count of operations on
    // AVX2 and on cores that run AVX-512 as two halves (docs/kernels.md#selubackward-measurements).
    // Finite lanes above max_finite need no exact path: the rounding boundary to inf (0x1.ffp127
    // for bfloat16, 65520 for fp16) is a midpoint NearMidpoint tests, so where it does not fire
    // the exact value lies on p's side of that boundary and rounds as p does; an infinite p
    // (infinite dy, or a bfloat16 product beyond float's range, whose exact value is beyond that
    // boundary too) rounds to the same infinity on both paths. !(|p| >= min_normal) is true for
    // zero, subnormals and NaN. The fast and exact paths give the same bits, so targets that
    // decide differently agree.
    (void)max_finite;
#if HWY_TARGET == HWY_AVX3
    // float's min normal (bfloat16) on AVX-512: one VFPCLASSPS for zero, subnormal, inf, NaN.
    if constexpr (hn::MaxLanes(D()) == 16)
      if (min_normal == 0x1p-126f)
        return hn::Or(near_mid, hn::Mask<D>{_mm512_fpclass_ps_mask(p.raw, 0xbf)});
#endif
    return hn::Or(near_mid, simd::HWY_NAMESPACE::NotLe(d, hn::Set(d, min_normal), hn::Abs(p)));
  } else {
    return hn::Or(near_mid, OutsideRange(d, p, min_normal, max_finite));
  }
}

// The common case in one product: f = lambda_hi or (y + la_hi) + la_lo, p = dy * f, relative error
// below 2^-51 (f: two roundings, or one where y + la_hi is exact by Sterbenz and small; lambda_lo
// omitted: 2^-54; the product: 2^-53), i.e. within 4 ulps of p. Rounding p to the output then
// gives the correctly rounded exact value unless a rounding boundary (a midpoint of the output
// format) lies within that distance: the vector is recomputed exactly (SeluGradExact, same bits)
// when a lane's discarded bits are within kMargin ulps of a midpoint, or p is outside the output's
// normal range (subnormal output, overflow, the overflow-threshold tie of VAL-OVERFLOW-1), zero,
// inf or NaN (payloads as before). kOut 0 (a double for a strided output, rounded later to an
// unknown dtype): exact path.
template <int kOut, class DD>
HWY_INLINE hn::Vec<DD> SeluGradFast(DD dd, hn::Vec<DD> vdy, hn::Vec<DD> vy) {
  if constexpr (kOut == 0) {
    return SeluGradExact(dd, vdy, vy);
  } else {
    const auto pos = hn::Ge(vy, hn::Zero(dd));
    const auto neg_f =
        hn::Add(hn::Add(vy, hn::Set(dd, selu::kLambdaAlphaHi)), hn::Set(dd, selu::kLambdaAlphaLo));
    const auto p = hn::Mul(vdy, hn::IfThenElse(pos, hn::Set(dd, selu::kLambdaHi), neg_f));
    // Bits of the double below the output's precision (float 24, fp16 11, bf16 8 bits).
    constexpr int kDrop = kOut == 1 ? 29 : kOut == 2 ? 42 : 45;
    constexpr double kMinNormal = kOut == 2 ? 0x1p-14 : 0x1p-126;
    constexpr double kMaxFinite = kOut == 1 ? 0x1.fffffep127 : kOut == 2 ? 65504.0 : 0x1.fep127;
    const auto redo = NeedsExactRounding<kDrop, 16>(dd, p, kMinNormal, kMaxFinite);
    if (HWY_UNLIKELY(!hn::AllFalse(dd, redo))) return SeluGradExact(dd, vdy, vy);
    return p;
  }
}

// ---- 16-bit outputs: float vectors (twice the lanes) -----------------------------------------
// lambda, and lambda*alpha as a float-float (the low part off by 2.4e-16).
constexpr float kLambdaF = 0x1.0cfabep+0f;  // relative error 3.3e-8
constexpr float kLambdaAlphaHiF = 0x1.c212ccp+0f, kLambdaAlphaLoF = 0x1.903c0cp-26f;
// lambda - kLambdaF rounded to float: kLambdaF + kLambdaLoF is lambda to 2^-49 relative.
constexpr float kLambdaLoF =
    static_cast<float>((selu::kLambdaHi - static_cast<double>(kLambdaF)) + selu::kLambdaLo);

// The correctly rounded result for a vector of floats, as the 16-bit result of kOut (2: binary16,
// 3: bfloat16) widened to float (exact, so the caller's narrowing returns it unchanged); kOut 1:
// the float result (a FLOAT output, for the vectors SeluGradF32 cannot settle). Through the
// double product first (SeluGradFast: its margin is 2^29 times finer than the float one's, so it
// settles nearly every lane the float product could not), which itself falls back to the exact
// double-double path where it cannot decide.
template <int kOut, class DD>
HWY_INLINE hn::Vec<hn::Rebind<float, DD>> SeluGradExactAsF32(DD dd, hn::Vec<DD> vdy,
                                                             hn::Vec<DD> vy) {
  const hn::Rebind<float, DD> df;
  const auto r = SeluGradFast<kOut>(dd, vdy, vy);
  if constexpr (kOut == 2)
    return simd::HWY_NAMESPACE::F32FromF16(df, simd::HWY_NAMESPACE::F16FromF64(dd, r));
  else if constexpr (kOut == 3)
    return simd::HWY_NAMESPACE::F32FromBF16(df, simd::HWY_NAMESPACE::BF16FromF64(dd, r));
  else
    return simd::HWY_NAMESPACE::F32FromF64(dd, r);
}
template <int kOut, class DF>
HWY_INLINE hn::Vec<DF> SeluGradExactF32(DF df, hn::Vec<DF> vdy, hn::Vec<DF> vy) {
#if HWY_TARGET == HWY_SCALAR
  (void)df;  // one lane: no halves to combine
  const hn::Rebind<double, DF> dd;
  return SeluGradExactAsF32<kOut>(dd, hn::PromoteTo(dd, vdy), hn::PromoteTo(dd, vy));
#else
  const hn::Repartition<double, DF> dd;
  const hn::Half<DF> dh;
  const auto lo = SeluGradExactAsF32<kOut>(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, vdy)),
                                           hn::PromoteTo(dd, hn::LowerHalf(dh, vy)));
  const auto hi = SeluGradExactAsF32<kOut>(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, vdy)),
                                           hn::PromoteTo(dd, hn::UpperHalf(dh, vy)));
  return hn::Combine(df, hi, lo);
#endif
}

// dy * f as p + t, p = dy * fh rounded and t = its exact FMA residual plus dy * fl, with the factor
// a float-float fh + fl: lambda's two floats, or y + la_hi by TwoSum plus la_lo (SeluGradF32 and
// SeluGradNearF32).
template <class DF>
HWY_INLINE void SeluProductF32(DF df, hn::Vec<DF> vdy, hn::Vec<DF> vy, hn::Vec<DF> &p,
                               hn::Vec<DF> &t) {
  using V = hn::Vec<DF>;
  const auto pos = hn::Ge(vy, hn::Zero(df));
  const V la = hn::Set(df, kLambdaAlphaHiF);
  const V s = hn::Add(vy, la);
  const V bb = hn::Sub(s, vy);
  const V es = hn::Add(hn::Sub(vy, hn::Sub(s, bb)), hn::Sub(la, bb));
  const V fh = hn::IfThenElse(pos, hn::Set(df, kLambdaF), s);
  const V fl =
      hn::IfThenElse(pos, hn::Set(df, kLambdaLoF), hn::Add(es, hn::Set(df, kLambdaAlphaLoF)));
  p = hn::Mul(vdy, fh);
  const V e = simd::HWY_NAMESPACE::Fma(df, vdy, fh, hn::Neg(p));
  t = hn::Add(e, hn::Mul(vdy, fl));
}

// FLOAT in float vectors (twice the double path's lanes), correctly rounded: the factor as a
// float-float fh + fl (lambda's two floats, or y + la_hi by TwoSum plus la_lo), p = dy * fh with
// its exact FMA residual e, t = e + dy * fl, and q1 = p + t (1 + 2^-12), q2 = p + t (1 - 2^-12) in
// one FMA each. Where q1 == q2 they are the correct rounding of dy * f: t's error is below
// 2^-12 |t| (rounding is monotonic), or t is so small that dy * f rounds to p as both do; no
// window is needed where y + lambda*alpha cancels. Vectors where q1 != q2 (about 2^-12 of the
// lanes) or |p| is outside [2^-100, FLT_MAX] (e exact; zero, inf, NaN) take the double path: the
// same bits. The argument: docs/kernels.md#selubackward-float-in-float-vectors.
template <class DF>
HWY_INLINE hn::Vec<DF> SeluGradF32(DF df, hn::Vec<DF> vdy, hn::Vec<DF> vy) {
  using V = hn::Vec<DF>;
  V p, t;
  SeluProductF32(df, vdy, vy, p, t);
  const V q1 = simd::HWY_NAMESPACE::Fma(df, t, hn::Set(df, 1.0f + 0x1p-12f), p);
  const V q2 = simd::HWY_NAMESPACE::Fma(df, t, hn::Set(df, 1.0f - 0x1p-12f), p);
  const auto redo = hn::Or(hn::Ne(q1, q2), OutsideRange(df, p, 0x1p-100f, 0x1.fffffep127f));
  if (HWY_UNLIKELY(!hn::AllFalse(df, redo))) return SeluGradExactF32<1>(df, vdy, vy);
  return q1;
}

// The vectors SeluGradFastF32 could not settle for a 16-bit output (kOut 2: binary16, 3: bfloat16):
// dy * f as the float-float hi + lo (SeluProductF32, then Fast2Sum), within 2^-35.7 of the exact
// value relatively for binary16 and bfloat16 inputs, and rounded to odd in one float, whose one
// rounding to the 16-bit output is then the exact value's: unless hi is itself a 16-bit midpoint
// and |lo| <= 2^-32 |hi| (the exact value's side undecided), or a lane's hi lies outside the
// output's normal range (where the midpoint test's mask would not fit the grid; bfloat16: below
// 2^-100, so that p's residual stays exact), zero, inf or NaN. Such vectors take the double path
// (same bits). For one lane near a midpoint, this replaced two
// double halves and their narrowing (docs/kernels.md#selubackward-16-bit-lanes-near-a-midpoint).
template <int kOut, class DF>
HWY_NOINLINE hn::Vec<DF> SeluGradNearF32(DF df, hn::Vec<DF> vdy, hn::Vec<DF> vy) {
  using V = hn::Vec<DF>;
  V p, t;
  SeluProductF32(df, vdy, vy, p, t);
  const V hi = hn::Add(p, t);
  const V lo = hn::Sub(t, hn::Sub(hi, p));          // exact: |t| < 2^-13 |p|
  constexpr int kDrop = kOut == 2 ? 13 : 16;        // float bits below fp16's 11 / bf16's 8
  const auto mid = NearMidpoint<kDrop, 0>(df, hi);  // hi itself a 16-bit midpoint
  const auto undecided =
      hn::And(mid, hn::Le(hn::Abs(lo), hn::Mul(hn::Abs(hi), hn::Set(df, 0x1p-32f))));
  const auto outside =
      OutsideRange(df, hi, kOut == 2 ? 0x1p-14f : 0x1p-100f, kOut == 2 ? 65504.0f : 0x1.fep127f);
  if (HWY_UNLIKELY(!hn::AllFalse(df, hn::Or(undecided, outside))))
    return SeluGradExactF32<kOut>(df, vdy, vy);
  const V ro = hn::IfThenElse(hn::Ne(lo, hn::Zero(df)), RoundedToOdd(df, hi, lo), hi);
  if constexpr (kOut == 3) {  // no tie: rounding to nearest is one addition (as SeluGradFastF32)
    const hn::RebindToUnsigned<DF> du;
    return hn::BitCast(df, hn::Add(hn::BitCast(du, ro), hn::Set(du, 0x8000u)));
  }
  return ro;
}

// SeluGradFast in float for fp16/bf16 inputs and outputs: f = lambda_f or (y + la_hi_f) + la_lo_f,
// p = dy * f in float, relative error below 3.5 * 2^-24 (lambda_f 0.56, f two roundings or one
// where y + la_hi_f is exact (Sterbenz), la_lo_f's error at most 0.5 where y + lambda*alpha
// cancels, the product 1; in units 2^-24), i.e. less than 3.5 float ulps from p; the 16-bit
// rounding of p (13 or 16 bits dropped) is then the exact value's unless a midpoint lies within
// kMargin = 4 float ulps, or p is outside the output's normal range, zero, inf or NaN: such
// vectors take the double path (same bits as the double kernel). About 16 * 9/8192 = 1.8 %
// of fp16 vectors (0.2 % of bf16) do on random data.
template <int kOut, class DF>
HWY_INLINE hn::Vec<DF> SeluGradFastF32(DF df, hn::Vec<DF> vdy, hn::Vec<DF> vy) {
  if constexpr (kOut == 1) {
    return SeluGradF32(df, vdy, vy);
  } else if constexpr (kOut != 2 && kOut != 3) {
    return SeluGradExactF32<kOut>(df, vdy, vy);
  } else {
    const auto pos = hn::Ge(vy, hn::Zero(df));
    const auto neg_f =
        hn::Add(hn::Add(vy, hn::Set(df, kLambdaAlphaHiF)), hn::Set(df, kLambdaAlphaLoF));
    const auto p = hn::Mul(vdy, hn::IfThenElse(pos, hn::Set(df, kLambdaF), neg_f));
    constexpr int kDrop = kOut == 2 ? 13 : 16;  // float bits below fp16's 11 / bf16's 8
    constexpr float kMinNormal = kOut == 2 ? 0x1p-14f : 0x1p-126f;
    constexpr float kMaxFinite = kOut == 2 ? 65504.0f : 0x1.fep127f;
    const auto redo = NeedsExactRounding<kDrop, 4>(df, p, kMinNormal, kMaxFinite);
    if (HWY_UNLIKELY(!hn::AllFalse(df, redo))) return SeluGradNearF32<kOut>(df, vdy, vy);
    if constexpr (kOut == 3) {
      // No lane is a tie, NaN or out of range here, so rounding to nearest is one addition: the
      // upper 16 bits are the result (the caller stores them as they are: kBf16Bits). The exact
      // path's lanes are bfloat16 values already.
      const hn::RebindToUnsigned<DF> du;
      return hn::BitCast(df, hn::Add(hn::BitCast(du, p), hn::Set(du, 0x8000u)));
    }
    return p;
  }
}

// out = dy * (y >= 0 ? lambda : (y + la_hi) + la_lo), rounded once to the output kind; `direct`:
// a contiguous output of the computation dtype (out_kind 1, 2 or 3), evaluated in float vectors;
// `stream`: non-temporal stores (simd::stream_output).
void SeluGradFloat(int in_kind, int out_kind, int direct, const void *dy, const void *y, void *out,
                   size_t n, int stream) {
  if (direct)
    simd::HWY_NAMESPACE::BinaryF32To<true>(
        in_kind, out_kind, dy, y, out, n, stream,
        [](auto kind, auto df, auto vdy, auto vy)
            ACLNN_SIMD_LAMBDA { return SeluGradFastF32<decltype(kind)::value>(df, vdy, vy); });
  else
    simd::HWY_NAMESPACE::BinaryTo(in_kind, out_kind, dy, y, out, n, stream,
                                  [](auto kind, auto dd, auto vdy, auto vy) ACLNN_SIMD_LAMBDA {
                                    return SeluGradFast<decltype(kind)::value>(dd, vdy, vy);
                                  });
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
