// Per-target building blocks of the SIMD layer (see impl/simd.hpp): conversions between float,
// double and the 16-bit formats on whole vectors, with integer operations and exact float scalings
// only, so every target gives the same bits (no dependence on F16C, FTZ/DAZ or FMA). Include after
// hwy/highway.h inside a foreach_target.h translation unit; re-included once per target.
#if defined(ACLNN_IMPL_SIMD_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef ACLNN_IMPL_SIMD_INL_HPP_
#undef ACLNN_IMPL_SIMD_INL_HPP_
#else
#define ACLNN_IMPL_SIMD_INL_HPP_
#endif

#include <hwy/highway.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "impl/dtype.hpp"
#include "impl/simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// binary16 bits (one u16 lane per float lane of df) -> float, exact; integer operations only.
template <class DF>
HWY_INLINE hn::Vec<DF> F32FromF16Int(DF df, hn::Vec<hn::Rebind<uint16_t, DF>> h) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto u = hn::PromoteTo(du, h);
  const auto sign = hn::ShiftLeft<16>(hn::And(u, hn::Set(du, 0x8000u)));
  const auto em = hn::And(u, hn::Set(du, 0x7fffu));
  const auto emi = hn::BitCast(di, em);
  // Normal: shift into place and rebias 15 -> 127; inf/NaN: all-ones exponent, payload kept, NaN
  // made quiet (IEEE 754's conversion of a signalling NaN, as F16C does); subnormal: em * 2^-24
  // (an exact integer conversion and power-of-two scaling, normal result).
  const auto normal = hn::Add(hn::ShiftLeft<13>(em), hn::Set(du, 112u << 23));
  const auto quiet = hn::IfThenElseZero(hn::RebindMask(du, hn::Gt(emi, hn::Set(di, 0x7c00))),
                                        hn::Set(du, 0x00400000u));
  const auto infnan = hn::Or(hn::Or(hn::ShiftLeft<13>(em), hn::Set(du, 0x7f800000u)), quiet);
  const auto sub = hn::BitCast(du, hn::Mul(hn::ConvertTo(df, emi), hn::Set(df, 0x1p-24f)));
  auto bits = hn::IfThenElse(hn::RebindMask(du, hn::Gt(emi, hn::Set(di, 0x7bff))), infnan, normal);
  bits = hn::IfThenElse(hn::RebindMask(du, hn::Lt(emi, hn::Set(di, 0x400))), sub, bits);
  return hn::BitCast(df, hn::Or(bits, sign));
}

// The x86 targets have F16C (Highway's AVX2 and AVX-512 targets require it): its conversions are
// IEEE (exact widening; narrowing rounded to nearest even by the immediate, subnormals kept; a NaN
// made quiet, its payload kept or truncated to the top bits), and the integer versions treat NaN
// the same way, so both give the same bits for every input (tested on all 2^16 patterns and, label
// slow, every float), and no F16C conversion needs a NaN fix-up (docs/kernels.md#f16c).
#undef ACLNN_SIMD_F16C  // this header is included once per target
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
#define ACLNN_SIMD_F16C 1
#else
#define ACLNN_SIMD_F16C 0
#endif

// binary16 bits -> float, exact (NaN: payload kept, made quiet).
template <class DF>
HWY_INLINE hn::Vec<DF> F32FromF16(DF df, hn::Vec<hn::Rebind<uint16_t, DF>> h) {
#if ACLNN_SIMD_F16C
  return hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), h));
#else
  return F32FromF16Int(df, h);
#endif
}

// bfloat16 bits -> float, exact.
template <class DF>
HWY_INLINE hn::Vec<DF> F32FromBF16(DF df, hn::Vec<hn::Rebind<uint16_t, DF>> b) {
  const hn::RebindToUnsigned<DF> du;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du, b)));
}

// float -> binary16 bits, round to nearest even; NaN -> sign | 0x7e00 | the top 9 bits of the
// payload (quiet, truncated, as F16C); integer operations and exact scalings only.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F16FromF32Int(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::Rebind<uint16_t, DF> d16;
  const auto u = hn::BitCast(du, v);
  const auto sign = hn::ShiftRight<16>(hn::And(u, hn::Set(du, 0x80000000u)));
  const auto a = hn::And(u, hn::Set(du, 0x7fffffffu));
  const auto af = hn::BitCast(df, a);
  const auto is_sub = hn::Lt(af, hn::Set(df, 0x1p-14f));
  // Subnormal: |v| * 2^24 (exact) + 2^23 lands where the float ulp is 1, so the addition rounds it
  // to an integer (ties to even) that the low mantissa bits hold.
  const auto xs = hn::Mul(hn::IfThenElseZero(is_sub, af), hn::Set(df, 0x1p24f));
  const auto sub =
      hn::Sub(hn::BitCast(du, hn::Add(xs, hn::Set(df, 0x1p23f))), hn::Set(du, 0x4b000000u));
  // Normal: round the 23-bit mantissa to 10 bits on the integer; a carry bumps the exponent.
  const auto odd = hn::And(hn::ShiftRight<13>(a), hn::Set(du, 1u));
  const auto rounded = hn::ShiftRight<13>(hn::Add(hn::Add(a, hn::Set(du, 0xfffu)), odd));
  const auto normal = hn::Sub(rounded, hn::Set(du, 112u << 10));
  auto r = hn::IfThenElse(hn::RebindMask(du, is_sub), sub, normal);
  r = hn::IfThenElse(hn::RebindMask(du, hn::Ge(af, hn::Set(df, 65520.0f))), hn::Set(du, 0x7c00u),
                     r);
  const auto nan =
      hn::Or(hn::ShiftRight<13>(hn::And(a, hn::Set(du, 0x007fffffu))), hn::Set(du, 0x7e00u));
  r = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), nan, r);
  return hn::TruncateTo(d16, hn::Or(r, sign));
}

// float -> binary16 bits, round to nearest even; NaN as F16FromF32Int.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> F16FromF32(DF df, hn::Vec<DF> v) {
#if ACLNN_SIMD_F16C
  return hn::BitCast(hn::Rebind<uint16_t, DF>(), hn::DemoteTo(hn::Rebind<hwy::float16_t, DF>(), v));
#else
  return F16FromF32Int(df, v);
#endif
}

// Float bits u rounded to nearest even at bit 16: the bfloat16 in the upper half, the lower half
// unspecified (NaN lanes unspecified).
template <class DU>
HWY_INLINE hn::Vec<DU> BF16RoundedUpper(DU du, hn::Vec<DU> u) {
  const auto odd = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
  return hn::Add(hn::Add(u, hn::Set(du, 0x7fffu)), odd);
}
// The same shifted down: the bfloat16 in the low half.
template <class DU>
HWY_INLINE hn::Vec<DU> BF16RoundedBits(DU du, hn::Vec<DU> u) {
  return hn::ShiftRight<16>(BF16RoundedUpper(du, u));
}

// float -> bfloat16 bits, round to nearest even; NaN keeps its sign and top payload, made quiet.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> BF16FromF32(DF /*df*/, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::Rebind<uint16_t, DF> d16;
  const auto u = hn::BitCast(du, v);
  const auto rounded = BF16RoundedBits(du, u);
  const auto nan = hn::Or(hn::ShiftRight<16>(u), hn::Set(du, 0x40u));
  return hn::TruncateTo(d16, hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), nan, rounded));
}

// BF16FromF32 without its NaN lanes' treatment: the same bits on every lane that is not NaN (a NaN
// lane's are unspecified), for callers that replace non-finite lanes themselves; four operations
// fewer.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> BF16FromF32NotNaN(DF /*df*/, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du;
  return hn::TruncateTo(hn::Rebind<uint16_t, DF>(), BF16RoundedBits(du, hn::BitCast(du, v)));
}

// AVX512_BF16 (Zen 4, Cooper Lake, Sapphire Rapids and later): VCVTNEPS2BF16 rounds float to
// bfloat16 to nearest even in one instruction where BF16FromF32 takes about nine. It reads float
// subnormals as zero and makes NaNs quiet, so a vector holding a subnormal or NaN lane keeps
// BF16FromF32; on every other lane (normal, zero, inf) the two give the same bits. Highway 1.0.3
// has no target with AVX512_BF16, and a function compiled for it could not be inlined into the
// AVX3 kernels (nor their lambdas), so the instruction is written as inline assembly, which needs
// no target attribute: AVX3 code calls it directly, in kernels instantiated for it and chosen only
// where simd::use_bf16_insn() says so (once per call).
#undef ACLNN_SIMD_BF16_INSN
#if HWY_TARGET == HWY_AVX3 && ACLNN_SIMD_BF16_INSN_BUILT
#define ACLNN_SIMD_BF16_INSN 1
// The instruction alone, for vectors known to hold no float subnormal or NaN lane.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> BF16FromF32InsnNoSpecial(DF /*df*/, hn::Vec<DF> v) {
  static_assert(hn::MaxLanes(DF()) == 16, "one 512-bit vector of floats");
  hn::Vec<hn::Rebind<uint16_t, DF>> r;
  asm("vcvtneps2bf16 %1, %0" : "=v"(r.raw) : "v"(v.raw));
  return r;
}
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> BF16FromF32Insn(DF df, hn::Vec<DF> v) {
  // 0xa1: quiet NaN, denormal, signalling NaN.
  if (HWY_UNLIKELY(_mm512_fpclass_ps_mask(v.raw, 0xa1) != 0)) return BF16FromF32(df, v);
  return BF16FromF32InsnNoSpecial(df, v);
}
// Whether any lane is NaN, infinite or a float subnormal: one VFPCLASSPS (0xb9), for callers that
// treat non-finite lanes themselves and would otherwise test twice (NotFinite and the above).
template <class DF>
HWY_INLINE bool AnyNotFiniteOrSubnormal(DF /*df*/, hn::Vec<DF> v) {
  return _mm512_fpclass_ps_mask(v.raw, 0xb9) != 0;
}
#else
#define ACLNN_SIMD_BF16_INSN 0
#endif

// double -> float, round to nearest even, overflow to +/-inf. Highway's portable DemoteTo clamps
// to the largest float instead, so the portable targets convert lane by lane in C++.
template <class DD>
HWY_INLINE hn::Vec<hn::Rebind<float, DD>> F32FromF64(DD dd, hn::Vec<DD> v) {
  const hn::Rebind<float, DD> df;
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  HWY_ALIGN double in[16];  // at most 16 lanes on these targets
  HWY_ALIGN float out[16];
  hn::Store(v, dd, in);
  for (size_t i = 0; i < hn::Lanes(dd); ++i) out[i] = static_cast<float>(in[i]);
  return hn::Load(df, out);
#else
  return hn::DemoteTo(df, v);  // cvtpd2ps: rounds to nearest even, overflows to inf
#endif
}

// double -> 16-bit float bits in one rounding to nearest even. kFrac fraction bits, exponent
// rebias kRebias (1023 - bias), subnormal quantum 2^kSubExp, min normal, overflow threshold (max
// finite + half an ulp), NaN (kNan, or'ed with the payload's top kFrac bits where kNanPayload: fp16
// NaNs as F16FromF32(F32FromF64(v)) gives them).
template <int kFrac, uint64_t kRebias, int kSubExp, uint64_t kInf, uint64_t kNan, bool kNanPayload,
          class DD>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DD>> Narrow16FromF64(DD dd, hn::Vec<DD> v,
                                                             double min_normal, double overflow) {
  const hn::RebindToUnsigned<DD> du;
  const hn::Rebind<uint16_t, DD> d16;
  const auto b = hn::BitCast(du, v);
  const auto sign = hn::And(hn::ShiftRight<48>(b), hn::Set(du, 0x8000u));
  const auto a = hn::And(b, hn::Set(du, 0x7fffffffffffffffull));
  const auto ad = hn::BitCast(dd, a);
  const auto is_sub = hn::Lt(ad, hn::Set(dd, min_normal));
  // |v| + 2^(52 + kSubExp) lies where the double ulp is the subnormal quantum: the addition rounds
  // to it (ties to even) and the low bits of the sum are the subnormal's integer mantissa.
  const double big = __builtin_ldexp(1.0, 52 + kSubExp);
  const auto sub =
      hn::Sub(hn::BitCast(du, hn::Add(hn::IfThenElseZero(is_sub, ad), hn::Set(dd, big))),
              hn::Set(du, std::bit_cast<uint64_t>(big)));
  constexpr int kShift = 52 - kFrac;
  const auto odd = hn::And(hn::ShiftRight<kShift>(a), hn::Set(du, 1u));
  const auto rounded = hn::ShiftRight<kShift>(
      hn::Add(hn::Add(a, hn::Set(du, (uint64_t{1} << (kShift - 1)) - 1)), odd));
  const auto normal = hn::Sub(rounded, hn::Set(du, kRebias << kFrac));
  auto r = hn::IfThenElse(hn::RebindMask(du, is_sub), sub, normal);
  r = hn::IfThenElse(hn::RebindMask(du, hn::Ge(ad, hn::Set(dd, overflow))), hn::Set(du, kInf), r);
  auto nan = hn::Set(du, kNan);
  if constexpr (kNanPayload)
    nan = hn::Or(nan, hn::And(hn::ShiftRight<kShift>(a), hn::Set(du, (uint64_t{1} << kFrac) - 1)));
  r = hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), nan, r);
  return hn::TruncateTo(d16, hn::Or(r, sign));
}
template <class DD>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DD>> F16FromF64(DD dd, hn::Vec<DD> v) {
  return Narrow16FromF64<10, 1008, -24, 0x7c00, 0x7e00, true>(dd, v, 0x1p-14, 65520.0);
}
template <class DD>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DD>> BF16FromF64(DD dd, hn::Vec<DD> v) {
  return Narrow16FromF64<7, 896, -133, 0x7f80, 0x7fc0, false>(dd, v, 0x1p-126, 0x1.ffp127);
}

// Lambdas passed to the kernels below are marked with this so that GCC inlines them into the
// vector loop (a call per vector costs more than the work). Not in sanitizer builds: there GCC
// instruments every forced copy, which multiplies compile time and memory
// (docs/kernels.md#forced-inlining-and-sanitizers); the same code is run and checked.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ACLNN_SIMD_LAMBDA
#else
#define ACLNN_SIMD_LAMBDA __attribute__((always_inline))
#endif

// One full vector stored at p: a non-temporal store where `stream` (the caller checked that p is
// aligned to the vector), else StoreU. Vectors under 16 bytes never stream: x86's Stream writes
// 16 bytes for them.
template <class D>
HWY_INLINE void StoreOrStream(hn::Vec<D> v, D d, hn::TFromD<D> *p, bool stream) {
#if HWY_TARGET != HWY_SCALAR
  if constexpr (D::kPrivateN * sizeof(hn::TFromD<D>) >= 16) {
    if (stream) return hn::Stream(v, d, p);
  }
#endif
  (void)stream;
  hn::StoreU(v, d, p);
}

// Streams kBytes (16, 32 or 64) from the 64-byte aligned buffer src to dst (aligned to kBytes) in
// vectors back to back, so that a line's non-temporal stores follow one another: written a piece
// at a time between other memory traffic, lines streamed by a loop measured up to 2.7x as slow on
// an Ice Lake Xeon (docs/kernels.md#non-temporal-stores).
template <size_t kBytes>
HWY_INLINE void StreamBytes(const void *src, void *dst) {
  static_assert(kBytes == 16 || kBytes == 32 || kBytes == 64, "whole 16-byte vectors");
  const hn::CappedTag<uint8_t, kBytes> d;
  const auto *s = static_cast<const uint8_t *>(src);
  auto *p = static_cast<uint8_t *>(dst);
  for (size_t i = 0; i < kBytes; i += hn::Lanes(d)) hn::Stream(hn::Load(d, s + i), d, p + i);
}

// A run of T (64-byte aligned) written 16 elements at a time and streamed by whole lines: each
// step's elements go to At(j0), and Done streams the line once it is whole or the run of n16
// elements ends. For 16-bit runs, whose 16 elements fill half a line.
template <class T>
struct LineStream {
  static constexpr int64_t kPer = 64 / sizeof(T);  // elements per line
  alignas(64) T line[kPer];
  T *At(int64_t j0) { return line + j0 % kPer; }
  void Done(T *run, int64_t j0, int64_t n16) {
    const int64_t end = j0 + 16;
    if (end % kPer == 0) return StreamBytes<64>(line, run + (end - kPer));
    if constexpr (kPer == 32)
      if (end == n16) StreamBytes<32>(line, run + j0);
  }
};

// Whether a run at `out` can be written by StoreOrStream with stream = true: requested, and out
// aligned to the widest vector, so every vector of the run is aligned.
inline bool CanStream(bool stream, const void *out) {
  return stream && reinterpret_cast<uintptr_t>(out) % 64 == 0;
}

// Stores one vector of doubles at out + i elements of the output kind (0: double, 1: float,
// 2: binary16, 3: bfloat16), rounded once; `stream`: see StoreOrStream.
template <int kOut, class DD>
HWY_INLINE void StoreAs(DD dd, hn::Vec<DD> v, void *out, size_t i, bool stream = false) {
  if constexpr (kOut == 0) {
    StoreOrStream(v, dd, static_cast<double *>(out) + i, stream);
  } else if constexpr (kOut == 1) {
    StoreOrStream(F32FromF64(dd, v), hn::Rebind<float, DD>(), static_cast<float *>(out) + i,
                  stream);
  } else if constexpr (kOut == 2) {
    StoreOrStream(F16FromF64(dd, v), hn::Rebind<uint16_t, DD>(), static_cast<uint16_t *>(out) + i,
                  stream);
  } else {
    StoreOrStream(BF16FromF64(dd, v), hn::Rebind<uint16_t, DD>(), static_cast<uint16_t *>(out) + i,
                  stream);
  }
}

// One vector of doubles from element i of a run of the input kind (1: float, 2: binary16,
// 3: bfloat16); exact.
template <int kIn, class DD>
HWY_INLINE hn::Vec<DD> LoadAsF64(DD dd, const void *p, size_t i) {
  const hn::Rebind<float, DD> df;
  if constexpr (kIn == 1) {
    return hn::PromoteTo(dd, hn::LoadU(df, static_cast<const float *>(p) + i));
  } else {
    const hn::Rebind<uint16_t, DD> d16;
    const auto h = hn::LoadU(d16, static_cast<const uint16_t *>(p) + i);
    if constexpr (kIn == 2)
      return hn::PromoteTo(dd, F32FromF16(df, h));
    else
      return hn::PromoteTo(dd, F32FromBF16(df, h));
  }
}

// f(d, a, b), or f(integral_constant<int, kOut>(), d, a, b) where f takes the output kind.
template <int kOut, class F, class D>
HWY_INLINE hn::Vec<D> CallWithKind(F &f, D d, hn::Vec<D> a, hn::Vec<D> b) {
  if constexpr (std::is_invocable_v<F &, std::integral_constant<int, kOut>, D, hn::Vec<D>,
                                    hn::Vec<D>>)
    return f(std::integral_constant<int, kOut>(), d, a, b);
  else
    return f(d, a, b);
}

// out[i] = f(dd, a[i], b[i]) rounded to kOut, inputs of kind kIn evaluated in double vectors; the
// last partial vector goes through zero-padded copies so it runs the same code. `stream`: write
// the full vectors with non-temporal stores where out is aligned (CanStream); the caller flushes.
template <int kIn, int kOut, class F>
HWY_INLINE void Binary(const void *a, const void *b, void *out, size_t n, bool stream, F &&f) {
  const hn::ScalableTag<double> dd;
  constexpr size_t kInSize = kIn == 1 ? 4 : 2;
  constexpr size_t kOutSize = kOut == 0 ? 8 : kOut == 1 ? 4 : 2;
  const size_t lanes = hn::Lanes(dd);
  const bool s = CanStream(stream, out);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes)
    StoreAs<kOut>(dd, CallWithKind<kOut>(f, dd, LoadAsF64<kIn>(dd, a, i), LoadAsF64<kIn>(dd, b, i)),
                  out, i, s);
  if (i < n) {
    const size_t count = n - i;
    HWY_ALIGN unsigned char ta[16 * 4] = {}, tb[16 * 4] = {}, to[16 * 8];
    std::memcpy(ta, static_cast<const unsigned char *>(a) + i * kInSize, count * kInSize);
    std::memcpy(tb, static_cast<const unsigned char *>(b) + i * kInSize, count * kInSize);
    StoreAs<kOut>(
        dd, CallWithKind<kOut>(f, dd, LoadAsF64<kIn>(dd, ta, 0), LoadAsF64<kIn>(dd, tb, 0)), to, 0);
    std::memcpy(static_cast<unsigned char *>(out) + i * kOutSize, to, count * kOutSize);
  }
}

// Binary with the kinds chosen at run time (once per call, not per vector).
template <int kIn, class F>
HWY_INLINE void BinaryOut(int out_kind, const void *a, const void *b, void *out, size_t n,
                          bool stream, F &&f) {
  switch (out_kind) {
    case 1:
      return Binary<kIn, 1>(a, b, out, n, stream, f);
    case 2:
      return Binary<kIn, 2>(a, b, out, n, stream, f);
    case 3:
      return Binary<kIn, 3>(a, b, out, n, stream, f);
    default:
      return Binary<kIn, 0>(a, b, out, n, stream, f);
  }
}
template <class F>
HWY_INLINE void BinaryTo(int in_kind, int out_kind, const void *a, const void *b, void *out,
                         size_t n, bool stream, F &&f) {
  switch (in_kind) {
    case 2:
      return BinaryOut<2>(out_kind, a, b, out, n, stream, f);
    case 3:
      return BinaryOut<3>(out_kind, a, b, out, n, stream, f);
    default:
      return BinaryOut<1>(out_kind, a, b, out, n, stream, f);
  }
}

// Unsigned comparisons as signed ones: u < v (unsigned) iff (u ^ sign) < (v ^ sign) (signed). AVX2
// has only signed integer comparisons, and Highway's unsigned ones flip both sign bits; here the
// flip of x - c folds into the subtraction (x - c + sign = x + (sign - c)) and the constant's
// into the constant: one addition and one comparison where there were three operations.
template <class U>
constexpr hwy::MakeSigned<U> AsSigned(U v) {
  return static_cast<hwy::MakeSigned<U>>(v ^ (U{1} << (sizeof(U) * 8 - 1)));
}
template <class DU>
HWY_INLINE hn::Vec<hn::RebindToSigned<DU>> OffsetAsSigned(DU du, hn::Vec<DU> x, hn::TFromD<DU> c) {
  using U = hn::TFromD<DU>;
  return hn::BitCast(hn::RebindToSigned<DU>(),
                     hn::Add(x, hn::Set(du, static_cast<U>((U{1} << (sizeof(U) * 8 - 1)) - c))));
}

// True in the lanes where |p| is outside [lo, hi] (zero, inf and NaN included): one unsigned
// comparison of the bits without the sign.
template <class D>
HWY_INLINE hn::Mask<D> OutsideRange(D d, hn::Vec<D> p, hn::TFromD<D> lo, hn::TFromD<D> hi) {
  using U = hwy::MakeUnsigned<hn::TFromD<D>>;
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const U lo_bits = static_cast<U>(std::bit_cast<U>(lo) << 1);
  const U span = static_cast<U>(static_cast<U>(std::bit_cast<U>(hi) << 1) - lo_bits);
  return hn::RebindMask(d, hn::Gt(OffsetAsSigned(du, hn::ShiftLeft<1>(hn::BitCast(du, p)), lo_bits),
                                  hn::Set(di, AsSigned(span))));
}
// !(a <= b) lane by lane (true where a > b or either is NaN). On AVX3 and AVX2 one comparison
// (unordered "not less or equal") where Not(Le) adds a mask inversion or an XOR on a vector port.
template <class D>
HWY_INLINE hn::Mask<D> NotLe(D /*d*/, hn::Vec<D> a, hn::Vec<D> b) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) == 64) {
    if constexpr (sizeof(hn::TFromD<D>) == 8)
      return hn::Mask<D>{_mm512_cmp_pd_mask(a.raw, b.raw, _CMP_NLE_UQ)};
    else if constexpr (sizeof(hn::TFromD<D>) == 4)
      return hn::Mask<D>{_mm512_cmp_ps_mask(a.raw, b.raw, _CMP_NLE_UQ)};
  }
#elif HWY_TARGET == HWY_AVX2
  if constexpr (hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) == 32) {
    if constexpr (std::is_same_v<hn::TFromD<D>, double>)
      return hn::Mask<D>{_mm256_cmp_pd(a.raw, b.raw, _CMP_NLE_UQ)};
    else if constexpr (std::is_same_v<hn::TFromD<D>, float>)
      return hn::Mask<D>{_mm256_cmp_ps(a.raw, b.raw, _CMP_NLE_UQ)};
  }
#endif
  return hn::Not(hn::Le(a, b));
}

// Lanes that are inf or NaN. On AVX3 one VFPCLASS, where Not(IsFinite) compiles to a
// classification and two mask inversions. Elsewhere v - v is NaN exactly there (+0 for finite v):
// a subtraction and an unordered comparison, where IsFinite's integer test takes five operations
// on AVX2.
template <class D>
HWY_INLINE hn::Mask<D> NotFinite(D /*d*/, hn::Vec<D> v) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (hn::MaxLanes(D()) * sizeof(hn::TFromD<D>) == 64 && sizeof(hn::TFromD<D>) == 4)
    return hn::Mask<D>{_mm512_fpclass_ps_mask(v.raw, 0x99)};  // quiet/signalling NaN, +/-inf
#endif
  return hn::IsNaN(hn::Sub(v, v));
}

// a * b + c with one rounding on every target: FMA on the x86 ones, std::fma lane by lane on the
// portable one (Highway's emulated MulAdd rounds twice), so polynomial kernels give the same bits
// everywhere.
template <class D>
HWY_INLINE hn::Vec<D> Fma(D d, hn::Vec<D> a, hn::Vec<D> b, hn::Vec<D> c) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  using T = hn::TFromD<D>;
  HWY_ALIGN T pa[16], pb[16], pc[16];
  hn::Store(a, d, pa);
  hn::Store(b, d, pb);
  hn::Store(c, d, pc);
  for (size_t i = 0; i < hn::Lanes(d); ++i) pa[i] = std::fma(pa[i], pb[i], pc[i]);
  return hn::Load(d, pa);
#else
  (void)d;
  return hn::MulAdd(a, b, c);
#endif
}

// sum c[k] s^k by Horner's rule with Fma.
template <class D, size_t N>
HWY_INLINE hn::Vec<D> Horner(D d, hn::Vec<D> s, const hn::TFromD<D> (&c)[N]) {
  auto p = hn::Set(d, c[N - 1]);
  for (size_t k = N - 1; k-- > 0;) p = Fma(d, p, s, hn::Set(d, c[k]));
  return p;
}

// ---- double -> binary16 by way of float --------------------------------------------------

// double -> binary16 bits, one rounding to nearest even: the same bits as F16FromF64, in about a
// third of the operations on the F16C targets. The double is first rounded to odd at float's 24
// bits (truncated, with the last kept bit set when any dropped bit is set), which float holds
// exactly; rounding that to 11 bits (F16FromF32) is then the correct rounding of the double
// (round-to-odd at p >= q + 2 bits followed by round-to-nearest at q bits is the direct rounding).
// Values below float's normal range round to +-0 in binary16 by either route; values beyond it
// become +-inf; NaN stays NaN (sign | 0x7e00 | the payload's top 9 bits, as F16FromF64 gives).
template <class DD>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DD>> F16FromF64ViaOdd(DD dd, hn::Vec<DD> v) {
  const hn::RebindToUnsigned<DD> du;
  const auto dropped = hn::Set(du, (uint64_t{1} << 29) - 1);  // 52 - 23 low mantissa bits
  const auto b = hn::BitCast(du, v);
  const auto sticky =
      hn::IfThenElseZero(hn::Ne(hn::And(b, dropped), hn::Zero(du)), hn::Set(du, uint64_t{1} << 29));
  const auto odd = hn::BitCast(dd, hn::Or(hn::AndNot(dropped, b), sticky));
  return F16FromF32(hn::Rebind<float, DD>(), F32FromF64(dd, odd));
}

// ---- elements of a run by kind (0: double, 1: float, 2: binary16, 3: bfloat16) ----------------

// Element j of a run of kind kKind, exact.
template <int kKind>
HWY_INLINE double LoadKind(const void *p, int64_t j) {
  if constexpr (kKind == 0) return static_cast<const double *>(p)[j];
  if constexpr (kKind == 1) return static_cast<const float *>(p)[j];
  if constexpr (kKind == 2) return half_to_float(static_cast<const uint16_t *>(p)[j]);
  if constexpr (kKind == 3) return bf16_to_float(static_cast<const uint16_t *>(p)[j]);
}
// One vector of doubles from element j of a run of kind kKind, exact.
template <int kKind, class DD>
HWY_INLINE hn::Vec<DD> LoadKindV(DD dd, const void *p, int64_t j) {
  if constexpr (kKind == 0)
    return hn::LoadU(dd, static_cast<const double *>(p) + j);
  else
    return LoadAsF64<kKind>(dd, p, static_cast<size_t>(j));
}
// One vector of doubles stored as kind kOut from element j, rounded once (binary16 through the
// cheaper round-to-odd route: the same bits).
template <int kOut, class DD>
HWY_INLINE void StoreKindV(DD dd, hn::Vec<DD> v, void *p, int64_t j) {
  if constexpr (kOut == 2)
    hn::StoreU(F16FromF64ViaOdd(dd, v), hn::Rebind<uint16_t, DD>(), static_cast<uint16_t *>(p) + j);
  else
    StoreAs<kOut>(dd, v, p, static_cast<size_t>(j));
}
// Element j of a run of kind kKind set to v, rounded once.
template <int kKind>
HWY_INLINE void StoreKind(void *p, int64_t j, double v) {
  if constexpr (kKind == 0) static_cast<double *>(p)[j] = v;
  if constexpr (kKind == 1) static_cast<float *>(p)[j] = static_cast<float>(v);
  if constexpr (kKind == 2) static_cast<uint16_t *>(p)[j] = double_to_half(v);
  if constexpr (kKind == 3) static_cast<uint16_t *>(p)[j] = double_to_bf16(v);
}

}  // namespace aclnn_cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#include "impl/simd_float-inl.hpp"  // float evaluation of 16-bit and float runs

#endif  // include guard toggle
