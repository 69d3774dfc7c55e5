// GroupedBiasAddGrad's row accumulation (Highway; included by impl/grouped_bias_add_grad.cpp
// once per target): acc += rows of gradY, column by column.
//
// Contract:
// - dtypes: rows of FLOAT (kind 1), FLOAT16 (2) or BFLOAT16 (3), widened exactly; sums in double.
// - accuracy: FLOAT rows are added to acc one after the other in double. 16-bit rows are summed
//   eight at a time in float as a fixed tree, each value meeting at most three float roundings
//   before the double accumulation: within VAL-TOL-1's k u sum|terms| (u = 2^-24,
//   k = ceil(log2 n) + 2), with the proof in docs/kernels.md#groupedbiasaddgrad (GBAG-VALUE-3).
// - determinism: the order of every addition is fixed by the row count alone (blocks of eight
//   rows from the first, then single rows); a lane's choice between the float tree and the
//   double sum depends on its own values only, so every target gives the same bits (VAL-DET-1).
#if defined(ACLNN_IMPL_KERNELS_GROUPED_BIAS_ADD_GRAD_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_KERNELS_GROUPED_BIAS_ADD_GRAD_INL_HPP_
#undef ACLNN_IMPL_KERNELS_GROUPED_BIAS_ADD_GRAD_INL_HPP_
#else
#define ACLNN_IMPL_KERNELS_GROUPED_BIAS_ADD_GRAD_INL_HPP_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "impl/kernels/grouped_bias_add_grad.hpp"
#include "impl/simd-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using simd::HWY_NAMESPACE::F32FromBF16;
using simd::HWY_NAMESPACE::F32FromF16;
using simd::HWY_NAMESPACE::LoadAsF64;

constexpr size_t kMaxLanes = 64;  // bytes of the widest vector / 1: room for any lane count

template <int kIn>
HWY_INLINE void AccumulateT(const void *src, double *acc, size_t n) {
  const hn::ScalableTag<double> dd;
  constexpr size_t kInSize = kIn == 1 ? 4 : 2;
  const size_t lanes = hn::Lanes(dd);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i), LoadAsF64<kIn>(dd, src, i)), dd, acc + i);
  if (i < n) {
    const size_t count = n - i;
    HWY_ALIGN unsigned char in[kMaxLanes * 4] = {};
    HWY_ALIGN double a[kMaxLanes] = {};
    std::memcpy(in, static_cast<const unsigned char *>(src) + i * kInSize, count * kInSize);
    std::memcpy(a, acc + i, count * sizeof(double));
    hn::Store(hn::Add(hn::Load(dd, a), LoadAsF64<kIn>(dd, in, 0)), dd, a);
    std::memcpy(acc + i, a, count * sizeof(double));
  }
}

// The line at byte_offset of each of kRows rows at r0 + k * stride, requested with
// __builtin_prefetch's locality kLocality (3: into L1, 2: into L2).
template <size_t kRows, int kLocality>
HWY_INLINE void PrefetchRows(const unsigned char *r0, ptrdiff_t stride, size_t byte_offset) {
  for (size_t k = 0; k < kRows; ++k)
    __builtin_prefetch(r0 + static_cast<ptrdiff_t>(k) * stride + byte_offset, 0, kLocality);
}
// FLOAT rows read side by side: the lines kLineAhead elements ahead of the current column of each
// row, requested into L1 (their lines are in L2 by then, from the previous pass's requests; the
// L1 prefetcher does not keep up with eight streams). Measured:
// docs/kernels.md#groupedbiasaddgrad-measurements.
constexpr size_t kLineAhead = 32;

// acc += rows r0, r1, ... in that order, kRows rows per pass over acc: each column's sum is held
// in a register across the kRows additions (the same additions in the same order as one row at a
// time, so the same bits) and acc is loaded and stored once per kRows rows instead of once per row.
// Rows left over (fewer than kRows) go one at a time. From memory (`prefetch`) the next pass's rows
// are requested into L2 (each row is a page or two and the hardware prefetchers stop at pages; in
// cache the requests cost time) and this pass's rows kLineAhead elements ahead into L1
// (PrefetchRows), except one row in vectors narrower than 512 bits: there the request cost more
// than it saved (AVX2 on Zen 5, 1 thread: 10.6 against 9.41 ms; AVX-512 within 2 %, kept).
// Measured: docs/kernels.md#groupedbiasaddgrad-measurements.
template <int kIn, size_t kRows>
HWY_INLINE void AccumulateRowsT(const unsigned char *src, ptrdiff_t stride, size_t rows,
                                double *acc, size_t n, bool prefetch) {
  const hn::ScalableTag<double> dd;
  const size_t lanes = hn::Lanes(dd);
  constexpr size_t kInSize = kIn == 1 ? 4 : 2;
  size_t r = 0;
  for (; r + kRows <= rows; r += kRows) {
    const unsigned char *r0 = src + static_cast<ptrdiff_t>(r) * stride;
    const unsigned char *next =
        prefetch && r + 2 * kRows <= rows ? r0 + static_cast<ptrdiff_t>(kRows) * stride : nullptr;
    size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      if (next != nullptr && (i * kInSize) % 64 == 0) {
        PrefetchRows<kRows, 2>(next, stride, i * kInSize);
        if (kRows > 1 || hn::MaxLanes(dd) >= 8)
          PrefetchRows<kRows, 3>(r0, stride, (i + kLineAhead) * kInSize);
      }
      auto a = hn::LoadU(dd, acc + i);
      for (size_t k = 0; k < kRows; ++k)
        a = hn::Add(a, LoadAsF64<kIn>(dd, r0 + static_cast<ptrdiff_t>(k) * stride, i));
      hn::StoreU(a, dd, acc + i);
    }
    if (i < n)
      for (size_t k = 0; k < kRows; ++k)
        AccumulateT<kIn>(r0 + static_cast<ptrdiff_t>(k) * stride + i * kInSize, acc + i, n - i);
  }
  for (; r < rows; ++r) AccumulateT<kIn>(src + static_cast<ptrdiff_t>(r) * stride, acc, n);
}

// acc[j] += row[j] (FLOAT) for the vectors at i (advanced) below `end` and within n, with the line
// at `line` + 4 j requested into L2 once per 64 bytes of the row (no request where line is 0) and,
// on vectors of 512 bits, the row kLineAhead elements ahead into L1 (as AccumulateRowsT<1, 1>).
// On AVX2 each step reads one float vector and adds its halves, widened, to two double vectors of
// acc (the same addition per column, so the same bits): one 32-byte load per eight columns instead
// of two 16-byte ones (Zen 5, 1 thread, from memory: 9.9-10.2 -> 8.4-8.7 ms). On AVX-512 the
// 64-byte load took 40 % more time than two 32-byte ones, so there each step is one double vector
// (docs/kernels.md#groupedbiasaddgrad-measurements).
HWY_INLINE void AddRowSpan(const unsigned char *row, ptrdiff_t stride, double *acc, size_t &i,
                           size_t end, size_t n, uintptr_t line) {
  const hn::ScalableTag<double> dd;
  const size_t lanes = hn::Lanes(dd);
#if HWY_TARGET != HWY_AVX2
  const size_t step = lanes;
  const auto add = [&] {
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i), LoadAsF64<1>(dd, row, i)), dd, acc + i);
  };
#else
  const hn::Repartition<float, decltype(dd)> df;
  const hn::Half<decltype(df)> dh;
  const size_t step = 2 * lanes;
  const auto add = [&] {
    const auto v = hn::LoadU(df, reinterpret_cast<const float *>(row) + i);
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i), hn::PromoteTo(dd, hn::LowerHalf(dh, v))), dd,
               acc + i);
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i + lanes), hn::PromoteTo(dd, hn::UpperHalf(dh, v))), dd,
               acc + i + lanes);
  };
#endif
  if (line == 0) {
    for (; i + step <= end && i + step <= n; i += step) add();
    return;
  }
  for (; i + step <= end && i + step <= n; i += step) {
    // The one step per 64-byte line that starts within its first `step` elements' bytes.
    if (((i * 4) & 63) < step * 4) {
      __builtin_prefetch(reinterpret_cast<const void *>(line + i * 4), 0, 2);
      if (hn::MaxLanes(dd) >= 8) PrefetchRows<1, 3>(row, stride, (i + kLineAhead) * 4);
    }
    add();
  }
}

// FLOAT rows from memory as one stream on a call's only thread (gbag::kOneStreamAlone): acc +=
// row after row, with the line kStreamAhead bytes further along the rows' sequence (row r, byte b
// at r * row bytes + b, whatever the stride) requested into L2. On one thread the next row of a
// (65536, 1024) call, 4 KB ahead, was too close for memory's latency at this rate (Zen 5, 1
// thread: AVX2 11.3 -> 9.3 ms, AVX-512 9.9 -> 8.9); with both cores streaming, memory's bandwidth
// limits and the next row measured 3-7 % faster than 8 to 32 KB ahead
// (docs/kernels.md#groupedbiasaddgrad-measurements).
constexpr size_t kStreamAhead = 8192;
HWY_INLINE void AccumulateRowsOneStream(const unsigned char *src, ptrdiff_t stride, size_t rows,
                                        double *acc, size_t n) {
  const size_t row_bytes = n * 4;
  if (row_bytes == 0) return;
  const size_t rows_ahead = kStreamAhead / row_bytes, bytes_ahead = kStreamAhead % row_bytes;
  // Row r's byte b is followed kStreamAhead bytes later by row r + rows_ahead's byte
  // b + bytes_ahead, or from the wrap on by the next row's b + bytes_ahead - row_bytes; addresses
  // as integers (0: past the last row, no request).
  const auto line_base = [&](size_t ar, size_t back) -> uintptr_t {
    return ar < rows ? reinterpret_cast<uintptr_t>(src + static_cast<ptrdiff_t>(ar) * stride) +
                           bytes_ahead - back
                     : 0;
  };
  const size_t wrap = (row_bytes - bytes_ahead) / 4;  // the first element past the wrap
  for (size_t r = 0; r < rows; ++r) {
    const unsigned char *row = src + static_cast<ptrdiff_t>(r) * stride;
    size_t i = 0;
    AddRowSpan(row, stride, acc, i, wrap, n, line_base(r + rows_ahead, 0));
    AddRowSpan(row, stride, acc, i, n, n, line_base(r + rows_ahead + 1, row_bytes));
    if (i < n) AccumulateT<1>(row + i * 4, acc + i, n - i);
  }
}

// acc += the tree sums (below) of rows[0..7] at columns [i, i + Lanes(dd)), dd's half of the
// float vectors v (kUpper: the upper half). A lane whose float tree sum is not finite takes the
// eight values' sequential double sum instead.
template <bool kUpper, class DF, class DD>
HWY_INLINE void AddTreeHalf(DF df, DD dd, const hn::Vec<DF> *v, hn::Vec<DF> t, bool all_finite,
                            double *acc) {
#if HWY_TARGET == HWY_SCALAR
  (void)df;  // one lane: no halves
  const auto promote = [&](hn::Vec<DF> x) ACLNN_SIMD_LAMBDA { return hn::PromoteTo(dd, x); };
#else
  const hn::Half<DF> dh;
  const auto promote = [&](hn::Vec<DF> x) ACLNN_SIMD_LAMBDA {
    return hn::PromoteTo(dd, kUpper ? hn::UpperHalf(dh, x) : hn::LowerHalf(dh, x));
  };
#endif
  auto s = promote(t);
  if (HWY_UNLIKELY(!all_finite)) {
    auto q = promote(v[0]);
    for (size_t k = 1; k < 8; ++k) q = hn::Add(q, promote(v[k]));
    s = hn::IfThenElse(hn::IsFinite(s), s, q);
  }
  hn::StoreU(hn::Add(hn::LoadU(dd, acc), s), dd, acc);
}

// ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)): the fixed tree of 16-bit rows' sums.
template <class V>
HWY_INLINE V TreeSum8(const V *v) {
  return hn::Add(hn::Add(hn::Add(v[0], v[1]), hn::Add(v[2], v[3])),
                 hn::Add(hn::Add(v[4], v[5]), hn::Add(v[6], v[7])));
}

#if HWY_TARGET != HWY_SCALAR
// AccumulateEightRowsTree's step for BFLOAT16 rows in 256-bit vectors, 2 * Lanes(df) columns at
// i: one load per row holds two columns per 32-bit lane, so a shift gives the even columns as
// floats and a mask the odd ones, where widening takes a load with a shuffle and a shift per
// Lanes(df) columns. The even and odd tree sums (the same additions per column) are interleaved
// back within each 128-bit block, whose lower and upper halves are then columns i..i+3, i+4..i+7
// (the first block) and i+8..i+15 (the second); the row values only where a lane's sum is not
// finite.
template <class DF>
HWY_INLINE void AddEightRowsBF16Pairs(DF df, const unsigned char *const *rows, size_t i,
                                      double *a) {
  static_assert(hn::MaxLanes(DF()) == 8, "256-bit vectors: a half is four whole columns");
  const hn::Repartition<double, DF> dd;
  const hn::RebindToUnsigned<DF> du;
  const hn::Repartition<uint16_t, DF> d16;
  using V = hn::Vec<DF>;
  V ve[8], vo[8];
  for (size_t k = 0; k < 8; ++k) {
    const auto u = hn::BitCast(du, hn::LoadU(d16, reinterpret_cast<const uint16_t *>(rows[k]) + i));
    ve[k] = hn::BitCast(df, hn::ShiftLeft<16>(u));
    vo[k] = hn::BitCast(df, hn::And(u, hn::Set(du, 0xffff0000u)));
  }
  const V te = TreeSum8(ve), to = TreeSum8(vo);
  const V lo = hn::InterleaveLower(df, te, to), hi = hn::InterleaveUpper(df, te, to);
  // te + to is not finite wherever a lane of either is not (and, rarely, where it overflows: the
  // fallback then gives each lane what the tree gives, AddTreeHalf choosing lane by lane).
  const bool all_finite = hn::AllFalse(df, simd::HWY_NAMESPACE::NotFinite(df, hn::Add(te, to)));
  V vlo[8], vhi[8];
  if (HWY_UNLIKELY(!all_finite))
    for (size_t k = 0; k < 8; ++k) {
      vlo[k] = hn::InterleaveLower(df, ve[k], vo[k]);
      vhi[k] = hn::InterleaveUpper(df, ve[k], vo[k]);
    }
  AddTreeHalf<false>(df, dd, vlo, lo, all_finite, a);
  AddTreeHalf<false>(df, dd, vhi, hi, all_finite, a + 4);
  AddTreeHalf<true>(df, dd, vlo, lo, all_finite, a + 8);
  AddTreeHalf<true>(df, dd, vhi, hi, all_finite, a + 12);
}
#endif

// 16-bit rows, eight per pass: each column's eight values (exact in float) are summed in float as
// the fixed tree ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), and that sum is added to acc
// in double: within VAL-TOL-1's bound (docs/kernels.md#groupedbiasaddgrad). Where the tree sum is
// not finite (a bfloat16 sum beyond float's range that double would hold, or inf/NaN input) the
// lane takes the sequential double sum of its eight values; the decision is per lane, so the bits
// do not depend on the vector width. Against one row at a time in double: a third of the
// conversions and one load and store of acc per eight rows instead of per row.
template <int kIn>
HWY_INLINE void AccumulateEightRowsTree(const unsigned char *r0, ptrdiff_t stride, double *acc,
                                        size_t n, bool prefetch) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
#if HWY_TARGET == HWY_SCALAR
  const hn::Rebind<double, decltype(df)> dd;
#else
  const hn::Repartition<double, decltype(df)> dd;
#endif
  const size_t lanes = hn::Lanes(df), half = hn::Lanes(dd);
  const auto add = [&](const unsigned char *const *rows, size_t i, double *a) ACLNN_SIMD_LAMBDA {
    hn::Vec<decltype(df)> v[8];
    for (size_t k = 0; k < 8; ++k) {
      const auto h = hn::LoadU(d16, reinterpret_cast<const uint16_t *>(rows[k]) + i);
      v[k] = kIn == 2 ? F32FromF16(df, h) : F32FromBF16(df, h);
    }
    const auto t = TreeSum8(v);
    const bool all_finite = hn::AllTrue(df, hn::IsFinite(t));
    AddTreeHalf<false>(df, dd, v, t, all_finite, a);
    if (lanes > half) AddTreeHalf<true>(df, dd, v, t, all_finite, a + half);
  };
  const unsigned char *rows[8];
  for (size_t k = 0; k < 8; ++k) rows[k] = r0 + static_cast<ptrdiff_t>(k) * stride;
  // The next pass's rows, requested into L2 (as for FLOAT rows); not this pass's rows into L1
  // (docs/kernels.md#groupedbiasaddgrad-measurements).
  const unsigned char *next = prefetch ? r0 + 8 * stride : nullptr;
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kIn == 3 && hn::MaxLanes(decltype(df)()) == 8)
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      if (next != nullptr && (i * 2) % 64 == 0) PrefetchRows<8, 2>(next, stride, i * 2);
      AddEightRowsBF16Pairs(df, rows, i, acc + i);
    }
#endif
  for (; i + lanes <= n; i += lanes) {
    if (next != nullptr && (i * 2) % 64 == 0) PrefetchRows<8, 2>(next, stride, i * 2);
    add(rows, i, acc + i);
  }
  if (i < n) {  // padded copies (zeros in the unused lanes), the same vector code
    const size_t count = n - i;
    HWY_ALIGN uint16_t in[8][kMaxLanes] = {};
    HWY_ALIGN double a[kMaxLanes] = {};
    const unsigned char *padded[8];
    for (size_t k = 0; k < 8; ++k) {
      std::memcpy(in[k], rows[k] + i * 2, count * 2);
      padded[k] = reinterpret_cast<const unsigned char *>(in[k]);
    }
    std::memcpy(a, acc + i, count * sizeof(double));
    add(padded, 0, a);
    std::memcpy(acc + i, a, count * sizeof(double));
  }
}

template <int kIn>
HWY_INLINE void AccumulateRows16(const unsigned char *s, ptrdiff_t stride, size_t rows, double *acc,
                                 size_t n, bool prefetch) {
  size_t r = 0;
  for (; r + 8 <= rows; r += 8)
    AccumulateEightRowsTree<kIn>(s + static_cast<ptrdiff_t>(r) * stride, stride, acc, n,
                                 prefetch && r + 16 <= rows);
  for (; r < rows; ++r) AccumulateT<kIn>(s + static_cast<ptrdiff_t>(r) * stride, acc, n);
}

// acc += `rows` rows at src + r * stride bytes, r = 0, 1, ... in that order, n columns of `kind`
// (1 FLOAT, 2 FLOAT16, 3 BFLOAT16). FLOAT rows: eight per pass over acc, each column's sum held in
// a register, or one after the other (the additions of AccumulateF64 in the same order either
// way: the same bits). 16-bit rows: each block of eight rows (from the first) summed per column
// in float as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) and added to acc in double, or,
// where that float sum is not finite, the eight values' sequential double sum; rows left over
// after the last block are added one at a time (AccumulateF64). `read`: how the rows are read
// (gbag::RowRead); from memory the next pass's rows are requested into L2 (and FLOAT rows' next
// lines into L1). The same bits in every mode.
void AccumulateRowsF64(int kind, const void *src, ptrdiff_t stride, size_t rows, double *acc,
                       size_t n, gbag::RowRead read) {
  const auto *s = static_cast<const unsigned char *>(src);
  const bool prefetch = read != gbag::kInCache;
  // FLOAT: summed in double (FLOAT rows are bound by memory; the choices are measured in
  // docs/kernels.md#groupedbiasaddgrad-measurements): eight rows per pass, or from memory where
  // one stream measured faster, one row after the other with the next row requested into L2, or
  // on a call's only thread kStreamAhead bytes ahead.
  if (kind == 1 && read == gbag::kOneStreamAlone)
    return AccumulateRowsOneStream(s, stride, rows, acc, n);
  if (kind == 1 && read == gbag::kOneStream)
    return AccumulateRowsT<1, 1>(s, stride, rows, acc, n, true);
  if (kind == 1) return AccumulateRowsT<1, 8>(s, stride, rows, acc, n, prefetch);
  if (kind == 2) return AccumulateRows16<2>(s, stride, rows, acc, n, prefetch);
  return AccumulateRows16<3>(s, stride, rows, acc, n, prefetch);
}

// acc[i] += src[i] for i < n, src of `kind` widened exactly to double; one rounded addition per
// element.
void AccumulateF64(int kind, const void *src, double *acc, size_t n) {
  if (kind == 2)
    AccumulateT<2>(src, acc, n);
  else if (kind == 3)
    AccumulateT<3>(src, acc, n);
  else
    AccumulateT<1>(src, acc, n);
}

}  // namespace aclnn_cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
