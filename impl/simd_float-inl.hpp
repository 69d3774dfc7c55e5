// Per-target float evaluation of elementwise runs (part of the SIMD layer, impl/simd-inl.hpp, which
// includes it): loads of float, binary16 and bfloat16 runs as float vectors, stores rounded once
// to the output kind, the loops that evaluate a binary op in float vectors (BinaryF32To), and
// rows of a float table read by lane (LoadRowBlocks4, TransposeRows4).
#if defined(ACLNN_IMPL_SIMD_FLOAT_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_SIMD_FLOAT_INL_HPP_
#undef ACLNN_IMPL_SIMD_FLOAT_INL_HPP_
#else
#define ACLNN_IMPL_SIMD_FLOAT_INL_HPP_
#endif

#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- table rows read by lane: a table of rows of four floats, one row per lane ----------------

// The table rows rows[4 idx .. 4 idx + 3] of each lane, as loaded: y_k's 128-bit block b holds
// row idx[4 b + k] (TransposeRows4 makes them columns). One 128-bit load per lane: the kernel that
// reads a table this way took 2.2-2.4x as long with gathers on Zen 5
// (docs/kernels.md, "table read by 128-bit row loads"); the values are the same, so the choice
// cannot change a result. (HWY_SCALAR: the columns, by gathers.)
template <class DF>
HWY_INLINE void LoadRowBlocks4(DF df, const float *rows, hn::Vec<hn::RebindToSigned<DF>> idx,
                               hn::Vec<DF> &y0, hn::Vec<DF> &y1, hn::Vec<DF> &y2, hn::Vec<DF> &y3) {
#if HWY_TARGET == HWY_SCALAR
  const auto i4 = hn::ShiftLeft<2>(idx);
  y0 = hn::GatherIndex(df, rows, i4);
  y1 = hn::GatherIndex(df, rows + 1, i4);
  y2 = hn::GatherIndex(df, rows + 2, i4);
  y3 = hn::GatherIndex(df, rows + 3, i4);
#else
  constexpr size_t kN = hn::MaxLanes(df);
  // Each row's byte offset (16 idx, idx >= 0) computed in the vector and read back unsigned, so
  // that it is the load's index register as it stands: a signed element index cost a shift and a
  // sign extension per lane in the loop.
  const hn::RebindToUnsigned<DF> du;
  HWY_ALIGN uint32_t off[kN];
  hn::Store(hn::ShiftLeft<4>(hn::BitCast(du, idx)), du, off);
  const auto *bytes = reinterpret_cast<const unsigned char *>(rows);
  const hn::Full128<float> d4;
  const auto y = [&](size_t k) {
    const auto row = [&](size_t b) {
      return hn::LoadU(d4, reinterpret_cast<const float *>(bytes + off[4 * b + k]));
    };
    if constexpr (kN == 4) {
      return row(0);
    } else if constexpr (kN == 8) {
      return hn::Combine(df, row(1), row(0));
    } else {
      static_assert(kN == 16, "vectors of 4, 8 or 16 floats");
      const hn::Half<DF> dh;
      return hn::Combine(df, hn::Combine(dh, row(3), row(2)), hn::Combine(dh, row(1), row(0)));
    }
  };
  y0 = y(0);
  y1 = y(1);
  y2 = y(2);
  y3 = y(3);
#endif
}

// LoadRowBlocks4's vectors as columns c0..c3 (c_m's lane i holds row idx[i]'s m-th float): a 4x4
// transpose within each 128-bit block.
template <class DF>
HWY_INLINE void TransposeRows4(DF df, hn::Vec<DF> y0, hn::Vec<DF> y1, hn::Vec<DF> y2,
                               hn::Vec<DF> y3, hn::Vec<DF> &c0, hn::Vec<DF> &c1, hn::Vec<DF> &c2,
                               hn::Vec<DF> &c3) {
#if HWY_TARGET == HWY_SCALAR
  (void)df;
  c0 = y0;
  c1 = y1;
  c2 = y2;
  c3 = y3;
#else
  const hn::Repartition<double, DF> dd;
  const auto t0 = hn::BitCast(dd, hn::InterleaveLower(df, y0, y1));  // r0c0 r1c0 r0c1 r1c1
  const auto t1 = hn::BitCast(dd, hn::InterleaveUpper(df, y0, y1));  // r0c2 r1c2 r0c3 r1c3
  const auto t2 = hn::BitCast(dd, hn::InterleaveLower(df, y2, y3));
  const auto t3 = hn::BitCast(dd, hn::InterleaveUpper(df, y2, y3));
  c0 = hn::BitCast(df, hn::InterleaveLower(dd, t0, t2));
  c1 = hn::BitCast(df, hn::InterleaveUpper(dd, t0, t2));
  c2 = hn::BitCast(df, hn::InterleaveLower(dd, t1, t3));
  c3 = hn::BitCast(df, hn::InterleaveUpper(dd, t1, t3));
#endif
}

// ---- float evaluation (16-bit outputs, where float has ample precision, and FLOAT kernels that
// prove their bound in float) ---------------------------------------------------------------------

// One vector of floats from element i of a run of the input kind (1: float, 2: binary16,
// 3: bfloat16); exact.
template <int kIn, class DF>
HWY_INLINE hn::Vec<DF> LoadAsF32(DF df, const void *p, size_t i) {
  if constexpr (kIn == 1) {
    return hn::LoadU(df, static_cast<const float *>(p) + i);
  } else {
    const hn::Rebind<uint16_t, DF> d16;
    const auto h = hn::LoadU(d16, static_cast<const uint16_t *>(p) + i);
    if constexpr (kIn == 2)
      return F32FromF16(df, h);
    else
      return F32FromBF16(df, h);
  }
}

// Stores one vector of floats at out + i as the output kind (0: double, exact; 1: float; 2: fp16,
// 3: bf16, rounded once; bf16 treats NaN lanes only in a vector with one); stream: StoreOrStream.
// kBf16Bits: each lane's upper 16 bits are its bfloat16 result already (a kernel that knows no
// lane is a tie or NaN rounds by one addition), stored as they are.
template <int kOut, bool kBf16Bits = false, class DF>
HWY_INLINE void StoreFromF32(DF df, hn::Vec<DF> v, void *out, size_t i, bool stream = false) {
  if constexpr (kOut == 0) {
    double *o = static_cast<double *>(out) + i;
#if HWY_TARGET == HWY_SCALAR
    const hn::Rebind<double, DF> dd;
    hn::StoreU(hn::PromoteTo(dd, v), dd, o);
#else
    const hn::Repartition<double, DF> dd;
    const hn::Half<DF> dh;
    StoreOrStream(hn::PromoteTo(dd, hn::LowerHalf(dh, v)), dd, o, stream);
    StoreOrStream(hn::PromoteTo(dd, hn::UpperHalf(dh, v)), dd, o + hn::Lanes(dd), stream);
#endif
  } else if constexpr (kOut == 1) {
    StoreOrStream(v, df, static_cast<float *>(out) + i, stream);
  } else if constexpr (kOut == 2) {
    StoreOrStream(F16FromF32(df, v), hn::Rebind<uint16_t, DF>(), static_cast<uint16_t *>(out) + i,
                  stream);
  } else {
    const hn::Rebind<uint16_t, DF> d16;
    const hn::RebindToUnsigned<DF> du;
    const auto bits = kBf16Bits ? hn::TruncateTo(d16, hn::ShiftRight<16>(hn::BitCast(du, v)))
                      : hn::AllFalse(df, hn::IsNaN(v)) ? BF16FromF32NotNaN(df, v)
                                                       : BF16FromF32(df, v);
    StoreOrStream(bits, d16, static_cast<uint16_t *>(out) + i, stream);
  }
}

#if ACLNN_SIMD_BF16_INSN
// BinaryF32's full vectors for bfloat16 outputs through BF16FromF32Insn; returns the elements done.
template <int kIn, class F>
HWY_NOINLINE size_t BinaryF32ToBF16Insn(const void *a, const void *b, void *out, size_t n,
                                        bool stream, F &f) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  const size_t lanes = hn::Lanes(df);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = CallWithKind<3>(f, df, LoadAsF32<kIn>(df, a, i), LoadAsF32<kIn>(df, b, i));
    StoreOrStream(BF16FromF32Insn(df, v), d16, static_cast<uint16_t *>(out) + i, stream);
  }
  return i;
}
#endif

#if HWY_TARGET != HWY_SCALAR
// A float's bfloat16 rounding (to nearest even; NaN: sign, quiet bit and top payload, as
// BF16FromF32) in the upper half of its 32-bit lane, the lower half unspecified; kBf16Bits: v's
// upper half is the result already.
template <bool kBf16Bits, class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> BF16InUpperHalf(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const auto u = hn::BitCast(du, v);
  if constexpr (kBf16Bits) return u;
  const auto rounded = BF16RoundedUpper(du, u);
  const auto nan = hn::IsNaN(v);
  if (hn::AllFalse(df, nan)) return rounded;
  return hn::IfThenElse(hn::RebindMask(du, nan), hn::Or(u, hn::Set(du, 0x00400000u)), rounded);
}

// BinaryF32's full vectors for bfloat16 inputs and output, two float vectors at a time; returns
// the elements done. A 32-bit lane of a load holds two elements, the even one in its lower half:
// a shift gives the even elements as floats and a mask the odd ones, one operation each where
// widening takes two, and one shift and one 16-bit blend put the results back where narrowing
// takes three (AVX2: shift, shuffle, permute). f is elementwise, so the lane order is its own
// business: the bits are those of the one-vector loop. Where BinaryF32ToBF16Insn ran, it has done
// the full vectors and this is not called.
template <bool kBf16Bits, class F>
HWY_INLINE size_t BinaryBF16Pairs(const void *a, const void *b, void *out, size_t n, bool stream,
                                  F &f) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Repartition<uint16_t, decltype(df)> d16;
  const auto upper = hn::Set(du, 0xffff0000u);
  const size_t step = hn::Lanes(d16);
  size_t i = 0;
  for (; i + step <= n; i += step) {
    const auto ua = hn::BitCast(du, hn::LoadU(d16, static_cast<const uint16_t *>(a) + i));
    const auto ub = hn::BitCast(du, hn::LoadU(d16, static_cast<const uint16_t *>(b) + i));
    const auto even = CallWithKind<3>(f, df, hn::BitCast(df, hn::ShiftLeft<16>(ua)),
                                      hn::BitCast(df, hn::ShiftLeft<16>(ub)));
    const auto odd = CallWithKind<3>(f, df, hn::BitCast(df, hn::And(ua, upper)),
                                     hn::BitCast(df, hn::And(ub, upper)));
    const auto bits =
        hn::OddEven(hn::BitCast(d16, BF16InUpperHalf<kBf16Bits>(df, odd)),
                    hn::BitCast(d16, hn::ShiftRight<16>(BF16InUpperHalf<kBf16Bits>(df, even))));
    StoreOrStream(bits, d16, static_cast<uint16_t *>(out) + i, stream);
  }
  return i;
}
#endif

// BinaryTo's float twin: out[i] = f(df, a[i], b[i]) evaluated in float vectors, stored as kOut.
template <int kIn, int kOut, bool kBf16Bits = false, class F>
HWY_INLINE void BinaryF32(const void *a, const void *b, void *out, size_t n, bool stream, F &&f) {
  const hn::ScalableTag<float> df;
  constexpr size_t kInSize = kIn == 1 ? 4 : 2;
  constexpr size_t kOutSize = kOut == 0 ? 8 : kOut == 1 ? 4 : 2;
  const size_t lanes = hn::Lanes(df);
  const bool s = CanStream(stream, out);
  size_t i = 0;
#if ACLNN_SIMD_BF16_INSN
  if constexpr (kOut == 3 && !kBf16Bits) {
    if (simd::use_bf16_insn()) i = BinaryF32ToBF16Insn<kIn>(a, b, out, n, s, f);
  }
#endif
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kIn == 3 && kOut == 3) {
    if (i == 0) i = BinaryBF16Pairs<kBf16Bits>(a, b, out, n, s, f);
  }
#endif
  for (; i + lanes <= n; i += lanes)
    StoreFromF32<kOut, kBf16Bits>(
        df, CallWithKind<kOut>(f, df, LoadAsF32<kIn>(df, a, i), LoadAsF32<kIn>(df, b, i)), out, i,
        s);
  if (i < n) {
    const size_t count = n - i;
    HWY_ALIGN unsigned char ta[16 * 4] = {}, tb[16 * 4] = {}, to[16 * 8];
    std::memcpy(ta, static_cast<const unsigned char *>(a) + i * kInSize, count * kInSize);
    std::memcpy(tb, static_cast<const unsigned char *>(b) + i * kInSize, count * kInSize);
    StoreFromF32<kOut, kBf16Bits>(
        df, CallWithKind<kOut>(f, df, LoadAsF32<kIn>(df, ta, 0), LoadAsF32<kIn>(df, tb, 0)), to, 0);
    std::memcpy(static_cast<unsigned char *>(out) + i * kOutSize, to, count * kOutSize);
  }
}
template <int kIn, bool kBf16Bits, class F>
HWY_INLINE void BinaryF32Out(int out_kind, const void *a, const void *b, void *out, size_t n,
                             bool stream, F &&f) {
  if (out_kind == 3) return BinaryF32<kIn, 3, kBf16Bits>(a, b, out, n, stream, f);
  if (out_kind == 2) return BinaryF32<kIn, 2>(a, b, out, n, stream, f);
  if (out_kind == 1) return BinaryF32<kIn, 1>(a, b, out, n, stream, f);
  return BinaryF32<kIn, 0>(a, b, out, n, stream, f);
}
template <bool kBf16Bits = false, class F>
HWY_INLINE void BinaryF32To(int in_kind, int out_kind, const void *a, const void *b, void *out,
                            size_t n, bool stream, F &&f) {
  switch (in_kind) {
    case 2:
      return BinaryF32Out<2, kBf16Bits>(out_kind, a, b, out, n, stream, f);
    case 3:
      return BinaryF32Out<3, kBf16Bits>(out_kind, a, b, out, n, stream, f);
    default:
      return BinaryF32Out<1, kBf16Bits>(out_kind, a, b, out, n, stream, f);
  }
}

}  // namespace aclnn_cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
