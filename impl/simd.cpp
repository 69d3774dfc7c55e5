// Array conversions of the SIMD layer (impl/simd.hpp), compiled once per Highway target.
#include "impl/simd_targets.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "impl/simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <atomic>
#include <cstring>
#include <type_traits>

#include "impl/simd-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace aclnn_cpu::simd::HWY_NAMESPACE {
namespace {

constexpr size_t kMaxLanes = 64;  // bytes of the widest vector / 1: room for any lane count

// dst[i] = Convert(src[i]) for n elements: full vectors in place, the tail through padded copies
// (zeros in the unused lanes), so the tail uses the same vector code.
template <class DIn, class DOut, class Convert>
HWY_INLINE void ConvertArray(DIn din, DOut dout, const hn::TFromD<DIn> *src, hn::TFromD<DOut> *dst,
                             size_t n, Convert convert) {
  const size_t lanes = hn::Lanes(din);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(convert(hn::LoadU(din, src + i)), dout, dst + i);
  if (i < n) {
    const size_t count = n - i;
    HWY_ALIGN hn::TFromD<DIn> in[kMaxLanes] = {};
    HWY_ALIGN hn::TFromD<DOut> out[kMaxLanes];
    std::memcpy(in, src + i, count * sizeof(in[0]));
    hn::Store(convert(hn::Load(din, in)), dout, out);
    std::memcpy(dst + i, out, count * sizeof(out[0]));
  }
}

}  // namespace

void F16ToF32(const uint16_t *src, float *dst, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  ConvertArray(d16, df, src, dst, n, [&](auto h) ACLNN_SIMD_LAMBDA { return F32FromF16(df, h); });
}
void BF16ToF32(const uint16_t *src, float *dst, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  ConvertArray(d16, df, src, dst, n, [&](auto h) ACLNN_SIMD_LAMBDA { return F32FromBF16(df, h); });
}
void F16ToF64(const uint16_t *src, double *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::Rebind<uint16_t, decltype(dd)> d16;
  ConvertArray(d16, dd, src, dst, n,
               [&](auto h) ACLNN_SIMD_LAMBDA { return hn::PromoteTo(dd, F32FromF16(df, h)); });
}
void BF16ToF64(const uint16_t *src, double *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::Rebind<uint16_t, decltype(dd)> d16;
  ConvertArray(d16, dd, src, dst, n,
               [&](auto h) ACLNN_SIMD_LAMBDA { return hn::PromoteTo(dd, F32FromBF16(df, h)); });
}
void F32ToF64(const float *src, double *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  ConvertArray(df, dd, src, dst, n, [&](auto v) ACLNN_SIMD_LAMBDA { return hn::PromoteTo(dd, v); });
}
void F32ToF16(const float *src, uint16_t *dst, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  ConvertArray(df, d16, src, dst, n, [&](auto v) ACLNN_SIMD_LAMBDA { return F16FromF32(df, v); });
}
void F32ToBF16(const float *src, uint16_t *dst, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint16_t, decltype(df)> d16;
  ConvertArray(df, d16, src, dst, n, [&](auto v) ACLNN_SIMD_LAMBDA { return BF16FromF32(df, v); });
}
void F64ToF32(const double *src, float *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  ConvertArray(dd, df, src, dst, n, [&](auto v) ACLNN_SIMD_LAMBDA { return F32FromF64(dd, v); });
}
void F64ToF16(const double *src, uint16_t *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<uint16_t, decltype(dd)> d16;
  ConvertArray(dd, d16, src, dst, n, [&](auto v) ACLNN_SIMD_LAMBDA { return F16FromF64(dd, v); });
}
void F64ToBF16(const double *src, uint16_t *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<uint16_t, decltype(dd)> d16;
  ConvertArray(dd, d16, src, dst, n, [&](auto v) ACLNN_SIMD_LAMBDA { return BF16FromF64(dd, v); });
}

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

// FLOAT rows read side by side: the lines kLineAhead elements ahead of the current column of each
// of kRows rows at r0 + k * stride, requested into L1 (their lines are in L2 by then, from the
// previous pass's requests; the L1 prefetcher does not keep up with eight streams). GBAG
// (65536, 1024) FLOAT, 1 thread, medians of five alternating runs, in three sessions: 12.4 -> 11.8,
// 12.5 -> 11.9 and 12.7 -> 12.0 ms; 64 or 256 bytes ahead instead of 128: 12.0 and 11.9 ms.
constexpr size_t kLineAhead = 32;
template <size_t kRows>
HWY_INLINE void PrefetchRowsL1(const unsigned char *r0, ptrdiff_t stride, size_t byte_offset) {
  for (size_t k = 0; k < kRows; ++k)
    __builtin_prefetch(r0 + static_cast<ptrdiff_t>(k) * stride + byte_offset, 0, 3);
}

// acc += rows r0, r1, ... in that order, kRows rows per pass over acc: each column's sum is held
// in a register across the kRows additions (the same additions in the same order as one row at a
// time, so the same bits) and acc is loaded and stored once per kRows rows instead of once per row.
// Rows left over (fewer than kRows) go one at a time.
template <int kIn, size_t kRows>
HWY_INLINE void AccumulateRowsT(const unsigned char *src, ptrdiff_t stride, size_t rows,
                                double *acc, size_t n, bool prefetch) {
  const hn::ScalableTag<double> dd;
  const size_t lanes = hn::Lanes(dd);
  constexpr size_t kInSize = kIn == 1 ? 4 : 2;
  size_t r = 0;
  for (; r + kRows <= rows; r += kRows) {
    const unsigned char *r0 = src + static_cast<ptrdiff_t>(r) * stride;
    // The next pass's rows, requested into L2 when they come from memory: each row is a page
    // or two and the hardware prefetchers stop at pages (GBAG (65536, 1024) FLOAT, 1 thread,
    // five alternating runs: 13.0-14.3 -> 12.1-13.2 ms; into L1 or non-temporal: slower; in
    // cache: 3 % slower, hence only from memory). And this pass's rows kLineAhead elements ahead
    // into L1 (PrefetchRowsL1).
    const unsigned char *next =
        prefetch && r + 2 * kRows <= rows ? r0 + static_cast<ptrdiff_t>(kRows) * stride : nullptr;
    size_t i = 0;
    for (; i + lanes <= n; i += lanes) {
      if (next != nullptr && (i * kInSize) % 64 == 0) {
        for (size_t k = 0; k < kRows; ++k)
          __builtin_prefetch(next + static_cast<ptrdiff_t>(k) * stride + i * kInSize, 0, 2);
        PrefetchRowsL1<kRows>(r0, stride, (i + kLineAhead) * kInSize);
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

// 16-bit rows, eight per pass: each column's eight values (exact in float) are summed in float as
// the fixed tree ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), and that sum is added to acc
// in double. A value meets at most three float roundings before the double accumulation, so the
// sum is within VAL-TOL-1's k u sum|terms| (u = 2^-24, k = ceil(log2 n) + 2 >= 5 for n >= 8 rows)
// with room to spare: 3u (1 + 4u) + n 2^-53. Where the tree sum is not finite (a bfloat16 sum
// beyond float's range that double would hold, or inf/NaN input) the lane takes the sequential
// double sum of its eight values; the decision is per lane, so the bits do not depend on the
// vector width. Against one row at a time in double (GBAG (65536, 1024), 1 thread): a third of
// the conversions and one load and store of acc per eight rows instead of per row.
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
    const auto t = hn::Add(hn::Add(hn::Add(v[0], v[1]), hn::Add(v[2], v[3])),
                           hn::Add(hn::Add(v[4], v[5]), hn::Add(v[6], v[7])));
    const bool all_finite = hn::AllTrue(df, hn::IsFinite(t));
    AddTreeHalf<false>(df, dd, v, t, all_finite, a);
    if (lanes > half) AddTreeHalf<true>(df, dd, v, t, all_finite, a + half);
  };
  const unsigned char *rows[8];
  for (size_t k = 0; k < 8; ++k) rows[k] = r0 + static_cast<ptrdiff_t>(k) * stride;
  // The next pass's rows, requested into L2 (as for FLOAT rows): without it the eight streams
  // measured slower than one row at a time (bf16 12.8-13.5 against 10.1-16.1 ms); with it
  // 7.0-8.7 ms, two passes ahead or into L1 slower. This pass's rows ahead into L1, as FLOAT
  // rows do (PrefetchRowsL1), measured 6 % faster in one session and 6 % slower (bf16) in
  // the next, so it is not done.
  const unsigned char *next = prefetch ? r0 + 8 * stride : nullptr;
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    if (next != nullptr && (i * 2) % 64 == 0)
      for (size_t k = 0; k < 8; ++k)
        __builtin_prefetch(next + static_cast<ptrdiff_t>(k) * stride + i * 2, 0, 2);
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

void AccumulateRowsF64(int kind, const void *src, ptrdiff_t stride, size_t rows, double *acc,
                       size_t n, bool prefetch) {
  const auto *s = static_cast<const unsigned char *>(src);
  // FLOAT: eight rows per pass measured 16 % faster than four (GBAG (65536, 1024) fp32, 1 thread,
  // medians of six alternating runs: 15.9 -> 13.3 ms); the float tree (as for 16-bit rows)
  // measured no gain for FLOAT rows (12.2-12.3 ms either way): they are bound by memory.
  if (kind == 1) return AccumulateRowsT<1, 8>(s, stride, rows, acc, n, prefetch);
  if (kind == 2) return AccumulateRows16<2>(s, stride, rows, acc, n, prefetch);
  return AccumulateRows16<3>(s, stride, rows, acc, n, prefetch);
}

void AccumulateF64(int kind, const void *src, double *acc, size_t n) {
  if (kind == 2)
    AccumulateT<2>(src, acc, n);
  else if (kind == 3)
    AccumulateT<3>(src, acc, n);
  else
    AccumulateT<1>(src, acc, n);
}

}  // namespace aclnn_cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <hwy/cache_control.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "impl/simd.hpp"

namespace aclnn_cpu::simd {

namespace {
// -1: by size (the default), 0: never, 1: always (ACLNN_CPU_STREAM_STORES, read at each call
// like ACLNN_CPU_NUM_THREADS).
int stream_override() {
  const char *v = std::getenv("ACLNN_CPU_STREAM_STORES");
  if (v == nullptr) return -1;
  if (std::strcmp(v, "0") == 0) return 0;
  if (std::strcmp(v, "1") == 0) return 1;
  return -1;
}

std::atomic<bool> &bf16_insn_flag() {
  static std::atomic<bool> flag{[] {
    const char *v = std::getenv("ACLNN_CPU_BF16_INSN");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }()};
  return flag;
}
}  // namespace

bool bf16_insn_allowed() {
  return bf16_insn_flag().load(std::memory_order_relaxed);
}
void allow_bf16_insn(bool allowed) {
  bf16_insn_flag().store(allowed, std::memory_order_relaxed);
}
bool bf16_insn_available() {
#if ACLNN_SIMD_BF16_INSN_BUILT
  static const bool cpu = __builtin_cpu_supports("avx512bf16");
  return cpu;
#else
  return false;
#endif
}
bool use_bf16_insn() {
  return bf16_insn_available() && bf16_insn_allowed();
}

// The size of the last-level cache: sysfs's highest cache level of cpu0 (what lscpu shows), else
// glibc's sysconf. sysfs first: in a VM glibc may report the host's whole L3 (320 MiB here, where
// sysfs and lscpu say 32 MiB), which would keep streaming off for outputs that never stay cached.
int64_t last_level_cache_bytes() {
  static const int64_t bytes = [] {
    int best_level = 0;
    int64_t best = 0;
    for (int i = 0; i < 8; ++i) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      std::ifstream level_file(dir + "level"), size_file(dir + "size");
      int level = 0;
      int64_t size = 0;
      std::string unit;
      if (!(level_file >> level) || !(size_file >> size)) continue;
      size_file >> unit;  // "32768K": the number stops at the suffix
      if (!unit.empty() && (unit[0] == 'K' || unit[0] == 'k')) size <<= 10;
      if (!unit.empty() && unit[0] == 'M') size <<= 20;
      if (level > best_level && size > 0) {
        best_level = level;
        best = size;
      }
    }
    if (best > 0) return best;
    for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
      const long v = sysconf(name);
      if (v > 0) return static_cast<int64_t>(v);
    }
    return int64_t{32} << 20;  // unknown: a common server L3
  }();
  return bytes;
}

// A quarter of the last-level cache, as glibc (2.38 on) sets memcpy's non-temporal threshold: the
// LLC is shared with the other cores (and, in a VM, with other tenants), so a call cannot count
// on keeping more of it. Measured on a 2-vCPU VM of a 260 MiB-L3 Xeon, where the whole LLC as the
// threshold kept 16 M-element calls (192 MB) cached: streaming took LayerNormBackward fp32 from 25
// to 12.5 ms and SeluBackward/LogitGrad fp32 from 16.3 to 14.0 ms; 1 M-element calls (12 MB, below
// the threshold) measured the same either way.
int64_t streaming_threshold_bytes() {
  return last_level_cache_bytes() / 4;
}

bool stream_output(int64_t bytes) {
  const int mode = stream_override();
  return mode >= 0 ? mode == 1 : bytes > streaming_threshold_bytes();
}

void flush_streams() {
  hwy::FlushStream();
}

int64_t stream_block(bool stream, const char *out, int64_t es, int64_t m) {
  const auto mis = static_cast<int64_t>(reinterpret_cast<uintptr_t>(out) % 64);
  if (!stream || mis == 0 || mis % es != 0) return m;
  return std::min(m, (64 - mis) / es);
}

HWY_EXPORT(F16ToF32);
HWY_EXPORT(BF16ToF32);
HWY_EXPORT(F16ToF64);
HWY_EXPORT(BF16ToF64);
HWY_EXPORT(F32ToF64);
HWY_EXPORT(F32ToF16);
HWY_EXPORT(F32ToBF16);
HWY_EXPORT(F64ToF32);
HWY_EXPORT(F64ToF16);
HWY_EXPORT(F64ToBF16);
HWY_EXPORT(AccumulateF64);
HWY_EXPORT(AccumulateRowsF64);

void f16_to_f32(const uint16_t *s, float *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F16ToF32)(s, d, n);
}
void bf16_to_f32(const uint16_t *s, float *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(BF16ToF32)(s, d, n);
}
void f16_to_f64(const uint16_t *s, double *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F16ToF64)(s, d, n);
}
void bf16_to_f64(const uint16_t *s, double *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(BF16ToF64)(s, d, n);
}
void f32_to_f64(const float *s, double *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F32ToF64)(s, d, n);
}
void f32_to_f16(const float *s, uint16_t *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F32ToF16)(s, d, n);
}
void f32_to_bf16(const float *s, uint16_t *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F32ToBF16)(s, d, n);
}
void f64_to_f32(const double *s, float *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F64ToF32)(s, d, n);
}
void f64_to_f16(const double *s, uint16_t *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F64ToF16)(s, d, n);
}
void f64_to_bf16(const double *s, uint16_t *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F64ToBF16)(s, d, n);
}

void accumulate_f64(int kind, const void *src, double *acc, size_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateF64)(kind, src, acc, n);
}
void accumulate_rows_f64(int kind, const void *src, ptrdiff_t row_stride, size_t rows, double *acc,
                         size_t n, bool prefetch) {
  HWY_DYNAMIC_DISPATCH(AccumulateRowsF64)(kind, src, row_stride, rows, acc, n, prefetch);
}

std::vector<int64_t> runnable_targets() {
  std::vector<int64_t> out;
  const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
  for (int bit = 0; bit < 63; ++bit) {
    const int64_t t = int64_t{1} << bit;
    if (supported & t) out.push_back(t);  // a lower bit is a better target
  }
  return out;
}
std::string target_name(int64_t target) {
  return hwy::TargetName(target);
}
std::string current_target_name() {
  // The chosen target: the best supported one among those compiled here.
  const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(supported & -supported);
}
void force_target(int64_t target) {
  hwy::SetSupportedTargetsForTest(target);
}

}  // namespace aclnn_cpu::simd
#endif  // HWY_ONCE
