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

__attribute__((target("avx2,fma"))) int64_t chain_fma256() {
  // Operands of 1.0 and accumulators from 0: normal numbers throughout (a denormal or NaN operand
  // would take a microcode assist and measure that instead).
  alignas(32) const float one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  int64_t r = 0;
  asm volatile(
      "vmovups %0, %%ymm1\n\tvmovups %0, %%ymm2\n\tvxorps %%ymm3, %%ymm3, %%ymm3\n\t"
      "vxorps %%ymm4, %%ymm4, %%ymm4\n\tvxorps %%ymm5, %%ymm5, %%ymm5\n\t"
      "vxorps %%ymm6, %%ymm6, %%ymm6" ::"m"(one)
      : "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6");
  for (int64_t i = 0; i < kSteps; ++i)
    asm volatile(
        "add $1, %0\n\tvfmadd231ps %%ymm1, %%ymm2, %%ymm3\n\t"
        "add $1, %0\n\tvfmadd231ps %%ymm1, %%ymm2, %%ymm4\n\t"
        "add $1, %0\n\tvfmadd231ps %%ymm1, %%ymm2, %%ymm5\n\t"
        "add $1, %0\n\tvfmadd231ps %%ymm1, %%ymm2, %%ymm6"
        : "+r"(r)::"xmm3", "xmm4", "xmm5", "xmm6");
  asm volatile("vzeroupper");
  return r;
}

__attribute__((target("avx512f"))) int64_t chain_fma512() {
  alignas(64) const float one[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  int64_t r = 0;
  asm volatile(
      "vmovups %0, %%zmm1\n\tvmovups %0, %%zmm2\n\tvpxord %%zmm3, %%zmm3, %%zmm3\n\t"
      "vpxord %%zmm4, %%zmm4, %%zmm4\n\tvpxord %%zmm5, %%zmm5, %%zmm5\n\t"
      "vpxord %%zmm6, %%zmm6, %%zmm6" ::"m"(one)
      : "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6");
  for (int64_t i = 0; i < kSteps; ++i)
    asm volatile(
        "add $1, %0\n\tvfmadd231ps %%zmm1, %%zmm2, %%zmm3\n\t"
        "add $1, %0\n\tvfmadd231ps %%zmm1, %%zmm2, %%zmm4\n\t"
        "add $1, %0\n\tvfmadd231ps %%zmm1, %%zmm2, %%zmm5\n\t"
        "add $1, %0\n\tvfmadd231ps %%zmm1, %%zmm2, %%zmm6"
        : "+r"(r)::"xmm3", "xmm4", "xmm5", "xmm6");
  asm volatile("vzeroupper");
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
  if (width == 256) return chain_fma256();
  if (width == 512) return chain_fma512();
  return chain_alone();
#else
  (void)width;
  return 0;
#endif
}

}  // namespace aclnn_bench
