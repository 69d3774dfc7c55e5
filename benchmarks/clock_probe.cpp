// The clock probe (benchmarks/clock_probe.hpp): inline assembly, so that the compiler can neither
// shorten the add chain nor drop the FMAs.
#include "clock_probe.hpp"

namespace aclnn_bench {
namespace {

// Four adds and four FMAs per step: the adds form one chain (4 cycles per step); the FMAs four
// chains of latency 4, so they keep pace with the adds and never limit the step.
constexpr int64_t kSteps = kClockProbeAdds / 4;

#if defined(__x86_64__)
int64_t chain_alone() {
  int64_t r = 0;
  for (int64_t i = 0; i < kSteps; ++i)
    asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(r));
  return r;
}

// The whole probe in one statement, so that no code of the compiler's runs between the set-up of
// the vector registers and their use: two of 1.0 and four accumulators from 0 (normal numbers
// throughout, since a denormal or NaN operand would take a microcode assist and measure that),
// then kSteps steps, for registers R ("ymm" or "zmm"; clobbered as xmm1-6, the same registers).
// clang-format off
#define ACLNN_CLOCK_LOAD(R, SRC, N) "vmovups " SRC ", %%" R N "\n\t"
#define ACLNN_CLOCK_ADD_FMA(R, N) "add $1, %0\n\tvfmadd231ps %%" R "1, %%" R "2, %%" R N "\n\t"
#define ACLNN_CLOCK_CHAIN(R)                                                                  \
  asm volatile(                                                                               \
      ACLNN_CLOCK_LOAD(R, "%2", "1") ACLNN_CLOCK_LOAD(R, "%2", "2")                           \
      ACLNN_CLOCK_LOAD(R, "%3", "3") ACLNN_CLOCK_LOAD(R, "%3", "4")                           \
      ACLNN_CLOCK_LOAD(R, "%3", "5") ACLNN_CLOCK_LOAD(R, "%3", "6")                           \
      "1:\n\t"                                                                                \
      ACLNN_CLOCK_ADD_FMA(R, "3") ACLNN_CLOCK_ADD_FMA(R, "4")                                 \
      ACLNN_CLOCK_ADD_FMA(R, "5") ACLNN_CLOCK_ADD_FMA(R, "6")                                 \
      "dec %1\n\tjnz 1b\n\tvzeroupper"                                                        \
      : "+r"(r), "+r"(steps)                                                                  \
      : "m"(kOne), "m"(kZero)                                                                 \
      : "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "cc")
// clang-format on

// Compiled for AVX2 (the code around the assembly must run where 512-bit vectors do not); the
// 512-bit text is only reached where clock_probe_supported(512) holds.
template <int kBits>
__attribute__((target("avx2,fma"))) int64_t chain_fma() {
  alignas(64) static constexpr float kOne[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  alignas(64) static constexpr float kZero[16] = {};
  int64_t r = 0, steps = kSteps;
  if constexpr (kBits == 512)
    ACLNN_CLOCK_CHAIN("zmm");
  else
    ACLNN_CLOCK_CHAIN("ymm");
  return r;
}
#endif

}  // namespace

bool clock_probe_supported(int width) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (width == 0) return true;
  if (width == 256) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (width == 512) return __builtin_cpu_supports("avx512f");
#else
  (void)width;
#endif
  return false;
}

int64_t clock_probe(int width) {
#if defined(__x86_64__)
  if (width == 256) return chain_fma<256>();
  if (width == 512) return chain_fma<512>();
  return chain_alone();
#else
  (void)width;
  return 0;
#endif
}

}  // namespace aclnn_bench
