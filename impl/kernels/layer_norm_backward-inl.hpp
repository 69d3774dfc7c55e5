// LayerNormBackward's row kernels (Highway; included by impl/layer_norm_backward.cpp per target).
// Contract (the method and proofs: docs/kernels.md#layernormbackward):
// - dtypes: rows of FLOAT, FLOAT16, BFLOAT16 in place, or gathered double rows (kind 0); gradInput
//   as the rows' dtype or doubles; weight and column partials in double.
// - accuracy: S1 = sum(g), S2 = sum(g xhat) (g = dy w) in double from the exact inputs; gradInput
//   = rstd ((g - c1) - xhat c2) (c1 = S1/N, c2 = S2/N) in double, or in float where the row's
//   condition-aware bound allows (VAL-TOL-1), rounded once; partials dy xhat, dy (LN-VALUE-2/3).
// - special values: the reference's order (rstd last, xhat per element), LN-SPECIAL-1.
// - determinism: eight accumulators per row (residues j mod 8) added in one fixed order whatever
//   the vector width; every multiply-add fused (simd::Fma); every float/double choice per row or
//   lane from its own values: the same bits on every target and thread count (VAL-DET-1).

#include "impl/kernels/layer_norm_backward.hpp"

// ---- per-target part ---------------------------------------------------------------------------
#if defined(ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_INL_HPP_
#undef ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_INL_HPP_
#else
#define ACLNN_IMPL_KERNELS_LAYER_NORM_BACKWARD_INL_HPP_
#endif

#include <hwy/highway.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "impl/dtype.hpp"
#include "impl/kernels/layer_norm_backward_steps-inl.hpp"
#include "impl/simd-inl.hpp"
#include "impl/simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace sh = simd::HWY_NAMESPACE;

// One row: x and dy of kind kIn (in place, or gathered doubles), gradInput (kGI) as kind kOut,
// the column partials added into pw/pb; float_kind: or the dtype a double row is scattered to.
template <int kIn, int kOut, bool kGI>
HWY_INLINE void LnRowT(const LnShared &shared, const LnRowArgs &row) {
  // The arguments as locals (in registers; vector stores may alias any memory).
  const int64_t n = shared.n;
  const void *const x = row.x, *const dy = row.dy;
  const double *const w = shared.w;
  const float *const wf = shared.wf;
  const double mean = row.mean, rstd = row.rstd;
  const int float_kind = shared.float_kind;
  void *const gi = row.gi;
  double *const pw = shared.pw, *const pb = shared.pb;
  const char *const nx = row.next_x, *const ndy = row.next_dy;
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
        const V d = sh::LoadKindV<kIn>(dd, dy, j);
        const V g = w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
        a1 = hn::Add(a1, g);
        a2 = sh::Fma(dd, g, hn::Mul(hn::Sub(sh::LoadKindV<kIn>(dd, x, j), vm), vr), a2);
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
    // The next row's x and dy (in place rows), fetched while this pass reads nothing from memory.
    if (nx != nullptr && (j * kInBytes) % 64 == 0) {
      __builtin_prefetch(nx + j * kInBytes, 0, 3);
      __builtin_prefetch(ndy + j * kInBytes, 0, 3);
    }
    const V d = sh::LoadKindV<kIn>(dd, dy, j);
    const V xh = hn::Mul(hn::Sub(sh::LoadKindV<kIn>(dd, x, j), vm), vr);
    if (kGI && !float_row) {
      const V g = w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
      sh::StoreKindV<kOut>(dd, hn::Mul(vr, sh::Fma(dd, xh, vnc2, hn::Sub(g, vc1))), gi, j);
    }
    if (pw) hn::StoreU(sh::Fma(dd, d, xh, hn::LoadU(dd, pw + j)), dd, pw + j);
    if (pb) hn::StoreU(hn::Add(hn::LoadU(dd, pb + j), d), dd, pb + j);
  }
  if (kGI && !float_row)
    for (int64_t j = n8; j < n; ++j)
      sh::StoreKind<kOut>(gi, j, LnGradInputF64<kIn>(x, dy, w, mean, rstd, c1, c2, j));
  LnPartialsTail<kIn>(n8, n, x, dy, mean, rstd, pw, pb);
  if (float_row)  // gathered or strided rows only: element by element
    for (int64_t j = 0; j < n; ++j)
      LnGradInputF32One<kIn, kOut>(x, dy, wf, gi, f, j, w, mean, rstd, c1, c2);
}

// The rows of args, consecutive rows of one block; kBf16Insn: as LnGradInputF32's; kKeep: a 16-bit
// row's dy and x kept as floats between its passes (LnSumStep16Kept); kGiven (kKeep too): w, wf,
// pw and pb all given, so the loops test none of them (GCC does not unswitch these loops itself).
template <int kIn, int kOut, bool kBf16Insn = false, bool kKeep = false, bool kGiven = false>
HWY_INLINE void LnRowsPipelinedT(const LnShared &shared, const LnRowsArgs &args) {
  // The arguments as locals (see LnRowT).
  const int64_t rows = args.rows, n = shared.n;
  const void *const *const x = args.x;
  const void *const *const dy = args.dy;
  void *const *const gi = args.gi;
  const double *const mean = args.mean, *const rstd = args.rstd;
  const double *const w = shared.w;
  const float *const wf = shared.wf;
  const float wmax = shared.wmax;
  double *const pw = shared.pw, *const pb = shared.pb;
  const int float_kind = shared.float_kind;
  const bool stream = args.stream;
  static_assert(kGiven || !kKeep, "the kept-floats instance is a kGiven one");
  if constexpr (kGiven) {
    if (w == nullptr || wf == nullptr || pw == nullptr || pb == nullptr) __builtin_unreachable();
  }
  using DD = hn::ScalableTag<double>;
  const DD dd;
  using V = hn::Vec<DD>;
  const hn::ScalableTag<float> df;
  constexpr size_t kLanes = hn::MaxLanes(DD()), kLanesF = hn::MaxLanes(decltype(df)());
  static_assert(16 % kLanesF == 0, "whole float vectors per 16 elements");
  constexpr size_t kPer8 = LnSums<DD>::kPer8;
  const int64_t n8 = n / 8 * 8, n16 = n / 16 * 16;
  constexpr int64_t kInBytes = kIn == 1 ? 4 : 2;
  LnSums<DD> acc;
  // Kept floats (j < n16): row r + 1's first pass overwrites j just after row r's second read it.
  static_assert(!kKeep || (kIn != 1 && kLanesF == 2 * kLanes), "16-bit rows on vector targets");
  HWY_ALIGN float kept[kKeep ? 2 * kLnKeptMaxN : 1];
  float *const kd = kept, *const kx = kept + (kKeep ? kLnKeptMaxN : 0);
  // A row's first pass over elements j0 .. j0 + 7: its sums s1[], s2[] and column partials.
  const auto first8 = [&](V *s1, V *s2, const void *xi, const void *di, V vm, V vr, int64_t j0)
                          HWY_ATTR ACLNN_SIMD_LAMBDA {
                            for (size_t k = 0; k < kPer8; ++k)
                              LnSumStep<kIn, kGiven>(dd, s1[k], s2[k], xi, di, w, vm, vr,
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
        LnSumStep16Kept<kIn, kGiven>(dd, df, acc.a1, acc.a2, x[0], dy[0], w, vm, vr, j0, pw, pb, kd,
                                     kx, [] {});
    for (; j0 < n8; j0 += 8) first8(acc.a1, acc.a2, x[0], dy[0], vm, vr, j0);
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
        // Row r + 2's lines requested into L2 while row r + 1 is read: the hardware prefetchers
        // do not cross pages (docs/kernels.md#layernormbackward-measurements).
        const char *x2 = r + 2 < rows ? static_cast<const char *>(x[r + 2]) : nullptr;
        const char *d2 = r + 2 < rows ? static_cast<const char *>(dy[r + 2]) : nullptr;
        // The sums and row pointers as locals no store can alias (in acc, the partials' stores
        // forced them through the stack at every step).
        V a1[kPer8], a2[kPer8];
        for (size_t k = 0; k < kPer8; ++k) a1[k] = acc.a1[k], a2[k] = acc.a2[k];
        const void *const x1 = x[r + 1], *const d1 = dy[r + 1];
        for (int64_t j0 = 0; j0 < n16; j0 += 16) {
          if (x2 != nullptr && (j0 * kInBytes) % 64 == 0) {
            __builtin_prefetch(x2 + j0 * kInBytes, 0, 2);
            __builtin_prefetch(d2 + j0 * kInBytes, 0, 2);
          }
          // Row r + 1's loads at j0 before row r's stores there, which may lie a multiple of 4 KB
          // away (4K aliasing: docs/kernels.md#layernormbackward); 16-bit rows not kept keep the
          // old order (loads first measured slower from memory for FLOAT16 on AVX3).
          if constexpr (kKeep) {
            LnSumStep16Kept<kIn, kGiven>(dd, df, a1, a2, x1, d1, w, vm1, vr1, j0, pw, pb, kd, kx,
                                         [&] { second16(j0); });
          } else {
            constexpr bool kLoadsFirst = kIn == 1;
            if constexpr (!kLoadsFirst) second16(j0);
            first8(a1, a2, x1, d1, vm1, vr1, j0);
            first8(a1, a2, x1, d1, vm1, vr1, j0 + 8);
            if constexpr (kLoadsFirst) second16(j0);
          }
        }
        if (n8 > n16) first8(a1, a2, x1, d1, vm1, vr1, n16);
        for (size_t k = 0; k < kPer8; ++k) acc.a1[k] = a1[k], acc.a2[k] = a2[k];
      } else {
        for (int64_t j0 = 0; j0 < n16; j0 += 16) second16(j0);
      }
      for (int64_t j = n16; j < n; ++j) second1(j);
    };
    const double m = mean[r], rs = rstd[r];
    LnRowF32 f{};
    if (float_kind != 0 && LnFloatRow(float_kind, n, c1, c2, m, rs, f)) {
      const bool st = stream && reinterpret_cast<uintptr_t>(gr) % 64 == 0;
      // 16-bit gradInput streamed by whole lines (sh::LineStream), not by halves with the next
      // row's loads between them, which measured up to 2.7x as slow on an Ice Lake Xeon.
      using T = std::conditional_t<kOut == 1, float, uint16_t>;
      const bool by_line = kOut != 1 && HWY_TARGET != HWY_SCALAR && st;
      sh::LineStream<T> ls;
      auto any_bad = hn::FirstN(df, 0);  // lanes not finite so far
      const auto float_pass = [&](auto checked) HWY_ATTR ACLNN_SIMD_LAMBDA {
        pass(
            [&](int64_t j0) HWY_ATTR ACLNN_SIMD_LAMBDA {
              T *const dst = by_line ? ls.At(j0) : static_cast<T *>(gr) + j0;
              for (size_t k = 0; k < 16 / kLanesF; ++k)
                LnGradInputF32<kIn, kOut, kBf16Insn, kKeep, decltype(checked)::value, kGiven>(
                    df, xr, dr, wf, dst + k * kLanesF, f, j0 + static_cast<int64_t>(k * kLanesF),
                    st && !by_line, kd, kx, any_bad);
              if (by_line) ls.Done(static_cast<T *>(gr), j0, n16);
            },
            [&](int64_t j) {
              LnGradInputF32One<kIn, kOut>(xr, dr, wf, gr, f, j, w, m, rs, c1, c2);
            });
      };
      // binary16 rows: no non-finite test where the row's bound rules it out.
      if constexpr (kIn == 2) {
        if (LnF16RowInRange(f, wmax))
          float_pass(std::false_type());
        else
          float_pass(std::true_type());
      } else {
        float_pass(std::true_type());
      }
      if (HWY_UNLIKELY(!hn::AllFalse(df, any_bad)))
        LnFixNotFinite<kIn, kOut>(df, xr, dr, wf, gr, f, n16, w, m, rs, c1, c2);
    } else {
      const V vm = hn::Set(dd, m), vr = hn::Set(dd, rs);
      const V vc1 = hn::Set(dd, c1), vnc2 = hn::Set(dd, -c2);
      pass(
          [&](int64_t j0) HWY_ATTR ACLNN_SIMD_LAMBDA {
            for (size_t k = 0; k < 16 / kLanes; ++k) {
              const int64_t j = j0 + static_cast<int64_t>(k * kLanes);
              const V d = sh::LoadKindV<kIn>(dd, dr, j);
              const V xh = hn::Mul(hn::Sub(sh::LoadKindV<kIn>(dd, xr, j), vm), vr);
              const V g = w ? hn::Mul(d, hn::LoadU(dd, w + j)) : d;
              sh::StoreKindV<kOut>(dd, hn::Mul(vr, sh::Fma(dd, xh, vnc2, hn::Sub(g, vc1))), gr, j);
            }
          },
          [&](int64_t j) {
            sh::StoreKind<kOut>(gr, j, LnGradInputF64<kIn>(xr, dr, w, m, rs, c1, c2, j));
          });
    }
    if (next) finish(r + 1, c1, c2);
  }
  if (stream) simd::flush_streams();
}

// A row's second pass on its own, as LnRowsPipelinedT gives it (float or double), not streamed:
// LnRowPairsT's pairs with a double row (rare: the rows LnFloatRow refuses).
template <int kIn, int kOut, bool kBf16Insn>
HWY_NOINLINE void LnSecondPass(int float_kind, int64_t n, const void *xr, const void *dr, void *gr,
                               const double *w, const float *wf, double m, double rs, double c1,
                               double c2) {
  const hn::ScalableTag<double> dd;
  const hn::ScalableTag<float> df;
  const int64_t n16 = n / 16 * 16;
  LnRowF32 f{};
  if (float_kind != 0 && LnFloatRow(float_kind, n, c1, c2, m, rs, f)) {
    using T = std::conditional_t<kOut == 1, float, uint16_t>;
    auto bad = hn::FirstN(df, 0);
    for (int64_t j = 0; j < n16; j += static_cast<int64_t>(hn::Lanes(df)))
      LnGradInputF32<kIn, kOut, kBf16Insn, false, true, true>(
          df, xr, dr, wf, static_cast<T *>(gr) + j, f, j, false, nullptr, nullptr, bad);
    for (int64_t j = n16; j < n; ++j)
      LnGradInputF32One<kIn, kOut>(xr, dr, wf, gr, f, j, w, m, rs, c1, c2);
    if (!hn::AllFalse(df, bad))
      LnFixNotFinite<kIn, kOut>(df, xr, dr, wf, gr, f, n16, w, m, rs, c1, c2);
    return;
  }
  const auto vm = hn::Set(dd, m), vr = hn::Set(dd, rs);
  const auto vc1 = hn::Set(dd, c1), vnc2 = hn::Set(dd, -c2);
  for (int64_t j = 0; j < n16; j += static_cast<int64_t>(hn::Lanes(dd))) {
    const auto d = sh::LoadKindV<kIn>(dd, dr, j);
    const auto xh = hn::Mul(hn::Sub(sh::LoadKindV<kIn>(dd, xr, j), vm), vr);
    const auto g = hn::Mul(d, hn::LoadU(dd, w + j));
    sh::StoreKindV<kOut>(dd, hn::Mul(vr, sh::Fma(dd, xh, vnc2, hn::Sub(g, vc1))), gr, j);
  }
  for (int64_t j = n16; j < n; ++j)
    sh::StoreKind<kOut>(gr, j, LnGradInputF64<kIn>(xr, dr, w, m, rs, c1, c2, j));
}

// Pairs of rows in place, pipelined: LnRowsPipelinedT's scheme two rows at a time, rows p and
// p + 1's second passes with rows p + 2 and p + 3's first passes in one loop, whose column
// partials take one load and one store of pw[j] and pb[j] for both rows (LnPairStepV: the same
// bits as one row after the other); docs/kernels.md#layernormbackward-pairs-of-rows. For an even
// count of rows with w, wf, pw and pb given; a pair with a double row takes its second passes apart
// from the next pair's first passes (LnSecondPass). kBf16Insn, kKeep: as LnRowsPipelinedT's.
template <int kIn, int kOut, bool kBf16Insn, bool kKeep>
HWY_INLINE void LnRowPairsT(const LnShared &shared, const LnRowsArgs &args) {
  static_assert(kIn != 2, "FLOAT16 takes no pairs (kPairs in LnRowsPipelinedK)");
  // The arguments as locals (see LnRowT).
  const int64_t rows = args.rows, n = shared.n;
  const void *const *const x = args.x;
  const void *const *const dy = args.dy;
  void *const *const gi = args.gi;
  const double *const mean = args.mean, *const rstd = args.rstd;
  const double *const w = shared.w;
  const float *const wf = shared.wf;
  double *const pw = shared.pw, *const pb = shared.pb;
  const int float_kind = shared.float_kind;
  const bool stream = args.stream;
  if (w == nullptr || wf == nullptr || pw == nullptr || pb == nullptr) __builtin_unreachable();
  using DD = hn::ScalableTag<double>;
  const DD dd;
  using V = hn::Vec<DD>;
  const hn::ScalableTag<float> df;
  constexpr size_t kLanes = hn::MaxLanes(DD()), kLanesF = hn::MaxLanes(decltype(df)());
  constexpr size_t kPer8 = LnSums<DD>::kPer8;
  const int64_t n8 = n / 8 * 8, n16 = n / 16 * 16;
  constexpr int64_t kInBytes = kIn == 1 ? 4 : 2;
  using T = std::conditional_t<kOut == 1, float, uint16_t>;
  // Kept floats of the pair whose second passes are next (row i: kd[i], kx[i]; j < n16).
  HWY_ALIGN float kept[kKeep ? 4 * kLnKeptMaxN : 1];
  constexpr int64_t kK = kKeep ? kLnKeptMaxN : 0;
  float *const kd[2] = {kept, kept + 2 * kK}, *const kx[2] = {kept + kK, kept + 3 * kK};
  double c1[2] = {}, c2[2] = {};
  // Rows q and q + 1's first passes, second16(j0) (the previous pair's second passes) at each
  // j0 < n16 after their loads there (bf16 rows not kept: before, as LnRowsPipelinedT), then
  // their sums finished into c1, c2 and their tails' partials added.
  const auto first_passes = [&](int64_t q, auto second16) HWY_ATTR ACLNN_SIMD_LAMBDA {
    V a1a[kPer8], a2a[kPer8], a1b[kPer8], a2b[kPer8];
    for (size_t k = 0; k < kPer8; ++k) a1a[k] = a2a[k] = a1b[k] = a2b[k] = hn::Zero(dd);
    const V vma = hn::Set(dd, mean[q]), vra = hn::Set(dd, rstd[q]);
    const V vmb = hn::Set(dd, mean[q + 1]), vrb = hn::Set(dd, rstd[q + 1]);
    const void *const xa = x[q], *const da = dy[q], *const xb = x[q + 1], *const db = dy[q + 1];
    // The next pair's lines requested into L2 (as LnRowsPipelinedT's next-but-one row).
    const bool ahead = q + 3 < rows;
    const char *const pf[4] = {ahead ? static_cast<const char *>(x[q + 2]) : nullptr,
                               ahead ? static_cast<const char *>(dy[q + 2]) : nullptr,
                               ahead ? static_cast<const char *>(x[q + 3]) : nullptr,
                               ahead ? static_cast<const char *>(dy[q + 3]) : nullptr};
    const auto step8 = [&](int64_t j0) HWY_ATTR ACLNN_SIMD_LAMBDA {
      for (size_t k = 0; k < kPer8; ++k) {
        const int64_t j = j0 + static_cast<int64_t>(k * kLanes);
        LnPairStepV(dd, a1a[k], a2a[k], a1b[k], a2b[k], sh::LoadKindV<kIn>(dd, da, j),
                    sh::LoadKindV<kIn>(dd, xa, j), sh::LoadKindV<kIn>(dd, db, j),
                    sh::LoadKindV<kIn>(dd, xb, j), w, vma, vra, vmb, vrb, j, pw, pb);
      }
    };
    for (int64_t j0 = 0; j0 < n16; j0 += 16) {
      if (ahead && (j0 * kInBytes) % 64 == 0)
        for (const char *line : pf) __builtin_prefetch(line + j0 * kInBytes, 0, 2);
      if constexpr (kKeep) {
        LnPairStep16Kept<kIn>(dd, df, a1a, a2a, a1b, a2b, xa, da, xb, db, w, vma, vra, vmb, vrb, j0,
                              pw, pb, kd, kx, [&] { second16(j0); });
      } else {
        constexpr bool kLoadsFirst = kIn == 1;
        if constexpr (!kLoadsFirst) second16(j0);
        step8(j0);
        step8(j0 + 8);
        if constexpr (kLoadsFirst) second16(j0);
      }
    }
    if (n8 > n16) step8(n16);
    LnSums<DD> sa, sb;
    for (size_t k = 0; k < kPer8; ++k) sa.a1[k] = a1a[k], sa.a2[k] = a2a[k];
    for (size_t k = 0; k < kPer8; ++k) sb.a1[k] = a1b[k], sb.a2[k] = a2b[k];
    LnFinishSums<kIn>(dd, sa, n, xa, da, w, mean[q], rstd[q], c1[0], c2[0]);
    LnFinishSums<kIn>(dd, sb, n, xb, db, w, mean[q + 1], rstd[q + 1], c1[1], c2[1]);
    LnPartialsTail<kIn>(n8, n, xa, da, mean[q], rstd[q], pw, pb);
    LnPartialsTail<kIn>(n8, n, xb, db, mean[q + 1], rstd[q + 1], pw, pb);
  };
  first_passes(0, [](int64_t) {});
  for (int64_t p = 0; p < rows; p += 2) {
    const bool next = p + 2 < rows;
    const double pc1[2] = {c1[0], c1[1]}, pc2[2] = {c2[0], c2[1]};  // the next pair's replace them
    LnRowF32 f[2];
    bool fr[2];
    for (int i = 0; i < 2; ++i)
      fr[i] = float_kind != 0 &&
              LnFloatRow(float_kind, n, pc1[i], pc2[i], mean[p + i], rstd[p + i], f[i]);
    if (!fr[0] || !fr[1]) {
      for (int i = 0; i < 2; ++i)
        LnSecondPass<kIn, kOut, kBf16Insn>(float_kind, n, x[p + i], dy[p + i], gi[p + i], w, wf,
                                           mean[p + i], rstd[p + i], pc1[i], pc2[i]);
      if (next) first_passes(p + 2, [](int64_t) {});
      continue;
    }
    bool st[2], by_line[2];
    for (int i = 0; i < 2; ++i) {
      st[i] = stream && reinterpret_cast<uintptr_t>(gi[p + i]) % 64 == 0;
      by_line[i] = kOut != 1 && HWY_TARGET != HWY_SCALAR && st[i];  // as LnRowsPipelinedT
    }
    sh::LineStream<T> ls[2];
    auto bad0 = hn::FirstN(df, 0), bad1 = bad0;  // lanes not finite so far
    // Every lane tested for non-finite values (FLOAT16, whose rows can skip the test, takes no
    // pairs).
    const auto second16 = [&](int64_t j0) HWY_ATTR ACLNN_SIMD_LAMBDA {
      for (int i = 0; i < 2; ++i) {
        T *const dst = by_line[i] ? ls[i].At(j0) : static_cast<T *>(gi[p + i]) + j0;
        for (size_t k = 0; k < 16 / kLanesF; ++k)
          LnGradInputF32<kIn, kOut, kBf16Insn, kKeep, true, true>(
              df, x[p + i], dy[p + i], wf, dst + k * kLanesF, f[i],
              j0 + static_cast<int64_t>(k * kLanesF), st[i] && !by_line[i], kd[i], kx[i],
              i == 0 ? bad0 : bad1);
        if (by_line[i]) ls[i].Done(static_cast<T *>(gi[p + i]), j0, n16);
      }
    };
    if (next)
      first_passes(p + 2, second16);
    else
      for (int64_t j0 = 0; j0 < n16; j0 += 16) second16(j0);
    for (int i = 0; i < 2; ++i) {
      for (int64_t j = n16; j < n; ++j)
        LnGradInputF32One<kIn, kOut>(x[p + i], dy[p + i], wf, gi[p + i], f[i], j, w, mean[p + i],
                                     rstd[p + i], pc1[i], pc2[i]);
      if (HWY_UNLIKELY(!hn::AllFalse(df, i == 0 ? bad0 : bad1)))
        LnFixNotFinite<kIn, kOut>(df, x[p + i], dy[p + i], wf, gi[p + i], f[i], n16, w, mean[p + i],
                                  rstd[p + i], pc1[i], pc2[i]);
    }
  }
  if (stream) simd::flush_streams();
}

// One function per instantiation (its own register allocation; two inlined into one measured
// slower), with the structs' fields as parameters (passing the structs themselves changed the
// register allocation of every instance's loops); kPairs: LnRowPairsT's (kGiven), else
// LnRowsPipelinedT's.
template <int kIn, int kOut, bool kBf16Insn = false, bool kKeep = false, bool kGiven = false,
          bool kPairs = false>
HWY_NOINLINE void LnRowsPipelinedN(int64_t rows, int64_t n, const void *const *x,
                                   const void *const *dy, void *const *gi, const double *mean,
                                   const double *rstd, const double *w, const float *wf, float wmax,
                                   double *pw, double *pb, int float_kind, bool stream) {
  const LnShared shared{
      .n = n, .w = w, .wf = wf, .wmax = wmax, .float_kind = float_kind, .pw = pw, .pb = pb};
  const LnRowsArgs args{
      .rows = rows, .x = x, .dy = dy, .gi = gi, .mean = mean, .rstd = rstd, .stream = stream};
  if constexpr (kPairs)
    LnRowPairsT<kIn, kOut, kBf16Insn, kKeep>(shared, args);
  else
    LnRowsPipelinedT<kIn, kOut, kBf16Insn, kKeep, kGiven>(shared, args);
}
// The instance for rows of kind kIn: with the weight (both forms) and both partials given, one
// that tests none of them (in pairs of rows where s.pairs and rows may be float rows; an odd last
// row alone), and for rows up to kLnKeptMaxN one that keeps their floats (BFLOAT16; FLOAT16 on
// AVX2 only); docs/kernels.md#layernormbackward-measurements.
template <int kIn, bool kBf16Insn = false>
HWY_INLINE void LnRowsPipelinedK(const LnShared &s, const LnRowsArgs &a) {
  // Pairs where they measured faster: AVX-512, FLOAT and BFLOAT16 (AVX2: slower, its 16 registers
  // do not hold two rows' accumulators; FLOAT16: slower or the same).
  constexpr bool kPairs =
      HWY_TARGET != HWY_SCALAR && kIn != 2 && hn::MaxLanes(hn::ScalableTag<double>()) == 8;
  const auto run = [&](auto keep, auto given, auto pairs, const LnRowsArgs &r) {
    LnRowsPipelinedN<kIn, kIn, kBf16Insn, decltype(keep)::value, decltype(given)::value,
                     kPairs &&decltype(pairs)::value>(r.rows, s.n, r.x, r.dy, r.gi, r.mean, r.rstd,
                                                      s.w, s.wf, s.wmax, s.pw, s.pb, s.float_kind,
                                                      r.stream);
  };
  const bool given = s.w != nullptr && s.wf != nullptr && s.pw != nullptr && s.pb != nullptr;
  const auto run_given = [&](auto keep) {
    if (!(kPairs && s.pairs && s.float_kind != 0 && s.n >= LnFloatMinN(s.float_kind) &&
          a.rows >= 2))
      return run(keep, std::true_type(), std::false_type(), a);
    LnRowsArgs even = a, last = a;
    even.rows = a.rows / 2 * 2;
    run(keep, std::true_type(), std::true_type(), even);
    if (a.rows == even.rows) return;
    last.rows = 1;
    last.x += even.rows;
    last.dy += even.rows;
    last.gi += even.rows;
    last.mean += even.rows;
    last.rstd += even.rows;
    run(keep, std::true_type(), std::false_type(), last);
  };
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kIn == 3 || (kIn == 2 && hn::MaxLanes(hn::ScalableTag<double>()) == 4))
    if (given && s.n / 16 * 16 <= kLnKeptMaxN) return run_given(std::true_type());
#endif
  if (given) return run_given(std::false_type());
  run(std::false_type(), std::false_type(), std::false_type(), a);
}

// kind: the dtype kind of the rows (1 FLOAT, 2 FLOAT16, 3 BFLOAT16), input and gradInput alike.
void LnRowsPipelined(int kind, const LnShared &shared, const LnRowsArgs &args) {
  if (kind == 2) return LnRowsPipelinedK<2>(shared, args);
  if (kind != 3) return LnRowsPipelinedK<1>(shared, args);
#if ACLNN_SIMD_BF16_INSN
  if (simd::use_bf16_insn()) return LnRowsPipelinedK<3, true>(shared, args);
#endif
  LnRowsPipelinedK<3>(shared, args);
}

// in_kind/out_kind: 0 (double buffers) or the row's dtype kind; out_kind is ignored without
// gradInput. Pairs other than (0 or k, 0 or k) do not occur.
void LnRow(int in_kind, int out_kind, bool want_gi, const LnShared &shared, const LnRowArgs &row) {
  const auto call = [&](auto in_c, auto out_c) {
    constexpr int kIn = decltype(in_c)::value, kOut = decltype(out_c)::value;
    if (want_gi)
      LnRowT<kIn, kOut, true>(shared, row);
    else
      LnRowT<kIn, kOut, false>(shared, row);
  };
  using I0 = std::integral_constant<int, 0>;
  // The dtype kind in play, kc, on each side that is not a double buffer.
  const auto pick = [&](auto kc) {
    return in_kind == 0 ? (out_kind == 0 ? call(I0(), I0()) : call(I0(), kc))
                        : (out_kind == 0 ? call(kc, I0()) : call(kc, kc));
  };
  const int kc = in_kind != 0 ? in_kind : out_kind;
  if (kc == 1) return pick(std::integral_constant<int, 1>());
  if (kc == 2) return pick(std::integral_constant<int, 2>());
  if (kc == 3) return pick(std::integral_constant<int, 3>());
  call(I0(), I0());
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
