// GeluBackward's kernels (Highway; included by impl/gelu_backward.cpp once per target):
// dy * g(x), g(x) = 1/2 + 1/2 erf(x/sqrt2) + x/sqrt(2pi) exp(-x^2/2), the exact erf form.
//
// Contract:
// - dtypes: inputs as the computation dtype's values (FLOAT, FLOAT16, BFLOAT16: exact in float);
//   results rounded once to the output kind (a contiguous FLOAT/FLOAT16/BFLOAT16 run) or stored as
//   doubles for a strided output.
// - accuracy: FLOAT within 0.89 ulp, 1.39 where the rounding crosses a power of 2 (g a float-float
//   from the table, relative error below 0.39 * 2^-24), or 0.72 ulp in double vectors
//   (ACLNN_CPU_GELU_FLOAT=0; g's relative error below 1.3e-8); FLOAT16 and BFLOAT16 within 0.62
//   and 0.52 ulp (g in float, relative error below 5.5e-5 for |x| < 5, 3e-5 up to 8);
//   the spec allows 2 ulp (GELU-VALUE-1). g(+inf) = 1, g(-inf) = -0 (GELU-SPECIAL-1); no
//   cancellation near g's root (GELU-SPECIAL-2). The method and the error budget:
//   docs/kernels.md#gelubackward.
// - determinism: every polynomial step is one fused multiply-add on every target (simd::Fma), and
//   the library is compiled with -ffp-contract=off: every target gives the same bits (VAL-DET-1).

#include "impl/kernels/gelu_backward.hpp"

// ---- per-target part ---------------------------------------------------------------------------
#if defined(ACLNN_IMPL_KERNELS_GELU_BACKWARD_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_KERNELS_GELU_BACKWARD_INL_HPP_
#undef ACLNN_IMPL_KERNELS_GELU_BACKWARD_INL_HPP_
#else
#define ACLNN_IMPL_KERNELS_GELU_BACKWARD_INL_HPP_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "impl/simd-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using simd::HWY_NAMESPACE::Fma;
using simd::HWY_NAMESPACE::Horner;
using simd::HWY_NAMESPACE::LoadRowBlocks4;
using simd::HWY_NAMESPACE::TransposeRows4;

// p * 2^-n for the exps below: neg_n = -n as a float or double, kd = n + magic (the rounding's
// magic-number sum, whose low mantissa bits hold n). Exact for their ranges (p near 1, n <= 289 in
// double, <= 12 in float: no underflow), so both forms give the same bits.
template <class D>
HWY_INLINE hn::Vec<D> TimesPow2NegN(D d, hn::Vec<D> p, hn::Vec<D> neg_n, hn::Vec<D> kd) {
  using T = hn::TFromD<D>;
#if HWY_TARGET == HWY_AVX3
  // VSCALEF: one operation where the exponent arithmetic and the product take three (GeluBackward
  // is bound by its count of vector operations).
  (void)kd;
  if constexpr (sizeof(T) == 8)
    return hn::Vec<D>{_mm512_scalef_pd(p.raw, neg_n.raw)};
  else
    return hn::Vec<D>{_mm512_scalef_ps(p.raw, neg_n.raw)};
#else
  (void)neg_n;
  const hn::RebindToUnsigned<D> du;
  using U = hn::TFromD<decltype(du)>;
  const auto scale =
      hn::BitCast(d, hn::Sub(hn::Set(du, std::bit_cast<U>(T{1})),
                             hn::ShiftLeft<hwy::MantissaBits<T>()>(hn::BitCast(du, kd))));
  return hn::Mul(p, scale);
#endif
}

// exp(-t2/2) for 0 <= t2 <= 400: t2 = 2 n ln2 + r2, |r2| <= ln2, exp(-t2/2) = 2^-n exp(-r2/2)
// (t2 = t^2 is exact for t from a float). The rounding to n happens in the magic-number addition,
// whose low mantissa bits then hold n.
template <class DD>
HWY_INLINE hn::Vec<DD> ExpNegHalf(DD dd, hn::Vec<DD> t2) {
  const auto magic = hn::Set(dd, 0x1.8p52);
  const auto kd = Fma(dd, t2, hn::Set(dd, 0x1.71547652b82fep-1), magic);  // log2(e) / 2
  const auto neg_n = hn::Sub(magic, kd);
  // One reduction step: 2 ln2's double differs from 2 ln2 by 4.6e-17, so for n <= 289 (t2 <= 400)
  // r2 is off by at most 1.4e-14 (absolute, so relative in exp): far below the fits' 1e-8.
  const auto r2 = Fma(dd, neg_n, hn::Set(dd, 0x1.62e42fefa39efp0), t2);
  return TimesPow2NegN(dd, Horner(dd, r2, gelu::kExpHalf64), neg_n, kd);
}
// The same in float for 0 <= t2 <= 64 (n <= 47), for the 16-bit dtypes' budget (2.4e-4 for
// FLOAT16): one reduction step, since 2 ln2's float differs from 2 ln2 by 3.8e-9, so r2 is off by
// at most 47 * 3.8e-9 = 1.8e-7 (relative in exp), far below the fit's 3.5e-6 (two steps and a
// halved t^2 would cost two more operations per vector); 2^-47 is a normal float.
template <class DF>
HWY_INLINE hn::Vec<DF> ExpNegHalfF(DF df, hn::Vec<DF> t2) {
  const auto magic = hn::Set(df, 0x1.8p23f);
  const auto kd = Fma(df, t2, hn::Set(df, 0x1.715476p-1f), magic);  // log2(e) / 2
  const auto neg_n = hn::Sub(magic, kd);
  const auto r2 = Fma(df, neg_n, hn::Set(df, 0x1.62e43p0f), t2);
  return TimesPow2NegN(df, Horner(df, r2, gelu::kExpHalf32), neg_n, kd);
}

// g(x) for the lanes the fits on [0, 8] do not cover (|x| > 8, inf, NaN): the tail fit with t
// clamped at 20; g(+inf) = 1, g(-inf) = -0 (GELU-SPECIAL-1), NaN stays NaN.
template <class DD>
HWY_NOINLINE hn::Vec<DD> GeluGWide(DD dd, hn::Vec<DD> x) {
  using V = hn::Vec<DD>;
  const V t = hn::Min(hn::Abs(x), hn::Set(dd, gelu::kClamp));
  const V e = ExpNegHalf(dd, hn::Mul(t, t));
  // G = phi(t) (R(t) - t), R(t) = w/4 * (t R(t)), w = 4/t.
  const V w = hn::Div(hn::Set(dd, gelu::kFast), t);
  const V tr = Horner(dd, Fma(dd, w, hn::Set(dd, 2.5), hn::Set(dd, -1.5)), gelu::kTail);
  const V h = hn::Sub(hn::Mul(tr, hn::Mul(w, hn::Set(dd, 0.25))), t);
  const V big_g = hn::Mul(hn::Mul(e, h), hn::Set(dd, gelu::kInvSqrt2Pi));
  const auto pos = hn::Gt(x, hn::Zero(dd));
  V g = hn::IfThenElse(pos, hn::Sub(hn::Set(dd, 1.0), big_g), big_g);
  g = hn::IfThenElse(hn::IsInf(x), hn::IfThenElse(pos, hn::Set(dd, 1.0), hn::Set(dd, -0.0)), g);
  return hn::IfThenElse(hn::IsNaN(x), x, g);
}

// g(x) in double, relative error below 1.3e-8 (fits) plus a few double roundings.
template <class DD>
HWY_INLINE hn::Vec<DD> GeluG(DD dd, hn::Vec<DD> x) {
  using V = hn::Vec<DD>;
  const V t = hn::Abs(x);
  const V e = ExpNegHalf(dd, hn::Mul(t, t));
  // t - t0hi is exact near the root (Sterbenz), so d carries t - t0 to about 2^-106.
  const V d = hn::Sub(hn::Sub(t, hn::Set(dd, gelu::kT0Hi)), hn::Set(dd, gelu::kT0Lo));
  V q = Horner(dd, Fma(dd, t, hn::Set(dd, 0.5), hn::Set(dd, -1.0)), gelu::kQ64);
  // Only vectors holding such a lane pay for the tails (same per-lane result either way): Q's fit
  // on (4, 8], then the Mills ratio's beyond 8 (and inf, NaN).
  const auto tail = hn::Gt(t, hn::Set(dd, gelu::kFast));
  if (HWY_UNLIKELY(!hn::AllFalse(dd, tail)))
    q = hn::IfThenElse(
        tail, Horner(dd, Fma(dd, t, hn::Set(dd, 0.5), hn::Set(dd, -3.0)), gelu::kQ64Tail), q);
  const V big_g = hn::Mul(hn::Mul(e, d), q);
  V g = hn::IfThenElse(hn::Gt(x, hn::Zero(dd)), hn::Sub(hn::Set(dd, 1.0), big_g), big_g);
  const auto wide = simd::HWY_NAMESPACE::NotLe(dd, t, hn::Set(dd, gelu::kQTailEnd));
  if (HWY_UNLIKELY(!hn::AllFalse(dd, wide))) g = hn::IfThenElse(wide, GeluGWide(dd, x), g);
  return g;
}

// res with its lanes in `wide` replaced by dy * g(x) from the double path rounded to float; only
// vectors holding such a lane pay for it (the same per-lane result either way).
template <class DF>
HWY_INLINE hn::Vec<DF> GeluGradLanesF64(DF df, hn::Vec<DF> dy, hn::Vec<DF> x, hn::Vec<DF> res,
                                        hn::Mask<DF> wide) {
  using V = hn::Vec<DF>;
  if (HWY_UNLIKELY(!hn::AllFalse(df, wide))) {
#if HWY_TARGET == HWY_SCALAR
    const hn::Rebind<double, DF> dd;
    const V both = simd::HWY_NAMESPACE::F32FromF64(
        dd, hn::Mul(hn::PromoteTo(dd, dy), GeluG(dd, hn::PromoteTo(dd, x))));
#else
    const hn::Repartition<double, DF> dd;
    const hn::Half<DF> dh;
    const auto lo = hn::Mul(hn::PromoteTo(dd, hn::LowerHalf(dh, dy)),
                            GeluG(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x))));
    const auto hi = hn::Mul(hn::PromoteTo(dd, hn::UpperHalf(dh, dy)),
                            GeluG(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x))));
    const V both = hn::Combine(df, simd::HWY_NAMESPACE::F32FromF64(dd, hi),
                               simd::HWY_NAMESPACE::F32FromF64(dd, lo));
#endif
    res = hn::IfThenElse(wide, both, res);
  }
  return res;
}

// A vector's table lookup for GeluGTableF32, in two stages so that a loop can issue one vector's
// loads before it finishes the previous vector (GeluGradTableTo): GeluTableLookupF32 gives
// h = x - k/128 and the rows as loaded, GeluTableFinishF32 the float-float g from them.
template <class DF>
struct GeluTableLookup {
  hn::Vec<DF> h, y0, y1, y2, y3;
};

// With k = round(128 x) and h = x - k/128 (exact), g = a0 + c, c = h (a1 + h (a2 + h a3)) in float,
// and ghi + glo = Fast2Sum(a0hi, c) + a0lo (|a0hi| >= |c| wherever the entry is not NaN): the table
// gelu::kTab*. The relative error of ghi + glo and its proof: docs/performance-gelu-selu.md. Lanes
// of a NaN entry (root window, |x| >= 6 - 1/256, inf, NaN) give NaN.
template <class DF>
HWY_INLINE GeluTableLookup<DF> GeluTableLookupF32(DF df, hn::Vec<DF> x, const float *tab) {
  using V = hn::Vec<DF>;
  const hn::RebindToSigned<DF> di;
  const V magic = hn::Set(df, 0x1.8p23f);
  // magic + round(128 x): 128 x is exact below float's range and +-inf beyond it (|x| >= 2^121,
  // where the sum overflows too), so one FMA gives the bits of a product and a sum.
  const V a = Fma(df, x, hn::Set(df, 128.0f), magic);
  const V kf = hn::Sub(a, magic);
  GeluTableLookup<DF> t;
  // x - k/128 is exact: both lie within 1/256 of each other and k/128 has few bits.
  t.h = Fma(df, kf, hn::Set(df, -0x1p-7f), x);
  // The index k + kTabHalf from a's low bits, clamped as integers, so that |x| > 6, inf and NaN
  // reach an end's NaN entry on every target (float Min/Max treat NaN differently on targets).
  // One unsigned Min: below the table (a < magic - kTabHalf, negative a included) the unsigned
  // difference is at least 2^31 - kIndexBias, and the upper end's NaN entry is met; its lanes are
  // finished as the lower end's are (a NaN entry's g is never used).
  const hn::RebindToUnsigned<DF> du;
  constexpr uint32_t kIndexBias = std::bit_cast<uint32_t>(0x1.8p23f) - gelu::kTabHalf;
  const auto idx = hn::BitCast(di, hn::Min(hn::Sub(hn::BitCast(du, a), hn::Set(du, kIndexBias)),
                                           hn::Set(du, static_cast<uint32_t>(2 * gelu::kTabHalf))));
  LoadRowBlocks4(df, tab, idx, t.y0, t.y1, t.y2, t.y3);
  return t;
}

template <class DF>
HWY_INLINE void GeluTableFinishF32(DF df, const GeluTableLookup<DF> &t, hn::Vec<DF> &ghi,
                                   hn::Vec<DF> &glo) {
  using V = hn::Vec<DF>;
  const hn::RebindToUnsigned<DF> du;
  V a0h, a1, a2, w;
  TransposeRows4(df, t.y0, t.y1, t.y2, t.y3, a0h, a1, a2, w);
  const V a3 = hn::BitCast(df, hn::And(hn::BitCast(du, w), hn::Set(du, 0xFFFF0000u)));
  const V a0l = hn::BitCast(df, hn::ShiftLeft<16>(hn::BitCast(du, w)));
  const V c = hn::Mul(t.h, Fma(df, t.h, Fma(df, t.h, a3, a2), a1));
  ghi = hn::Add(a0h, c);
  glo = hn::Add(hn::Add(hn::Sub(a0h, ghi), c), a0l);
}

// g(x) for FLOAT as the float-float ghi + glo from the table (the two stages above).
template <class DF>
HWY_INLINE void GeluGTableF32(DF df, hn::Vec<DF> x, const float *tab, hn::Vec<DF> &ghi,
                              hn::Vec<DF> &glo) {
  GeluTableFinishF32(df, GeluTableLookupF32(df, x, tab), ghi, glo);
}

// g(x) as a float-float for |x - x0| < kRootFormula: d = x - x0 as s + dlo (x - kX0Hi exact by
// Sterbenz, then Fast2Sum with kX0Mid), q as Fast2Sum(c1hi, s P(s)) + c1lo, and the product's
// leading part exact (an FMA): relative error below 0.13 * 2^-24 (docs/performance-gelu-selu.md).
template <class DF>
HWY_INLINE void GeluGRootF32(DF df, hn::Vec<DF> x, hn::Vec<DF> &ghi, hn::Vec<DF> &glo) {
  using V = hn::Vec<DF>;
  constexpr float c1h = static_cast<float>(gelu::kRootTaylor[0]);
  constexpr float c1l = static_cast<float>(gelu::kRootTaylor[0] - static_cast<double>(c1h));
  const V dh = hn::Sub(x, hn::Set(df, gelu::kX0Hi));
  const V s = hn::Sub(dh, hn::Set(df, gelu::kX0Mid));
  const V dlo =
      hn::Sub(hn::Sub(hn::Sub(dh, s), hn::Set(df, gelu::kX0Mid)), hn::Set(df, gelu::kX0Lo));
  V p = hn::Set(df, static_cast<float>(gelu::kRootTaylor[6]));
  for (int k = 5; k >= 1; --k)
    p = Fma(df, p, s, hn::Set(df, static_cast<float>(gelu::kRootTaylor[k])));
  const V t = hn::Mul(s, p);
  const V qh = hn::Add(hn::Set(df, c1h), t);
  const V ql = hn::Add(hn::Add(hn::Sub(hn::Set(df, c1h), qh), t), hn::Set(df, c1l));
  ghi = hn::Mul(s, qh);
  glo = Fma(df, dlo, qh, Fma(df, s, ql, Fma(df, s, qh, hn::Neg(ghi))));
}

// The lanes of the root formula: a NaN result (`nan`) within kRootFormula of the root.
template <class DF>
HWY_INLINE hn::Mask<DF> GeluRootLanes(DF df, hn::Vec<DF> x, hn::Mask<DF> nan) {
  return hn::And(
      nan, hn::Lt(hn::Abs(hn::Sub(x, hn::Set(df, gelu::kX0Hi))), hn::Set(df, gelu::kRootFormula)));
}

// The root window's lanes (a NaN entry and |x - x0| < kRootFormula, decided per lane) from
// GeluGRootF32; only vectors holding a NaN entry pay for it.
template <class DF>
HWY_INLINE void GeluGRootLanesF32(DF df, hn::Vec<DF> x, hn::Vec<DF> &ghi, hn::Vec<DF> &glo) {
  const auto nan = hn::IsNaN(ghi);
  if (HWY_LIKELY(hn::AllFalse(df, nan))) return;
  const auto root = GeluRootLanes(df, x, nan);
  hn::Vec<DF> rhi, rlo;
  GeluGRootF32(df, x, rhi, rlo);
  ghi = hn::IfThenElse(root, rhi, ghi);
  glo = hn::IfThenElse(root, rlo, glo);
}

// dy * g(x) for FLOAT in float vectors: dy * ghi + dy * glo rounded once (one FMA); lanes whose
// result is NaN (a NaN entry, dy NaN, or dy = +-inf where the two products disagree) from the
// double path, which is correct for every special value.
template <class DF>
HWY_INLINE hn::Vec<DF> GeluGradTableF32(DF df, hn::Vec<DF> dy, hn::Vec<DF> x, const float *tab) {
  hn::Vec<DF> ghi, glo;
  GeluGTableF32(df, x, tab, ghi, glo);
  GeluGRootLanesF32(df, x, ghi, glo);
  const auto res = Fma(df, dy, ghi, hn::Mul(dy, glo));
  return GeluGradLanesF64(df, dy, x, res, hn::IsNaN(res));
}

// r from the table (NaN where it cannot answer) finished: root formula, then the double path.
template <class DF>
HWY_INLINE hn::Vec<DF> GeluFinishF32(DF df, hn::Vec<DF> vdy, hn::Vec<DF> vx, hn::Vec<DF> r) {
  const auto root = GeluRootLanes(df, vx, hn::IsNaN(r));
  if (!hn::AllFalse(df, root)) {
    hn::Vec<DF> rhi, rlo;
    GeluGRootF32(df, vx, rhi, rlo);
    r = hn::IfThenElse(root, Fma(df, vdy, rhi, hn::Mul(vdy, rlo)), r);
  }
  return GeluGradLanesF64(df, vdy, vx, r, hn::IsNaN(r));
}

// FLOAT from the table, out = dy * g(x) as GeluGradTableF32 gives it, stored as the output kind (0:
// doubles, 1: floats). Each chunk's vectors are first evaluated from the table alone (a lane that
// needs the root formula or the double path gives NaN); then only the vectors holding a NaN are
// finished (GeluFinishF32). The same bits as GeluGradTableF32 (a NaN result near the root that it
// sends to the double path directly, dy NaN or infinite, still reaches it or gives the same
// infinity), but the branch on a root lane (about one vector in eight of normal activations) cost
// a misprediction each in the loop; the list, filled without a branch, costs none.
HWY_INLINE void GeluGradTableTo(int out_kind, const float *tab, const float *dy, const float *x,
                                void *out, size_t n, int stream, bool pack) {
  const hn::ScalableTag<float> df;
  using V = hn::Vec<decltype(df)>;
  const size_t lanes = hn::Lanes(df);
  constexpr size_t kChunk = 1024;  // a multiple of every vector length
  HWY_ALIGN float buf[kChunk];
  uint32_t redo[kChunk];
  // Floats written straight to out, unless streamed or over an input (gradInput may be self or
  // gradOutput, ABI-INPUT-1: the finishing pass reads the chunk's inputs again); doubles, and the
  // others, through buf.
  const auto apart = [&](const float *in) {
    const auto o = reinterpret_cast<uintptr_t>(out), i = reinterpret_cast<uintptr_t>(in);
    return o + n * sizeof(float) <= i || i + n * sizeof(float) <= o;
  };
  const bool in_place =
      out_kind == 1 && !simd::HWY_NAMESPACE::CanStream(stream, out) && apart(dy) && apart(x);
  const size_t out_size = out_kind == 0 ? sizeof(double) : sizeof(float);
  const auto ahead = static_cast<uintptr_t>(simd::input_prefetch_bytes());
  for (size_t base = 0; base < n; base += kChunk) {
    const size_t m = std::min(kChunk, n - base), full = m - m % lanes;
    const float *cdy = dy + base, *cx = x + base;
    float *res = in_place ? static_cast<float *>(out) + base : buf;  // this chunk's results
    // The inputs requested with prefetchnta `ahead` bytes ahead (simd::input_prefetch_bytes; 0 on
    // Intel, where it slowed the loop), and an output written in place 1 KB ahead, so that its
    // stores find their lines here (docs/kernels.md#gelubackward-measurements). Addresses as
    // integers: past an array's end a request is harmless, a pointer would not be.
    const uintptr_t ahead_x = reinterpret_cast<uintptr_t>(cx) + ahead;
    const uintptr_t ahead_dy = reinterpret_cast<uintptr_t>(cdy) + ahead;
    const uintptr_t ahead_out = in_place ? reinterpret_cast<uintptr_t>(res) + 1024 : 0;
    size_t count = 0;
    // Software-pipelined: each step issues the next vector's table loads (about 20 cycles from x)
    // before it finishes this one, hiding their latency behind its arithmetic (Zen 4, in cache:
    // AVX2 0.36 -> 0.28 ms per 256 K, docs/kernels.md); the last step loads the last one again.
    GeluTableLookup<std::remove_const_t<decltype(df)>> next;
    if (full > 0) next = GeluTableLookupF32(df, hn::LoadU(df, cx), tab);
    for (size_t i = 0; i < full; i += lanes) {
      if (ahead != 0 && i % 16 == 0) {  // once per 64 bytes of each input
        __builtin_prefetch(reinterpret_cast<const void *>(ahead_x + i * 4), 0, 0);
        __builtin_prefetch(reinterpret_cast<const void *>(ahead_dy + i * 4), 0, 0);
        if (ahead_out != 0)
          __builtin_prefetch(reinterpret_cast<const void *>(ahead_out + i * 4), 0, 0);
      }
      const GeluTableLookup<std::remove_const_t<decltype(df)>> now = next;
      next = GeluTableLookupF32(df, hn::LoadU(df, cx + std::min(i + lanes, full - lanes)), tab);
      V ghi, glo;
      GeluTableFinishF32(df, now, ghi, glo);
      const V vdy = hn::LoadU(df, cdy + i);
      const V r = Fma(df, vdy, ghi, hn::Mul(vdy, glo));
      hn::StoreU(r, df, res + i);
      redo[count] = static_cast<uint32_t>(i);
      count += hn::AllFalse(df, hn::IsNaN(r)) ? 0 : 1;
    }
    // 16-lane targets pack the listed vectors' NaN lanes into whole vectors (x, dy, position; the
    // last padded with x = dy = 0 and a non-NaN r), finish and put them back where that measured
    // faster (`pack`, gelu_pack_lanes): a chunk's dozen or so such lanes make one or two vectors.
    // Compress, not CompressStore (slow on Zen 4); 8-lane targets' Compress copies a 1 KB table.
    if (pack && hn::MaxLanes(df) >= 16) {
      HWY_ALIGN float fin_x[kChunk + hn::MaxLanes(df)], fin_dy[kChunk + hn::MaxLanes(df)];
      HWY_ALIGN uint32_t fin_pos[kChunk + hn::MaxLanes(df)];  // a vector's room beyond the chunk
      const hn::RebindToUnsigned<decltype(df)> du;
      size_t packed = 0;
      for (size_t k = 0; k < count; ++k) {
        const size_t i = redo[k];
        const auto nan = hn::IsNaN(hn::LoadU(df, res + i));
        hn::StoreU(hn::Compress(hn::LoadU(df, cx + i), nan), df, fin_x + packed);
        hn::StoreU(hn::Compress(hn::LoadU(df, cdy + i), nan), df, fin_dy + packed);
        hn::StoreU(hn::Compress(hn::Iota(du, static_cast<uint32_t>(i)), hn::RebindMask(du, nan)),
                   du, fin_pos + packed);
        packed += hn::CountTrue(df, nan);
      }
      for (size_t v = 0; v < packed; v += lanes) {
        const auto live = hn::FirstN(df, packed - v);
        const V r = hn::IfThenElseZero(live, hn::Set(df, std::numeric_limits<float>::quiet_NaN()));
        hn::StoreU(GeluFinishF32(df, hn::MaskedLoad(live, df, fin_dy + v),
                                 hn::MaskedLoad(live, df, fin_x + v), r),
                   df, fin_x + v);
      }
      for (size_t j = 0; j < packed; ++j) res[fin_pos[j]] = fin_x[j];
    } else {
      for (size_t k = 0; k < count; ++k) {
        const size_t i = redo[k];
        const V r = GeluFinishF32(df, hn::LoadU(df, cdy + i), hn::LoadU(df, cx + i),
                                  hn::LoadU(df, res + i));
        hn::StoreU(r, df, res + i);
      }
    }
    if (full < m) {  // the last partial vector, padded with zeros
      HWY_ALIGN float pdy[hn::MaxLanes(df)] = {}, px[hn::MaxLanes(df)] = {}, pr[hn::MaxLanes(df)];
      std::copy(cdy + full, cdy + m, pdy);
      std::copy(cx + full, cx + m, px);
      hn::Store(GeluGradTableF32(df, hn::Load(df, pdy), hn::Load(df, px), tab), df, pr);
      std::copy(pr, pr + (m - full), res + full);
    }
    if (!in_place)
      simd::HWY_NAMESPACE::BinaryF32To(
          1, out_kind, buf, buf, static_cast<char *>(out) + base * out_size, m, stream,
          [](auto /*df*/, auto v, auto /*unused*/) ACLNN_SIMD_LAMBDA { return v; });
  }
}

// dy * g(x) in float for 16-bit outputs: t = min(|x|, 8), g from the float fits (Q on [0, 4], the
// tail fit on (4, 8] only for vectors holding such a lane), relative error below 3e-5. The lanes
// the double path takes: inf and NaN, and for BFLOAT16 (kFarTail) |x| > 8, where g leaves float's
// normal range before dy (up to 3.4e38) makes the product representable. FLOAT16 keeps |x| > 8
// clamped at 8: there |dy g| < 65504 |G(8)| = 2.6e-9, below half the least subnormal (2^-25), so
// the result rounds to the same signed zero as the exact value's (or to dy itself for x > 8, where
// g = 1 - 4e-14 is 1 in float), and infinite dy gives the infinity of the right sign. Out of line:
// inlined into GeluGradPiecesF32 (its one caller, for rare vectors), its constants took the
// registers of the loop.
template <bool kFarTail, class DF>
HWY_NOINLINE hn::Vec<DF> GeluGradF32(DF df, hn::Vec<DF> dy, hn::Vec<DF> x) {
  using V = hn::Vec<DF>;
  // NaN lanes are replaced below, so how Min treats them (it differs between targets) is moot.
  const V ax = hn::Abs(x);
  const V t = hn::Min(ax, hn::Set(df, static_cast<float>(gelu::kQTailEnd)));
  const V e = ExpNegHalfF(df, hn::Mul(t, t));
  const V d = hn::Sub(hn::Sub(t, hn::Set(df, gelu::kT0HiF)), hn::Set(df, gelu::kT0LoF));
  V q = Horner(df, Fma(df, t, hn::Set(df, 0.5f), hn::Set(df, -1.0f)), gelu::kQ32);
  const auto tail = hn::Gt(t, hn::Set(df, static_cast<float>(gelu::kFast)));
  if (HWY_UNLIKELY(!hn::AllFalse(df, tail)))
    q = hn::IfThenElse(
        tail, Horner(df, Fma(df, t, hn::Set(df, 0.5f), hn::Set(df, -3.0f)), gelu::kQ32Tail), q);
  const V big_g = hn::Mul(hn::Mul(e, d), q);
  const V g = hn::IfThenElse(hn::Gt(x, hn::Zero(df)), hn::Sub(hn::Set(df, 1.0f), big_g), big_g);
  const V limit = hn::Set(
      df, kFarTail ? static_cast<float>(gelu::kQTailEnd) : std::numeric_limits<float>::max());
  return GeluGradLanesF64(df, dy, x, hn::Mul(dy, g), simd::HWY_NAMESPACE::NotLe(df, ax, limit));
}

// Coefficient j of each lane's piece k (0..7) from kHLookup: one lane permutation on targets with 8
// or more lanes, lane by lane on the others; the same value on every target.
template <class DF>
HWY_INLINE hn::Vec<DF> HPieceCoefficient(DF df, int j, hn::Vec<hn::RebindToSigned<DF>> k) {
  const float *c = gelu::kHLookup.c[j];
  if constexpr (hn::MaxLanes(df) >= 8) {
    return hn::TableLookupLanes(hn::Load(df, c), hn::IndicesFromVec(df, k));
  } else {
    constexpr size_t kN = hn::MaxLanes(df);
    HWY_ALIGN int32_t ki[kN];
    HWY_ALIGN float v[kN];
    hn::Store(k, hn::RebindToSigned<DF>(), ki);
    for (size_t i = 0; i < kN; ++i) v[i] = c[ki[i]];
    return hn::Load(df, v);
  }
}

// g(x) in float for the 16-bit dtypes from the eight pieces of H (gelu::kHPieces32) in the lanes
// with |x| < 5: G = (t - t0) H(t), t = |x|, g = G or 1 - G, relative error below 5.5e-5 (H's fit
// and four roundings; near the root its factor t - t0 is a float-float difference, as in
// GeluGradF32). `beyond`: the other lanes (|x| >= 5, inf, NaN), whose g is not this one. Against
// GeluGradF32's exp and Q: 13 operations for H instead of about 20 (docs/kernels.md#gelubackward).
template <class DF>
HWY_INLINE hn::Vec<DF> GeluGPiecesF32(DF df, hn::Vec<DF> x, hn::Mask<DF> &beyond) {
  using V = hn::Vec<DF>;
  const hn::RebindToSigned<DF> di;
  const V t = hn::Abs(x);
  // |x| >= 5, inf and NaN as one signed comparison of the bits (t's sign bit is clear).
  beyond =
      hn::RebindMask(df, hn::Gt(hn::BitCast(di, t), hn::Set(di, std::bit_cast<int32_t>(5.0f) - 1)));
  // The piece k = 1.6 t - 1/2 rounded to nearest in a's low bits (0..7 below 5; at a piece's end
  // either neighbour, whose polynomial holds at its end s = +-1 up to the roundings; beyond, any),
  // and s = (3.2 t - 1) - 2 k (the subtraction exact).
  const V magic = hn::Set(df, 0x1.8p23f);
  const V a = hn::Add(Fma(df, t, hn::Set(df, 1.6f), hn::Set(df, -0.5f)), magic);
  const auto k = hn::And(hn::BitCast(di, a), hn::Set(di, 7));
  const V s = Fma(df, hn::Sub(a, magic), hn::Set(df, -2.0f),
                  Fma(df, t, hn::Set(df, 3.2f), hn::Set(df, -1.0f)));
  V h = HPieceCoefficient(df, 6, k);
  for (int j = 5; j >= 0; --j) h = Fma(df, h, s, HPieceCoefficient(df, j, k));
  const V d = hn::Sub(hn::Sub(t, hn::Set(df, gelu::kT0HiF)), hn::Set(df, gelu::kT0LoF));
  const V big_g = hn::Mul(d, h);
  return hn::IfThenElse(hn::Gt(x, hn::Zero(df)), hn::Sub(hn::Set(df, 1.0f), big_g), big_g);
}

// dy * g in float, except in the lanes of `fits`: GeluGradF32's result there, computed only for
// vectors that hold such a lane. Lane by lane, so that a lane's result does not depend on its
// neighbours (nor the bits on the vector width).
template <bool kFarTail, class DF>
HWY_INLINE hn::Vec<DF> GeluGradOrFits(DF df, hn::Vec<DF> dy, hn::Vec<DF> x, hn::Vec<DF> g,
                                      hn::Mask<DF> fits) {
  if (HWY_UNLIKELY(!hn::AllFalse(df, fits)))
    return hn::IfThenElse(fits, GeluGradF32<kFarTail>(df, dy, x), hn::Mul(dy, g));
  return hn::Mul(dy, g);
}

// dy * g(x) in float for 16-bit outputs: GeluGPiecesF32's g where |x| < 5, GeluGradF32's result in
// the other lanes.
template <bool kFarTail, class DF>
HWY_INLINE hn::Vec<DF> GeluGradPiecesF32(DF df, hn::Vec<DF> dy, hn::Vec<DF> x) {
  hn::Mask<DF> beyond;
  const hn::Vec<DF> g = GeluGPiecesF32(df, x, beyond);
  return GeluGradOrFits<kFarTail>(df, dy, x, g, beyond);
}

// Whether this target computes BFLOAT16 from a table of g indexed by x's 16 bits
// (GeluGradBf16TableF32) instead of the pieces: on AVX2, where one gather of eight floats costs
// less than the pieces' seven lane permutations and polynomial, and lanes up to |x| = 8 need no
// second fit (Zen 5: 30 % less time in cache, 43 % on N(0, 2) data; docs/kernels.md#gelubackward).
// Not FLOAT16: its data spread over eight times as many patterns, and gathers from L2 took 55 %
// more time than the pieces. AVX-512's 16-lane gather took twice the pieces' time (Zen 5), and
// the baseline has no gather instruction. The caller passes the table only on the CPUs where it
// measured faster (impl/gelu_backward.cpp: on an Ice Lake Xeon it took twice the pieces' time).
constexpr bool kGeluBf16Table = HWY_TARGET == HWY_AVX2;

// table[p] = g(x) as GeluGradPiecesF32<true> multiplies it by dy, for x the value of the bfloat16
// pattern p = 0..65535: the pieces' g for |x| < 5, GeluGradF32's float g for 5 <= |x| <= 8 (its
// result there is dy * g in float: with dy = 1, g itself); NaN where dy * g is not a float product
// of g (|x| > 8: the double path) and for inf and NaN. Every lane's g is the same on every target,
// so the table's products are GeluGradPiecesF32's bit for bit, whichever target fills it.
void GeluGBf16Table(float *table) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  for (uint32_t p = 0; p < 65536; p += static_cast<uint32_t>(hn::Lanes(df))) {
    const auto x = hn::BitCast(df, hn::ShiftLeft<16>(hn::Iota(du, p)));
    hn::Mask<decltype(df)> beyond;
    const auto g = GeluGPiecesF32(df, x, beyond);
    const auto tail_g =
        hn::IfThenElse(hn::Le(hn::Abs(x), hn::Set(df, static_cast<float>(gelu::kQTailEnd))),
                       GeluGradF32<true>(df, hn::Set(df, 1.0f), x), hn::NaN(df));
    hn::StoreU(hn::IfThenElse(beyond, tail_g, g), df, table + p);
  }
}

// dy * g(x) for BFLOAT16 from GeluGBf16Table's table: x's pattern is its float's upper half (x is
// a bfloat16 value). The lanes of a NaN entry (|x| > 8, inf, NaN) take GeluGradF32, as
// GeluGradPiecesF32's do.
template <class DF>
HWY_INLINE hn::Vec<DF> GeluGradBf16TableF32(DF df, hn::Vec<DF> dy, hn::Vec<DF> x,
                                            const float *tab) {
  using V = hn::Vec<DF>;
  const hn::RebindToSigned<DF> di;
  const auto idx = hn::BitCast(di, hn::ShiftRight<16>(hn::BitCast(hn::RebindToUnsigned<DF>(), x)));
  const V g = hn::GatherIndex(df, tab, idx);
  return GeluGradOrFits<true>(df, dy, x, g, hn::IsNaN(g));
}

// ghi[i] + glo[i] = g(x[i]) as FLOAT's path evaluates it before the product with dy (the table;
// where it holds NaN, the double path's g split into two floats), n a multiple of 16. For the
// exhaustive test of the float-float's relative error.
void GeluGPairF32(const float *tab, const float *x, float *ghi, float *glo, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::ScalableTag<double> d1;  // one lane used (a test hook, not a hot path)
  for (size_t i = 0; i < n; i += hn::Lanes(df)) {
    hn::Vec<decltype(df)> hi, lo;
    GeluGTableF32(df, hn::LoadU(df, x + i), tab, hi, lo);
    GeluGRootLanesF32(df, hn::LoadU(df, x + i), hi, lo);
    hn::StoreU(hi, df, ghi + i);
    hn::StoreU(lo, df, glo + i);
    for (size_t j = i; j < i + hn::Lanes(df); ++j) {
      if (!std::isnan(ghi[j])) continue;
      const double g = hn::GetLane(GeluG(d1, hn::Set(d1, static_cast<double>(x[j]))));
      ghi[j] = static_cast<float>(g);
      glo[j] = static_cast<float>(g - static_cast<double>(ghi[j]));
    }
  }
}

// Whether this target reads GeluGBf16Table's table (run_plan builds it only then).
bool GeluUsesBf16Table() {
  return kGeluBf16Table;
}

// out[i] = dy[i] * g(x[i]) from GeluGradTableF32 vector by vector, n a multiple of 16: what
// GeluGradTableTo's deferred finishing must reproduce bit for bit (its test).
void GeluGradTableF32PerVector(const float *tab, const float *dy, const float *x, float *out,
                               size_t n) {
  const hn::ScalableTag<float> df;
  for (size_t i = 0; i < n; i += hn::Lanes(df))
    hn::StoreU(GeluGradTableF32(df, hn::LoadU(df, dy + i), hn::LoadU(df, x + i), tab), df, out + i);
}

// out = dy * g(x), rounded once to the output kind; `narrow`: the computation dtype is 16-bit
// (2: BFLOAT16, 1: FLOAT16) and the product is taken in float vectors, for BFLOAT16 from `table`
// (GeluGBf16Table's) where it is given and kGeluBf16Table, else from the pieces; otherwise FLOAT,
// in float vectors from `table` (gelu_f32_table) where it is given, else in double vectors;
// `stream`: non-temporal stores (simd::stream_output); `pack`: GeluGradTableTo's.
void GeluGradFloat(int in_kind, int out_kind, int narrow, const float *table, const void *dy,
                   const void *x, void *out, size_t n, int stream, bool pack) {
  if (kGeluBf16Table && narrow == 2 && table != nullptr)
    simd::HWY_NAMESPACE::BinaryF32To(in_kind, out_kind, dy, x, out, n, stream,
                                     [table](auto df, auto vdy, auto vx) ACLNN_SIMD_LAMBDA {
                                       return GeluGradBf16TableF32(df, vdy, vx, table);
                                     });
  else if (narrow == 2)
    simd::HWY_NAMESPACE::BinaryF32To(in_kind, out_kind, dy, x, out, n, stream,
                                     [](auto df, auto vdy, auto vx) ACLNN_SIMD_LAMBDA {
                                       return GeluGradPiecesF32<true>(df, vdy, vx);
                                     });
  else if (narrow)
    simd::HWY_NAMESPACE::BinaryF32To(in_kind, out_kind, dy, x, out, n, stream,
                                     [](auto df, auto vdy, auto vx) ACLNN_SIMD_LAMBDA {
                                       return GeluGradPiecesF32<false>(df, vdy, vx);
                                     });
  else if (table != nullptr)  // FLOAT: the inputs are floats (in_kind 1)
    GeluGradTableTo(out_kind, table, static_cast<const float *>(dy), static_cast<const float *>(x),
                    out, n, stream, pack);
  else
    simd::HWY_NAMESPACE::BinaryTo(in_kind, out_kind, dy, x, out, n, stream,
                                  [](auto dd, auto vdy, auto vx)
                                      ACLNN_SIMD_LAMBDA { return hn::Mul(vdy, GeluG(dd, vx)); });
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
