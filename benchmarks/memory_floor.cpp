// The memory floor's loops (benchmarks/memory_floor.hpp): one function per instruction set,
// chosen at run time.
#include "memory_floor.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace aclnn_bench {
namespace {

enum class Isa { kScalar, kSse2, kAvx2, kAvx512 };

#if defined(__x86_64__)
// The CPU's widest, no better than ACLNN_CPU_TARGET's Highway target name where it is set (AVX3
// and its variants: AVX-512; AVX2; any lesser target: the SSE2 baseline).
Isa pick_isa() {
  __builtin_cpu_init();
  Isa best = __builtin_cpu_supports("avx512f") ? Isa::kAvx512
             : __builtin_cpu_supports("avx2")  ? Isa::kAvx2
                                               : Isa::kSse2;
  const char *v = std::getenv("ACLNN_CPU_TARGET");
  if (v != nullptr && *v != '\0') {
    std::string t(v);
    for (char &c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const Isa cap = t.rfind("AVX3", 0) == 0 ? Isa::kAvx512 : t == "AVX2" ? Isa::kAvx2 : Isa::kSse2;
    if (cap < best) best = cap;
  }
  return best;
}

// The element loop up to the first 64-byte aligned element (at most e): a vector load that
// straddles two lines costs two (64-byte loads from a 16-byte aligned array read 25 % slower).
inline uint32_t sum_to_aligned(const uint32_t *p, size_t &i, size_t e) {
  uint32_t s = 0;
  for (; i < e && reinterpret_cast<uintptr_t>(p + i) % 64 != 0; ++i) s += p[i];
  return s;
}

__attribute__((target("avx512f"))) uint32_t read_avx512(const uint32_t *p, size_t b, size_t e) {
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  size_t i = b;
  const uint32_t head = sum_to_aligned(p, i, e);
  for (; i + 32 <= e; i += 32) {
    s0 = _mm512_add_epi32(s0, _mm512_loadu_si512(p + i));
    s1 = _mm512_add_epi32(s1, _mm512_loadu_si512(p + i + 16));
  }
  uint32_t s = head + static_cast<uint32_t>(_mm512_reduce_add_epi32(_mm512_add_epi32(s0, s1)));
  for (; i < e; ++i) s += p[i];
  return s;
}

__attribute__((target("avx2"))) uint32_t read_avx2(const uint32_t *p, size_t b, size_t e) {
  __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
  size_t i = b;
  const uint32_t head = sum_to_aligned(p, i, e);
  for (; i + 16 <= e; i += 16) {
    s0 = _mm256_add_epi32(s0, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i)));
    s1 = _mm256_add_epi32(s1, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + i + 8)));
  }
  alignas(32) uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), _mm256_add_epi32(s0, s1));
  uint32_t s = head;
  for (uint32_t l : lanes) s += l;
  for (; i < e; ++i) s += p[i];
  return s;
}

uint32_t read_sse2(const uint32_t *p, size_t b, size_t e) {
  __m128i s0 = _mm_setzero_si128(), s1 = _mm_setzero_si128();
  size_t i = b;
  const uint32_t head = sum_to_aligned(p, i, e);
  for (; i + 8 <= e; i += 8) {
    s0 = _mm_add_epi32(s0, _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i)));
    s1 = _mm_add_epi32(s1, _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + i + 4)));
  }
  alignas(16) uint32_t lanes[4];
  _mm_store_si128(reinterpret_cast<__m128i *>(lanes), _mm_add_epi32(s0, s1));
  uint32_t s = head + lanes[0] + lanes[1] + lanes[2] + lanes[3];
  for (; i < e; ++i) s += p[i];
  return s;
}

// The element loop before the first aligned store and after the last full vector.
inline void triad_scalar(float *a, const float *x, const float *y, size_t b, size_t e) {
  for (size_t i = b; i < e; ++i) a[i] = x[i] + 3.0f * y[i];
}

// The first index from b at which a is aligned to `bytes` (at most e).
inline size_t aligned_from(const float *a, size_t b, size_t e, size_t bytes) {
  size_t i = b;
  while (i < e && reinterpret_cast<uintptr_t>(a + i) % bytes != 0) ++i;
  return i;
}

__attribute__((target("avx512f"))) void triad_avx512(float *a, const float *x, const float *y,
                                                     size_t b, size_t e, bool stream) {
  const __m512 three = _mm512_set1_ps(3.0f);
  size_t i = stream ? aligned_from(a, b, e, 64) : b;
  triad_scalar(a, x, y, b, i);
  for (; i + 16 <= e; i += 16) {
    const __m512 v =
        _mm512_add_ps(_mm512_loadu_ps(x + i), _mm512_mul_ps(three, _mm512_loadu_ps(y + i)));
    if (stream)
      _mm512_stream_ps(a + i, v);
    else
      _mm512_storeu_ps(a + i, v);
  }
  if (stream) _mm_sfence();
  triad_scalar(a, x, y, i, e);
}

__attribute__((target("avx2"))) void triad_avx2(float *a, const float *x, const float *y, size_t b,
                                                size_t e, bool stream) {
  const __m256 three = _mm256_set1_ps(3.0f);
  size_t i = stream ? aligned_from(a, b, e, 32) : b;
  triad_scalar(a, x, y, b, i);
  for (; i + 8 <= e; i += 8) {
    const __m256 v =
        _mm256_add_ps(_mm256_loadu_ps(x + i), _mm256_mul_ps(three, _mm256_loadu_ps(y + i)));
    if (stream)
      _mm256_stream_ps(a + i, v);
    else
      _mm256_storeu_ps(a + i, v);
  }
  if (stream) _mm_sfence();
  triad_scalar(a, x, y, i, e);
}

void triad_sse2(float *a, const float *x, const float *y, size_t b, size_t e, bool stream) {
  const __m128 three = _mm_set1_ps(3.0f);
  size_t i = stream ? aligned_from(a, b, e, 16) : b;
  triad_scalar(a, x, y, b, i);
  for (; i + 4 <= e; i += 4) {
    const __m128 v = _mm_add_ps(_mm_loadu_ps(x + i), _mm_mul_ps(three, _mm_loadu_ps(y + i)));
    if (stream)
      _mm_stream_ps(a + i, v);
    else
      _mm_storeu_ps(a + i, v);
  }
  if (stream) _mm_sfence();
  triad_scalar(a, x, y, i, e);
}
#else
Isa pick_isa() {
  return Isa::kScalar;
}
#endif

Isa isa() {
  static const Isa chosen = pick_isa();
  return chosen;
}

}  // namespace

const char *floor_isa() {
  switch (isa()) {
    case Isa::kAvx512:
      return "AVX-512";
    case Isa::kAvx2:
      return "AVX2";
    case Isa::kSse2:
      return "SSE2";
    default:
      return "scalar";
  }
}

uint32_t floor_read(const uint32_t *p, size_t b, size_t e) {
#if defined(__x86_64__)
  switch (isa()) {
    case Isa::kAvx512:
      return read_avx512(p, b, e);
    case Isa::kAvx2:
      return read_avx2(p, b, e);
    default:
      return read_sse2(p, b, e);
  }
#else
  uint32_t s = 0;
  for (size_t i = b; i < e; ++i) s += p[i];
  return s;
#endif
}

void floor_triad(float *a, const float *x, const float *y, size_t b, size_t e, bool stream) {
#if defined(__x86_64__)
  switch (isa()) {
    case Isa::kAvx512:
      return triad_avx512(a, x, y, b, e, stream);
    case Isa::kAvx2:
      return triad_avx2(a, x, y, b, e, stream);
    default:
      return triad_sse2(a, x, y, b, e, stream);
  }
#else
  (void)stream;
  for (size_t i = b; i < e; ++i) a[i] = x[i] + 3.0f * y[i];
#endif
}

}  // namespace aclnn_bench
