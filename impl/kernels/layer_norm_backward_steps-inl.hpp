// LayerNormBackward's row steps (Highway; included per target by its row kernels,
// impl/kernels/layer_norm_backward-inl.hpp, whose contract they share): the sums of a row's first
// pass with its column partials, and gradInput's values in double and in float.

#include "impl/kernels/layer_norm_backward.hpp"

// ---- per-target part ---------------------------------------------------------------------------
#if defined(ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_STEPS_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_STEPS_INL_HPP_
#undef ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_STEPS_INL_HPP_
#else
#define ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_STEPS_INL_HPP_
#endif

#include <hwy/highway.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "impl/dtype.hpp"
#include "impl/simd-inl.hpp"
#include "impl/simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sh = simd::HWY_NAMESPACE;

// c1 = S1/n and c2 = S2/n: the eight residue sums added in one fixed order, then the tail
// j >= n8 element by element (shared by both row kernels, so both give the same bits).
template <int kIn>
inline void LnCombineSums(const double *s1v, const double *s2v, int64_t n, const void *x,
                          const void *dy, const double *w, double mean, double rstd, double &c1,
                          double &c2) {
  double s1 = ((s1v[0] + s1v[4]) + (s1v[2] + s1v[6])) + ((s1v[1] + s1v[5]) + (s1v[3] + s1v[7]));
  double s2 = ((s2v[0] + s2v[4]) + (s2v[2] + s2v[6])) + ((s2v[1] + s2v[5]) + (s2v[3] + s2v[7]));
  for (int64_t j = n / 8 * 8; j < n; ++j) {
    const double d = sh::LoadKind<kIn>(dy, j);
    const double g = w ? d * w[j] : d;
    s1 += g;
    s2 = std::fma(g, (sh::LoadKind<kIn>(x, j) - mean) * rstd, s2);
  }
  const double dn = static_cast<double>(n);
  c1 = s1 / dn;
  c2 = s2 / dn;
}

// ---- gradInput in float: rstd * fma(xhat, -c2, g - c1) in float, c1 and c2 rounded to float;
// within VAL-TOL-1 for the rows LnFloatRow admits (docs/kernels.md#layernormbackward).

// The least N of a float row whose gradInput dtype has kind k (1 FLOAT, 2 or 3 16-bit).
HWY_INLINE int64_t LnFloatMinN(int k) {
  return k == 1 ? 32 : 257;
}

// One element of gradInput by the double formula (the double kernel's value).
template <int kIn>
HWY_INLINE double LnGradInputF64(const void *x, const void *dy, const double *w, double mean,
                                 double rstd, double c1, double c2, int64_t j) {
  const double d = sh::LoadKind<kIn>(dy, j);
  const double xh = (sh::LoadKind<kIn>(x, j) - mean) * rstd;
  const double g = w ? d * w[j] : d;
  return rstd * std::fma(xh, -c2, g - c1);
}

// The column partials of elements [n8, n) of a row (the scalar tail of the vector loops).
template <int kIn>
HWY_INLINE void LnPartialsTail(int64_t n8, int64_t n, const void *x, const void *dy, double mean,
                               double rstd, double *pw, double *pb) {
  if (!pw && !pb) return;
  for (int64_t j = n8; j < n; ++j) {
    const double d = sh::LoadKind<kIn>(dy, j);
    if (pw) pw[j] = std::fma(d, (sh::LoadKind<kIn>(x, j) - mean) * rstd, pw[j]);
    if (pb) pb[j] += d;
  }
}

// The float constants of a row.
struct LnRowF32 {
  float mean, rstd, c1, nc2;
};
// Whether row (n, c1, c2, mean, rstd) with gradInput of kind gi_kind takes the float second pass:
// long enough, statistics zero or normal floats, and no underflow whose absolute error could
// exceed the bound's spare part (docs/kernels.md#layernormbackward-gradinput-in-float).
HWY_INLINE bool LnFloatRow(int gi_kind, int64_t n, double c1, double c2, double mean, double rstd,
                           LnRowF32 &f) {
  const auto normal = [](double v) {
    const double a = std::fabs(v);
    return a == 0.0 || (a >= 0x1p-126 && a <= 0x1.fffffep127);
  };
  if (n < LnFloatMinN(gi_kind) || !normal(c1) || !normal(c2) || !normal(mean) || !normal(rstd))
    return false;
  if (!(std::fabs(c1) >= (2 + std::fabs(c2)) * 0x1p-123 && std::fabs(rstd * c1) >= 0x1p-122))
    return false;  // underflow's absolute errors might not fit the bound's spare part
  f = {static_cast<float>(mean), static_cast<float>(rstd), static_cast<float>(c1),
       static_cast<float>(-c2)};
  return f.mean == mean && f.rstd == rstd;
}

// Whether no float intermediate of a binary16 float row's gradInput can overflow, so no lane needs
// the non-finite test (docs/kernels.md#layernormbackward-rows-without-the-overflow-test).
HWY_INLINE bool LnF16RowInRange(const LnRowF32 &f, float wmax) {
  constexpr double kMax = 65504.0, kLimit = 0x1p127;
  const double rstd = std::fabs(static_cast<double>(f.rstd));
  const double xh = (kMax + std::fabs(static_cast<double>(f.mean))) * rstd;  // |x - mean| * rstd
  const double g = kMax * static_cast<double>(wmax);                         // |dy * w|
  const double gc = g + std::fabs(static_cast<double>(f.c1));                // |g - c1|
  const double inner = xh * std::fabs(static_cast<double>(f.nc2)) + gc;      // the fma
  // Comparisons false for NaN (a NaN weight) keep the test.
  return xh < kLimit && gc < kLimit && inner < kLimit && rstd * inner < kLimit;
}

// One element of a float row's gradInput, as one lane of LnGradInputF32.
template <int kIn, int kOut>
HWY_INLINE void LnGradInputF32One(const void *x, const void *dy, const float *wf, void *gi,
                                  const LnRowF32 &f, int64_t j, const double *w, double mean,
                                  double rstd, double c1, double c2) {
  const auto d = static_cast<float>(sh::LoadKind<kIn>(dy, j));
  const float xh = (static_cast<float>(sh::LoadKind<kIn>(x, j)) - f.mean) * f.rstd;
  const float g = wf ? d * wf[j] : d;
  const float r = f.rstd * std::fma(xh, f.nc2, g - f.c1);
  sh::StoreKind<kOut>(gi, j,
                      std::isfinite(r) ? r : LnGradInputF64<kIn>(x, dy, w, mean, rstd, c1, c2, j));
}

// ---- the steps of the pipelined kernels (rows in place; LnRowsPipelinedT): LnRowT's arithmetic,
// with a row's second pass (its data in cache) and the next row's first pass in one loop.
// The longest 16-bit row whose dy and x are kept as floats between its passes (8 KB, in L1).
constexpr int64_t kLnKeptMaxN = 1024;

// Row sums' accumulators of one row: eight residues j mod 8 held as 8/L vectors of L lanes.
template <class DD>
struct LnSums {
  static constexpr size_t kPer8 = 8 / hn::MaxLanes(DD());
  hn::Vec<DD> a1[kPer8], a2[kPer8];
};
// c1 and c2 from the vector accumulators (LnCombineSums, as LnRowT).
template <int kIn, class DD>
HWY_INLINE void LnFinishSums(DD dd, const LnSums<DD> &acc, int64_t n, const void *x, const void *dy,
                             const double *w, double mean, double rstd, double &c1, double &c2) {
  constexpr size_t kLanes = hn::MaxLanes(DD());
  HWY_ALIGN double s1v[8], s2v[8];
  for (size_t k = 0; k < LnSums<DD>::kPer8; ++k) {
    hn::Store(acc.a1[k], dd, s1v + k * kLanes);
    hn::Store(acc.a2[k], dd, s2v + k * kLanes);
  }
  LnCombineSums<kIn>(s1v, s2v, n, x, dy, w, mean, rstd, c1, c2);
}

// One step of a row's first pass at element j, with its additions to the column partials pw/pb
// (LnRowT's second loop, moved here so that the second pass can run in float); kGiven: w, pw and
// pb are given, and not tested (the caller's assumption did not reach these inlined steps).
template <bool kGiven, class DD>
HWY_INLINE void LnSumStepV(DD dd, hn::Vec<DD> &a1, hn::Vec<DD> &a2, hn::Vec<DD> d, hn::Vec<DD> xv,
                           const double *w, hn::Vec<DD> vm, hn::Vec<DD> vr, int64_t j, double *pw,
                           double *pb) {
  const auto g = kGiven || w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
  const auto xh = hn::Mul(hn::Sub(xv, vm), vr);
  a1 = hn::Add(a1, g);
  a2 = sh::Fma(dd, g, xh, a2);
  if (kGiven || pw) hn::StoreU(sh::Fma(dd, d, xh, hn::LoadU(dd, pw + j)), dd, pw + j);
  if (kGiven || pb) hn::StoreU(hn::Add(hn::LoadU(dd, pb + j), d), dd, pb + j);
}
template <int kIn, bool kGiven, class DD>
HWY_INLINE void LnSumStep(DD dd, hn::Vec<DD> &a1, hn::Vec<DD> &a2, const void *x, const void *dy,
                          const double *w, hn::Vec<DD> vm, hn::Vec<DD> vr, int64_t j, double *pw,
                          double *pb) {
  LnSumStepV<kGiven>(dd, a1, a2, sh::LoadKindV<kIn>(dd, dy, j), sh::LoadKindV<kIn>(dd, x, j), w, vm,
                     vr, j, pw, pb);
}

// Sixteen steps of a 16-bit row's first pass from j0 that also keep dy and x as floats in kd/kx
// for the second pass (no second conversion): each float vector's halves are double vectors, the
// same values added in the same order to the same residue accumulators a1[k], a2[k] as
// LnSumSteps (AVX3: one float vector, two halves of residues 0-7; AVX2: two float vectors, halves
// of residues 0-3 and 4-7). between(): the previous row's second pass at j0, run after this row's
// loads (see LnRowsPipelinedT: 4K aliasing) and before its floats overwrite the kept ones.
template <int kIn, bool kGiven, class DD, class DF, class F>
HWY_INLINE void LnSumStep16Kept(DD dd, DF df, hn::Vec<DD> *a1, hn::Vec<DD> *a2, const void *x,
                                const void *dy, const double *w, hn::Vec<DD> vm, hn::Vec<DD> vr,
                                int64_t j0, double *pw, double *pb, float *kd, float *kx,
                                F &&between) {
#if HWY_TARGET != HWY_SCALAR  // no halves of vectors there (kKeep is not instantiated)
  constexpr size_t kLanes = hn::MaxLanes(DD()), kLanesF = 2 * kLanes, kPer8 = 8 / kLanes;
  constexpr size_t kV = 16 / kLanesF;
  const hn::Half<DF> dh;
  hn::Vec<DF> d[kV], xv[kV];
  for (size_t v = 0; v < kV; ++v) {
    const auto j = static_cast<size_t>(j0) + v * kLanesF;
    d[v] = sh::LoadAsF32<kIn>(df, dy, j);
    xv[v] = sh::LoadAsF32<kIn>(df, x, j);
  }
  between();
  for (size_t v = 0; v < kV; ++v) {
    const int64_t j = j0 + static_cast<int64_t>(v * kLanesF);
    hn::Store(d[v], df, kd + j);
    hn::Store(xv[v], df, kx + j);
    const size_t k = v * 2 % kPer8;  // the lower half's residues; the upper half's follow
    LnSumStepV<kGiven>(dd, a1[k], a2[k], hn::PromoteTo(dd, hn::LowerHalf(dh, d[v])),
                       hn::PromoteTo(dd, hn::LowerHalf(dh, xv[v])), w, vm, vr, j, pw, pb);
    LnSumStepV<kGiven>(dd, a1[(k + 1) % kPer8], a2[(k + 1) % kPer8],
                       hn::PromoteTo(dd, hn::UpperHalf(dh, d[v])),
                       hn::PromoteTo(dd, hn::UpperHalf(dh, xv[v])), w, vm, vr,
                       j + static_cast<int64_t>(kLanes), pw, pb);
  }
#endif
}

// One step of two rows' first passes at element j, rows a and b (LnRowPairsT): LnSumStepV's
// arithmetic for each, their additions to the column partials in one load and store of pw and pb,
// row a's first: the bits of two LnSumStepV calls.
template <class DD, class V = hn::Vec<DD>>
HWY_INLINE void LnPairStepV(DD dd, V &a1a, V &a2a, V &a1b, V &a2b, V da, V xa, V db, V xb,
                            const double *w, V vma, V vra, V vmb, V vrb, int64_t j, double *pw,
                            double *pb) {
  const V wj = hn::LoadU(dd, w + j);
  const V ga = hn::Mul(da, wj), gb = hn::Mul(db, wj);
  const V xha = hn::Mul(hn::Sub(xa, vma), vra), xhb = hn::Mul(hn::Sub(xb, vmb), vrb);
  a1a = hn::Add(a1a, ga);
  a2a = sh::Fma(dd, ga, xha, a2a);
  a1b = hn::Add(a1b, gb);
  a2b = sh::Fma(dd, gb, xhb, a2b);
  hn::StoreU(sh::Fma(dd, db, xhb, sh::Fma(dd, da, xha, hn::LoadU(dd, pw + j))), dd, pw + j);
  hn::StoreU(hn::Add(hn::Add(hn::LoadU(dd, pb + j), da), db), dd, pb + j);
}

// LnSumStep16Kept for two 16-bit rows a and b (LnPairStepV on each half): row i's floats kept in
// kd[i], kx[i]; between() runs after both rows' loads.
template <int kIn, class DD, class DF, class F, class V = hn::Vec<DD>>
HWY_INLINE void LnPairStep16Kept(DD dd, DF df, V *a1a, V *a2a, V *a1b, V *a2b, const void *xa,
                                 const void *dya, const void *xb, const void *dyb, const double *w,
                                 V vma, V vra, V vmb, V vrb, int64_t j0, double *pw, double *pb,
                                 float *const *kd, float *const *kx, F &&between) {
#if HWY_TARGET != HWY_SCALAR  // as LnSumStep16Kept
  constexpr size_t kLanes = hn::MaxLanes(DD()), kLanesF = 2 * kLanes, kPer8 = 8 / kLanes;
  constexpr size_t kV = 16 / kLanesF;
  const hn::Half<DF> dh;
  hn::Vec<DF> d[2][kV], xv[2][kV];
  const void *const xs[2] = {xa, xb}, *const dys[2] = {dya, dyb};
  for (size_t v = 0; v < kV; ++v)
    for (size_t i = 0; i < 2; ++i) {
      const auto j = static_cast<size_t>(j0) + v * kLanesF;
      d[i][v] = sh::LoadAsF32<kIn>(df, dys[i], j);
      xv[i][v] = sh::LoadAsF32<kIn>(df, xs[i], j);
    }
  between();
  const auto lower = [&](hn::Vec<DF> u)
                         HWY_ATTR { return hn::PromoteTo(dd, hn::LowerHalf(dh, u)); };
  const auto upper = [&](hn::Vec<DF> u)
                         HWY_ATTR { return hn::PromoteTo(dd, hn::UpperHalf(dh, u)); };
  for (size_t v = 0; v < kV; ++v) {
    const int64_t j = j0 + static_cast<int64_t>(v * kLanesF);
    for (size_t i = 0; i < 2; ++i) {
      hn::Store(d[i][v], df, kd[i] + j);
      hn::Store(xv[i][v], df, kx[i] + j);
    }
    const size_t k = v * 2 % kPer8, k1 = (k + 1) % kPer8;
    LnPairStepV(dd, a1a[k], a2a[k], a1b[k], a2b[k], lower(d[0][v]), lower(xv[0][v]), lower(d[1][v]),
                lower(xv[1][v]), w, vma, vra, vmb, vrb, j, pw, pb);
    LnPairStepV(dd, a1a[k1], a2a[k1], a1b[k1], a2b[k1], upper(d[0][v]), upper(xv[0][v]),
                upper(d[1][v]), upper(xv[1][v]), w, vma, vra, vmb, vrb,
                j + static_cast<int64_t>(kLanes), pw, pb);
  }
#endif
}

// One vector of a float row's gradInput from element j, in float; kKept: dy and x from kd/kx
// (LnSumStep16Kept), the same floats as from the row; kGiven: wf is given, and not tested.
template <int kIn, bool kKept, bool kGiven, class DF>
HWY_INLINE hn::Vec<DF> LnGradInputF32V(DF df, const void *x, const void *dy, const float *wf,
                                       const LnRowF32 &f, int64_t j, const float *kd,
                                       const float *kx) {
  const auto sj = static_cast<size_t>(j);
  const auto d = kKept ? hn::Load(df, kd + j) : sh::LoadAsF32<kIn>(df, dy, sj);
  const auto vr = hn::Set(df, f.rstd);
  const auto xv = kKept ? hn::Load(df, kx + j) : sh::LoadAsF32<kIn>(df, x, sj);
  const auto xh = hn::Mul(hn::Sub(xv, hn::Set(df, f.mean)), vr);
  const auto g = kGiven || wf ? hn::Mul(d, hn::LoadU(df, wf + j)) : d;
  return hn::Mul(vr, sh::Fma(df, xh, hn::Set(df, f.nc2), hn::Sub(g, hn::Set(df, f.c1))));
}

// LnGradInputF32V stored at dst as kind kOut; stream: dst aligned, stored non-temporally;
// kBf16Insn: narrowed by VCVTNEPS2BF16 (the same bits); kChecked: test for non-finite lanes (false
// only where LnF16RowInRange rules them out), whose stored values are wrong: any_bad is then set,
// and LnFixNotFinite must run after the row.
template <int kIn, int kOut, bool kBf16Insn, bool kKept, bool kChecked, bool kGiven, class DF>
HWY_INLINE void LnGradInputF32(DF df, const void *x, const void *dy, const float *wf, void *dst,
                               const LnRowF32 &f, int64_t j, bool stream, const float *kd,
                               const float *kx, hn::Mask<DF> &any_bad) {
  const auto r = LnGradInputF32V<kIn, kKept, kGiven>(df, x, dy, wf, f, j, kd, kx);
  using T = std::conditional_t<kOut == 1, float, uint16_t>;
  const hn::Rebind<T, DF> dout;
#if ACLNN_SIMD_BF16_INSN
  // One classification for the instruction's special lanes and the non-finite ones: a vector
  // with neither (nearly all) is narrowed by the instruction; any other takes the integer
  // rounding (and LnFixNotFinite), which give the same bits.
  if constexpr (kBf16Insn) {
    if (HWY_LIKELY(!sh::AnyNotFiniteOrSubnormal(df, r))) {
      sh::StoreOrStream(sh::BF16FromF32InsnNoSpecial(df, r), dout, static_cast<T *>(dst), stream);
      return;
    }
  }
#endif
  auto out = [&] {
    if constexpr (kOut == 1)
      return r;
    else if constexpr (kOut == 2)
      return sh::F16FromF32(df, r);
    else  // kChecked: non-finite lanes are replaced (LnFixNotFinite): NaN's rounding needs no care
      return kChecked ? sh::BF16FromF32NotNaN(df, r) : sh::BF16FromF32(df, r);
  }();
  // Not fixed here: a call in the row loop (the double path's) kept the loop's constants on the
  // stack and made the loop up to 18 % slower (docs/kernels.md#layernormbackward-measurements).
  if constexpr (kChecked) any_bad = hn::Or(any_bad, sh::NotFinite(df, r));
  sh::StoreOrStream(out, dout, static_cast<T *>(dst), stream);
}

// A float row's gradInput lanes j < n16 whose float value is not finite, recomputed in double
// (stored after LnGradInputF32's values: the same bits as fixing the lanes before the store).
template <int kIn, int kOut, class DF>
HWY_NOINLINE void LnFixNotFinite(DF df, const void *x, const void *dy, const float *wf, void *gr,
                                 const LnRowF32 &f, int64_t n16, const double *w, double mean,
                                 double rstd, double c1, double c2) {
  for (int64_t j = 0; j < n16; j += static_cast<int64_t>(hn::Lanes(df))) {
    const auto bad = sh::NotFinite(
        df, LnGradInputF32V<kIn, false, false>(df, x, dy, wf, f, j, nullptr, nullptr));
    if (hn::AllFalse(df, bad)) continue;
    HWY_ALIGN float lane_bad[hn::MaxLanes(DF())];
    hn::Store(hn::VecFromMask(df, bad), df, lane_bad);
    for (size_t l = 0; l < hn::Lanes(df); ++l)
      if (std::bit_cast<uint32_t>(lane_bad[l]) != 0) {
        const int64_t k = j + static_cast<int64_t>(l);
        sh::StoreKind<kOut>(gr, k, LnGradInputF64<kIn>(x, dy, w, mean, rstd, c1, c2, k));
      }
  }
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
