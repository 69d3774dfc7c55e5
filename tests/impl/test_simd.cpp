// The SIMD layer (impl/simd.hpp) on every Highway target compiled into the library that this CPU
// can run: each conversion gives exactly dtype.hpp's scalar reference, over all 2^16 16-bit
// patterns, a sampled sweep of the floats and probes around every rounding boundary, with array
// lengths that leave a partial last vector.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <vector>

#include "impl/dtype.hpp"
#include "impl/simd.hpp"

namespace {

using namespace aclnn_cpu;

class SimdTarget : public testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { simd::force_target(GetParam()); }
  void TearDown() override { simd::force_target(0); }
};

std::string param_name(const testing::TestParamInfo<int64_t> &info) {
  std::string s = simd::target_name(info.param);
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Targets, SimdTarget, testing::ValuesIn(simd::runnable_targets()),
                         param_name);

// All 65536 patterns plus 3, so that the last vector is partial on every target.
std::vector<uint16_t> all_16bit_patterns() {
  std::vector<uint16_t> v(65536 + 3);
  for (uint32_t b = 0; b < v.size(); ++b) v[b] = static_cast<uint16_t>(b);
  return v;
}

TEST_P(SimdTarget, DispatchUsesTheForcedTarget) {
  EXPECT_EQ(simd::current_target_name(), simd::target_name(GetParam()));
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

// acc += widened src, element by element, one rounded double addition each (as the scalar loop).
TEST_P(SimdTarget, AccumulatesLikeTheScalarLoop) {
  std::mt19937_64 rng(7);
  for (size_t n : {size_t{1}, size_t{7}, size_t{37}, size_t{1000}}) {
    std::vector<float> f(n);
    std::vector<uint16_t> h(n), b(n);
    std::vector<double> acc0(n);
    for (size_t i = 0; i < n; ++i) {
      f[i] = std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0xbfffffffu);  // finite
      h[i] = static_cast<uint16_t>(rng());
      b[i] = static_cast<uint16_t>(rng());
      acc0[i] = std::ldexp(static_cast<double>(rng() >> 11), -40);
    }
    std::vector<double> a1 = acc0, a2 = acc0, a3 = acc0;
    simd::accumulate_f64(1, f.data(), a1.data(), n);
    simd::accumulate_f64(2, h.data(), a2.data(), n);
    simd::accumulate_f64(3, b.data(), a3.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const auto same = [](double x, double y) {
        return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(y) ||
               (std::isnan(x) && std::isnan(y));
      };
      ASSERT_TRUE(same(a1[i], acc0[i] + static_cast<double>(f[i]))) << i;
      ASSERT_TRUE(same(a2[i], acc0[i] + static_cast<double>(half_to_float(h[i])))) << i;
      ASSERT_TRUE(same(a3[i], acc0[i] + static_cast<double>(bf16_to_float(b[i])))) << i;
    }
  }
}

// accumulate_rows_f64's documented order, written out element by element: FLOAT rows one after the
// other; 16-bit rows in blocks of eight from the first, each column's block summed in float as
// ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)) (its sequential double sum where that is not
// finite), rows after the last block one at a time.
std::vector<double> accumulate_rows_model(int kind, const unsigned char *src, size_t stride,
                                          size_t rows, std::vector<double> acc) {
  const size_t n = acc.size();
  const auto value = [&](size_t r, size_t i) {
    const unsigned char *e = src + r * stride + i * (kind == 1 ? 4 : 2);
    if (kind == 1) {
      float f;
      std::memcpy(&f, e, 4);
      return f;
    }
    uint16_t h;
    std::memcpy(&h, e, 2);
    return kind == 2 ? half_to_float(h) : bf16_to_float(h);
  };
  size_t r = 0;
  if (kind != 1)
    for (; r + 8 <= rows; r += 8)
      for (size_t i = 0; i < n; ++i) {
        float v[8];
        for (size_t k = 0; k < 8; ++k) v[k] = value(r + k, i);
        const float t = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
        double q = v[0];
        for (size_t k = 1; k < 8; ++k) q += v[k];
        acc[i] += std::isfinite(t) ? static_cast<double>(t) : q;
      }
  for (; r < rows; ++r)
    for (size_t i = 0; i < n; ++i) acc[i] += value(r, i);
  return acc;
}

// Several rows at once give the bits of the model above (FLOAT: of one row after the other), for
// row counts below, at and above a multiple of the pass and a partial last vector, with and
// without prefetching; rows are read at the given byte stride only (the gaps hold NaN patterns).
// bfloat16 rows include values near float's largest, whose float sums overflow where the exact
// sum need not (the lane then takes the double sum).
TEST_P(SimdTarget, AccumulatesRowsInTheDocumentedOrder) {
  std::mt19937_64 rng(11);
  for (int kind : {1, 2, 3}) {
    const size_t es = kind == 1 ? 4 : 2;
    for (size_t n : {size_t{1}, size_t{7}, size_t{37}, size_t{1000}}) {
      for (size_t rows : {0, 1, 3, 4, 5, 7, 8, 9, 16, 19, 24}) {
        const size_t stride = (n + 3) * es;  // gaps between rows, filled with NaN patterns
        std::vector<unsigned char> src(rows * stride + 8, 0xff);
        for (size_t r = 0; r < rows; ++r)
          for (size_t i = 0; i < n; ++i) {
            unsigned char *e = src.data() + r * stride + i * es;
            if (kind == 1) {
              const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0xbfffffffu);
              std::memcpy(e, &f, 4);
            } else {
              auto h = static_cast<uint16_t>(rng() & 0xbfff);  // finite, below 2
              if (kind == 3 && rng() % 4 == 0)  // [2^127, 2^128): finite, two overflow float
                h = static_cast<uint16_t>((h & 0x807f) | 0x7f00);
              std::memcpy(e, &h, 2);
            }
          }
        std::vector<double> acc0(n);
        for (auto &a : acc0) a = std::ldexp(static_cast<double>(rng() >> 11), -40);
        const std::vector<double> want =
            accumulate_rows_model(kind, src.data(), stride, rows, acc0);
        if (kind == 1) {  // and the model is one row after the other
          std::vector<double> one = acc0;
          for (size_t r = 0; r < rows; ++r)
            simd::accumulate_f64(kind, src.data() + r * stride, one.data(), n);
          ASSERT_EQ(one, want);
        }
        for (bool prefetch : {false, true}) {
          std::vector<double> batched = acc0;
          simd::accumulate_rows_f64(kind, src.data(), static_cast<ptrdiff_t>(stride), rows,
                                    batched.data(), n, prefetch);
          for (size_t i = 0; i < n; ++i)
            ASSERT_EQ(std::bit_cast<uint64_t>(want[i]), std::bit_cast<uint64_t>(batched[i]))
                << "kind " << kind << " n " << n << " rows " << rows << " i " << i << " prefetch "
                << prefetch << ": " << want[i] << " against " << batched[i];
        }
      }
    }
  }
}

// All 2^32 floats, every target: float -> fp16/bf16 and float -> double -> fp16/bf16 as the
// reference (label `slow`: minutes).
TEST(SimdSlow, EncodesEveryFloatOnEveryTarget) {
  constexpr size_t kChunk = size_t{1} << 16;
  std::vector<float> f(kChunk);
  std::vector<double> d(kChunk);
  std::vector<uint16_t> h(kChunk), b(kChunk), hd(kChunk), bd(kChunk);
  for (int64_t target : simd::runnable_targets()) {
    simd::force_target(target);
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
  simd::force_target(0);
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

// Streaming is chosen by size: off up to a quarter of the last-level cache, on above it; the
// environment forces either way. The size is the one the OS reports for this CPU (sysfs where
// present).
TEST(StreamOutput, ByAQuarterOfTheLastLevelCacheUnlessForced) {
  unsetenv("ACLNN_CPU_STREAM_STORES");
  const int64_t llc = simd::last_level_cache_bytes();
  ASSERT_GT(llc, 0);
  std::ifstream sysfs("/sys/devices/system/cpu/cpu0/cache/index3/size");
  int64_t kib = 0;
  if (sysfs >> kib) EXPECT_EQ(llc, kib << 10);
  EXPECT_EQ(simd::streaming_threshold_bytes(), llc / 4);
  EXPECT_FALSE(simd::stream_output(llc / 4));
  EXPECT_TRUE(simd::stream_output(llc / 4 + 1));
  setenv("ACLNN_CPU_STREAM_STORES", "1", 1);
  EXPECT_TRUE(simd::stream_output(64));
  setenv("ACLNN_CPU_STREAM_STORES", "0", 1);
  EXPECT_FALSE(simd::stream_output(llc * 4));
  unsetenv("ACLNN_CPU_STREAM_STORES");
}

}  // namespace
