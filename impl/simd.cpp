// The SIMD layer (impl/simd.hpp): array conversions compiled once per Highway target, the cache
// policy (non-temporal stores) and the choice of target.
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

// The bytes of one vector of this target.
size_t VectorBytes() {
  return hn::Lanes(hn::ScalableTag<uint8_t>());
}

// acc[i] += src[i]: one addition per element, so every target gives the scalar loop's bits.
void AddF64(double *HWY_RESTRICT acc, const double *HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<double> dd;
  const size_t lanes = hn::Lanes(dd);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto a0 = hn::Add(hn::LoadU(dd, acc + i), hn::LoadU(dd, src + i));
    const auto a1 = hn::Add(hn::LoadU(dd, acc + i + lanes), hn::LoadU(dd, src + i + lanes));
    hn::StoreU(a0, dd, acc + i);
    hn::StoreU(a1, dd, acc + i + lanes);
  }
  for (; i < n; ++i) acc[i] += src[i];
}

void F64ToF16ViaOdd(const double *src, uint16_t *dst, size_t n) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<uint16_t, decltype(dd)> d16;
  ConvertArray(dd, d16, src, dst, n,
               [&](auto v) ACLNN_SIMD_LAMBDA { return F16FromF64ViaOdd(dd, v); });
}

}  // namespace aclnn_cpu::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <hwy/cache_control.h>
#include <strings.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "impl/simd.hpp"

namespace aclnn_cpu::simd {

int env_switch(const char *name) {
  const char *v = std::getenv(name);
  if (v == nullptr) return -1;
  if (std::strcmp(v, "0") == 0) return 0;
  if (std::strcmp(v, "1") == 0) return 1;
  return -1;
}

namespace {
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

namespace {
// sysfs's cache entries of cpu0 (what lscpu shows): the size in bytes of the highest level
// (level 0), or of level 1's data cache; 0 where sysfs has none.
int64_t sysfs_cache_bytes(int want_level) {
  int best_level = 0;
  int64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size"), type_file(dir + "type");
    int level = 0;
    int64_t size = 0;
    std::string unit, type;
    if (!(level_file >> level) || !(size_file >> size)) continue;
    size_file >> unit;  // "32768K": the number stops at the suffix
    if (!unit.empty() && (unit[0] == 'K' || unit[0] == 'k')) size <<= 10;
    if (!unit.empty() && unit[0] == 'M') size <<= 20;
    type_file >> type;
    if (want_level == 1 && level == 1 && type != "Instruction" && size > 0) return size;
    if (want_level == 0 && level > best_level && size > 0) {
      best_level = level;
      best = size;
    }
  }
  return best;
}
}  // namespace

// The size of the last-level cache: sysfs's highest cache level of cpu0, else glibc's sysconf
// capped at 32 MiB. In a VM glibc's figure (CPUID's) may be the host's whole L3: 320 MiB on a Xeon
// VM where sysfs and lscpu said 32 MiB, 508 MiB on a Zen 5 VM with no cache entries in sysfs at all
// (one Zen 5 CCD, which a VM's few vCPUs share, has 32 MiB). Taken whole, it would keep streaming
// off for outputs that never stay cached.
int64_t last_level_cache_bytes() {
  static const int64_t bytes = [] {
    if (const int64_t b = sysfs_cache_bytes(0); b > 0) return b;
    constexpr int64_t kCap = int64_t{32} << 20;  // also the guess when nothing is reported
    for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
      const long v = sysconf(name);
      if (v > 0) return std::min(static_cast<int64_t>(v), kCap);
    }
    return kCap;
  }();
  return bytes;
}

int64_t l1_data_cache_bytes() {
  static const int64_t bytes = [] {
    if (const int64_t b = sysfs_cache_bytes(1); b > 0) return b;
    const long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    return v > 0 ? static_cast<int64_t>(v) : int64_t{32} << 10;  // unknown: the smaller common L1
  }();
  return bytes;
}

// Measured on the table-driven elementwise loop (docs/kernels.md, its measurements): on Zen 5
// (48 KB L1) 8 KB ahead beat none and equalled 4 KB, on Zen 4 (32 KB L1) 2 KB ahead beat 8 KB and
// 4 KB, plausibly because prefetchnta's lines, meant to stay out of the outer caches, do not stay
// in a 32 KB L1 beside the loop's own table and buffers until two streams 8 KB ahead read them.
// On an Intel Xeon (Ice Lake, 48 KB L1) 8 KB ahead made the loop 1.4-1.6x as slow as no request,
// and prefetcht0/t1 measured as none (Intel's server cores reportedly fill only L1 on
// prefetchnta, past the non-inclusive L2 and L3; not shown here). Hence the requests only on AMD
// CPUs, where they were measured; ACLNN_CPU_INPUT_PREFETCH (bytes, read at each call) overrides.
int64_t input_prefetch_bytes() {
  if (const char *v = std::getenv("ACLNN_CPU_INPUT_PREFETCH"); v != nullptr) {
    char *end = nullptr;
    const long long b = std::strtoll(v, &end, 10);
    if (end != v && *end == '\0' && b >= 0 && b <= (int64_t{1} << 20)) return b;
  }
  static const int64_t bytes = [] {
    if (amd_family() == 0) return int64_t{0};
    return l1_data_cache_bytes() >= (int64_t{48} << 10) ? int64_t{8192} : int64_t{2048};
  }();
  return bytes;
}

// A quarter of the last-level cache, as glibc (2.38 on) sets memcpy's non-temporal threshold: the
// LLC is shared with the other cores (and, in a VM, with other tenants), so a call cannot count
// on keeping more of it (measured: docs/kernels.md#non-temporal-stores).
int64_t streaming_threshold_bytes() {
  return last_level_cache_bytes() / 4;
}

bool stream_output(int64_t bytes, LoopKind kind) {
  // -1: by size (the default), 0: never, 1: always (read at each call like ACLNN_CPU_NUM_THREADS).
  const int mode = env_switch("ACLNN_CPU_STREAM_STORES");
  if (mode >= 0) return mode == 1;
  // A compute-bound loop's time is its arithmetic, which hides the read-for-ownership that
  // streaming would save, and its stores to one line lie far apart in time: on an Intel Xeon (Ice
  // Lake, family 6 model 106) an AVX2 loop with 16-bit outputs took 8.5x as long streaming
  // (docs/kernels.md#non-temporal-stores); Zen 5 measured it slower streaming too.
  if (kind == LoopKind::compute_bound) return false;
  // Each line in two 32-byte streams: measured slower than not streaming (see simd.hpp).
  if (kind == LoopKind::assembled_lines && vector_bytes() < 64) return false;
  return bytes > streaming_threshold_bytes();
}

unsigned amd_family() {
  static const unsigned family = [] {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x68747541u /* "Auth"enticAMD */ ||
        !__get_cpuid(1, &a, &b, &c, &d))
      return 0u;
    const unsigned base = (a >> 8) & 0xf;
    return base + (base == 0xf ? (a >> 20) & 0xff : 0u);
#else
    return 0u;
#endif
  }();
  return family;
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
HWY_EXPORT(F64ToF16ViaOdd);
HWY_EXPORT(AddF64);
HWY_EXPORT(VectorBytes);

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

void f64_to_f16_via_odd(const double *s, uint16_t *d, size_t n) {
  HWY_DYNAMIC_DISPATCH(F64ToF16ViaOdd)(s, d, n);
}
void add_f64(double *acc, const double *src, size_t n) {
  HWY_DYNAMIC_DISPATCH(AddF64)(acc, src, n);
}
size_t vector_bytes() {
  return HWY_DYNAMIC_DISPATCH(VectorBytes)();
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
// ACLNN_CPU_TARGET=AVX2 (any Highway target name, case-insensitive): the runnable targets no
// better than the named one, so that one machine also measures and tests the lower targets' code
// (0: no restriction; an unknown name is reported once on stderr and ignored).
int64_t env_target_mask() {
  static const int64_t mask = []() -> int64_t {
    const char *v = std::getenv("ACLNN_CPU_TARGET");
    if (v == nullptr || *v == '\0') return 0;
    hwy::SetSupportedTargetsForTest(0);
    const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
    for (int bit = 0; bit < 63; ++bit) {
      const int64_t t = int64_t{1} << bit;
      if ((HWY_TARGETS & t) != 0 && strcasecmp(hwy::TargetName(t), v) == 0) {
        const int64_t below = supported & ~(t - 1);  // a higher bit is a lesser target
        if (below != 0) return below;
      }
    }
    std::fprintf(stderr,
                 "libaclnn_cpu: ACLNN_CPU_TARGET=%s names no compiled target this CPU "
                 "can run; ignored\n",
                 v);
    return 0;
  }();
  return mask;
}

void force_target(int64_t target) {
  hwy::SetSupportedTargetsForTest(target != 0 ? target : env_target_mask());
}

namespace {
// ACLNN_CPU_TARGET applies from the library's load on.
[[maybe_unused]] const bool kEnvTargetApplied = [] {
  if (env_target_mask() != 0) force_target(0);
  return true;
}();
}  // namespace

}  // namespace aclnn_cpu::simd
#endif  // HWY_ONCE
