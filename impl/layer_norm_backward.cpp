// aclnnLayerNormBackward on the CPU (spec layer_norm_backward.md, clauses LN-*).
//
// The row sums and the column sums are computed in double from the exact input values and
// rounded once to the output dtype (LN-VALUE-3); gradInput is evaluated in float where its
// condition-aware bound allows (VAL-TOL-1; the analysis is at "gradInput in float" below) and in
// double elsewhere. Rows are independent for gradInput; gradWeight/gradBias are column sums over
// the M rows, cut into row blocks whose size depends only on the shape: every block keeps its
// partial sums in the caller's workspace and the partials are added in block order, so results
// are bitwise identical for any ACLNN_CPU_NUM_THREADS (VAL-DET-1).
//
// Layout handling: each tensor's dims are split into the leading (row) dims and the normalized
// (column) dims and each part is coalesced on its own. Rows of contiguous FLOAT input/gradOut are
// read in place and a contiguous FLOAT gradInput row is written in place (the fast path); any
// other layout or dtype gathers a row into a contiguous double buffer and scatters gradInput back
// with one rounding. Multi-indices are carried, never recomputed per element.
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/layer_norm_backward.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "impl/dtype.hpp"
#include "impl/simd-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sh = simd::HWY_NAMESPACE;

// Element j of a row of kind k (0: double, 1: float, 2: binary16, 3: bfloat16), exact.
template <int kKind>
HWY_INLINE double LnLoad(const void *p, int64_t j) {
  if constexpr (kKind == 0) return static_cast<const double *>(p)[j];
  if constexpr (kKind == 1) return static_cast<const float *>(p)[j];
  if constexpr (kKind == 2) return half_to_float(static_cast<const uint16_t *>(p)[j]);
  if constexpr (kKind == 3) return bf16_to_float(static_cast<const uint16_t *>(p)[j]);
}
template <int kKind, class DD>
HWY_INLINE hn::Vec<DD> LnLoadV(DD dd, const void *p, int64_t j) {
  if constexpr (kKind == 0)
    return hn::LoadU(dd, static_cast<const double *>(p) + j);
  else
    return sh::LoadAsF64<kKind>(dd, p, static_cast<size_t>(j));
}
// One vector of doubles stored as kind kOut from element j, rounded once (binary16 through the
// cheaper round-to-odd route: the same bits).
template <int kOut, class DD>
HWY_INLINE void LnStoreV(DD dd, hn::Vec<DD> v, void *p, int64_t j) {
  if constexpr (kOut == 2)
    hn::StoreU(sh::F16FromF64ViaOdd(dd, v), hn::Rebind<uint16_t, DD>(),
               static_cast<uint16_t *>(p) + j);
  else
    sh::StoreAs<kOut>(dd, v, p, static_cast<size_t>(j));
}
template <int kKind>
HWY_INLINE void LnStore(void *p, int64_t j, double v) {
  if constexpr (kKind == 0) static_cast<double *>(p)[j] = v;
  if constexpr (kKind == 1) static_cast<float *>(p)[j] = static_cast<float>(v);
  if constexpr (kKind == 2) static_cast<uint16_t *>(p)[j] = double_to_half(v);
  if constexpr (kKind == 3) static_cast<uint16_t *>(p)[j] = double_to_bf16(v);
}

// c1 = S1/n and c2 = S2/n: the eight residue sums added in one fixed order, then the tail
// j >= n8 element by element (shared by both row kernels, so both give the same bits).
template <int kIn>
inline void LnCombineSums(const double *s1v, const double *s2v, int64_t n, const void *x,
                          const void *dy, const double *w, double mean, double rstd, double &c1,
                          double &c2) {
  double s1 = ((s1v[0] + s1v[4]) + (s1v[2] + s1v[6])) + ((s1v[1] + s1v[5]) + (s1v[3] + s1v[7]));
  double s2 = ((s2v[0] + s2v[4]) + (s2v[2] + s2v[6])) + ((s2v[1] + s2v[5]) + (s2v[3] + s2v[7]));
  for (int64_t j = n / 8 * 8; j < n; ++j) {
    const double d = LnLoad<kIn>(dy, j);
    const double g = w ? d * w[j] : d;
    s1 += g;
    s2 = std::fma(g, (LnLoad<kIn>(x, j) - mean) * rstd, s2);
  }
  const double dn = static_cast<double>(n);
  c1 = s1 / dn;
  c2 = s2 / dn;
}

// ---- gradInput in float --------------------------------------------------------------------
// gradInput = rstd * fma(xhat, -c2, g - c1) evaluated in float (twice the lanes of double), with
// c1 and c2 from the double row sums rounded to float; u = 2^-24.
// - Without underflow or overflow, each of the six roundings (x - mean, xhat, g, g - c1, the fma,
//   the product with rstd) and those of c1 and c2 is a relative error of at most u, and together
//   they move the result by at most
//     E = |rstd| (4u (|g| + |c1|) + 5u |xhat c2|) (1 + 4u) <= 5u S (1 + 4u),
//   S = |rstd| (|g| + sum|g|/N + |xhat| sum|g xhat|/N), the sum of terms of the condition-aware
//   bound for gradInput (VAL-TOL-1: 0.5 ulp + k u S, k = ceil(log2 N) + 2). The double sums'
//   own errors are below 2^-40 S for any N this library can hold.
// - FLOAT output: within the bound when k >= 7 (N >= 32). A 16-bit output rounds the float once
//   more, which costs up to twice the error (a rounding that crosses a binade), so k >= 11
//   (N > 256).
// - Underflow: a subnormal xhat, g, fma result or float result (x - mean and g - c1 are exact
//   when subnormal) adds an absolute error of at most 2^-150 each, in all at most
//   A = (|rstd| (2 + |c2|) + 1) 2^-150 (1 + 3u). The spare part of the bound is at least
//   (k - 10 (1 + 4u)) u S >= 0.9 u S >= 0.9 u |rstd| |c1| (S >= |rstd| sum|g|/N >= |rstd c1|),
//   and |c1| >= (2 + |c2|) 2^-123 with |rstd c1| >= 2^-122 make 2A smaller than that. Rows
//   that fail this (c1 = 0, for one) keep the double kernel.
// - Overflow: S1 and S2 are finite only when every x, dy and weight of the row is (an infinite
//   or NaN one makes a term infinite or NaN), so a float result that is not finite comes from an
//   intermediate beyond float's range; that lane is recomputed in double.
// Every decision depends on the row's or the lane's own values, so every target and thread count
// gives the same bits (VAL-DET-1). Rows below these sizes, or whose mean, rstd, c1 or c2 is not
// zero or a normal float, keep the double kernel.

// The least N of a float row whose gradInput dtype has kind k (1 FLOAT, 2 or 3 16-bit).
HWY_INLINE int64_t LnFloatMinN(int k) {
  return k == 1 ? 32 : 257;
}

// One element of gradInput by the double formula (the double kernel's value).
template <int kIn>
HWY_INLINE double LnGradInputF64(const void *x, const void *dy, const double *w, double mean,
                                 double rstd, double c1, double c2, int64_t j) {
  const double d = LnLoad<kIn>(dy, j);
  const double xh = (LnLoad<kIn>(x, j) - mean) * rstd;
  const double g = w ? d * w[j] : d;
  return rstd * std::fma(xh, -c2, g - c1);
}

// The column partials of elements [n8, n) of a row (the scalar tail of the vector loops).
template <int kIn>
HWY_INLINE void LnPartialsTail(int64_t n8, int64_t n, const void *x, const void *dy, double mean,
                               double rstd, double *pw, double *pb) {
  if (!pw && !pb) return;
  for (int64_t j = n8; j < n; ++j) {
    const double d = LnLoad<kIn>(dy, j);
    if (pw) pw[j] = std::fma(d, (LnLoad<kIn>(x, j) - mean) * rstd, pw[j]);
    if (pb) pb[j] += d;
  }
}

// The float constants of a row.
struct LnRowF32 {
  float mean, rstd, c1, nc2;
};
// Whether row (n, c1, c2, mean, rstd) with gradInput of kind gi_kind takes the float second pass
// (see above).
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

// Whether no float intermediate of a binary16 float row's gradInput can overflow, so that no lane
// needs the non-finite test: the inputs of a float row are finite (S1 and S2 are), hence at most
// 65504 in magnitude, and wmax bounds |wf|. Each bound below is the exact one's magnitude; the
// float operations round it by at most (1 + 2^-24)^4, far inside the factor 2 kept from float's
// largest finite value. Without overflow a finite operation gives no NaN either (no inf - inf,
// no 0 * inf), so the test would find nothing. Holds for any row whose statistics are of
// ordinary size.
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
  const auto d = static_cast<float>(LnLoad<kIn>(dy, j));
  const float xh = (static_cast<float>(LnLoad<kIn>(x, j)) - f.mean) * f.rstd;
  const float g = wf ? d * wf[j] : d;
  const float r = f.rstd * std::fma(xh, f.nc2, g - f.c1);
  LnStore<kOut>(gi, j, std::isfinite(r) ? r : LnGradInputF64<kIn>(x, dy, w, mean, rstd, c1, c2, j));
}

// One row of n elements: x and dy of kind kIn (a row in place, or a gathered double row),
// gradInput (kGI) written as kind kOut. w: the weight as doubles, or null. pw/pb, when not null,
// receive dy*xhat and dy added into the block's column partials (LN-VALUE-2).
//
// With g = dy*w, xhat = (x - mean)*rstd, S1 = sum(g) and S2 = sum(g*xhat): c1 = S1/n, c2 = S2/n
// and gradInput = rstd * ((g - c1) - xhat*c2), the inner part one fused multiply-add. The order
// of the operations is the reference's (rstd applied last, xhat per element), so infinities and
// NaNs combine as in the reference (LN-SPECIAL-1: distributing rstd turns inf*(a - b) into
// inf - inf = NaN; folding rstd into S2 skips a 0*inf = NaN term). The row sums use eight
// accumulators, one per residue j mod 8, whatever the vector width (8/L vectors of L lanes), then
// add them in one fixed order; every multiply-add is fused on every target (sh::Fma): the
// arithmetic is the same on every target, so every target gives the same bits.
// float_kind: gradInput's dtype kind (kOut, or the dtype a double row is scattered to) where rows
// may be float rows, 0 where none may; wf: the weight as floats (set where float_kind is).
template <int kIn, int kOut, bool kGI>
HWY_INLINE void LnRowT(int64_t n, const void *x, const void *dy, const double *w, const float *wf,
                       double mean, double rstd, int float_kind, void *gi, double *pw, double *pb,
                       const char *nx, const char *ndy) {
  const hn::ScalableTag<double> dd;
  using V = hn::Vec<decltype(dd)>;
  const auto lanes = static_cast<int64_t>(hn::Lanes(dd));
  const int64_t per8 = 8 / lanes;
  const V vm = hn::Set(dd, mean), vr = hn::Set(dd, rstd);
  const int64_t n8 = n / 8 * 8;
  double c1 = 0.0, c2 = 0.0;
  if constexpr (kGI) {
    HWY_ALIGN double s1v[8] = {}, s2v[8] = {};
    for (int64_t k = 0; k < per8; ++k) {  // residues k*lanes .. k*lanes + lanes - 1
      V a1 = hn::Zero(dd), a2 = hn::Zero(dd);
      for (int64_t j = k * lanes; j < n8; j += 8) {
        const V d = LnLoadV<kIn>(dd, dy, j);
        const V g = w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
        a1 = hn::Add(a1, g);
        a2 = sh::Fma(dd, g, hn::Mul(hn::Sub(LnLoadV<kIn>(dd, x, j), vm), vr), a2);
      }
      hn::Store(a1, dd, s1v + k * lanes);
      hn::Store(a2, dd, s2v + k * lanes);
    }
    LnCombineSums<kIn>(s1v, s2v, n, x, dy, w, mean, rstd, c1, c2);
  }
  const V vc1 = hn::Set(dd, c1), vnc2 = hn::Set(dd, -c2);
  // A float row (see LnFloatRow) gets the float value of every element, as the pipelined kernel
  // computes it, so that a gathered or strided layout gives the bits of the contiguous one.
  LnRowF32 f{};
  const bool float_row = kGI && float_kind != 0 && LnFloatRow(float_kind, n, c1, c2, mean, rstd, f);
  constexpr int64_t kInBytes = kIn == 0 ? 8 : kIn == 1 ? 4 : 2;
  for (int64_t j = 0; j < n8; j += lanes) {
    // The next row's x and dy (in place rows), fetched while this pass has no reads of its own
    // from memory: the first pass of the next row then finds them in cache.
    if (nx != nullptr && (j * kInBytes) % 64 == 0) {
      __builtin_prefetch(nx + j * kInBytes, 0, 3);
      __builtin_prefetch(ndy + j * kInBytes, 0, 3);
    }
    const V d = LnLoadV<kIn>(dd, dy, j);
    const V xh = hn::Mul(hn::Sub(LnLoadV<kIn>(dd, x, j), vm), vr);
    if (kGI && !float_row) {
      const V g = w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
      LnStoreV<kOut>(dd, hn::Mul(vr, sh::Fma(dd, xh, vnc2, hn::Sub(g, vc1))), gi, j);
    }
    if (pw) hn::StoreU(sh::Fma(dd, d, xh, hn::LoadU(dd, pw + j)), dd, pw + j);
    if (pb) hn::StoreU(hn::Add(hn::LoadU(dd, pb + j), d), dd, pb + j);
  }
  if (kGI && !float_row)
    for (int64_t j = n8; j < n; ++j)
      LnStore<kOut>(gi, j, LnGradInputF64<kIn>(x, dy, w, mean, rstd, c1, c2, j));
  LnPartialsTail<kIn>(n8, n, x, dy, mean, rstd, pw, pb);
  if (float_row)  // gathered or strided rows only: element by element
    for (int64_t j = 0; j < n; ++j)
      LnGradInputF32One<kIn, kOut>(x, dy, wf, gi, f, j, w, mean, rstd, c1, c2);
}

// ---- rows in place, pipelined -----------------------------------------------------------------
// The same arithmetic as LnRowT (same operations, same accumulators, same order per row), arranged
// so that the second pass over row r (its data in cache) and the first pass over row r + 1 (its
// data arriving from memory) run in one loop: the core computes while the next row streams in,
// instead of the two alternating (LnRowT's first pass waits on memory, its second on arithmetic).

// The longest bfloat16 row whose dy and x are kept as floats between its two passes: 8 KB beside
// the row's 16 KB of double partials, in L1 (the length measured; longer rows convert twice).
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

// One step of the first pass at element j (residue group k) of a row, with the row's additions to
// the column partials pw/pb (when not null): the same operations as LnRowT's second loop, moved
// here so that the second pass needs no double values and can run in float.
template <class DD>
HWY_INLINE void LnSumStepV(DD dd, hn::Vec<DD> &a1, hn::Vec<DD> &a2, hn::Vec<DD> d, hn::Vec<DD> xv,
                           const double *w, hn::Vec<DD> vm, hn::Vec<DD> vr, int64_t j, double *pw,
                           double *pb) {
  const auto g = w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
  const auto xh = hn::Mul(hn::Sub(xv, vm), vr);
  a1 = hn::Add(a1, g);
  a2 = sh::Fma(dd, g, xh, a2);
  if (pw) hn::StoreU(sh::Fma(dd, d, xh, hn::LoadU(dd, pw + j)), dd, pw + j);
  if (pb) hn::StoreU(hn::Add(hn::LoadU(dd, pb + j), d), dd, pb + j);
}
template <int kIn, class DD>
HWY_INLINE void LnSumStep(DD dd, hn::Vec<DD> &a1, hn::Vec<DD> &a2, const void *x, const void *dy,
                          const double *w, hn::Vec<DD> vm, hn::Vec<DD> vr, int64_t j, double *pw,
                          double *pb) {
  LnSumStepV(dd, a1, a2, LnLoadV<kIn>(dd, dy, j), LnLoadV<kIn>(dd, x, j), w, vm, vr, j, pw, pb);
}

// Sixteen steps of a 16-bit row's first pass from j0 (one float vector, two double vectors: AVX3),
// which also keep dy and x widened to float in kd/kx for the row's second pass: loading them from
// there costs no conversion (LayerNorm's 16-bit rows are bound by their count of vector
// operations). The same values in the same order as two LnSumSteps, so the same bits.
template <int kIn, class DD, class DF>
HWY_INLINE void LnSumStep16Kept(DD dd, DF df, hn::Vec<DD> &a1, hn::Vec<DD> &a2, const void *x,
                                const void *dy, const double *w, hn::Vec<DD> vm, hn::Vec<DD> vr,
                                int64_t j0, double *pw, double *pb, float *kd, float *kx) {
#if HWY_TARGET == HWY_SCALAR  // no halves of vectors; never instantiated there (kKeep)
  static_assert(sizeof(DD) == 0, "AVX3 only");
#else
  static_assert(hn::MaxLanes(DF()) == 2 * hn::MaxLanes(DD()), "a float vector is two doubles");
  const auto j = static_cast<size_t>(j0);
  const auto d = sh::LoadAsF32<kIn>(df, dy, j), xv = sh::LoadAsF32<kIn>(df, x, j);
  hn::Store(d, df, kd + j0);
  hn::Store(xv, df, kx + j0);
  const hn::Half<DF> dh;
  LnSumStepV(dd, a1, a2, hn::PromoteTo(dd, hn::LowerHalf(dh, d)),
             hn::PromoteTo(dd, hn::LowerHalf(dh, xv)), w, vm, vr, j0, pw, pb);
  LnSumStepV(dd, a1, a2, hn::PromoteTo(dd, hn::UpperHalf(dh, d)),
             hn::PromoteTo(dd, hn::UpperHalf(dh, xv)), w, vm, vr, j0 + hn::MaxLanes(DD()), pw, pb);
#endif
}

// Elements j .. j + lanes - 1 of a float row's gradInput (LnFloatRow said yes); x, dy, gi: the
// row; w/c1/c2/mean/rstd: the double values, for lanes recomputed in double; stream: gi + j is
// aligned to the output vector and is written with a non-temporal store; kBf16Insn: bfloat16
// gradInput is narrowed by VCVTNEPS2BF16 (sh::BF16FromF32InsnNoSpecial, the same bits); kKept: dy
// and x from kd/kx, where the row's first pass kept them as floats (LnSumStep16Kept); kChecked:
// test for non-finite lanes (false only where LnF16RowInRange proved that none can occur).
template <int kIn, int kOut, bool kBf16Insn, bool kKept, bool kChecked = true, class DF>
HWY_INLINE void LnGradInputF32(DF df, const void *x, const void *dy, const float *wf, void *gi,
                               const LnRowF32 &f, int64_t j, bool stream, const double *w,
                               double mean, double rstd, double c1, double c2, const float *kd,
                               const float *kx) {
  const auto sj = static_cast<size_t>(j);
  const auto d = kKept ? hn::Load(df, kd + j) : sh::LoadAsF32<kIn>(df, dy, sj);
  const auto vr = hn::Set(df, f.rstd);
  const auto xv = kKept ? hn::Load(df, kx + j) : sh::LoadAsF32<kIn>(df, x, sj);
  const auto xh = hn::Mul(hn::Sub(xv, hn::Set(df, f.mean)), vr);
  const auto g = wf ? hn::Mul(d, hn::LoadU(df, wf + j)) : d;
  const auto r = hn::Mul(vr, sh::Fma(df, xh, hn::Set(df, f.nc2), hn::Sub(g, hn::Set(df, f.c1))));
  using T = std::conditional_t<kOut == 1, float, uint16_t>;
  const hn::Rebind<T, DF> dout;
#if ACLNN_SIMD_BF16_INSN
  // One classification for the instruction's special lanes and the non-finite ones: a vector
  // with neither (nearly all) is narrowed by the instruction; any other takes the integer
  // rounding and the lane fix below, which give the same bits.
  if constexpr (kBf16Insn) {
    if (HWY_LIKELY(!sh::AnyNotFiniteOrSubnormal(df, r))) {
      sh::StoreOrStream(sh::BF16FromF32InsnNoSpecial(df, r), dout, static_cast<T *>(gi) + j,
                        stream);
      return;
    }
  }
#endif
  auto out = [&] {
    if constexpr (kOut == 1)
      return r;
    else if constexpr (kOut == 2)
      return sh::F16FromF32(df, r);
    else
      return sh::BF16FromF32(df, r);
  }();
  if constexpr (!kChecked) {
    sh::StoreOrStream(out, dout, static_cast<T *>(gi) + j, stream);
    return;
  }
  const auto bad = sh::NotFinite(df, r);
  if (HWY_UNLIKELY(!hn::AllFalse(df, bad))) {
    HWY_ALIGN float lane_bad[hn::MaxLanes(DF())];
    HWY_ALIGN T fixed[hn::MaxLanes(DF())];
    hn::Store(hn::VecFromMask(df, bad), df, lane_bad);
    hn::Store(out, dout, fixed);
    for (size_t l = 0; l < hn::Lanes(df); ++l)
      if (std::bit_cast<uint32_t>(lane_bad[l]) != 0)
        LnStore<kOut>(
            fixed, static_cast<int64_t>(l),
            LnGradInputF64<kIn>(x, dy, w, mean, rstd, c1, c2, j + static_cast<int64_t>(l)));
    out = hn::Load(dout, fixed);
  }
  sh::StoreOrStream(out, dout, static_cast<T *>(gi) + j, stream);
}

// Rows x[i], dy[i] -> gi[i], i < rows, consecutive rows of one block (pw/pb: its partials, or
// null); mean/rstd: the rows' values; float_kind, wf: as LnRowT's (float_kind is kOut or 0);
// wmax: the largest |wf| (1 without a weight), for LnF16RowInRange; stream: write 64-byte aligned
// float rows of gradInput with non-temporal stores; kBf16Insn: as LnGradInputF32's; kKeep: a 16-bit
// row's dy and x are kept as floats between its two passes (LnSumStep16Kept; where LnRowsPipelinedK
// says so), and w, wf, pw and pb are all given, so the loops test none of them (GCC does not
// unswitch these loops itself).
template <int kIn, int kOut, bool kBf16Insn = false, bool kKeep = false>
HWY_INLINE void LnRowsPipelinedT(int64_t rows, int64_t n, const void *const *x,
                                 const void *const *dy, void *const *gi, const double *mean,
                                 const double *rstd, const double *w, const float *wf, float wmax,
                                 double *pw, double *pb, int float_kind, bool stream) {
  if constexpr (kKeep) {
    if (w == nullptr || wf == nullptr || pw == nullptr || pb == nullptr) __builtin_unreachable();
  }
  using DD = hn::ScalableTag<double>;
  const DD dd;
  using V = hn::Vec<DD>;
  const hn::ScalableTag<float> df;
  constexpr size_t kLanes = hn::MaxLanes(DD());
  constexpr size_t kLanesF = hn::MaxLanes(decltype(df)());
  static_assert(16 % kLanesF == 0, "whole float vectors per 16 elements");
  constexpr size_t kPer8 = LnSums<DD>::kPer8;
  const int64_t n8 = n / 8 * 8, n16 = n / 16 * 16;
  constexpr int64_t kInBytes = kIn == 1 ? 4 : 2;
  LnSums<DD> acc;
  // The kept floats of elements j < n16 of the row between its passes: row r + 1's first pass
  // overwrites element j just after row r's second pass has read it.
  static_assert(!kKeep || (kIn != 1 && kPer8 == 1 && kLanesF == 16), "AVX3's 16-bit rows only");
  HWY_ALIGN float kept[kKeep ? 2 * kLnKeptMaxN : 1];
  float *const kd = kept, *const kx = kept + (kKeep ? kLnKeptMaxN : 0);
  // Row i's first pass over elements j0 .. j0 + 7 (its sums and column partials).
  const auto first8 = [&](int64_t i, V vm, V vr, int64_t j0) HWY_ATTR ACLNN_SIMD_LAMBDA {
    for (size_t k = 0; k < kPer8; ++k)
      LnSumStep<kIn>(dd, acc.a1[k], acc.a2[k], x[i], dy[i], w, vm, vr,
                     j0 + static_cast<int64_t>(k * kLanes), pw, pb);
  };
  const auto start = [&] {
    for (size_t k = 0; k < kPer8; ++k) acc.a1[k] = acc.a2[k] = hn::Zero(dd);
  };
  const auto finish = [&](int64_t i, double &c1, double &c2) {
    LnFinishSums<kIn>(dd, acc, n, x[i], dy[i], w, mean[i], rstd[i], c1, c2);
    LnPartialsTail<kIn>(n8, n, x[i], dy[i], mean[i], rstd[i], pw, pb);
  };
  // The first row's first pass alone.
  double c1 = 0, c2 = 0;
  start();
  {
    const V vm = hn::Set(dd, mean[0]), vr = hn::Set(dd, rstd[0]);
    int64_t j0 = 0;
    if constexpr (kKeep)
      for (; j0 < n16; j0 += 16)
        LnSumStep16Kept<kIn>(dd, df, acc.a1[0], acc.a2[0], x[0], dy[0], w, vm, vr, j0, pw, pb, kd,
                             kx);
    for (; j0 < n8; j0 += 8) first8(0, vm, vr, j0);
    finish(0, c1, c2);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const bool next = r + 1 < rows;
    const void *xr = x[r], *dr = dy[r];
    void *gr = gi[r];
    // Row r's second pass over elements j0 .. j0 + 15 (second16) and one element (second1),
    // together with row r + 1's first pass.
    const auto pass = [&](auto second16, auto second1) HWY_ATTR ACLNN_SIMD_LAMBDA {
      if (next) {
        start();
        const V vm1 = hn::Set(dd, mean[r + 1]), vr1 = hn::Set(dd, rstd[r + 1]);
        // Row r + 2's lines are requested into L2 while row r + 1 is read: a row of a few KB is
        // a page or two, and the hardware prefetchers do not cross pages, so without this the
        // first pass waits on memory at the start of every row. Into L2, not L1 (L1 holds the
        // partials and the rows in use: prefetching into L1 gave a third of the gain). Measured
        // on (16384, 1024) and (64, 65536); a limit on the row length, or a fixed distance in
        // bytes instead of one row, measured slower.
        const char *x2 = r + 2 < rows ? static_cast<const char *>(x[r + 2]) : nullptr;
        const char *d2 = r + 2 < rows ? static_cast<const char *>(dy[r + 2]) : nullptr;
        // With one vector holding the eight residues (AVX3), its sums and the row pointers are
        // plain locals, which no store can alias. Kept in acc (a struct the lambdas share), the
        // sums went through the stack at every step: a chain of store-to-load forwarding per
        // eight elements, since the partials' double stores might have written them.
        V a1 = acc.a1[0], a2 = acc.a2[0];
        const void *const x1 = x[r + 1], *const d1 = dy[r + 1];
        for (int64_t j0 = 0; j0 < n16; j0 += 16) {
          if (x2 != nullptr && (j0 * kInBytes) % 64 == 0) {
            __builtin_prefetch(x2 + j0 * kInBytes, 0, 2);
            __builtin_prefetch(d2 + j0 * kInBytes, 0, 2);
          }
          second16(j0);
          if constexpr (kKeep) {
            LnSumStep16Kept<kIn>(dd, df, a1, a2, x1, d1, w, vm1, vr1, j0, pw, pb, kd, kx);
          } else if constexpr (kPer8 == 1) {
            LnSumStep<kIn>(dd, a1, a2, x1, d1, w, vm1, vr1, j0, pw, pb);
            LnSumStep<kIn>(dd, a1, a2, x1, d1, w, vm1, vr1, j0 + 8, pw, pb);
          } else {
            first8(r + 1, vm1, vr1, j0);
            first8(r + 1, vm1, vr1, j0 + 8);
          }
        }
        if constexpr (kPer8 == 1) {
          acc.a1[0] = a1;
          acc.a2[0] = a2;
        }
        if (n8 > n16) first8(r + 1, vm1, vr1, n16);
      } else {
        for (int64_t j0 = 0; j0 < n16; j0 += 16) second16(j0);
      }
      for (int64_t j = n16; j < n; ++j) second1(j);
    };
    const double m = mean[r], rs = rstd[r];
    LnRowF32 f{};
    if (float_kind != 0 && LnFloatRow(float_kind, n, c1, c2, m, rs, f)) {
      const bool st = stream && reinterpret_cast<uintptr_t>(gr) % 64 == 0;
      const auto float_pass = [&](auto checked) HWY_ATTR ACLNN_SIMD_LAMBDA {
        pass(
            [&](int64_t j0) HWY_ATTR ACLNN_SIMD_LAMBDA {
              for (size_t k = 0; k < 16 / kLanesF; ++k)
                LnGradInputF32<kIn, kOut, kBf16Insn, kKeep, decltype(checked)::value>(
                    df, xr, dr, wf, gr, f, j0 + static_cast<int64_t>(k * kLanesF), st, w, m, rs, c1,
                    c2, kd, kx);
            },
            [&](int64_t j) {
              LnGradInputF32One<kIn, kOut>(xr, dr, wf, gr, f, j, w, m, rs, c1, c2);
            });
      };
      // binary16 rows: no non-finite test where the row's bound rules it out (9.5 -> 9.3 ms on
      // (16384, 1024), 1 thread).
      if constexpr (kIn == 2) {
        if (LnF16RowInRange(f, wmax))
          float_pass(std::false_type());
        else
          float_pass(std::true_type());
      } else {
        float_pass(std::true_type());
      }
    } else {
      const V vm = hn::Set(dd, m), vr = hn::Set(dd, rs);
      const V vc1 = hn::Set(dd, c1), vnc2 = hn::Set(dd, -c2);
      pass(
          [&](int64_t j0) HWY_ATTR ACLNN_SIMD_LAMBDA {
            for (size_t k = 0; k < 16 / kLanes; ++k) {
              const int64_t j = j0 + static_cast<int64_t>(k * kLanes);
              const V d = LnLoadV<kIn>(dd, dr, j);
              const V xh = hn::Mul(hn::Sub(LnLoadV<kIn>(dd, xr, j), vm), vr);
              const V g = w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
              LnStoreV<kOut>(dd, hn::Mul(vr, sh::Fma(dd, xh, vnc2, hn::Sub(g, vc1))), gr, j);
            }
          },
          [&](int64_t j) {
            LnStore<kOut>(gr, j, LnGradInputF64<kIn>(xr, dr, w, m, rs, c1, c2, j));
          });
    }
    if (next) finish(r + 1, c1, c2);
  }
  if (stream) simd::flush_streams();
}

// One function per instantiation (each its own register allocation: the kernel measured slower
// when two of them were inlined into one function).
template <int kIn, int kOut, bool kBf16Insn = false, bool kKeep = false>
HWY_NOINLINE void LnRowsPipelinedN(int64_t rows, int64_t n, const void *const *x,
                                   const void *const *dy, void *const *gi, const double *mean,
                                   const double *rstd, const double *w, const float *wf, float wmax,
                                   double *pw, double *pb, int float_kind, bool stream) {
  LnRowsPipelinedT<kIn, kOut, kBf16Insn, kKeep>(rows, n, x, dy, gi, mean, rstd, w, wf, wmax, pw, pb,
                                                float_kind, stream);
}
// The instance for rows of kind kIn. BFLOAT16 rows keep their floats between the passes where
// the target's vectors allow it (AVX3) and the row is short enough (kLnKeptMaxN), in an instance
// for the common call (the weight and both partials given) that tests none of them: (16384,
// 1024), 1 thread, 11.4 -> 10.1 ms for keeping, 9.6 -> 9.1 ms for the tests (the same tests cost
// nothing measurable in the FLOAT and FLOAT16 instances, which keep them). Not FLOAT16 rows: F16C
// widens in one operation, and keeping measured 9.2 against 9.4 ms.
template <int kIn, bool kBf16Insn = false>
HWY_INLINE void LnRowsPipelinedK(int64_t rows, int64_t n, const void *const *x,
                                 const void *const *dy, void *const *gi, const double *mean,
                                 const double *rstd, const double *w, const float *wf, float wmax,
                                 double *pw, double *pb, int float_kind, bool stream) {
  if constexpr (kIn == 3 && hn::MaxLanes(hn::ScalableTag<double>()) == 8 &&
                hn::MaxLanes(hn::ScalableTag<float>()) == 16) {
    if (n / 16 * 16 <= kLnKeptMaxN && w != nullptr && wf != nullptr && pw != nullptr &&
        pb != nullptr)
      return LnRowsPipelinedN<kIn, kIn, kBf16Insn, true>(rows, n, x, dy, gi, mean, rstd, w, wf,
                                                         wmax, pw, pb, float_kind, stream);
  }
  LnRowsPipelinedN<kIn, kIn, kBf16Insn>(rows, n, x, dy, gi, mean, rstd, w, wf, wmax, pw, pb,
                                        float_kind, stream);
}

// kind: the dtype kind of the rows (1 FLOAT, 2 FLOAT16, 3 BFLOAT16), input and gradInput alike.
void LnRowsPipelined(int kind, int64_t rows, int64_t n, const void *const *x, const void *const *dy,
                     void *const *gi, const double *mean, const double *rstd, const double *w,
                     const float *wf, float wmax, double *pw, double *pb, int float_kind,
                     bool stream) {
  switch (kind) {
    case 2:
      return LnRowsPipelinedK<2>(rows, n, x, dy, gi, mean, rstd, w, wf, wmax, pw, pb, float_kind,
                                 stream);
    case 3:
#if ACLNN_SIMD_BF16_INSN
      if (simd::use_bf16_insn())
        return LnRowsPipelinedK<3, true>(rows, n, x, dy, gi, mean, rstd, w, wf, wmax, pw, pb,
                                         float_kind, stream);
#endif
      return LnRowsPipelinedK<3>(rows, n, x, dy, gi, mean, rstd, w, wf, wmax, pw, pb, float_kind,
                                 stream);
    default:
      return LnRowsPipelinedK<1>(rows, n, x, dy, gi, mean, rstd, w, wf, wmax, pw, pb, float_kind,
                                 stream);
  }
}

// in_kind/out_kind: 0 (double buffers) or the row's dtype kind; out_kind is ignored without
// gradInput. Pairs other than (0 or k, 0 or k) do not occur.
void LnRow(int in_kind, int out_kind, bool want_gi, int64_t n, const void *x, const void *dy,
           const double *w, const float *wf, double mean, double rstd, int float_kind, void *gi,
           double *pw, double *pb, const char *nx, const char *ndy) {
  const auto call = [&](auto in_c, auto out_c) {
    constexpr int kIn = decltype(in_c)::value, kOut = decltype(out_c)::value;
    if (want_gi)
      LnRowT<kIn, kOut, true>(n, x, dy, w, wf, mean, rstd, float_kind, gi, pw, pb, nx, ndy);
    else
      LnRowT<kIn, kOut, false>(n, x, dy, w, wf, mean, rstd, float_kind, gi, pw, pb, nx, ndy);
  };
  using I0 = std::integral_constant<int, 0>;
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  using I3 = std::integral_constant<int, 3>;
  const int k = in_kind != 0 ? in_kind : out_kind;  // the dtype kind in play, if any
  const bool in_d = in_kind == 0, out_d = out_kind == 0;
  switch (k) {
    case 1:
      return in_d ? (out_d ? call(I0(), I0()) : call(I0(), I1()))
                  : (out_d ? call(I1(), I0()) : call(I1(), I1()));
    case 2:
      return in_d ? (out_d ? call(I0(), I0()) : call(I0(), I2()))
                  : (out_d ? call(I2(), I0()) : call(I2(), I2()));
    case 3:
      return in_d ? (out_d ? call(I0(), I0()) : call(I0(), I3()))
                  : (out_d ? call(I3(), I0()) : call(I3(), I3()));
    default:
      return call(I0(), I0());
  }
}

// The narrowing above over an array (simd::f64_to_f16_via_odd, for tests); n % lanes elements at
// the end one vector at a time through a padded copy.
void LnF64ToF16(const double *src, uint16_t *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const size_t lanes = hn::Lanes(dd);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) LnStoreV<2>(dd, hn::LoadU(dd, src + i), dst, int64_t(i));
  if (i < n) {
    HWY_ALIGN double in[16] = {};
    HWY_ALIGN uint16_t out[16];
    std::memcpy(in, src + i, (n - i) * sizeof(double));
    LnStoreV<2>(dd, hn::Load(dd, in), out, 0);
    std::memcpy(dst + i, out, (n - i) * sizeof(uint16_t));
  }
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "impl/checks.hpp"
#include "impl/dtype.hpp"
#include "impl/executor.hpp"
#include "impl/parallel.hpp"
#include "impl/simd.hpp"
#include "impl/soc.hpp"
#include "impl/status.hpp"
#include "impl/tensor.hpp"

namespace aclnn_cpu {

namespace {

constexpr const char *kOp = "aclnnLayerNormBackward";
// No thread is started for less work than this many elements (thread start-up would dominate).
constexpr int64_t kParallelElements = 65536;

// ---- views ---------------------------------------------------------------------------------

// Coalesced dims (outermost first), strides in elements; n == 0 means a single element.
struct Dims {
  int n = 0;
  std::array<int64_t, kMaxRank> size{};
  std::array<int64_t, kMaxRank> stride{};
};

Dims coalesce(const int64_t *sizes, const int64_t *strides, int count) {
  Dims d;
  for (int i = 0; i < count; ++i) {
    if (sizes[i] == 1) continue;
    if (d.n > 0 && d.stride[d.n - 1] == strides[i] * sizes[i]) {
      d.size[d.n - 1] *= sizes[i];
      d.stride[d.n - 1] = strides[i];
    } else {
      d.size[d.n] = sizes[i];
      d.stride[d.n] = strides[i];
      ++d.n;
    }
  }
  return d;
}

// Calls f(offset, len, stride) for each innermost run of the dims, in row-major order, starting at
// base (elements). The multi-index is carried from run to run.
template <typename F>
void for_each_run(const Dims &d, int64_t base, F &&f) {
  if (d.n == 0) {
    f(base, int64_t{1}, int64_t{0});
    return;
  }
  const int last = d.n - 1;
  std::array<int64_t, kMaxRank> idx{};
  int64_t off = base;
  for (;;) {
    f(off, d.size[last], d.stride[last]);
    int k = last - 1;
    for (; k >= 0; --k) {
      off += d.stride[k];
      if (++idx[k] < d.size[k]) break;
      off -= d.size[k] * d.stride[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

// Offset (elements) of the first element of each row over the leading dims, carried row to row.
struct RowCursor {
  const Dims *outer = nullptr;
  std::array<int64_t, kMaxRank> idx{};
  int64_t off = 0;

  void seek(const Dims &o, int64_t base, int64_t row) {  // once per chunk
    outer = &o;
    off = base;
    for (int k = o.n - 1; k >= 0; --k) {
      idx[k] = row % o.size[k];
      row /= o.size[k];
      off += idx[k] * o.stride[k];
    }
  }
  void next() {
    for (int k = outer->n - 1; k >= 0; --k) {
      off += outer->stride[k];
      if (++idx[k] < outer->size[k]) return;
      off -= outer->size[k] * outer->stride[k];
      idx[k] = 0;
    }
  }
};

// A tensor as the run needs it (captured by value in the executor).
struct RowView {
  char *data = nullptr;  // storage start
  int64_t offset = 0;    // elements
  aclDataType dtype = ACL_FLOAT;
  Dims outer, inner;
};

RowView make_row_view(const aclTensor &t, int lead) {
  RowView v;
  v.data = static_cast<char *>(t.data);
  v.offset = t.offset;
  v.dtype = t.dtype;
  const int r = rank(t);
  v.outer = coalesce(t.view_dims.data(), t.strides.data(), lead);
  v.inner = coalesce(t.view_dims.data() + lead, t.strides.data() + lead, r - lead);
  return v;
}

// ---- loads and stores ----------------------------------------------------------------------

template <typename T>
inline double to_double(T v);
template <>
inline double to_double<float>(float v) {
  return v;
}
struct Half {
  uint16_t bits;
};
struct Bf16 {
  uint16_t bits;
};
template <>
inline double to_double<Half>(Half v) {
  return half_to_float(v.bits);
}
template <>
inline double to_double<Bf16>(Bf16 v) {
  return std::bit_cast<float>(static_cast<uint32_t>(v.bits) << 16);
}

template <typename T>
void load_run(const T *__restrict p, int64_t len, int64_t st, double *__restrict out) {
  if constexpr (std::is_same_v<T, float>) {
    if (st == 1) return simd::f32_to_f64(p, out, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Half>) {
    if (st == 1) return simd::f16_to_f64(&p->bits, out, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Bf16>) {
    if (st == 1) return simd::bf16_to_f64(&p->bits, out, static_cast<size_t>(len));
  }
  if (st == 1) {
    for (int64_t j = 0; j < len; ++j) out[j] = to_double(p[j]);
  } else {
    for (int64_t j = 0; j < len; ++j) out[j] = to_double(p[j * st]);
  }
}

template <typename T>
inline T from_double(double v);
template <>
inline float from_double<float>(double v) {
  return static_cast<float>(v);
}
template <>
inline Half from_double<Half>(double v) {
  return Half{double_to_half(v)};
}
template <>
inline Bf16 from_double<Bf16>(double v) {
  return Bf16{double_to_bf16(v)};
}

template <typename T>
void store_run(T *__restrict p, int64_t len, int64_t st, const double *__restrict in) {
  if constexpr (std::is_same_v<T, float>) {
    if (st == 1) return simd::f64_to_f32(in, p, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Half>) {
    if (st == 1) return simd::f64_to_f16(in, &p->bits, static_cast<size_t>(len));
  }
  if constexpr (std::is_same_v<T, Bf16>) {
    if (st == 1) return simd::f64_to_bf16(in, &p->bits, static_cast<size_t>(len));
  }
  if (st == 1) {
    for (int64_t j = 0; j < len; ++j) p[j] = from_double<T>(in[j]);
  } else {
    for (int64_t j = 0; j < len; ++j) p[j * st] = from_double<T>(in[j]);
  }
}

// Loads the elements of dims d at element offset base of data, in row-major order, into out.
template <typename T>
void gather_t(const char *data, const Dims &d, int64_t base, double *out) {
  const T *p = reinterpret_cast<const T *>(data);
  for_each_run(d, base, [&](int64_t off, int64_t len, int64_t st) {
    load_run<T>(p + off, len, st, out);
    out += len;
  });
}
void gather(const char *data, aclDataType t, const Dims &d, int64_t base, double *out) {
  switch (t) {
    case ACL_FLOAT16:
      return gather_t<Half>(data, d, base, out);
    case ACL_BF16:
      return gather_t<Bf16>(data, d, base, out);
    default:
      return gather_t<float>(data, d, base, out);
  }
}

template <typename T>
void scatter_t(char *data, const Dims &d, int64_t base, const double *in) {
  T *p = reinterpret_cast<T *>(data);
  for_each_run(d, base, [&](int64_t off, int64_t len, int64_t st) {
    store_run<T>(p + off, len, st, in);
    in += len;
  });
}
void scatter(char *data, aclDataType t, const Dims &d, int64_t base, const double *in) {
  switch (t) {
    case ACL_FLOAT16:
      return scatter_t<Half>(data, d, base, in);
    case ACL_BF16:
      return scatter_t<Bf16>(data, d, base, in);
    default:
      return scatter_t<float>(data, d, base, in);
  }
}

// ---- the row kernel ------------------------------------------------------------------------

HWY_EXPORT(LnRow);
HWY_EXPORT(LnF64ToF16);
HWY_EXPORT(LnRowsPipelined);

// A row of this view is one contiguous run: read or written in place.
bool row_is_dense(const RowView &v) {
  return v.inner.n == 0 || (v.inner.n == 1 && v.inner.stride[0] == 1);
}
// The row kernel's kind of a dtype: 1 FLOAT, 2 FLOAT16, 3 BFLOAT16.
int row_kind(aclDataType t) {
  return t == ACL_FLOAT ? 1 : t == ACL_FLOAT16 ? 2 : 3;
}

// ---- the plan ------------------------------------------------------------------------------

// Rows per block of the column sums: a function of the shape only (VAL-DET-1). At least 8 rows a
// block (the workspace, blocks * N * 16 bytes, stays at most 2 bytes per input element) and at most
// ~128 blocks (the final reduction reads blocks * N partials).
int64_t rows_per_block(int64_t m) {
  return std::max<int64_t>(8, (m + 127) / 128);
}
constexpr int64_t kAlign = 64;  // bytes; the workspace pointer is aligned up inside
// Doubles per partial, a multiple of 8 so that each partial starts 64-byte aligned.
int64_t padded(int64_t n) {
  return (n + 7) / 8 * 8;
}

struct Plan {
  int64_t m = 0, n = 0;
  bool has_w = false, gi = false, gw = false, gb = false;
  RowView x, dy, out_gi;
  // mean/rstd (flat row order over their own dims), weight (over its dims), gradWeight/gradBias.
  RowView mean, rstd, w, out_gw, out_gb;
  int64_t block_rows = 0, blocks = 0, parts = 0;
};

uint64_t workspace_bytes(const Plan &p) {
  if (!(p.gw || p.gb) || p.m == 0 || p.n == 0) return 0;
  return static_cast<uint64_t>(kAlign + p.blocks * p.parts * padded(p.n) * 8);
}

void fill_zero(const RowView &v, int64_t n) {
  std::vector<double> z(static_cast<size_t>(n), 0.0);
  scatter(v.data, v.dtype, v.inner, v.offset, z.data());
}

void run_plan(const Plan &p, void *workspace) {
  if (!(p.gi || p.gw || p.gb)) return;  // LN-MASK-2: all three false, nothing runs
  if (p.n == 0) return;                 // every requested output is empty
  if (p.m == 0) {                       // LN-EMPTY-1
    if (p.gw) fill_zero(p.out_gw, p.n);
    if (p.gb) fill_zero(p.out_gb, p.n);
    return;
  }
  const int64_t m = p.m, n = p.n;
  std::vector<double> mean(static_cast<size_t>(m)), rstd(static_cast<size_t>(m)), w;
  gather(p.mean.data, p.mean.dtype, p.mean.inner, p.mean.offset, mean.data());
  gather(p.rstd.data, p.rstd.dtype, p.rstd.inner, p.rstd.offset, rstd.data());
  if (p.has_w) {
    w.resize(static_cast<size_t>(n));
    gather(p.w.data, p.w.dtype, p.w.inner, p.w.offset, w.data());
  }
  // Fast path: contiguous rows of input and gradOut of one dtype are read in place, a contiguous
  // gradInput row is written in place; otherwise rows are gathered to (scattered from) double
  // buffers. The kernel widens and rounds exactly as gather/scatter do.
  const bool in_place = row_is_dense(p.x) && row_is_dense(p.dy) && p.x.dtype == p.dy.dtype;
  const bool out_place = p.gi && row_is_dense(p.out_gi);
  const int in_kind = in_place ? row_kind(p.x.dtype) : 0;
  int out_kind = out_place ? row_kind(p.out_gi.dtype) : 0;
  if (in_kind != 0 && out_kind != 0 && in_kind != out_kind) out_kind = 0;  // not a kernel pair
  const bool gi_direct = p.gi && out_kind != 0;
  const double *wp = p.has_w ? w.data() : nullptr;
  // float_kind: gradInput's dtype kind where rows may be float rows (the default), else 0: always
  // double under ACLNN_CPU_LN_FLOAT=0, read at each call (nearly always the correctly rounded
  // value, which the Ascend precision standard's relative errors near zero ask of FLOAT outputs;
  // see docs/decisions.md).
  const char *float_env = std::getenv("ACLNN_CPU_LN_FLOAT");
  int float_kind = p.gi && !(float_env != nullptr && std::strcmp(float_env, "0") == 0)
                       ? row_kind(p.out_gi.dtype)
                       : 0;
  // The weight as floats for the float rows; exact for every weight dtype LN-DTYPE-1 allows
  // (checked: a weight that is not keeps every row in double).
  // wmax: the largest |weight| for LnF16RowInRange. A NaN weight is left out: it makes every
  // row's S1 NaN, so no row is a float row.
  std::vector<float> wf;
  float wmax = 1.0f;
  if (float_kind != 0 && p.has_w) {
    wf.resize(static_cast<size_t>(n));
    wmax = 0.0f;
    for (size_t j = 0; j < wf.size(); ++j) {
      wf[j] = static_cast<float>(w[j]);
      if (static_cast<double>(wf[j]) != w[j] && !std::isnan(w[j])) float_kind = 0;
      wmax = std::max(wmax, std::fabs(wf[j]));
    }
  }
  const float *wfp = wf.empty() ? nullptr : wf.data();

  // Rows read and gradInput written in place, one dtype: the pipelined kernel.
  const bool pipelined = in_place && gi_direct && in_kind == out_kind;
  // gradInput rows beyond simd::streaming_threshold_bytes() are streamed (no read-for-ownership of
  // their lines).
  const bool stream_gi =
      pipelined &&
      simd::stream_output(
          m * n * static_cast<int64_t>(2 * dtype_size(p.x.dtype) + dtype_size(p.out_gi.dtype)));
  // Rows [r0, r1): gather, kernel, scatter; pw/pb may be null.
  const auto do_rows = [&](int64_t r0, int64_t r1, double *pw, double *pb) {
    // Row buffers only where a row is gathered or scattered (uninitialized: always written first).
    const int64_t bufs = (in_place ? 0 : 2) + (p.gi && !gi_direct ? 1 : 0);
    std::unique_ptr<double[]> buf(bufs ? new double[static_cast<size_t>(bufs * padded(n))]
                                       : nullptr);
    double *xb = buf.get(), *db = in_place ? nullptr : xb + padded(n);
    double *gb = in_place ? xb : db + padded(n);
    RowCursor cx, cd, cg;
    cx.seek(p.x.outer, p.x.offset, r0);
    cd.seek(p.dy.outer, p.dy.offset, r0);
    if (p.gi) cg.seek(p.out_gi.outer, p.out_gi.offset, r0);
    const size_t es_in = dtype_size(p.x.dtype), es_out = p.gi ? dtype_size(p.out_gi.dtype) : 0;
    if (pipelined) {  // every row in place: one pipelined call for the whole run of rows
      const auto count = static_cast<size_t>(r1 - r0);
      std::vector<const void *> xs(count), ds(count);
      std::vector<void *> gs(count);
      for (size_t k = 0; k < count; ++k) {
        xs[k] = p.x.data + cx.off * static_cast<int64_t>(es_in);
        ds[k] = p.dy.data + cd.off * static_cast<int64_t>(es_in);
        gs[k] = p.out_gi.data + cg.off * static_cast<int64_t>(es_out);
        cx.next();
        cd.next();
        cg.next();
      }
      HWY_DYNAMIC_DISPATCH(LnRowsPipelined)
      (in_kind, r1 - r0, n, xs.data(), ds.data(), gs.data(), mean.data() + r0, rstd.data() + r0, wp,
       wfp, wmax, pw, pb, float_kind, stream_gi);
      return;
    }
    for (int64_t r = r0; r < r1; ++r) {
      const void *xr = xb, *dr = db;
      if (in_place) {
        xr = p.x.data + cx.off * static_cast<int64_t>(es_in);
        dr = p.dy.data + cd.off * static_cast<int64_t>(es_in);
      } else {
        gather(p.x.data, p.x.dtype, p.x.inner, cx.off, xb);
        gather(p.dy.data, p.dy.dtype, p.dy.inner, cd.off, db);
      }
      void *gr = gi_direct
                     ? static_cast<void *>(p.out_gi.data + cg.off * static_cast<int64_t>(es_out))
                     : static_cast<void *>(gb);
      const char *nx = nullptr, *ndy = nullptr;  // the next row, to prefetch
      if (in_place && r + 1 < r1) {
        RowCursor px = cx, pd = cd;
        px.next();
        pd.next();
        nx = p.x.data + px.off * static_cast<int64_t>(es_in);
        ndy = p.dy.data + pd.off * static_cast<int64_t>(es_in);
      }
      HWY_DYNAMIC_DISPATCH(LnRow)
      (in_kind, out_kind, p.gi, n, xr, dr, wp, wfp, mean[r], rstd[r], float_kind, gr, pw, pb, nx,
       ndy);
      if (p.gi) {
        if (!gi_direct) scatter(p.out_gi.data, p.out_gi.dtype, p.out_gi.inner, cg.off, gb);
        cg.next();
      }
      cx.next();
      cd.next();
    }
  };

  if (!(p.gw || p.gb)) {  // gradInput only: rows in parallel, no reduction
    parallel_for(m, std::max<int64_t>(1, kParallelElements / n),
                 [&](int64_t r0, int64_t r1) { do_rows(r0, r1, nullptr, nullptr); });
    return;
  }

  auto base = reinterpret_cast<uintptr_t>(workspace);
  base = (base + kAlign - 1) / kAlign * kAlign;
  double *ws = reinterpret_cast<double *>(base);
  const int64_t stride = padded(n);
  const auto part = [&](int64_t block, int64_t k) { return ws + (block * p.parts + k) * stride; };
  // Which partial slot each requested sum uses.
  const int64_t kw = 0, kb = p.gw ? 1 : 0;

  // Blocks are fixed by the shape; below kParallelElements they all run on the calling thread.
  parallel_for(p.blocks, m * n < kParallelElements ? p.blocks : 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double *pw = p.gw ? part(b, kw) : nullptr;
      double *pb = p.gb ? part(b, kb) : nullptr;
      if (pw) std::fill(pw, pw + n, 0.0);
      if (pb) std::fill(pb, pb + n, 0.0);
      do_rows(b * p.block_rows, std::min(m, (b + 1) * p.block_rows), pw, pb);
    }
  });
  // Column totals: partials added in block order into block 0's slots, columns in parallel.
  parallel_for(n, std::max<int64_t>(2048, kParallelElements / p.blocks),
               [&](int64_t j0, int64_t j1) {
                 for (int64_t k = 0; k < p.parts; ++k) {
                   double *acc = part(0, k);
                   for (int64_t b = 1; b < p.blocks; ++b) {
                     const double *src = part(b, k);
                     for (int64_t j = j0; j < j1; ++j) acc[j] += src[j];
                   }
                 }
               });
  if (p.gw) scatter(p.out_gw.data, p.out_gw.dtype, p.out_gw.inner, p.out_gw.offset, part(0, kw));
  if (p.gb) scatter(p.out_gb.data, p.out_gb.dtype, p.out_gb.inner, p.out_gb.offset, part(0, kb));
}

// ---- checks --------------------------------------------------------------------------------

bool is_ln_float(aclDataType t, Soc soc) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || (t == ACL_BF16 && soc_has_bf16(soc));
}

aclnnStatus check_float_dtype(const char *name, const aclTensor *t, Soc soc) {
  if (t == nullptr || is_ln_float(t->dtype, soc)) return ACLNN_SUCCESS;
  if (t->dtype == ACL_BF16)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "{} dtype BFLOAT16 is not supported on {}; BFLOAT16 needs Atlas A2/A3 "
                "(LN-DTYPE-1)",
                name, soc_name(soc));
  return fail(ACLNN_ERR_PARAM_INVALID, kOp,
              "{} dtype {} is not supported; it must be FLOAT, FLOAT16 or BFLOAT16 (LN-DTYPE-1)",
              name, dtype_name(t->dtype));
}

}  // namespace

void simd::f64_to_f16_via_odd(const double *src, uint16_t *dst, size_t n) {
  HWY_DYNAMIC_DISPATCH(LnF64ToF16)(src, dst, n);
}
}  // namespace aclnn_cpu

using namespace aclnn_cpu;

static aclnnStatus get_workspace_size(const aclTensor *gradOut, const aclTensor *input,
                                      const aclIntArray *normalizedShape, const aclTensor *mean,
                                      const aclTensor *rstd, const aclTensor *weightOptional,
                                      const aclTensor *biasOptional, const aclBoolArray *outputMask,
                                      aclTensor *gradInputOut, aclTensor *gradWeightOut,
                                      aclTensor *gradBiasOut, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
  ACLNN_CHECK(check_phase_one_outputs(kOp, workspaceSize, executor));  // ABI-TWOPHASE-2
  Soc soc;
  ACLNN_CHECK(check_soc(kOp, soc));

  // LN-NULL-1
  const std::pair<const char *, const void *> required[] = {
      {"gradOut", gradOut}, {"input", input}, {"normalizedShape", normalizedShape},
      {"mean", mean},       {"rstd", rstd},   {"outputMask", outputMask}};
  for (auto [name, ptr] : required)
    if (ptr == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, kOp, "{} is NULL; it is required (LN-NULL-1)", name);

  // LN-MASK-1
  if (outputMask->values.size() != 3)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "outputMask has length {}; it must be 3 (LN-MASK-1)",
                outputMask->values.size());
  const bool want_gi = outputMask->values[0], want_gw = outputMask->values[1],
             want_gb = outputMask->values[2];

  // LN-NULL-2
  const struct {
    const char *name;
    const aclTensor *t;
    bool wanted;
    int bit;
  } outs[] = {{"gradInputOut", gradInputOut, want_gi, 0},
              {"gradWeightOut", gradWeightOut, want_gw, 1},
              {"gradBiasOut", gradBiasOut, want_gb, 2}};
  for (const auto &o : outs)
    if (o.wanted && o.t == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, kOp, "{} is NULL but outputMask[{}] is true (LN-NULL-2)",
                  o.name, o.bit);

  // LN-DTYPE-1: each input's dtype in signature order, then the relations between them.
  const std::pair<const char *, const aclTensor *> float_inputs[] = {
      {"gradOut", gradOut},
      {"input", input},
      {"mean", mean},
      {"rstd", rstd},
      {"weightOptional", weightOptional},
      {"biasOptional", biasOptional}};
  for (auto [name, t] : float_inputs) ACLNN_CHECK(check_float_dtype(name, t, soc));
  if (gradOut->dtype != input->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradOut dtype {} != input dtype {}; they must be equal (LN-DTYPE-1)",
                dtype_name(gradOut->dtype), dtype_name(input->dtype));
  if (mean->dtype != rstd->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "mean dtype {} != rstd dtype {}; they must be equal (LN-DTYPE-1)",
                dtype_name(mean->dtype), dtype_name(rstd->dtype));
  if (weightOptional && weightOptional->dtype != input->dtype && weightOptional->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "weightOptional dtype {} is neither input's dtype {} nor FLOAT (LN-DTYPE-1)",
                dtype_name(weightOptional->dtype), dtype_name(input->dtype));
  if (weightOptional && biasOptional && biasOptional->dtype != weightOptional->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "biasOptional dtype {} != weightOptional dtype {}; they must be equal "
                "(LN-DTYPE-1)",
                dtype_name(biasOptional->dtype), dtype_name(weightOptional->dtype));

  // LN-DTYPE-2 (requested outputs; an output whose mask bit is false is not looked at).
  if (want_gi && gradInputOut->dtype != input->dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInputOut dtype {} != input dtype {}; they must be equal (LN-DTYPE-2)",
                dtype_name(gradInputOut->dtype), dtype_name(input->dtype));
  if (want_gw && gradWeightOut->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradWeightOut dtype {} is not FLOAT (LN-DTYPE-2)",
                dtype_name(gradWeightOut->dtype));
  if (want_gb && gradBiasOut->dtype != ACL_FLOAT)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradBiasOut dtype {} is not FLOAT (LN-DTYPE-2)",
                dtype_name(gradBiasOut->dtype));

  // LN-SHAPE-1
  const std::vector<int64_t> &ns = normalizedShape->values;
  const int in_rank = rank(*input);
  const int ns_len = static_cast<int>(ns.size());
  if (ns_len < 1)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "normalizedShape is empty; its length must be at least 1 (LN-SHAPE-1)");
  if (in_rank > kMaxRank)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "input has rank {} (shape {}); at most 8 (LN-SHAPE-1)", in_rank,
                shape_str(input->view_dims));
  if (ns_len > in_rank)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "normalizedShape {} has length {} > input rank {} (input shape {}) (LN-SHAPE-1)",
                shape_str(ns), ns_len, in_rank, shape_str(input->view_dims));
  const int lead = in_rank - ns_len;
  if (!std::equal(ns.begin(), ns.end(), input->view_dims.begin() + lead))
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "input shape {} does not end with normalizedShape {} (LN-SHAPE-1)",
                shape_str(input->view_dims), shape_str(ns));
  int64_t m = 1, n = 1;
  for (int i = 0; i < lead; ++i) m *= input->view_dims[i];
  for (int64_t v : ns) n *= v;

  // LN-SHAPE-2
  if (gradOut->view_dims != input->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "gradOut shape {} != input shape {} (LN-SHAPE-2)",
                shape_str(gradOut->view_dims), shape_str(input->view_dims));
  if (weightOptional && weightOptional->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "weightOptional shape {} != normalizedShape {} (LN-SHAPE-2)",
                shape_str(weightOptional->view_dims), shape_str(ns));
  if (biasOptional && biasOptional->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "biasOptional shape {} != normalizedShape {} (LN-SHAPE-2)",
                shape_str(biasOptional->view_dims), shape_str(ns));

  // LN-SHAPE-3
  if (mean->view_dims != rstd->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp, "mean shape {} != rstd shape {} (LN-SHAPE-3)",
                shape_str(mean->view_dims), shape_str(rstd->view_dims));
  if (numel(*mean) != m)
    return fail(
        ACLNN_ERR_PARAM_INVALID, kOp,
        "mean numel {} != M = {} (the product of input's leading dims {}) (LN-SHAPE-3)",
        numel(*mean), m,
        shape_str(std::vector<int64_t>(input->view_dims.begin(), input->view_dims.begin() + lead)));

  // LN-SHAPE-4
  if (want_gi && gradInputOut->view_dims != input->view_dims)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradInputOut shape {} != input shape {} (LN-SHAPE-4)",
                shape_str(gradInputOut->view_dims), shape_str(input->view_dims));
  if (want_gw && gradWeightOut->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradWeightOut shape {} != normalizedShape {} (LN-SHAPE-4)",
                shape_str(gradWeightOut->view_dims), shape_str(ns));
  if (want_gb && gradBiasOut->view_dims != ns)
    return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                "gradBiasOut shape {} != normalizedShape {} (LN-SHAPE-4)",
                shape_str(gradBiasOut->view_dims), shape_str(ns));

  // LN-RANK-1: every tensor present, in signature order.
  const std::pair<const char *, const aclTensor *> all[] = {{"gradOut", gradOut},
                                                            {"input", input},
                                                            {"mean", mean},
                                                            {"rstd", rstd},
                                                            {"weightOptional", weightOptional},
                                                            {"biasOptional", biasOptional},
                                                            {"gradInputOut", gradInputOut},
                                                            {"gradWeightOut", gradWeightOut},
                                                            {"gradBiasOut", gradBiasOut}};
  for (auto [name, t] : all) {
    if (t == nullptr) continue;
    if (rank(*t) < 1 || rank(*t) > kMaxRank)
      return fail(ACLNN_ERR_PARAM_INVALID, kOp,
                  "{} has rank {} (shape {}); it must be 1 to 8 (LN-RANK-1)", name, rank(*t),
                  shape_str(t->view_dims));
  }

  // Project checks: storage present for non-empty views; outputs do not overlap anything.
  for (auto [name, t] : all)
    if (t != nullptr) ACLNN_CHECK(check_data(kOp, name, *t));
  const aclTensor *req_gi = want_gi ? gradInputOut : nullptr;
  const aclTensor *req_gw = want_gw ? gradWeightOut : nullptr;
  const aclTensor *req_gb = want_gb ? gradBiasOut : nullptr;
  if (req_gi)
    ACLNN_CHECK(check_output(kOp, "gradInputOut", *req_gi,
                             {{"gradOut", gradOut},
                              {"input", input},
                              {"mean", mean},
                              {"rstd", rstd},
                              {"weightOptional", weightOptional},
                              {"biasOptional", biasOptional},
                              {"gradWeightOut", req_gw},
                              {"gradBiasOut", req_gb}},
                             false));
  if (req_gw)
    ACLNN_CHECK(check_output(kOp, "gradWeightOut", *req_gw,
                             {{"gradOut", gradOut},
                              {"input", input},
                              {"mean", mean},
                              {"rstd", rstd},
                              {"weightOptional", weightOptional},
                              {"biasOptional", biasOptional},
                              {"gradInputOut", req_gi},
                              {"gradBiasOut", req_gb}},
                             false));
  if (req_gb)
    ACLNN_CHECK(check_output(kOp, "gradBiasOut", *req_gb,
                             {{"gradOut", gradOut},
                              {"input", input},
                              {"mean", mean},
                              {"rstd", rstd},
                              {"weightOptional", weightOptional},
                              {"biasOptional", biasOptional},
                              {"gradInputOut", req_gi},
                              {"gradWeightOut", req_gw}},
                             false));

  // Plan. bias is validated above and takes no part in the values (LN-BIAS-1).
  Plan p;
  p.m = m;
  p.n = n;
  p.has_w = weightOptional != nullptr;
  p.gi = want_gi;
  p.gw = want_gw;
  p.gb = want_gb;
  if (m > 0 && n > 0) {
    p.x = make_row_view(*input, lead);
    p.dy = make_row_view(*gradOut, lead);
    if (p.gi) p.out_gi = make_row_view(*gradInputOut, lead);
    p.mean = make_row_view(*mean, 0);
    p.rstd = make_row_view(*rstd, 0);
    if (p.has_w) p.w = make_row_view(*weightOptional, 0);
  }
  if (p.gw) p.out_gw = make_row_view(*gradWeightOut, 0);
  if (p.gb) p.out_gb = make_row_view(*gradBiasOut, 0);
  p.parts = (p.gw ? 1 : 0) + (p.gb ? 1 : 0);
  p.block_rows = rows_per_block(m);
  p.blocks = m > 0 ? (m + p.block_rows - 1) / p.block_rows : 0;
  const uint64_t ws = workspace_bytes(p);
  return publish_executor(
      kOp, ws, [p](void *workspace) { run_plan(p, workspace); }, workspaceSize, executor);
}

extern "C" aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclIntArray *normalizedShape,
    const aclTensor *mean, const aclTensor *rstd, const aclTensor *weightOptional,
    const aclTensor *biasOptional, const aclBoolArray *outputMask, aclTensor *gradInputOut,
    aclTensor *gradWeightOut, aclTensor *gradBiasOut, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  return guard_abi(kOp, [&] {
    return get_workspace_size(gradOut, input, normalizedShape, mean, rstd, weightOptional,
                              biasOptional, outputMask, gradInputOut, gradWeightOut, gradBiasOut,
                              workspaceSize, executor);
  });
}

extern "C" aclnnStatus aclnnLayerNormBackward(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream) {
  (void)stream;
  return run_executor(kOp, workspace, workspaceSize, executor);
}
#endif  // HWY_ONCE
