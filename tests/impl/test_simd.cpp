// The SIMD layer (impl/simd.hpp) on every Highway target compiled into the library that this CPU
// can run: each conversion gives exactly dtype.hpp's scalar reference, over all 2^16 16-bit
// patterns, a sampled sweep of the floats and probes around every rounding boundary, with array
// lengths that leave a partial last vector.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "impl/dtype.hpp"
#include "impl/simd.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/simd_targets.hpp"

namespace {

using namespace aclnn_cpu;

// The suite runs once per target (tests/support/simd_targets.hpp).
class SimdTarget : public aclnn_test::SimdTargetTest {};
ACLNN_INSTANTIATE_SIMD_TARGETS(SimdTarget);

// All 65536 patterns plus 3, so that the last vector is partial on every target.
std::vector<uint16_t> all_16bit_patterns() {
  std::vector<uint16_t> v(65536 + 3);
  for (uint32_t b = 0; b < v.size(); ++b) v[b] = static_cast<uint16_t>(b);
  return v;
}

TEST_P(SimdTarget, DispatchUsesTheForcedTarget) {
  EXPECT_EQ(simd::current_target_name(), simd::target_name(GetParam()));
}

// A loop that assembles its output lines in a buffer streams only where one vector is the whole
// 64-byte line (AVX-512); on narrower targets never, unless the environment forces it.
TEST_P(SimdTarget, AssembledLinesStreamOnlyWhereOneVectorIsALine) {
  const std::string name = simd::current_target_name();
  const size_t bytes = name.starts_with("AVX3") ? 64
                       : name == "AVX2"         ? 32
                       : name == "SCALAR"       ? 1
                                                : 16;
  EXPECT_EQ(simd::vector_bytes(), bytes) << name;
  const int64_t large = simd::streaming_threshold_bytes() * 4;
  using simd::LoopKind;
  {
    const aclnn_test::ScopedEnv by_size("ACLNN_CPU_STREAM_STORES", nullptr);
    EXPECT_EQ(simd::stream_output(large, LoopKind::assembled_lines), bytes == 64) << name;
    EXPECT_FALSE(simd::stream_output(64, LoopKind::assembled_lines));
    EXPECT_TRUE(simd::stream_output(large, LoopKind::memory_bound));
  }
  {
    const aclnn_test::ScopedEnv on("ACLNN_CPU_STREAM_STORES", "1");
    EXPECT_TRUE(simd::stream_output(64, LoopKind::assembled_lines));
  }
}

TEST_P(SimdTarget, DecodesEvery16BitPatternExactly) {
  const auto all = all_16bit_patterns();
  std::vector<float> f(all.size());
  std::vector<double> d(all.size());
  simd::f16_to_f32(all.data(), f.data(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(f[i]), std::bit_cast<uint32_t>(half_to_float(all[i]))) << i;
  simd::bf16_to_f32(all.data(), f.data(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(f[i]), std::bit_cast<uint32_t>(bf16_to_float(all[i]))) << i;
  simd::f16_to_f64(all.data(), d.data(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint64_t>(d[i]),
              std::bit_cast<uint64_t>(static_cast<double>(half_to_float(all[i]))))
        << i;
  simd::bf16_to_f64(all.data(), d.data(), all.size());
  for (size_t i = 0; i < all.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint64_t>(d[i]),
              std::bit_cast<uint64_t>(static_cast<double>(bf16_to_float(all[i]))))
        << i;
}

// Floats to test encoding with: a stride through all 2^32 bit patterns, every 16-bit value's
// float and the midpoints to its neighbour with one float ulp either side (ties to even).
std::vector<float> float_probes() {
  std::vector<float> v;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4093)
    v.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    const double lo = half_to_float(static_cast<uint16_t>(b)),
                 hi = half_to_float(static_cast<uint16_t>(b + 1));
    const auto mid = static_cast<float>((lo + hi) / 2);  // exact: 12 significant bits
    v.insert(v.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), -mid});
  }
  for (uint32_t b = 0; b < 0x7f80; ++b) {
    const double lo = bf16_to_float(static_cast<uint16_t>(b)),
                 hi = bf16_to_float(static_cast<uint16_t>(b + 1));
    const auto mid = static_cast<float>((lo + hi) / 2);
    v.insert(v.end(), {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY), -mid});
  }
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 65504.0f, 65519.996f, 65520.0f,
                  0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f, 0x1p-149f, 0x1.fep127f,
                  std::numeric_limits<float>::max(), std::bit_cast<float>(0x7f800001u),
                  std::bit_cast<float>(0xffbfffffu)})
    v.push_back(f);
  return v;
}

TEST_P(SimdTarget, EncodesFloatsLikeTheReference) {
  const auto probes = float_probes();
  std::vector<uint16_t> h(probes.size()), b(probes.size());
  simd::f32_to_f16(probes.data(), h.data(), probes.size());
  simd::f32_to_bf16(probes.data(), b.data(), probes.size());
  for (size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(h[i], float_to_half(probes[i])) << std::hexfloat << probes[i];
    ASSERT_EQ(b[i], float_to_bf16(probes[i])) << std::hexfloat << probes[i];
  }
}

TEST_P(SimdTarget, RoundsDoublesOnceLikeTheReference) {
  std::vector<double> probes = {0.0,
                                -0.0,
                                INFINITY,
                                -INFINITY,
                                NAN,
                                -NAN,
                                65504.0,
                                65519.99,
                                65520.0,
                                0x1p-14,
                                0x1p-24,
                                0x1p-25,
                                0x1.8p-25,
                                0x1p-26,
                                0x1.ffp127,
                                0x1.fep127,
                                0x1p-126,
                                0x1p-133,
                                0x1p-134,
                                0x1.8p-134,
                                1e300,
                                -1e-300,
                                3.0e38,
                                3.5e38,
                                0x1.fffffefffffffp-1,
                                0x1.fffffep127,
                                0x1.ffffffp127};
  // Midpoints between neighbouring 16-bit values and a hair either side (one rounding: a double
  // just above a midpoint must not fall back onto it through float).
  for (uint32_t b = 0; b < 0x7c00; ++b) {
    const double lo = half_to_float(static_cast<uint16_t>(b)),
                 hi = half_to_float(static_cast<uint16_t>(b + 1));
    const double mid = (lo + hi) / 2;
    probes.insert(probes.end(), {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e9), -mid});
  }
  for (uint32_t b = 0; b < 0x7f80; ++b) {
    const double lo = bf16_to_float(static_cast<uint16_t>(b)),
                 hi = bf16_to_float(static_cast<uint16_t>(b + 1));
    const double mid = (lo + hi) / 2;
    probes.insert(probes.end(), {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300), -mid});
  }
  std::mt19937_64 rng(3);
  for (int i = 0; i < 300000; ++i) probes.push_back(std::bit_cast<double>(rng()));
  probes.push_back(1.0);  // odd length
  std::vector<uint16_t> h(probes.size()), b(probes.size());
  std::vector<float> f(probes.size());
  simd::f64_to_f16(probes.data(), h.data(), probes.size());
  simd::f64_to_bf16(probes.data(), b.data(), probes.size());
  simd::f64_to_f32(probes.data(), f.data(), probes.size());
  for (size_t i = 0; i < probes.size(); ++i) {
    const double d = probes[i];
    ASSERT_EQ(h[i], double_to_half(d)) << std::hexfloat << d;
    ASSERT_EQ(b[i], double_to_bf16(d)) << std::hexfloat << d;
    const float ref = static_cast<float>(d);
    if (std::isnan(d))
      ASSERT_TRUE(std::isnan(f[i]));
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(f[i]), std::bit_cast<uint32_t>(ref)) << std::hexfloat << d;
  }
  // float -> double is exact.
  const auto fp = float_probes();
  std::vector<double> back(fp.size());
  simd::f32_to_f64(fp.data(), back.data(), fp.size());
  for (size_t i = 0; i < fp.size(); ++i)
    if (!std::isnan(fp[i])) ASSERT_EQ(back[i], static_cast<double>(fp[i]));
}

// Short arrays (every length up to two vectors of the widest target) leave the bytes beyond n
// untouched.
TEST_P(SimdTarget, ShortArraysWriteOnlyTheirElements) {
  for (size_t n = 0; n <= 40; ++n) {
    std::vector<float> src(n, 1.5f);
    std::vector<uint16_t> dst(n + 1, 0xabcd);
    simd::f32_to_bf16(src.data(), dst.data(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dst[i], 0x3fc0);
    ASSERT_EQ(dst[n], 0xabcd) << n;
  }
}

// add_f64 adds element by element like the scalar loop: the same bits for signed zeros,
// infinities, NaN, subnormals and random doubles, at every length up to three vectors plus a tail,
// and nothing written past n.
TEST_P(SimdTarget, AddsDoubleArraysLikeTheScalarLoop) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint64_t> bits;
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::denorm_min(),
                             0x1p-1022,
                             0x1.8p1023};
  for (size_t n = 0; n <= 27; ++n) {
    std::vector<double> acc(n + 1), src(n), want(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t r = bits(rng);
      acc[i] = r % 3 == 0 ? specials[r % 10] : std::bit_cast<double>(bits(rng));
      src[i] = r % 5 == 0 ? specials[(r >> 8) % 10] : std::bit_cast<double>(bits(rng));
      want[i] = acc[i] + src[i];
    }
    acc[n] = 42.0;
    simd::add_f64(acc.data(), src.data(), n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(std::bit_cast<uint64_t>(acc[i]), std::bit_cast<uint64_t>(want[i]))
          << "n " << n << " i " << i;
    ASSERT_EQ(acc[n], 42.0) << n;
  }
}

// The binary16 narrowing by way of float (double -> float rounded to odd -> binary16, which the
// kernels use) gives the bits of the direct rounding (dtype.hpp's double_to_half): every binary16
// value, every midpoint between neighbours (exact ties) and its two double neighbours, values
// below float's normal range and beyond binary16's, signed zeros, infinities, NaNs with payloads,
// and random doubles over the whole exponent range.
TEST_P(SimdTarget, F16ViaRoundToOddMatchesDirectRounding) {
  std::vector<double> v;
  for (uint32_t h = 0; h < 0x7c00u; ++h) {
    for (const double sign : {1.0, -1.0}) {
      const double a = sign * half_to_float(static_cast<uint16_t>(h));
      const double b = sign * half_to_float(static_cast<uint16_t>(h + 1));
      const double mid = (a + b) / 2;  // exact in double
      v.insert(v.end(), {a, mid, std::nextafter(mid, 0.0), std::nextafter(mid, 2 * mid),
                         std::nextafter(a, b)});
    }
  }
  for (const double x : {0.0, -0.0, 65504.0, 65519.999999, 65520.0, 65536.0, 1e300, -1e300, 0x1p-25,
                         0x1.0000000000001p-25, 0x1p-126, 0x1.8p-127, 0x1p-149, 0x1p-1074,
                         -0x1p-1074, 0x1p128, 0x1.fffffffp127})
    v.push_back(x);
  for (const double x :
       {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})
    v.insert(v.end(), {x, -x});
  for (const uint64_t nan : {0x7ff0000000000001ull, 0xfff8000000001234ull, 0x7ff4000000000000ull})
    v.push_back(std::bit_cast<double>(nan));
  std::mt19937_64 rng(14);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = rng();
    const double x = std::bit_cast<double>(bits);
    // Half of them with an exponent in or near binary16's range, where rounding matters most.
    const double near = std::ldexp(1.0 + static_cast<double>(bits & 0xfffffffffffffull) * 0x1p-52,
                                   static_cast<int>((bits >> 52) % 48) - 30);
    v.push_back(i % 2 ? x : (bits >> 63 ? -near : near));
  }
  if (v.size() % 2 == 0) v.push_back(1.5);  // an odd count: the last vector takes the padded route
  std::vector<uint16_t> got(v.size());
  std::fill(got.begin(), got.end(), uint16_t{0x5555});
  simd::f64_to_f16_via_odd(v.data(), got.data(), v.size());
  int64_t bad = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t want = double_to_half(v[i]);
    if (got[i] != want && bad++ < 5)
      ADD_FAILURE() << std::hexfloat << v[i] << " -> 0x" << std::hex << got[i] << ", want 0x"
                    << want;
  }
  EXPECT_EQ(bad, 0);
}

// All 2^32 floats, every target: float -> fp16/bf16 and float -> double -> fp16/bf16 as the
// reference (label `slow`: minutes).
TEST(SimdSlow, EncodesEveryFloatOnEveryTarget) {
  constexpr size_t kChunk = size_t{1} << 16;
  std::vector<float> f(kChunk);
  std::vector<double> d(kChunk);
  std::vector<uint16_t> h(kChunk), b(kChunk), hd(kChunk), bd(kChunk);
  for (int64_t target : aclnn_test::simd_targets()) {
    const aclnn_test::ScopedSimdTarget forced(target);
    SCOPED_TRACE(simd::target_name(target));
    for (uint64_t base = 0; base < (uint64_t{1} << 32); base += kChunk) {
      for (size_t i = 0; i < kChunk; ++i)
        f[i] = std::bit_cast<float>(static_cast<uint32_t>(base + i));
      simd::f32_to_f16(f.data(), h.data(), kChunk);
      simd::f32_to_bf16(f.data(), b.data(), kChunk);
      simd::f32_to_f64(f.data(), d.data(), kChunk);
      simd::f64_to_f16(d.data(), hd.data(), kChunk);
      simd::f64_to_bf16(d.data(), bd.data(), kChunk);
      for (size_t i = 0; i < kChunk; ++i) {
        const uint16_t rh = float_to_half(f[i]), rb = float_to_bf16(f[i]);
        ASSERT_EQ(h[i], rh) << std::hexfloat << f[i];
        ASSERT_EQ(b[i], rb) << std::hexfloat << f[i];
        ASSERT_EQ(hd[i], rh) << std::hexfloat << f[i];
        ASSERT_EQ(bd[i], std::isnan(f[i]) ? (rb & 0x8000) | 0x7fc0 : rb) << std::hexfloat << f[i];
      }
    }
  }
}

TEST(Simd, CompilesThePortableFallbackAndTheX86Targets) {
  const auto targets = simd::runnable_targets();
  ASSERT_FALSE(targets.empty());
  std::vector<std::string> names;
  for (int64_t t : targets) names.push_back(simd::target_name(t));
  // The portable target (SCALAR or EMU128, as Highway's build chose) always runs.
  EXPECT_TRUE(std::find(names.begin(), names.end(), "EMU128") != names.end() ||
              std::find(names.begin(), names.end(), "SCALAR") != names.end());
}

// Streaming is chosen by size: off up to a quarter of the last-level cache, on above it (on Zen 5
// not for a compute-bound loop nor 2-byte elementwise outputs); the environment forces either way.
// The size is the one the OS reports for this CPU (sysfs where present, else CPUID's capped at 32
// MiB).
TEST(StreamOutput, ByAQuarterOfTheLastLevelCacheUnlessForced) {
  const int64_t llc = simd::last_level_cache_bytes();
  ASSERT_GT(llc, 0);
  std::ifstream sysfs("/sys/devices/system/cpu/cpu0/cache/index3/size");
  int64_t kib = 0;
  if (sysfs >> kib)
    EXPECT_EQ(llc, kib << 10);
  else  // CPUID's figure, which a VM may give for the whole host, is capped
    EXPECT_LE(llc, int64_t{32} << 20);
  EXPECT_EQ(simd::streaming_threshold_bytes(), llc / 4);
  {
    const aclnn_test::ScopedEnv by_size("ACLNN_CPU_STREAM_STORES", nullptr);
    EXPECT_FALSE(simd::stream_output(llc / 4));
    EXPECT_TRUE(simd::stream_output(llc / 4 + 1));
  }
  {
    // By size for memory-bound loops; compute-bound loops never stream, on any CPU.
    const aclnn_test::ScopedEnv by_size("ACLNN_CPU_STREAM_STORES", nullptr);
    using simd::LoopKind;
    for (LoopKind kind : {LoopKind::memory_bound, LoopKind::compute_bound}) {
      EXPECT_FALSE(simd::stream_output(llc / 4, kind));
      EXPECT_EQ(simd::stream_output(llc * 4, kind), kind == LoopKind::memory_bound)
          << static_cast<int>(kind);
    }
  }
  {
    const aclnn_test::ScopedEnv on("ACLNN_CPU_STREAM_STORES", "1");
    EXPECT_TRUE(simd::stream_output(64));
    EXPECT_TRUE(simd::stream_output(64, simd::LoopKind::compute_bound));
  }
  {
    const aclnn_test::ScopedEnv off("ACLNN_CPU_STREAM_STORES", "0");
    EXPECT_FALSE(simd::stream_output(llc * 4));
  }
}

// amd_family() is the kernel's "cpu family" of an AuthenticAMD CPU (/proc/cpuinfo), 0 elsewhere.
TEST(StreamOutput, AmdFamilyAsTheKernelReportsIt) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, vendor;
  unsigned family = 0;
  bool have_family = false;
  while (std::getline(cpuinfo, line) && !(have_family && !vendor.empty())) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || colon + 2 > line.size()) continue;
    const std::string value = line.substr(colon + 2);
    if (line.rfind("vendor_id", 0) == 0) vendor = value;
    if (line.rfind("cpu family", 0) == 0) {
      family = static_cast<unsigned>(std::stoul(value));
      have_family = true;
    }
  }
  if (!have_family) GTEST_SKIP() << "no cpu family in /proc/cpuinfo";
  EXPECT_EQ(simd::amd_family(), vendor == "AuthenticAMD" ? family : 0u);
}

// input_prefetch_bytes(): prefetchnta ahead only on AMD (8 KB with a 48 KB L1, 2 KB with less;
// on an Ice Lake Xeon the requests slowed the loop, docs/kernels.md); ACLNN_CPU_INPUT_PREFETCH
// overrides with a byte count from 0 to 1 MiB, and anything else leaves the default.
TEST(InputPrefetch, AmdOnlyByDefaultAndOverriddenByEnv) {
  int64_t expected = 0;
  if (simd::amd_family() != 0) expected = simd::l1_data_cache_bytes() >= (48 << 10) ? 8192 : 2048;
  {
    const aclnn_test::ScopedEnv unset("ACLNN_CPU_INPUT_PREFETCH", nullptr);
    EXPECT_EQ(simd::input_prefetch_bytes(), expected);
  }
  for (const auto &[value, bytes] : std::vector<std::pair<const char *, int64_t>>{
           {"0", 0}, {"4096", 4096}, {"1048576", 1 << 20}}) {
    const aclnn_test::ScopedEnv set("ACLNN_CPU_INPUT_PREFETCH", value);
    EXPECT_EQ(simd::input_prefetch_bytes(), bytes) << value;
  }
  for (const char *bad : {"", "-1", "4k", "1048577", "99999999999999999999"}) {
    const aclnn_test::ScopedEnv set("ACLNN_CPU_INPUT_PREFETCH", bad);
    EXPECT_EQ(simd::input_prefetch_bytes(), expected) << '"' << bad << '"';
  }
}

// ACLNN_CPU_TARGET caps dispatch at the named target (CTest runs this suite once more with
// ACLNN_CPU_TARGET=AVX2, see tests/CMakeLists.txt): the default target is the best runnable one no
// better than it, and forcing a target and restoring the default keeps the cap.
TEST(SimdEnvironment, TargetCeilingFromEnvironment) {
  const auto targets = simd::runnable_targets();
  ASSERT_FALSE(targets.empty());
  const char *env = std::getenv("ACLNN_CPU_TARGET");
  EXPECT_EQ(simd::current_target_name(), simd::target_name(targets.front()));
  if (env == nullptr) return;
  for (int64_t t : targets) {
    // No runnable target is better (a lower bit) than the named one, when that one exists here.
    if (simd::target_name(t) == env) EXPECT_EQ(t, targets.front());
  }
  simd::force_target(targets.back());
  simd::force_target(0);
  EXPECT_EQ(simd::current_target_name(), simd::target_name(targets.front()));
}

}  // namespace
